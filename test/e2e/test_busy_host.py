"""e2e device times on a busy host: with two busy loops per CPU beside it, `prof --sim` on the
multistream sample (built by g++, and by hipcc when present) and on the C MUSA sample must give
every kernel, copy and memset exactly the device times of the simulator's truth file. prof takes
HIP's device times from the runtime's own per-op reports (hipInitActivityCallback), MUSA's from
MUPTI's activity records joined to prof's pushed external ids (docs/design-device-timing.md), which
a real device stamps itself: when the program's threads run does not move them. Asserted on what
prof recorded (every op, to the ns), never on how long anything took.

    python3 test/e2e/test_busy_host.py --prof build/bin/prof --bin-dir build/test-bin
"""
import os
import subprocess
import tempfile
import unittest

import e2e_common as e2e

SAMPLE_ARGS = ["1024", "1000"]  # 10,001 ops: kernels, copies and memsets on several streams
MUSA_SAMPLE_ARGS = ["2000"]  # 2000 rounds of 5 ops and 3 blocking ones: 10,003 ops on one stream and the null one


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
    def device_times_beside_busy_loops(self, app, runtime="hip", trace=("--hip-trace",), args=SAMPLE_ARGS):
        path = e2e.built_sample(app, "(multistream_hip needs hipcc)")
        with tempfile.TemporaryDirectory(prefix=f"prof-e2e-busy-{app}-") as tmp:
            truth_path = os.path.join(tmp, "truth.jsonl")
            with BusyLoops():
                done = e2e.run_prof(["--sim", *trace, "-d", tmp, "--output-format", "stats", path, *args],
                                    cwd=tmp, env={"PROF_SIM_TRUTH": truth_path})
            self.assertEqual(done.returncode, 0, e2e.describe(done))
            dbs = e2e.find_dbs(tmp, runtime)
            self.assertEqual(len(dbs), 1, e2e.describe(done))
            truth = e2e.read_truth(truth_path)
            db = e2e.open_db(dbs[0])
            try:
                # Kinds, bytes, geometry and order per stream, and times within 1 us...
                self.assertEqual(e2e.truth_mismatches(self, db, truth), [], "device times off beside busy loops")
                # ... and in fact to the ns: every op's (begin, end) is the truth's.
                ours = sorted(tuple(row) for row in db.execute(
                    "SELECT device_begin_ns, device_end_ns FROM kernels UNION ALL "
                    "SELECT device_begin_ns, device_end_ns FROM copies"))
            finally:
                db.close()
            self.assertEqual(len(ours), len(truth))
            self.assertEqual(ours, sorted((op["begin_ns"], op["end_ns"]) for op in truth))

    def test_multistream_device_times_are_the_truths(self):
        self.device_times_beside_busy_loops("multistream")

    def test_hipcc_built_multistream_device_times_are_the_truths(self):
        self.device_times_beside_busy_loops("multistream_hip")

    def test_musa_sample_device_times_are_the_truths(self):
        # As test_musa.py matches MUSA's truth: the model's stream handles are the program's.
        self.device_times_beside_busy_loops("musa_sample", runtime="musa", trace=("--musa-trace",),
                                            args=MUSA_SAMPLE_ARGS)


if __name__ == "__main__":
    e2e.main()
