"""prof itself killed: SIGKILL and SIGTERM at several moments, then `prof --recover`.

    python3 test/e2e/test_recover.py --prof build/bin/prof --bin-dir build/test-bin

The sample (test/apps/prof_killed.cpp) makes CALLS_BEFORE hipStreamQuery calls, says READY, waits
for a line on stdin, makes CALLS_AFTER more and prints `EXPECT api_calls=N`. Each scenario runs in
its own mount namespace with a private /dev/shm (unshare -m), so the runs it orphans on purpose are
invisible to the tests running beside it, and `prof --recover` without arguments finds only its own.
After every scenario nothing of the run is left in /dev/shm or in the output directory.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import e2e_common as e2e

RING_RECORDS = 65536  # the default ring (4 MiB of 64-byte records)


def fail(message):
    raise AssertionError(message)


class Scenario:
    """One run of the sample under prof, driven from inside the private namespace."""

    def __init__(self, prof, app, out, before, after, env=None, threads=1):
        self.prof, self.out = prof, out
        merged = dict(os.environ)
        merged.pop("PROF_SIM_TRUTH", None)
        merged.update(env or {})
        self.proc = subprocess.Popen([prof, "--sim", "-d", out, app, str(before), str(after), str(threads)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, env=merged)
        ready = self.proc.stdout.readline()
        if not ready.startswith("READY "):
            fail(f"the sample did not start under prof: {ready!r} {self.proc.stderr.read()}")
        self.pid = int(ready.split()[1])

    def release_program(self):
        """Lets the program make its second phase of calls; returns its remaining stdout."""
        self.proc.stdin.write("go\n")
        self.proc.stdin.flush()
        self.proc.stdin.close()
        return self.proc.stdout.readline()

    def wait_for_stderr(self, text):
        line = self.proc.stderr.readline()
        if text not in line:
            fail(f"expected {text!r} on prof's stderr, got {line!r}")

    def program_gone(self):
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return True
        with open(f"/proc/{self.pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"


def run(command, env=None):
    merged = dict(os.environ)
    merged.pop("PROF_SIM_TRUTH", None)
    merged.update(env or {})
    return subprocess.run(command, capture_output=True, text=True, timeout=120, env=merged)


def check_recovered(out, pid, expected_calls, dropped=0):
    """The db of process `pid` holds exactly `expected_calls` calls (or that many less `dropped`,
    counted as drops; None: any number), numbered 1..N, its reports are there, and no journal is
    left."""
    db_path = os.path.join(out, f"hip-prof-{pid}.db")
    if not os.path.exists(db_path):
        fail(f"no database {db_path}: {sorted(os.listdir(out))}")
    db = e2e.open_db(db_path)
    try:
        calls, numbered, low, high = db.execute(
            "SELECT COUNT(*), COUNT(sequence), MIN(sequence), MAX(sequence) FROM api_calls").fetchone()
        drops = dict(db.execute("SELECT cause, count FROM drops").fetchall())
        end = db.execute("SELECT value FROM meta WHERE key = 'end_ns'").fetchone()
    finally:
        db.close()
    counted = drops.get("ring_full_records", 0)
    if calls + counted != expected_calls or (dropped is not None and counted != dropped):
        fail(f"{db_path}: {calls} calls + drops {drops}, expected {expected_calls} with {dropped} dropped")
    if (numbered, low, high) != (calls, 1, calls):
        fail(f"{db_path}: sequence numbers {numbered} in {low}..{high} for {calls} calls")
    if end is None:
        fail(f"{db_path}: not finished (no end_ns)")
    for suffix in (".hiptrace.csv", ".kernel.csv", "_copy.json", ".summary.json"):
        path = os.path.join(out, f"result_{pid}{suffix}")
        if suffix == "_copy.json" and not os.path.exists(path):
            path = os.path.join(out, f"result_{pid}_copy.1.json")  # a timeline split into parts
        if not os.path.exists(path):
            fail(f"report {path} missing after recovery: {sorted(os.listdir(out))}")
    check_no_leftovers(out)


def check_no_leftovers(out):
    hidden = [n for n in os.listdir(out) if n.startswith(".") or n.endswith(("-journal", ".tmp"))]
    if hidden:
        fail(f"left in the output directory: {hidden}")
    runs = [n for n in os.listdir("/dev/shm") if n.startswith("prof-run-")]
    if runs:
        fail(f"left in /dev/shm: {runs}")


def recover(prof, *dirs):
    done = run([prof, "--recover", *dirs])
    if done.returncode != 0:
        fail(f"prof --recover failed ({done.returncode}): {done.stderr}")
    if "recovering" not in done.stderr:
        fail(f"prof --recover did not say what it recovers: {done.stderr}")
    return done


def orphaned_run_dirs():
    return [os.path.join("/dev/shm", n) for n in os.listdir("/dev/shm") if n.startswith("prof-run-")]


# ---- the scenarios (run inside the namespace) ---------------------------------------------------

def scenario_sigkill_while_running(prof, bin_dir, out):
    """SIGKILL while the program runs: the program finishes unharmed, a new prof run into the same
    directory mentions the orphan, and prof --recover (no argument) builds every call into the db."""
    app = os.path.join(bin_dir, "prof_killed")
    s = Scenario(prof, app, out, 3000, 20000)
    os.kill(s.proc.pid, signal.SIGKILL)
    s.proc.wait()
    rest = s.release_program()
    expected = int(re.search(r"api_calls=(\d+)", rest).group(1))
    deadline = time.time() + 30
    while not s.program_gone() and time.time() < deadline:
        time.sleep(0.05)
    if not s.program_gone():
        fail("the program of a killed prof did not finish")
    # A new run into the same directory says there is an orphan to recover, in one line, and does
    # not touch it; a run into another directory says nothing (the line would be in its stderr).
    fresh = run([prof, "--sim", "-d", out, os.path.join(bin_dir, "killme"), "10"])
    notes = [line for line in fresh.stderr.splitlines() if "prof --recover" in line]
    if len(notes) != 1 or "1 earlier run into" not in notes[0]:
        fail(f"a new run into {out} should mention the orphaned run once: {fresh.stderr!r}")
    with tempfile.TemporaryDirectory() as other:
        elsewhere = run([prof, "--sim", "-d", other, os.path.join(bin_dir, "killme"), "10"])
        if "prof --recover" in elsewhere.stderr:
            fail(f"a run into another directory should not mention the orphan: {elsewhere.stderr!r}")
    if len(orphaned_run_dirs()) != 1:
        fail(f"the orphaned run should still be there: {orphaned_run_dirs()}")
    recover(prof)
    check_recovered(out, s.pid, expected)
    again = run([prof, "--recover"])
    if again.returncode != 0 or "nothing to recover" not in again.stderr:
        fail(f"a second prof --recover has nothing to do: {again.returncode} {again.stderr!r}")


def scenario_sigkill_ring_overflows(prof, bin_dir, out):
    """SIGKILL, then more calls than a ring holds: the program runs on (no waiting for a dead
    collector), and every call is either in the db or counted as dropped."""
    app = os.path.join(bin_dir, "prof_killed")
    after = 3 * RING_RECORDS
    s = Scenario(prof, app, out, 1000, after)
    time.sleep(0.5)  # the mover (every 20 ms) has taken the first phase out of the ring
    os.kill(s.proc.pid, signal.SIGKILL)
    s.proc.wait()
    rest = s.release_program()
    expected = int(re.search(r"api_calls=(\d+)", rest).group(1))
    while not s.program_gone():
        time.sleep(0.05)
    recover(prof, *orphaned_run_dirs())
    # The first phase is in the journal; the ring held RING_RECORDS more; the rest are counted.
    check_recovered(out, s.pid, expected, dropped=expected - (1000 + 1) - RING_RECORDS)


def scenario_sigkill_while_threads_move(prof, bin_dir, out):
    """SIGKILL while four threads make calls flat out: their records are moving into the journals
    (by the mover, which may hold a ring's move lock or have offered a span, and by the threads
    themselves). The threads run on without waiting, and every call is in the db that
    prof --recover builds or counted as dropped."""
    app = os.path.join(bin_dir, "prof_killed")
    s = Scenario(prof, app, out, 1000, 1_000_000, threads=4)
    s.proc.stdin.write("go\n")
    s.proc.stdin.flush()
    s.proc.stdin.close()
    time.sleep(0.2)
    os.kill(s.proc.pid, signal.SIGKILL)
    s.proc.wait()
    rest = s.proc.stdout.readline()  # the program's, through the pipe prof handed it
    match = re.search(r"api_calls=(\d+)", rest)
    if not match:
        fail(f"the program of a killed prof did not finish its calls: {rest!r}")
    while not s.program_gone():
        time.sleep(0.05)
    recover(prof, *orphaned_run_dirs())
    check_recovered(out, s.pid, int(match.group(1)), dropped=None)


def run_to_pause(prof, bin_dir, out, before, after, moment):
    """Runs the sample to its end under prof with PROF_TEST_PAUSE=`moment` and waits until prof
    has paused there. Returns the scenario and the calls the program made."""
    s = Scenario(prof, os.path.join(bin_dir, "prof_killed"), out, before, after, env={"PROF_TEST_PAUSE": moment})
    expected = int(re.search(r"api_calls=(\d+)", s.release_program()).group(1))
    s.wait_for_stderr(f"PROF_TEST_PAUSE={moment}")
    return s, expected


def scenario_sigkill_while_building(prof, bin_dir, out):
    """SIGKILL while prof writes the database (a transaction open): the db reads as it is with
    one line saying so, and prof --recover DIR completes it."""
    s, expected = run_to_pause(prof, bin_dir, out, 20000, 30000, "build")
    os.kill(s.proc.pid, signal.SIGKILL)
    s.proc.wait()
    db_path = os.path.join(out, f"hip-prof-{s.pid}.db")
    with tempfile.TemporaryDirectory() as regen:
        as_is = run([prof, "--db", db_path, "-d", regen])
        if as_is.returncode != 0:
            fail(f"prof --db on a db cut short should read it as it is: {as_is.returncode} {as_is.stderr!r}")
        lines = [line for line in as_is.stderr.splitlines() if line.strip()]
        if len(lines) != 1 or "not finished" not in lines[0]:
            fail(f"prof --db should say in one line what is missing: {as_is.stderr!r}")
        ranged = run([prof, "--db", db_path, "-d", regen, "--index-range", "1:10"])
        if ranged.returncode != 65 or "sequence numbers" not in ranged.stderr:
            fail(f"--index-range on an unfinished db must not select 0 calls silently: {ranged.stderr!r}")
    runs = orphaned_run_dirs()
    recover(prof, *runs)
    check_recovered(out, s.pid, expected)


def scenario_sigkill_while_reporting(prof, bin_dir, out):
    """SIGKILL after the databases were complete, before the reports: recovery writes them."""
    s, expected = run_to_pause(prof, bin_dir, out, 500, 500, "reports")
    os.kill(s.proc.pid, signal.SIGKILL)
    s.proc.wait()
    recover(prof)
    check_recovered(out, s.pid, expected)


def scenario_sigterm_twice_while_building(prof, bin_dir, out):
    """SIGTERM while prof finishes: it says it is still writing and goes on; a second one stops
    it, and prof --recover completes the run."""
    s, expected = run_to_pause(prof, bin_dir, out, 2000, 2000, "build")
    os.kill(s.proc.pid, signal.SIGTERM)
    s.wait_for_stderr("")  # the blank line before the note
    note = s.proc.stderr.readline()
    if "still writing the profile" not in note:
        fail(f"a first interrupt should say prof is still writing: {note!r}")
    if s.proc.poll() is not None:
        fail("a first interrupt must not stop the finish")
    os.kill(s.proc.pid, signal.SIGTERM)
    if s.proc.wait(timeout=30) != 128 + signal.SIGTERM:
        fail(f"a second interrupt stops prof: status {s.proc.returncode}")
    recover(prof)
    check_recovered(out, s.pid, expected)


def scenario_recover_refuses_a_live_run(prof, bin_dir, out):
    """prof --recover DIR of a prof still running says so in one line (65); a missing DIR is 66."""
    app = os.path.join(bin_dir, "prof_killed")
    s = Scenario(prof, app, out, 10, 10)
    runs = orphaned_run_dirs()  # the live run's directory
    refused = run([prof, "--recover", *runs])
    if refused.returncode != 65 or "still running" not in refused.stderr or len(refused.stderr.splitlines()) != 1:
        fail(f"recovering a live run: {refused.returncode} {refused.stderr!r}")
    missing = run([prof, "--recover", "/dev/shm/prof-run-none"])
    if missing.returncode != 66 or "no such directory" not in missing.stderr:
        fail(f"recovering a missing directory: {missing.returncode} {missing.stderr!r}")
    rest = s.release_program()
    expected = int(re.search(r"api_calls=(\d+)", rest).group(1))
    if s.proc.wait(timeout=60) != 0:
        fail(f"prof failed: {s.proc.stderr.read()}")
    check_recovered(out, s.pid, expected)


def scenario_runs_side_by_side_are_not_orphans(prof, bin_dir, out):
    """Profs that start and finish together (mpirun -np 8 prof ./app) never take each other's
    runs for orphans, and none fails to create its manifest while another scans for orphans."""
    app = os.path.join(bin_dir, "multistream")
    for round_ in range(6):
        procs = []
        for i in range(8):
            where = os.path.join(out, f"r{round_}-{i}")
            os.makedirs(where)
            procs.append(subprocess.Popen([prof, "--sim", "-d", where, app], stdout=subprocess.DEVNULL,
                                          stderr=subprocess.PIPE, text=True))
        for proc in procs:
            err = proc.communicate(timeout=120)[1]
            if proc.returncode != 0 or "earlier run" in err or "manifest" in err:
                fail(f"a prof beside others: status {proc.returncode}, stderr {err!r}")
    if orphaned_run_dirs():
        fail(f"left in /dev/shm: {orphaned_run_dirs()}")


SCENARIOS = {name[len("scenario_"):]: f for name, f in globals().items() if name.startswith("scenario_")}


class RecoverTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.access(e2e.sample("prof_killed"), os.X_OK):
            raise unittest.SkipTest("sample prof_killed is not built")
        if not shutil.which("unshare"):
            raise unittest.SkipTest("no unshare")
        probe = subprocess.run(["unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=1m tmpfs /dev/shm"],
                               capture_output=True, text=True)
        if probe.returncode != 0:
            raise unittest.SkipTest(f"unshare -m / mount not permitted: {probe.stderr.strip()}")

    def run_scenario(self, name):
        with tempfile.TemporaryDirectory(prefix="prof-e2e-recover-") as out:
            inner = [sys.executable, os.path.abspath(__file__), "--inner", name, e2e.Config.prof,
                     e2e.Config.bin_dir, out]
            command = ["unshare", "-m", "sh", "-c", 'mount -t tmpfs -o size=256m tmpfs /dev/shm && exec "$@"', "sh"]
            done = subprocess.run(command + inner, capture_output=True, text=True, timeout=170)
            self.assertEqual(done.returncode, 0, e2e.describe(done))
            self.assertEqual([n for n in os.listdir(out) if n.startswith(".")], [],
                             "no journal left in the output directory")

    def test_sigkill_while_running(self):
        self.run_scenario("sigkill_while_running")

    def test_sigkill_ring_overflows(self):
        self.run_scenario("sigkill_ring_overflows")

    def test_sigkill_while_threads_move(self):
        self.run_scenario("sigkill_while_threads_move")

    def test_sigkill_while_building(self):
        self.run_scenario("sigkill_while_building")

    def test_sigkill_while_reporting(self):
        self.run_scenario("sigkill_while_reporting")

    def test_sigterm_twice_while_building(self):
        self.run_scenario("sigterm_twice_while_building")

    def test_runs_side_by_side_are_not_orphans(self):
        self.run_scenario("runs_side_by_side_are_not_orphans")

    def test_recover_refuses_a_live_run(self):
        self.run_scenario("recover_refuses_a_live_run")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--inner":
        _, _, scenario, prof, bin_dir, out = sys.argv
        SCENARIOS[scenario](prof, bin_dir, out)
        print(json.dumps({"scenario": scenario, "ok": True}))
        sys.exit(0)
    e2e.main()
