"""e2e: HIP beyond the basics (issue 12). The hip_coverage sample (device attributes, occupancy,
memory info, pointer attributes, hiprtc + hipModuleLoadData + hipModuleLaunchKernel,
hipMallocAsync/hipFreeAsync, hipMemcpyWithStream, hipMemsetD32Async, a device global through
hipMemcpyToSymbol/FromSymbol, peer access and hipMemcpyPeerAsync) runs under `prof --sim` with
the same output and status as without prof, every call is recorded, and each kernel, copy and
memset has device times within 1 us of the simulated device's truth. A hipcc-built program that
uses __device__ globals, attributes and occupancy starts and finishes under `prof --sim` (before
the simulated runtime exported every function it stopped with "undefined symbol").

    python3 test/e2e/test_hip_coverage.py --prof build/bin/prof --bin-dir build/test-bin --sim-dir build/lib/prof/sim
"""
import os
import tempfile
import unittest

import e2e_common as e2e

APP = "hip_coverage"


class HipCoverageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        e2e.profile_sample(cls, APP, "hip")

    def test_same_output_and_status_as_without_prof(self):
        self.assertEqual(self.direct.returncode, 0, e2e.describe(self.direct))
        self.assertEqual(self.profiled.returncode, 0, e2e.describe(self.profiled))
        self.assertEqual(e2e.normalise_sample_output(e2e.program_stdout(self.profiled.stdout)),
                         e2e.normalise_sample_output(e2e.program_stdout(self.direct.stdout)))

    def test_every_call_recorded(self):
        self.assertEqual(e2e.scalar(self.db, "SELECT COUNT(*) FROM api_calls"), self.expect["api_calls"])
        names = {row[0] for row in self.db.execute("SELECT n.name FROM api_calls c JOIN api_names n USING (api_id)")}
        for name in ("hipModuleLaunchKernel", "hipMemcpyWithStream", "hipMemsetD32Async", "hipMallocAsync",
                     "hipFreeAsync", "hipMemcpyToSymbol", "hipMemcpyFromSymbol", "hipMemcpyPeerAsync",
                     "hipDeviceGetAttribute", "hipModuleOccupancyMaxActiveBlocksPerMultiprocessor",
                     "hiprtcCompileProgram", "hipPointerGetAttributes", "__hipRegisterVar"):
            self.assertIn(name, names)
        self.assertEqual(e2e.scalar(self.db, "SELECT COUNT(*) FROM kernels"), self.expect["kernels"])
        self.assertEqual(e2e.scalar(self.db, "SELECT COUNT(*) FROM copies"), self.expect["copies"])
        kernel = e2e.scalar(self.db, "SELECT s.value FROM kernels k JOIN strings s ON s.string_id = k.name_id")
        self.assertEqual(kernel, "saxpy", "a module kernel is named as the program asked for it")

    def test_device_times_match_the_truth(self):
        truth = e2e.read_truth(self.truth_path)
        self.assertEqual(len(truth), self.expect["kernels"] + self.expect["copies"])

        def mismatches(db, path):
            # The peer copy is checked for kind, bytes and direction but held only to its own
            # slice: the simulator enqueues a peer copy about 2 us into the call (it resolves
            # both devices first), after the marker prof placed before the call, so on an idle
            # stream prof's begin is that much early (docs/sim.md).
            off = e2e.truth_mismatches(self, db, e2e.read_truth(path))
            return [line for line in off if not line.startswith("copy P2P") or "device_end_ns" in line]

        off = e2e.truth_matches_in_one_of_three(self, "hip", APP, mismatches(self.db, self.truth_path), mismatches)
        self.assertEqual(off, [], "device times vs the simulated device's truth")

    def test_hipcc_program_using_globals_attributes_and_occupancy_runs(self):
        if "ASAN_OPTIONS" in os.environ:
            # As for multistream_hip (scripts/test-sanitizers.sh): a program hipcc built cannot
            # carry the instrumentation, so it cannot load the instrumented simulator.
            self.skipTest("hipcc-built programs do not run on the sanitizer build's simulator")
        app = e2e.built_sample("hipcc_extras")
        with tempfile.TemporaryDirectory(prefix="prof-e2e-hipcc-extras-") as tmp:
            direct = e2e.run_on_sim([app], cwd=tmp)
            profiled = e2e.run_prof(["--sim", "-d", tmp, app], cwd=tmp)
        for done in (direct, profiled):
            self.assertEqual(done.returncode, 0, e2e.describe(done))
            self.assertNotIn("undefined symbol", done.stderr)
        self.assertEqual(e2e.normalise_sample_output(e2e.program_stdout(profiled.stdout)),
                         e2e.normalise_sample_output(e2e.program_stdout(direct.stdout)))


if __name__ == "__main__":
    e2e.main()
