"""prof itself killed: SIGKILL and SIGTERM at several moments, then `prof --recover`.

    python3 test/e2e/test_recover.py --prof build/bin/prof --bin-dir build/test-bin

The sample (test/apps/prof_killed.cpp) makes CALLS_BEFORE hipStreamQuery calls, says READY, waits
for a line on stdin, makes CALLS_AFTER more and prints `EXPECT api_calls=N`. Each scenario runs in
its own mount namespace with a private /dev/shm, so the runs it orphans on purpose are invisible to
the tests running beside it, and `prof --recover` without arguments finds only its own. Where
`unshare -m` is not permitted (no CAP_SYS_ADMIN) the namespace is a user namespace's
(`unshare -U -r -m`); where neither is, the scenarios run all the same on the shared /dev/shm, each
looking only at the runs whose output directory is its own, and a scenario that needs
`prof --recover` without arguments fails rather than take another prof's orphaned run. The tests
never skip: PROF_E2E_RECOVER_ISOLATION=mount|user|shared picks one way (and fails if it is not
possible), default the first of them that works. Every scenario also gives prof a TMPDIR of its own
(where the rings that do not fit in /dev/shm go). After every scenario nothing of the run is left in
/dev/shm, in that TMPDIR or in the output directory.
"""
import fcntl
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import unittest

import e2e_common as e2e

RING_RECORDS = 65536  # the default ring (4 MiB of 64-byte records)
ISOLATIONS = ("mount", "user", "shared")
# The namespace each isolation runs a scenario in; its /dev/shm is then a fresh tmpfs.
UNSHARE = {"mount": ["unshare", "-m"], "user": ["unshare", "-U", "-r", "-m"]}
MOUNT_SHM = "mount -t tmpfs -o size=256m tmpfs /dev/shm"


class Scope:
    """Set in the scenario's process: the scenario's output directory, and whether /dev/shm is the
    machine's (shared) rather than a private one."""
    out = None
    shared = False


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
    for suffix in (".hiptrace.csv", ".kernel.csv", ".pftrace", ".summary.json"):
        path = os.path.join(out, f"result_{pid}{suffix}")
        if not os.path.exists(path):
            fail(f"report {path} missing after recovery: {sorted(os.listdir(out))}")
    check_no_leftovers(out)


def check_no_leftovers(out):
    hidden = [n for n in os.listdir(out) if n.startswith(".") or n.endswith(("-journal", ".tmp"))]
    if hidden:
        fail(f"left in the output directory: {hidden}")
    runs = run_dirs(every=not Scope.shared)
    if runs:
        fail(f"left in /dev/shm: {runs}")
    tmpdir = os.environ.get("TMPDIR")
    if tmpdir and any(n.startswith("prof-run-") for n in os.listdir(tmpdir)):
        fail(f"left in TMPDIR {tmpdir}: {os.listdir(tmpdir)}")


manifest = e2e.run_manifest


def is_ours(run_dir):
    """Whether the run was writing into this scenario's output directory (or one under it)."""
    output_dir = manifest(run_dir).get("output_dir")
    if not output_dir:
        return False
    ours = os.path.realpath(Scope.out)
    return os.path.commonpath([ours, os.path.realpath(output_dir)]) == ours


def run_dirs(every=None):
    """The run directories in /dev/shm (prof makes its runs there): all of them in a private
    /dev/shm, this scenario's on a shared one (`every` overrides)."""
    every = not Scope.shared if every is None else every
    found = [os.path.join("/dev/shm", n) for n in os.listdir("/dev/shm") if n.startswith("prof-run-")]
    return [d for d in found if every or is_ours(d)]


