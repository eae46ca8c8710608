"""e2e one event per launch boundary: the boundary sample (test/apps/boundary.cpp) launches kernels
back to back on one stream, where prof takes the end event of the previous launch as the next
one's begin, and between two launches of one thread makes the stream wait for a long kernel
elsewhere, then lets another thread put a long kernel on the stream. Every kernel's device times
must match the simulator's truth: a begin borrowed across either would be milliseconds early.

    python3 test/e2e/test_boundary.py --prof build/bin/prof --bin-dir build/test-bin
"""
import os
import tempfile
import unittest

import e2e_common as e2e

# A borrowed begin across the wait or the other thread's kernel would be 4 ms early; the 1 us
# accuracy of ordinary ops is e2e:multistream's to hold (this test runs threads whose first calls
# are cold), so this one allows 100 us and stays robust on a loaded host.
e2e.TOLERANCE_NS = 100_000
# Borrowed begins are how events time HIP: by default prof takes HIP's device times from the
# runtime's own reports (no events at all), so this test asks for the event path.
os.environ["PROF_DEVICE_ACTIVITY"] = "0"


class BoundaryTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        e2e.plain_and_profiled(cls, "boundary")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_same_output_and_status(self):
        self.assertEqual(self.plain.returncode, 0, e2e.describe(self.plain))
        self.assertEqual(self.profiled.returncode, 0, e2e.describe(self.profiled))
        self.assertEqual(e2e.program_stdout(self.profiled.stdout), e2e.program_stdout(self.plain.stdout))

    def timing_misses(self, db, truth_path):
        """What is wrong in the run whose db and truth file these are: the scenarios the sample
        did not build, then the kernels whose device times are off."""
        expect = e2e.parse_expect(self.plain.stdout)
        truth = e2e.read_truth(truth_path)
        self.assertEqual(len(truth), expect["kernels"], "kernels in the truth file")
        self.assertEqual(e2e.scalar(db, "SELECT COUNT(*) FROM kernels WHERE device_begin_ns IS NOT NULL"),
                         expect["kernels"], "every kernel has device times")
        # The sample is built so that a borrowed begin across the wait or the other thread's kernel
        # is milliseconds off: the second launch of each pair starts when the long kernel ends.
        # That takes the program's thread to make its launch within the 4 ms kernel, which a
        # thread held off the CPU of a loaded host does not always do: such a run does not test a
        # borrowed begin, and counts as a miss like an op a few us off.
        waited = [op for op in truth if op["kind"] == "kernel" and op["grid"] == [4, 1, 1]]
        longs = [op for op in truth if op["grid"] == [16384, 1, 1]]
        self.assertEqual(len(longs), 2)
        missing = [f"scenario {name} not built in this run" for name, long in (("(a) waits for the long kernel", longs[0]),
                                                                             ("(b) queues behind it", longs[1]))
                   if not any(op["begin_ns"] == long["end_ns"] for op in waited)]
        return missing + e2e.truth_mismatches(self, db, truth)

    def test_device_times_match_the_truth(self):
        self.assertIsNotNone(self.db_path, e2e.describe(self.profiled))
        db = e2e.open_db(self.db_path)
        try:
            off = self.timing_misses(db, self.truth_path)
        finally:
            db.close()
        # In this run or one of two fresh ones: CI's sanitizer stage saw one kernel end 1.06 ms late
        # (past that stage's 1 ms tolerance), the program's threads descheduled under load; and a
        # thread held off the CPU for 4 ms leaves a scenario unbuilt. A borrowed begin, what this
        # test is for, is wrong in every run that builds the scenarios.
        off = e2e.truth_matches_in_one_of_three(self, "hip", "boundary", off, self.timing_misses)
        self.assertEqual(off, [], f"in three runs: a scenario not built or device times further than {e2e.TOLERANCE_NS} ns")


if __name__ == "__main__":
    e2e.main()
