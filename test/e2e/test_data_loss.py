"""e2e: a profile is never lost without a word, and what a killed prof leaves is finished (issue 42).

    python3 test/e2e/test_data_loss.py --prof build/bin/prof --bin-dir build/test-bin

Uses the sample test/apps/prof_killed.cpp (CALLS_BEFORE hipStreamQuery calls, `READY <pid>`, a
line on stdin, CALLS_AFTER more, `EXPECT api_calls=N`). Scenarios that kill prof find their own
run directory in /dev/shm by its manifest's output directory and recover it by name, so they never
take another prof's run.
"""
import csv
import os
import shutil
import signal
import sqlite3
import subprocess
import tempfile
import time
import unittest

import e2e_common as e2e


manifest = e2e.run_manifest


def runs_into(out):
    """The run directories in /dev/shm whose outputs go to `out`."""
    real = os.path.realpath(out)
    found = []
    for name in os.listdir("/dev/shm"):
        run_dir = os.path.join("/dev/shm", name)
        if name.startswith("prof-run-") and manifest(run_dir).get("output_dir") == real:
            found.append(run_dir)
    return found


def kill_prof_at(app, out, moment, env=None):
    """Runs the sample under prof into `out` and SIGKILLs prof at `moment`: "running" (after the
    program's first phase) or "reports" (PROF_TEST_PAUSE=reports: the dbs complete, no report yet).
    Returns (the program's pid, prof's pid, the run directory)."""
    merged = dict(os.environ)
    merged.pop("PROF_SIM_TRUTH", None)
    merged.update(env or {})
    if moment == "reports":
        merged["PROF_TEST_PAUSE"] = "reports"
    proc = subprocess.Popen([e2e.Config.prof, "--sim", "-d", out, app, "200", "300"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=merged)
    try:
        ready = proc.stdout.readline()
        if not ready.startswith("READY "):
            raise AssertionError(f"the sample did not start under prof: {ready!r}")
        pid = int(ready.split()[1])
        if moment == "reports":
            proc.stdin.write("go\n")
            proc.stdin.close()
            proc.stdout.readline()  # EXPECT
            while "PROF_TEST_PAUSE=reports" not in proc.stderr.readline():
                pass
        runs = runs_into(out)
        if len(runs) != 1:
            raise AssertionError(f"expected one run into {out} in /dev/shm, found {runs}")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        if moment == "running":
            proc.stdin.write("go\n")
            proc.stdin.close()
            proc.stdout.read()  # the program ends by itself: its stdout closes
        return pid, proc.pid, runs[0]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            try:
                stream.close()
            except OSError:
                pass


class DataLossTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.app = e2e.built_sample("prof_killed")

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="prof-e2e-loss-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def one_line(self, done):
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        self.assertEqual(len(lines), 1, "exactly one line on stderr" + e2e.describe(done))
        return lines[0]

    # -- 1: an output path SQLite cannot open --------------------------------------------------------

    def test_output_dir_too_long_for_sqlite_is_refused_before_the_program_starts(self):
        out = self.tmp
        while len(out) < 520:
            out = os.path.join(out, "d" * 60)
        done = e2e.run_prof(["--sim", "-d", out, self.app, "10", "10"], cwd=self.tmp)
        self.assertNotEqual(done.returncode, 0, e2e.describe(done))
        line = self.one_line(done)
        self.assertIn("-d ", line)
        self.assertIn("512", line, "names SQLite's limit")
        self.assertNotIn("READY", done.stdout, "the program must not start" + e2e.describe(done))
        # At the limit's edge a path that fits still profiles.
        fits = self.tmp
        while len(fits) < 400:
            fits = os.path.join(fits, "f" * 40)
        done = e2e.run_prof(["--sim", "-d", fits, self.app, "10", "10"], cwd=self.tmp, env={})
        self.assertEqual(done.returncode, 0, e2e.describe(done))
        self.assertEqual(len(e2e.find_dbs(fits)), 1, e2e.describe(done))

    # -- 2: --recover without the journals -----------------------------------------------------------

    def test_recover_without_the_journal_directory_says_so_and_writes_nothing(self):
        out = os.path.join(self.tmp, "out")
        _, _, run_dir = kill_prof_at(self.app, out, "running")
        journal_dir = manifest(run_dir)["journal_dir"]
        self.assertTrue(os.path.isdir(journal_dir), journal_dir)
        shutil.rmtree(out)  # the output directory removed, its journals with it
        done = e2e.run([e2e.Config.prof, "--recover", run_dir])
        self.assertNotEqual(done.returncode, 0, e2e.describe(done))
        line = self.one_line(done)
        self.assertIn(journal_dir, line, "names the missing directory")
        self.assertFalse(os.path.exists(out), f"nothing written: {os.listdir(out) if os.path.isdir(out) else ''}")
        self.assertFalse(os.path.exists(run_dir), "the run, now unrecoverable, is removed")

    # -- 3: no room for any ring ---------------------------------------------------------------------

    def with_full_ring_places(self, tmpdir_fill):
        """prof runs the sample (400,007 calls) under `unshare -m` with an 8 KiB tmpfs on /dev/shm
        (the manifest and the doorbell fill it) and TMPDIR on a 16 KiB tmpfs, filled first when
        `tmpdir_fill`: no ring fits anywhere."""
        if not shutil.which("unshare"):
            self.skipTest("no unshare")
        probe = subprocess.run(["unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=8k tmpfs /dev/shm"],
                               capture_output=True, text=True)
        if probe.returncode != 0:
            self.skipTest(f"unshare -m / mount not permitted: {probe.stderr}")
        small = os.path.join(self.tmp, "small-tmp")
        shutil.rmtree(small, ignore_errors=True)
        os.makedirs(small)
        mounts = f"mount -t tmpfs -o size=8k tmpfs /dev/shm && mount -t tmpfs -o size=16k tmpfs '{small}'"
        if tmpdir_fill:
            mounts += f" && (dd if=/dev/zero of='{small}/fill' bs=4k 2>/dev/null; true)"
        out = os.path.join(self.tmp, "out")
        command = ["unshare", "-m", "sh", "-c", mounts + ' && exec "$@"', "sh",
                   e2e.Config.prof, "--sim", "-d", out, self.app, "200000", "200005"]
        return e2e.run(command, cwd=self.tmp, env={"TMPDIR": small})

    def test_calls_no_ring_took_are_counted_said_and_fail_the_run(self):
        for tmpdir_fill in (False, True):
            with self.subTest(tmpdir_full=tmpdir_fill):
                done = self.with_full_ring_places(tmpdir_fill)
                calls = e2e.parse_expect(done.stdout)["api_calls"]
                self.assertEqual(calls, 400007)
                self.assertEqual(done.returncode, 73, "not the program's 0: the profile is missing calls" +
                                 e2e.describe(done))
                self.assertNotIn("nothing recorded", done.stderr, e2e.describe(done))
                self.assertIn(f"{calls} calls on 1 threads not recorded", done.stderr, "counted exactly" +
                              e2e.describe(done))
                shutil.rmtree(os.path.join(self.tmp, "small-tmp"))

    # -- 4: reports killed mid-write ---------------------------------------------------------------

    def plant_temps(self, out, final_names, pid):
        """Temp files as a prof with `pid` leaves them when killed mid-write; returns their paths."""
        paths = [os.path.join(out, f"{name}.tmp-{pid}") for name in final_names]
        for path in paths:
            with open(path, "w") as f:
                f.write("Name,Calls\n" * 1000)
        return paths

    def foreign_and_live_temps(self, out, dead_pid):
        """A stale temp of another user's (root only) and one whose prof is alive: never removed."""
        kept = self.plant_temps(out, ["result_1.kernel.csv"], os.getpid())
        if os.geteuid() == 0:
            kept += self.plant_temps(out, ["someone_else.hiptrace.csv"], dead_pid)
            os.chown(kept[-1], 65534, 65534)
        return kept

    def dead_pid(self):
        child = subprocess.Popen(["true"])
        child.wait()
        return child.pid

    def test_next_prof_removes_its_own_stale_temps_and_says_what_finishes_the_job(self):
        out = os.path.join(self.tmp, "out")
        os.makedirs(out)
        dead = self.dead_pid()
        stale = self.plant_temps(out, ["result_7.hiptrace.csv", "result_7_copy.json", "result_7.report.html"], dead)
        kept = self.foreign_and_live_temps(out, dead)
        done = e2e.run_prof(["--sim", "-d", out, self.app, "5", "5"], cwd=self.tmp)
        self.assertEqual(done.returncode, 0, e2e.describe(done))
        notes = [line for line in done.stderr.splitlines() if "unfinished report files" in line]
        self.assertEqual(len(notes), 1, e2e.describe(done))
        self.assertIn("3 unfinished report files", notes[0])
        self.assertIn(str(dead), notes[0])
        self.assertIn("prof --recover", notes[0])
        self.assertIn("prof --db", notes[0])
        self.assertEqual([p for p in stale if os.path.exists(p)], [], "the user's stale temps are removed")
        self.assertEqual([p for p in kept if not os.path.exists(p)], [], "another user's, or a live prof's, stay")

    def test_recover_after_a_kill_mid_report_takes_the_reports_names(self):
        out = os.path.join(self.tmp, "out")
        pid, prof_pid, run_dir = kill_prof_at(self.app, out, "reports")
        stale = self.plant_temps(out, [f"result_{pid}.hiptrace.csv", f"result_{pid}.kernel.csv",
                                       f"result_{pid}.pftrace"], prof_pid)
        kept = self.foreign_and_live_temps(out, prof_pid)
        done = e2e.run([e2e.Config.prof, "--recover", run_dir])
        self.assertEqual(done.returncode, 0, e2e.describe(done))
        self.assertIn("3 unfinished report files", done.stderr, e2e.describe(done))
        self.assertNotIn(".2", done.stderr, "no report renamed for the temporaries" + e2e.describe(done))
        names = os.listdir(out)
        self.assertIn(f"result_{pid}.hiptrace.csv", names)
        self.assertIn(f"result_{pid}.kernel.csv", names)
        self.assertEqual([n for n in names if n.startswith(f"result_{pid}.2")], [], names)
        self.assertEqual([p for p in stale if os.path.exists(p)], [])
        self.assertEqual([p for p in kept if not os.path.exists(p)], [])

    # -- 6: symlinks and copies --------------------------------------------------------------------

    def profile_once(self, out):
        done = e2e.run_prof(["--sim", "-d", out, self.app, "20", "30"], cwd=self.tmp)
        self.assertEqual(done.returncode, 0, e2e.describe(done))
        dbs = e2e.find_dbs(out)
        self.assertEqual(len(dbs), 1, e2e.describe(done))
        return dbs[0], e2e.parse_expect(done.stdout)["api_calls"]

    def test_db_through_a_symlinked_directory_or_a_symlink_is_read(self):
        db, calls = self.profile_once(os.path.join(self.tmp, "out"))
        linked_dir = os.path.join(self.tmp, "linked")
        os.symlink(os.path.join(self.tmp, "out"), linked_dir)
        link = os.path.join(self.tmp, "latest.db")
        os.symlink(db, link)
        for given in (os.path.join(linked_dir, os.path.basename(db)), link):
            with self.subTest(given=given):
                reports = tempfile.mkdtemp(dir=self.tmp)
                done = e2e.run_prof(["--db", given, "-d", reports], cwd=self.tmp)
                self.assertEqual(done.returncode, 0, e2e.describe(done))
                traces = [n for n in os.listdir(reports) if n.endswith(".hiptrace.csv")]
                self.assertEqual(len(traces), 1, os.listdir(reports))
                with open(os.path.join(reports, traces[0]), newline="") as f:
                    reported = sum(int(row["Calls"]) for row in csv.DictReader(f))
                self.assertEqual(reported, calls, "every call reported once")
        self.assertTrue(os.path.islink(link), "the link itself is left as it was")

    def test_db_merge_counts_a_symlinked_or_copied_db_once(self):
        db, calls = self.profile_once(os.path.join(self.tmp, "out"))
        folder = os.path.join(self.tmp, "merge")
        os.makedirs(folder)
        shutil.copy(db, os.path.join(folder, os.path.basename(db)))
        shutil.copy(db, os.path.join(folder, "copy-" + os.path.basename(db)))
        os.symlink(os.path.join(folder, os.path.basename(db)), os.path.join(folder, "zz-link.db"))
        merged_out = os.path.join(self.tmp, "merged")
        done = e2e.run_prof(["--db-merge", folder, "-d", merged_out], cwd=self.tmp)
        self.assertEqual(done.returncode, 0, e2e.describe(done))
        merged = e2e.open_db(os.path.join(merged_out, "result_merged.db"))
        try:
            self.assertEqual(e2e.scalar(merged, "SELECT COUNT(*) FROM processes"), 1)
            self.assertEqual(e2e.scalar(merged, "SELECT COUNT(*) FROM api_calls"), calls)
        finally:
            merged.close()
        notes = [line for line in done.stderr.splitlines() if "merged once" in line]
        self.assertEqual(len(notes), 2, "a note for the copy and one for the link" + e2e.describe(done))
        self.assertTrue(any("copy-" in line for line in notes), notes)

    # -- 5: numeric options hold to their ranges ----------------------------------------------------

    @staticmethod
    def calls_committed(db_path, calls):
        """Whether the db prof is writing holds `calls` calls yet (read-only, never waiting)."""
        if not os.path.exists(db_path):
            return False
        try:
            db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=0)
            try:
                return db.execute("SELECT COUNT(*) FROM api_calls").fetchone()[0] >= calls
            finally:
                db.close()
        except sqlite3.Error:
            return False

    def test_output_dir_removed_during_the_run_loses_nothing(self):
        """`rm -rf` of -d while the program runs: prof makes the directory again, the database it
        was writing goes back under its name complete, and the reports are written; one note on
        stderr, the program's status. Before, every call was lost ("attempt to write a readonly
        database", 14,528 of 81,002 records said not written)."""
        out = os.path.join(self.tmp, "deep", "out")
        proc = subprocess.Popen([e2e.Config.prof, "--sim", "-d", out, self.app, "1000", "80000"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        ready = proc.stdout.readline()
        self.assertTrue(ready.startswith("READY "), ready)
        pid = int(ready.split()[1])
        # Once the first phase is in the db (the program waits on stdin meanwhile), the directory
        # goes with everything in it: the db, its journals, the rings' journals.
        db_path = os.path.join(out, f"hip-prof-{pid}.db")
        while not self.calls_committed(db_path, 1001):
            time.sleep(0.01)
        shutil.rmtree(os.path.join(self.tmp, "deep"))
        stdout, stderr = proc.communicate("go\n", timeout=300)
        expected = int(stdout.split("api_calls=")[1].split()[0])
        self.assertEqual(proc.returncode, 0, stderr)
        self.assertIn(f"the output directory {out} was removed while the program ran", stderr)
        self.assertNotIn("not written", stderr)
        db = e2e.open_db(db_path)
        self.addCleanup(db.close)
        self.assertEqual(e2e.scalar(db, "PRAGMA integrity_check"), "ok")
        self.assertEqual(e2e.scalar(db, "SELECT COUNT(*) FROM api_calls"), expected)
        names = os.listdir(out)
        self.assertIn(f"result_{pid}.hiptrace.csv", names)
        self.assertEqual([n for n in names if n.startswith(".") or ".tmp-" in n], [], "journals and temps removed")

    def test_small_reports_survive_a_big_reports_failure(self):
        """A full disk under the per-call reports (the trace CSVs, the timelines) costs only those
        files: each removes its temp file when its write fails, and the statistics, summary.json
        and the HTML page written after them are there; one line names each file not written,
        exit 73. Before, the first failure ended the report set and every file was lost."""
        synth = os.path.join(e2e.Config.bin_dir, "synth_db")
        if not os.path.exists(synth):
            self.skipTest("synth_db not built")
        with tempfile.TemporaryDirectory(prefix="prof-e2e-small-reports-") as tmp:
            db = os.path.join(tmp, "big.db")
            subprocess.run([synth, db, "400000"], check=True, capture_output=True)
            # The per-call files need about 60 MB; the statistics a few KB.
            with e2e.small_tmpfs(self, os.path.join(tmp, "full"), "4m") as full:
                done = e2e.run([e2e.Config.prof, "--db", db, "-d", full])
                self.assertEqual(done.returncode, 73, e2e.describe(done))
                names = sorted(os.listdir(full))
                for small in ("big.hiptrace.csv", "big.kernel.csv", "big.summary.json", "big.copy_stats.csv",
                              "big.memory_stats.csv", "big.report.html"):
                    self.assertIn(small, names, e2e.describe(done))
                self.assertIn("big.api_trace.csv", done.stderr)
                self.assertRegex(done.stderr, r"prof: .*big\.api_trace\.csv: cannot write: No space left on device")
                self.assertEqual([n for n in names if ".tmp-" in n], [], "no temp file left")
                with open(os.path.join(full, "big.kernel.csv")) as f:
                    self.assertEqual(len(list(csv.reader(f))), 1 + 24)  # the header and synth_db's 24 kernels

    def test_numeric_options_out_of_range_are_refused_in_one_line(self):
        huge = "99999999999999999999"
        for option, value in (("--json-max-events", huge), ("--json-max-events", "-1"), ("--wait-timeout", huge),
                              ("--wait-timeout", "nan"), ("--wait-timeout", "inf"), ("--wait-timeout", "-1"),
                              ("--delay", huge + "s"), ("--duration", huge + "ms"), ("--index-range", "1:" + huge)):
            with self.subTest(option=option, value=value):
                done = e2e.run_prof([option, value, "--sim", self.app, "1", "1"], cwd=self.tmp)
                self.assertEqual(done.returncode, 2, e2e.describe(done))
                line = self.one_line(done)
                self.assertIn(option, line)
                self.assertNotIn("READY", done.stdout)
        for option, value in (("--threshold", huge), ("--min-time", huge + "us")):
            with self.subTest(option=option, value=value):
                done = e2e.run_prof(["--compare", "a.db", "b.db", option, value], cwd=self.tmp)
                self.assertEqual(done.returncode, 2, e2e.describe(done))
                self.assertIn(option, self.one_line(done))


if __name__ == "__main__":
    e2e.main()
