"""e2e: a signal reaches the program once however it was sent (to prof's pid, to prof's process
group, by `timeout`, from a terminal), and prof's own output into a closed pipe ends only its
summary: every database and report is written and prof exits with the program's status.

    python3 test/e2e/test_signals.py --prof build/bin/prof --bin-dir build/test-bin
"""
import os
import pty
import re
import select
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

import e2e_common as e2e


def counts(stdout):
    match = re.search(r"SIGINT (\d+) SIGTERM (\d+)$", stdout, re.MULTILINE)  # after a terminal's ^C echo
    if not match:
        raise AssertionError("the sample printed no counts:\n" + stdout)
    return int(match.group(1)), int(match.group(2))


class SignalsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.app = e2e.built_sample("sigcount")

    def start(self, tmp, **popen):
        proc = subprocess.Popen([e2e.Config.prof, "--sim", "-d", tmp, self.app], cwd=tmp, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, **popen)
        head = proc.stdout.readline()
        self.assertEqual(head, "READY\n", proc.stderr.read() if not head else head)
        return proc

    def finish(self, proc):
        out, err = proc.communicate(timeout=e2e.TIMEOUT_S)
        return proc.returncode, out, err

    def test_to_the_process_group_once(self):
        # prof as a shell starts a job: leader of its own process group; `kill -TERM -PGID`.
        with tempfile.TemporaryDirectory(prefix="prof-e2e-sig-group-") as tmp:
            proc = self.start(tmp, start_new_session=True)
            os.killpg(proc.pid, signal.SIGTERM)
            status, out, err = self.finish(proc)
            self.assertEqual(status, 0, err)
            self.assertEqual(counts(out), (0, 1), out)

    def terminate_prof(self, prefix):
        """SIGTERM to prof's pid once the sample is ready: the sample must take it once and exit 0.
        Returns its stdout."""
        with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
            proc = self.start(tmp)
            proc.send_signal(signal.SIGTERM)
            status, out, err = self.finish(proc)
            self.assertEqual(status, 0, err)
            self.assertEqual(counts(out), (0, 1), out)
            return out

    def test_to_prof_once(self):
        self.terminate_prof("prof-e2e-sig-pid-")

    def test_threads_started_in_the_program_are_born_quiet(self):
        # Every thread prof's library and the simulated runtime start in the program (the harvester,
        # stream workers) is created with the signals blocked: one able to take SIGTERM even for an
        # instant could take the one the program blocked to sigwait it, and the default action
        # would end the program. The sample's own pthread_create sees each creator's mask.
        out = self.terminate_prof("prof-e2e-sig-quiet-")
        match = re.search(r"^THREADS (\d+) BORN_UNQUIET (\d+)$", out, re.MULTILINE)
        self.assertIsNotNone(match, out)
        # Its waiter, the harvester and the simulated device's stream workers.
        self.assertGreaterEqual(int(match.group(1)), 3, out)
        self.assertEqual(int(match.group(2)), 0, out)

    def test_timeout_once(self):
        # timeout signals its child (prof), then its own process group (prof again).
        if shutil.which("timeout") is None:
            self.skipTest("no timeout(1)")
        with tempfile.TemporaryDirectory(prefix="prof-e2e-sig-timeout-") as tmp:
            done = subprocess.run(["timeout", "-s", "TERM", "1", e2e.Config.prof, "--sim", "-d", tmp, self.app],
                                  cwd=tmp, capture_output=True, text=True, timeout=e2e.TIMEOUT_S)
            self.assertEqual(counts(done.stdout), (0, 1), done.stdout + done.stderr)

    def test_terminal_ctrl_c_once(self):
        # prof in the foreground of a terminal (a pty): Ctrl-C goes to the foreground group.
        with tempfile.TemporaryDirectory(prefix="prof-e2e-sig-tty-") as tmp:
            pid, fd = pty.fork()
            if pid == 0:
                os.chdir(tmp)
                os.execv(e2e.Config.prof, [e2e.Config.prof, "--sim", "-d", tmp, self.app])
            output = b""
            deadline = time.monotonic() + e2e.TIMEOUT_S  # wall-clock: hang guard
            sent = False
            while time.monotonic() < deadline:  # wall-clock: hang guard
                ready, _, _ = select.select([fd], [], [], 0.1)
                if ready:
                    try:
                        chunk = os.read(fd, 4096)
                    except OSError:
                        break
                    if not chunk:
                        break
                    output += chunk
                if not sent and b"READY" in output:
                    os.write(fd, b"\x03")
                    sent = True
            _, status = os.waitpid(pid, 0)
            os.close(fd)
            text = output.decode(errors="replace").replace("\r\n", "\n")
            self.assertTrue(sent, text)
            self.assertEqual(os.waitstatus_to_exitcode(status), 0, text)
            self.assertEqual(counts(text), (1, 0), text)

    def test_closed_pipe_ends_only_the_summary(self):
        exit_status = e2e.sample("exit_status")
        if not os.access(exit_status, os.X_OK):
            self.skipTest("exit_status sample not built")
        with tempfile.TemporaryDirectory(prefix="prof-e2e-sig-pipe-") as tmp:
            # Two processes, so a second summary is still to come when the pipe closes.
            # Only one program line reaches the pipe: the program itself must not meet the closed pipe.
            script = f"{exit_status} 0 >/dev/null & {exit_status} 3; code=$?; wait; exit $code"
            done = subprocess.run(["bash", "-c", f"'{e2e.Config.prof}' --sim -d '{tmp}' bash -c '{script}' | head -1;"
                                   " echo \"PROF_STATUS ${PIPESTATUS[0]}\""], cwd=tmp, capture_output=True, text=True,
                                  timeout=e2e.TIMEOUT_S)
            status = re.search(r"^PROF_STATUS (\d+)$", done.stdout, re.MULTILINE)
            self.assertIsNotNone(status, done.stdout + done.stderr)
            self.assertEqual(int(status.group(1)), 3, done.stdout + done.stderr)
            dbs = sorted(f for f in os.listdir(tmp) if f.endswith(".db"))
            self.assertEqual(len(dbs), 2, os.listdir(tmp))
            for db_name in dbs:
                pid = int(re.match(r"hip-prof-(\d+)\.db$", db_name).group(1))
                for path in e2e.output_paths(tmp, pid).values():
                    self.assertTrue(os.path.isfile(path), f"{path} missing: {os.listdir(tmp)}")
                db = e2e.open_db(os.path.join(tmp, db_name))
                try:
                    self.assertEqual(e2e.scalar(db, "SELECT COUNT(*) FROM api_calls"), 5)
                finally:
                    db.close()


if __name__ == "__main__":
    e2e.main()
