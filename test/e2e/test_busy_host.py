"""e2e device times on a busy host: with two busy loops per CPU beside it, `prof --sim` on the
multistream sample (built by g++, and by hipcc when present) and on the CNRT and MUSA samples at
~10,000 ops must give every kernel, copy and memset exactly the device times of the simulator's
truth file. prof takes HIP's device times from the runtime's own per-op reports
(hipInitActivityCallback), CNRT's from Cambricon's CNPAPI activity records (libcnpapi.so) and
MUSA's from MUPTI's (libmupti.so), both joined to prof's pushed external ids
(docs/design-device-timing.md), which a real device stamps itself: when the program's threads run
does not move them. Asserted on what prof recorded (every op, to the ns), never on how long
anything took.

    python3 test/e2e/test_busy_host.py --prof build/bin/prof --bin-dir build/test-bin
"""
import os
import subprocess
import tempfile
import unittest

import e2e_common as e2e

SAMPLE_ARGS = ["1024", "1000"]  # 10,001 ops: kernels, copies and memsets on several streams
CNRT_ROUNDS = "2500"  # 10,000 ops beside the sample's own 24: four per round on three queues
MUSA_ROUNDS = "2000"  # 2000 rounds of 5 ops: 10,003 ops on one stream and the null one


class BusyLoops:
    """Two busy loops per CPU, for the length of a `with` block."""

    def __enter__(self):
        count = 2 * (os.cpu_count() or 1)
        self.loops = [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(count)]
        return self

    def __exit__(self, *exc):
        for loop in self.loops:
            loop.kill()
        for loop in self.loops:
            loop.wait()


class BusyHostTest(unittest.TestCase):
    def device_times_beside_busy_loops(self, app, runtime="hip", args=SAMPLE_ARGS, stream_handles=None):
        path = e2e.built_sample(app, "(multistream_hip needs hipcc)")
        with tempfile.TemporaryDirectory(prefix=f"prof-e2e-busy-{app}-") as tmp:
            truth_path = os.path.join(tmp, "truth.jsonl")
            with BusyLoops():
                done = e2e.run_prof(["--sim", f"--{runtime}-trace", "-d", tmp, "--output-format", "stats", path, *args],
                                    cwd=tmp, env={"PROF_SIM_TRUTH": truth_path})
            self.assertEqual(done.returncode, 0, e2e.describe(done))
            dbs = e2e.find_dbs(tmp, runtime)
            self.assertEqual(len(dbs), 1, e2e.describe(done))
            truth = e2e.read_truth(truth_path)
            db = e2e.open_db(dbs[0])
            try:
                # Kinds, bytes, geometry and order per stream, and times within 1 us...
                self.assertEqual(e2e.truth_mismatches(self, db, truth, stream_handles=stream_handles), [],
                                 "device times off beside busy loops")
                # ... and in fact to the ns: every op's (begin, end) is the truth's.
                ours = sorted(tuple(row) for row in db.execute(
                    "SELECT device_begin_ns, device_end_ns FROM kernels UNION ALL "
                    "SELECT device_begin_ns, device_end_ns FROM copies"))
            finally:
                db.close()
            self.assertEqual(len(ours), len(truth))
            self.assertEqual(ours, sorted((op["begin_ns"], op["end_ns"]) for op in truth))
            return len(ours)

    def test_multistream_device_times_are_the_truths(self):
        self.device_times_beside_busy_loops("multistream")

    def test_hipcc_built_multistream_device_times_are_the_truths(self):
        self.device_times_beside_busy_loops("multistream_hip")

    def test_cnrt_sample_device_times_are_the_truths(self):
        # The model numbers the per-thread queue 2 (HIP's number); CNRT's program says 1 (test_cnrt.py).
        ops = self.device_times_beside_busy_loops("cnrt_sample", "cnrt", [CNRT_ROUNDS], stream_handles={2: 1})
        self.assertGreaterEqual(ops, 4 * int(CNRT_ROUNDS))

    def test_musa_sample_device_times_are_the_truths(self):
        # As test_musa.py matches MUSA's truth: the model's stream handles are the program's.
        ops = self.device_times_beside_busy_loops("musa_sample", "musa", [MUSA_ROUNDS])
        self.assertGreaterEqual(ops, 5 * int(MUSA_ROUNDS))


if __name__ == "__main__":
    e2e.main()