def foreign_orphans():
    """Runs of a killed prof that are not this scenario's, where `prof --recover` without arguments
    looks for them (cli/recovery.cpp, find_orphaned_runs): it would take them."""
    found = []
    for base in dict.fromkeys(["/dev/shm", os.environ.get("TMPDIR") or "/tmp", "/tmp"]):
        for name in os.listdir(base) if os.path.isdir(base) else []:
            run_dir = os.path.join(base, name)
            if not name.startswith("prof-run-") or is_ours(run_dir):
                continue
            try:
                fd = os.open(os.path.join(run_dir, "run.conf"), os.O_RDONLY | os.O_NOFOLLOW)
            except OSError:
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)  # free: its prof is gone
                if os.fstat(fd).st_nlink > 0 and os.fstat(fd).st_uid == os.geteuid():
                    found.append(run_dir)
            except OSError:
                pass  # held: a live run
            finally:
                os.close(fd)
    return found


def recover(prof, *dirs):
    done = run([prof, "--recover", *dirs])
    if done.returncode != 0:
        fail(f"prof --recover failed ({done.returncode}): {done.stderr}")
    if "recovering" not in done.stderr:
        fail(f"prof --recover did not say what it recovers: {done.stderr}")
    return done


def recover_all(prof):
    """`prof --recover` without arguments: every orphaned run it finds must be this scenario's."""
    others = foreign_orphans()
    if others:
        fail(f"runs of another killed prof are waiting to be recovered ({others}): `prof --recover` without "
             "arguments would take them. Recover them first, or run this test where unshare -m (or -U -r -m) "
             "gives it a private /dev/shm.")
    return recover(prof)


def wait_until_gone(s):
    # No deadline of our own: CTest's timeout ends a test whose program never finishes.
    while not s.program_gone():
        time.sleep(0.05)


def ring_moved(run_dir):
    """Whether every ring of the run has been moved into its journal up to what its
    producer published: read_index == write_index in each ring's BufferHeader (common/record.hpp:
    magic at 0, write_index at 64, read_index at 128)."""
    # A ring that does not fit in /dev/shm (a small tmpfs) is in the run's fallback directory.
    dirs = [run_dir] + [d for d in [manifest(run_dir).get("fallback_run_dir")] if d and os.path.isdir(d)]
    rings = [os.path.join(d, n) for d in dirs for n in os.listdir(d) if n.endswith(".buf")]
    if not rings:
        return False
    for ring in rings:
        with open(ring, "rb") as f:
            header = f.read(136)
        magic, = struct.unpack_from("<Q", header, 0)
        if magic != 0x3146554250524F50:
            fail(f"{ring}: not a prof ring (magic {magic:#x})")
        write_index, = struct.unpack_from("<Q", header, 64)
        read_index, = struct.unpack_from("<Q", header, 128)
        if read_index != write_index:
            return False
    return True


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
    wait_until_gone(s)
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
    if len(run_dirs()) != 1:
        fail(f"the orphaned run should still be there: {run_dirs()}")
    recover_all(prof)
    check_recovered(out, s.pid, expected)
    if foreign_orphans():
        fail(f"runs of another killed prof appeared meanwhile: {foreign_orphans()}")
    again = run([prof, "--recover"])
    if again.returncode != 0 or "nothing to recover" not in again.stderr:
        fail(f"a second prof --recover has nothing to do: {again.returncode} {again.stderr!r}")


def scenario_sigkill_ring_overflows(prof, bin_dir, out):
    """SIGKILL, then three rings' worth of calls: the program runs on (no waiting for a dead
    collector) and goes on moving its records into its journal, as it does under back-pressure
    with prof alive, so prof --recover builds every call (before issue 42 all beyond one ring
    were dropped)."""
    app = os.path.join(bin_dir, "prof_killed")
    after = 3 * RING_RECORDS
    s = Scenario(prof, app, out, 1000, after)
    # The program waits on stdin: once the mover has taken the first phase out of the ring, the
    # ring holds only what comes after the kill.
    runs = run_dirs()
    if len(runs) != 1:
        fail(f"one run directory expected: {runs}")
    while not ring_moved(runs[0]):
        time.sleep(0.01)
    os.kill(s.proc.pid, signal.SIGKILL)
    s.proc.wait()
    rest = s.release_program()
    expected = int(re.search(r"api_calls=(\d+)", rest).group(1))
    wait_until_gone(s)
    recover(prof, *run_dirs())
    check_recovered(out, s.pid, expected)


