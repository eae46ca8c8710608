"""e2e: a program that idles under prof is not woken by it, and the work after the idle is timed in
full. The idle sample (test/apps/idle.cpp) times 100 kernels, sleeps 500 ms with nothing in flight
counting its process's context switches (every thread's: its own, the simulated device's, prof's
harvester), then launches 20,000 kernels back to back. Polling every 2 ms, prof's harvester alone
made about 240 switches in those 500 ms, and the simulator's two idle stream workers about 1,450.
Before its queue grew, a harvester held off the CPU during the burst lost 10-40% of its device
times in half the runs.

    python3 test/e2e/test_idle.py --prof build/bin/prof --bin-dir build/test-bin
"""
import re
import tempfile
import unittest

import e2e_common as e2e

# What a sleeping process makes on its own is a few; one poller at 2 ms makes 250.
MAX_IDLE_SWITCHES = 50


def idle_switches(done):
    match = re.search(r"^IDLE_SWITCHES (\d+)$", done.stdout, re.MULTILINE)
    if not match:
        raise AssertionError("the sample printed no IDLE_SWITCHES line:\n" + e2e.describe(done))
    return int(match.group(1))


class IdleTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.app = e2e.built_sample("idle")
        cls.tmp = tempfile.TemporaryDirectory(prefix="prof-e2e-idle-")
        cls.plain = e2e.run_on_sim([cls.app], cwd=cls.tmp.name)
        cls.profiled = e2e.run_prof(["--sim", "-d", cls.tmp.name, cls.app], cwd=cls.tmp.name)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_the_simulated_device_sleeps_when_idle(self):
        self.assertEqual(self.plain.returncode, 0, e2e.describe(self.plain))
        self.assertLessEqual(idle_switches(self.plain), MAX_IDLE_SWITCHES, self.plain.stdout)

    def test_prof_sleeps_when_the_program_idles(self):
        self.assertEqual(self.profiled.returncode, 0, e2e.describe(self.profiled))
        self.assertLessEqual(idle_switches(self.profiled), MAX_IDLE_SWITCHES, self.profiled.stdout)

    def test_the_burst_after_the_idle_is_timed_in_full(self):
        expect = e2e.parse_expect(self.profiled.stdout)
        dbs = e2e.find_dbs(self.tmp.name)
        self.assertEqual(len(dbs), 1, e2e.describe(self.profiled))
        db = e2e.open_db(dbs[0])
        try:
            self.assertEqual(e2e.scalar(db, "SELECT COUNT(*) FROM kernels"), expect["kernels"])
            self.assertEqual(e2e.scalar(db, "SELECT COUNT(*) FROM kernels WHERE device_begin_ns IS NOT NULL"),
                             expect["kernels"], "every kernel has device times")
        finally:
            db.close()


if __name__ == "__main__":
    e2e.main()
