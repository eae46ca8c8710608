"""e2e: processes that outlive the launched program. prof waits for them (--wait-timeout, default
30 s) so that a daemon's or a background job's calls are in its database; a process still running
at the limit is named on stderr and its database says it is incomplete, and prof returns
promptly.

    python3 test/e2e/test_daemons.py --prof build/bin/prof --bin-dir build/test-bin
"""
import os
import signal
import tempfile
import unittest

import e2e_common as e2e


def read_pid(path):
    """The pid a sample's child wrote before its first call: by the time prof has recorded a call
    of that child (and it returned), the file is there."""
    if not os.path.exists(path):
        raise AssertionError(f"{path} is missing: the child never started")
    with open(path) as stream:
        return int(stream.read())


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stream:
        return stream.read().rsplit(")", 1)[1].split()[0] != "Z"


class DaemonsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.app = e2e.built_sample("daemon")

    def calls_in(self, tmp, pid):
        path = os.path.join(tmp, f"hip-prof-{pid}.db")
        self.assertTrue(os.path.isfile(path), f"no {path}: {os.listdir(tmp)}")
        db = e2e.open_db(path)
        try:
            drops = dict(db.execute("SELECT cause, count FROM drops").fetchall())
            incomplete = db.execute("SELECT value FROM meta WHERE key = 'incomplete'").fetchone()
            return e2e.scalar(db, "SELECT COUNT(*) FROM api_calls"), drops, incomplete
        finally:
            db.close()

    def test_daemon_calls_are_recorded(self):
        if "ASAN_OPTIONS" in os.environ:
            # gcc 12's libasan does not lock its allocator around fork(): a program that forks
            # while its other threads (the simulator's workers, prof's harvester) allocate can hand
            # the child a size class locked forever, and the daemon (fork without exec) then hangs
            # in its leak check at exit. Seen in CI: every thread of the daemon waiting on one
            # allocator mutex that no thread of it holds. The normal build runs this test.
            self.skipTest("fork without exec from a threaded program under ASan (libasan not fork-safe)")
        with tempfile.TemporaryDirectory(prefix="prof-e2e-daemon-") as tmp:
            pidfile = os.path.join(tmp, "daemon.pid")
            # A limit well above the default: on a loaded machine under ASan a daemon's exit (the leak
            # check) was once seen to take longer than the 30 s default; the test is about waiting at all.
            done = e2e.run_prof(["--sim", "--wait-timeout", "120", "-d", tmp, self.app, "daemon", "2000", pidfile],
                                cwd=tmp)
            self.assertEqual(done.returncode, 0, e2e.describe(done))
            calls, drops, incomplete = self.calls_in(tmp, read_pid(pidfile))
            self.assertEqual(calls, 2000, e2e.describe(done))
            self.assertEqual(drops, {})
            self.assertIsNone(incomplete)

    def test_background_job_of_a_script_is_recorded(self):
        exit_status = e2e.sample("exit_status")
        with tempfile.TemporaryDirectory(prefix="prof-e2e-background-") as tmp:
            done = e2e.run_prof(["--sim", "-d", tmp, "bash", "-c", f"(sleep 1; '{exit_status}' 0) &"], cwd=tmp)
            self.assertEqual(done.returncode, 0, e2e.describe(done))
            self.assertIn("EXPECT api_calls=5", done.stdout, e2e.describe(done))
            dbs = [f for f in os.listdir(tmp) if f.endswith(".db")]
            self.assertEqual(len(dbs), 1, os.listdir(tmp))
            calls, drops, _ = self.calls_in(tmp, int(dbs[0].split("-")[-1].split(".")[0]))
            self.assertEqual((calls, drops), (5, {}))

    def test_a_process_outliving_the_limit_is_named_and_marked_incomplete(self):
        # The child makes calls for 600 s, longer than any run of this test: prof returning while
        # it still runs is prof having stopped waiting at the limit, whatever the machine's load.
        # (How soon after the limit prof returns is a benchmark: scripts/bench.sh --only timing.)
        with tempfile.TemporaryDirectory(prefix="prof-e2e-linger-") as tmp:
            pidfile = os.path.join(tmp, "linger.pid")
            done = e2e.run_prof(["--sim", "--wait-timeout", "1", "-d", tmp, self.app, "linger", "600", pidfile], cwd=tmp)
            pid = read_pid(pidfile)
            try:
                self.assertTrue(alive(pid), "prof returned only after the child had ended" + e2e.describe(done))
                self.assertEqual(done.returncode, 0, e2e.describe(done))
                self.assertIn(f"prof: process {pid} (daemon) still running", done.stderr)
                calls, drops, incomplete = self.calls_in(tmp, pid)
                self.assertGreater(calls, 0)
                self.assertEqual(drops.get("process_still_running_at_stop"), 1)
                self.assertIsNotNone(incomplete)
                self.assertIn("process_still_running_at_stop", done.stdout, "the summary shows it")
            finally:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass


if __name__ == "__main__":
    e2e.main()
