"""e2e (issue 42): HIP calls a signal handler makes while it interrupts a HIP call are counted.
prof cannot record them (the interrupted hook's ring is mid-write: they pass through unchanged),
so the db's drops say how many (`calls_inside_a_traced_call`) and the summary prints it; recorded
calls plus that count are exactly the calls the program made.

    python3 test/e2e/test_signal_calls.py --prof build/bin/prof --bin-dir build/test-bin --sim-dir build/lib/prof/sim

The sample is test/apps/signal_calls.cpp: it signals its main thread while that thread sleeps
inside hipStreamSynchronize (seen in /proc, not timed), and the handler calls hipGetDevice.
"""
import os
import shutil
import tempfile
import unittest

import e2e_common as e2e


class SignalCallsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.app = e2e.built_sample("signal_calls")
        cls.tmp = tempfile.mkdtemp(prefix="prof-e2e-signal-calls-")
        cls.addClassCleanup(shutil.rmtree, cls.tmp, True)

    def test_calls_of_a_handler_inside_a_call_are_counted(self):
        plain = e2e.run_on_sim([self.app], cwd=self.tmp)
        self.assertEqual(plain.returncode, 0, e2e.describe(plain))
        out = tempfile.mkdtemp(dir=self.tmp)
        done = e2e.run_prof(["--sim", "-d", out, self.app], cwd=out)
        self.assertEqual(done.returncode, 0, e2e.describe(done))
        self.assertEqual(e2e.normalise_sample_output(e2e.program_stdout(done.stdout)),
                         e2e.normalise_sample_output(e2e.program_stdout(plain.stdout)))
        expect = e2e.parse_expect(done.stdout)
        db = e2e.open_db(os.path.join(out, f"hip-prof-{e2e.parse_pid(done.stdout)}.db"))
        self.addCleanup(db.close)
        recorded = e2e.scalar(db, "SELECT COUNT(*) FROM api_calls")
        nested = e2e.scalar(db, "SELECT COALESCE(SUM(count), 0) FROM drops WHERE cause = 'calls_inside_a_traced_call'")
        self.assertEqual(recorded + nested, expect["api_calls"], e2e.describe(done))
        # Each round's signal is sent while the main thread sleeps inside hipStreamSynchronize (a
        # 100 ms kernel); one that came after the call returned would be recorded, and is in the sum.
        self.assertGreaterEqual(nested, 1, e2e.describe(done))
        self.assertLessEqual(nested, expect["handler_calls"], e2e.describe(done))
        self.assertIn("calls_inside_a_traced_call", done.stdout + done.stderr)


if __name__ == "__main__":
    e2e.main()
