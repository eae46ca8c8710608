"""e2e (issue 42): HIP calls a signal handler makes while it interrupts a HIP call are counted.
prof cannot record them (the interrupted hook's ring is mid-write: they pass through unchanged),
so the db's drops say how many (`calls_inside_a_traced_call`) and the summary prints it; recorded
calls plus that count are exactly the calls the program made.

    python3 test/e2e/test_signal_calls.py --prof build/bin/prof --bin-dir build/test-bin --sim-dir build/lib/prof/sim

The sample is test/apps/signal_calls.cpp: it signals its main thread while that thread sleeps
inside hipStreamSynchronize (seen in /proc, not timed), and the handler calls hipGetDevice.
"""
import unittest

import e2e_common as e2e


class SignalCallsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        e2e.profile_sample(cls, "signal_calls", "hip")

    def test_calls_of_a_handler_inside_a_call_are_counted(self):
        done = self.profiled
        self.assertEqual(self.direct.returncode, 0, e2e.describe(self.direct))
        self.assertEqual(done.returncode, 0, e2e.describe(done))
        self.assertEqual(e2e.normalise_sample_output(e2e.program_stdout(done.stdout)),
                         e2e.normalise_sample_output(e2e.program_stdout(self.direct.stdout)))
        recorded = e2e.scalar(self.db, "SELECT COUNT(*) FROM api_calls")
        nested = e2e.scalar(self.db,
                            "SELECT COALESCE(SUM(count), 0) FROM drops WHERE cause = 'calls_inside_a_traced_call'")
        self.assertEqual(recorded + nested, self.expect["api_calls"], e2e.describe(done))
        # Each round's signal is sent while the main thread sleeps inside hipStreamSynchronize (a
        # 100 ms kernel); one that came after the call returned would be recorded, and is in the sum.
        self.assertGreaterEqual(nested, 1, e2e.describe(done))
        self.assertLessEqual(nested, self.expect["handler_calls"], e2e.describe(done))
        self.assertIn("calls_inside_a_traced_call", done.stdout + done.stderr)


if __name__ == "__main__":
    e2e.main()