def syscall_counts(strace_output):
    """{syscall: calls} from the table `strace -c` prints."""
    counts = {}
    for line in strace_output.splitlines():
        fields = line.split()
        # % time, seconds, usecs/call, calls, [errors,] syscall
        if len(fields) >= 5 and fields[3].isdigit() and re.fullmatch(r"[a-z_0-9]+", fields[-1]) and fields[-1] != "total":
            counts[fields[-1]] = int(fields[3])
    return counts


def traced(pid):
    """Whether every thread of `pid` has a tracer (its TracerPid in /proc)."""
    tasks = os.listdir(f"/proc/{pid}/task")
    for tid in tasks:
        with open(f"/proc/{pid}/task/{tid}/status") as f:
            if re.search(r"^TracerPid:\s+0$", f.read(), re.M):
                return False
    return bool(tasks)


def scenario_sigkill_program_makes_no_probe_per_call(prof, bin_dir, out):
    """After prof is killed, the program's calls cost what they cost with prof alive: the dead
    collector is found once, not probed again per call (an openat + flock + close each, which made a
    busy program 20-150x slower). Counted with strace -c over four rings' worth of calls on the
    program's thread: syscalls, not time, so load does not change the verdict."""
    if not shutil.which("strace"):
        fail("strace is not installed (scripts/install-deps.sh --tests installs it)")
    app = os.path.join(bin_dir, "prof_killed")
    after = 4 * RING_RECORDS
    s = Scenario(prof, app, out, 1000, after)
    runs = run_dirs()
    while not ring_moved(runs[0]):
        time.sleep(0.01)
    os.kill(s.proc.pid, signal.SIGKILL)
    s.proc.wait()
    tracer = subprocess.Popen(["strace", "-f", "-c", "-e", "trace=openat,flock,close,stat,newfstatat,access",
                               "-p", str(s.pid)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    while not traced(s.pid):  # strace says nothing when it has attached; /proc does
        if tracer.poll() is not None:
            fail(f"strace could not attach to the program: {tracer.stderr.read()}")
        time.sleep(0.01)
    rest = s.release_program()
    expected = int(re.search(r"api_calls=(\d+)", rest).group(1))
    wait_until_gone(s)
    report = tracer.communicate(timeout=120)[1]
    counts = syscall_counts(report)
    probes = counts.get("openat", 0) + counts.get("flock", 0)
    # One probe finds prof dead; then one journal open per self-move (half a ring each): ~10.
    if probes > 64:
        fail(f"{probes} openat/flock calls for {after} HIP calls after prof died (a probe per call?):\n{report}")
    recover(prof, *run_dirs())
    check_recovered(out, s.pid, expected)


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
    wait_until_gone(s)
    recover(prof, *run_dirs())
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
    runs = run_dirs()
    recover(prof, *runs)
    check_recovered(out, s.pid, expected)


def scenario_sigkill_while_reporting(prof, bin_dir, out):
    """SIGKILL after the databases were complete, before the reports: recovery writes them."""
    s, expected = run_to_pause(prof, bin_dir, out, 500, 500, "reports")
    os.kill(s.proc.pid, signal.SIGKILL)
    s.proc.wait()
    recover_all(prof)
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
    recover_all(prof)
    check_recovered(out, s.pid, expected)


def scenario_recover_refuses_a_live_run(prof, bin_dir, out):
    """prof --recover DIR of a prof still running says so in one line (65); a missing DIR is 66."""
    app = os.path.join(bin_dir, "prof_killed")
    s = Scenario(prof, app, out, 10, 10)
    runs = run_dirs()  # the live run's directory
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
    check_no_leftovers(out)


SCENARIOS = {name[len("scenario_"):]: f for name, f in globals().items() if name.startswith("scenario_")}


def remove_orphans_into(out):
    """On a shared /dev/shm: what a failed scenario orphaned there, so that no other test's
    `prof --recover` takes it (its output directory is about to go)."""
    Scope.out = out
    for run_dir in run_dirs(every=False):
        try:
            fd = os.open(os.path.join(run_dir, "run.conf"), os.O_RDONLY)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            continue  # its prof is still running
        finally:
            os.close(fd)
        fallback = manifest(run_dir).get("fallback_run_dir")
        shutil.rmtree(run_dir, ignore_errors=True)
        if fallback:
            shutil.rmtree(fallback, ignore_errors=True)


def isolation_works(isolation):
    """Whether this machine lets a scenario run in that isolation; (works, why not)."""
    if isolation == "shared":
        return True, ""
    if not shutil.which("unshare"):
        return False, "no unshare program"
    probe = subprocess.run(UNSHARE[isolation] + ["sh", "-c", "mount -t tmpfs -o size=1m tmpfs /dev/shm"],
                           capture_output=True, text=True)
    return probe.returncode == 0, probe.stderr.strip()


def choose_isolation():
    wanted = os.environ.get("PROF_E2E_RECOVER_ISOLATION", "")
    if wanted:
        if wanted not in ISOLATIONS:
            fail(f"PROF_E2E_RECOVER_ISOLATION={wanted}: expected one of {', '.join(ISOLATIONS)}")
        works, why = isolation_works(wanted)
        if not works:
            fail(f"PROF_E2E_RECOVER_ISOLATION={wanted} is not possible here: {why}")
        return wanted
    for isolation in ISOLATIONS:
        if isolation_works(isolation)[0]:
            return isolation


class RecoverTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # A missing sample fails: this test is what docs/guarantees.md cites for recovery.
        if not os.access(e2e.sample("prof_killed"), os.X_OK):
            fail(f"sample {e2e.sample('prof_killed')} is not built")
        cls.isolation = choose_isolation()
        print(f"scenarios run with isolation: {cls.isolation}", file=sys.stderr)

    def run_scenario(self, name):
        with tempfile.TemporaryDirectory(prefix="prof-e2e-recover-") as out, \
                tempfile.TemporaryDirectory(prefix="prof-e2e-recover-tmp-") as tmpdir:
            inner = [sys.executable, os.path.abspath(__file__), "--inner", name, e2e.Config.prof,
                     e2e.Config.bin_dir, out]
            env = dict(os.environ, TMPDIR=tmpdir, PROF_E2E_RECOVER_SHARED="1" if self.isolation == "shared" else "0")
            if self.isolation == "shared":
                command = inner
            else:
                command = UNSHARE[self.isolation] + ["sh", "-c", MOUNT_SHM + ' && exec "$@"', "sh"] + inner
            try:
                done = subprocess.run(command, capture_output=True, text=True, timeout=170, env=env)
            finally:
                if self.isolation == "shared":
                    remove_orphans_into(out)
            self.assertEqual(done.returncode, 0, f"isolation {self.isolation}" + e2e.describe(done))
            self.assertIn('"ok": true', done.stdout, "the scenario ran to its end" + e2e.describe(done))
            self.assertEqual([n for n in os.listdir(out) if n.startswith(".")], [],
                             "no journal left in the output directory")

    def test_sigkill_while_running(self):
        self.run_scenario("sigkill_while_running")

    def test_sigkill_ring_overflows(self):
        self.run_scenario("sigkill_ring_overflows")

    def test_sigkill_program_makes_no_probe_per_call(self):
        self.run_scenario("sigkill_program_makes_no_probe_per_call")

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
        Scope.out, Scope.shared = out, os.environ.get("PROF_E2E_RECOVER_SHARED") == "1"
        SCENARIOS[scenario](prof, bin_dir, out)
        print(json.dumps({"scenario": scenario, "ok": True}))
        sys.exit(0)
    e2e.main()
