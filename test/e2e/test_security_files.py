"""e2e: files another local user can plant, and databases from elsewhere (issue 38, docs/guarantees.md
"Files prof opens"). Runs as root: a second, unprivileged user that the test creates (useradd) and
removes (userdel -r) plants FIFOs and symlinks in a shared 1777 directory; root's prof must finish
(refusing or working around them) within a bounded wait, and the planted links' targets stay as
they were. Without useradd or root the shared-directory cases fail under CI and skip otherwise.
The other cases need no second user: CSV cells that a spreadsheet would run are neutralised,
--compare's markdown and text escape names, and a database with a text begin_ns is refused (65).

    sudo python3 test/e2e/test_security_files.py --prof build/bin/prof --bin-dir build/test-bin
"""
import csv
import glob
import os
import re
import shutil
import sqlite3
import stat
import subprocess
import sys
import tempfile
import unittest

import e2e_common as e2e

BAD_INPUT = 65
BOUNDED_S = 60  # a hang guard: prof finishes in about a second
KERNEL = "blur_shared(float*, float const*, int)"
FORMULA = '=HYPERLINK("http://evil.example/","click")'
MARKUP = "*[x](http://evil.example)*|<b>`t`_u_"
ESCAPE = "k\x1b[31mred\x07"


def profile(directory):
    os.makedirs(directory, exist_ok=True)
    app = e2e.built_sample("multistream")
    result = e2e.run_prof(["--sim", "-d", directory, app, "1024", "2"], cwd=directory)
    if result.returncode != 0:
        raise AssertionError("profiling the sample failed" + e2e.describe(result))
    pid = e2e.parse_pid(result.stdout)
    return os.path.join(directory, f"hip-prof-{pid}.db"), pid


def copy_db(source, target, *statements):
    shutil.copyfile(source, target)
    with sqlite3.connect(target) as db:
        for statement in statements:
            db.execute(*statement) if isinstance(statement, tuple) else db.execute(statement)
    return target


def _next_pids(count):
    """The `count` pids the next processes take: in order after a child spawned now, wrapping past
    pid_max to 300 as the kernel does (RESERVED_PIDS). Without the wrap, a run whose pids passed
    32768 got pid 476, outside the planted range (seen in CI)."""
    child = subprocess.Popen(["true"])
    child.wait()
    try:
        with open("/proc/sys/kernel/pid_max") as f:
            pid_max = int(f.read())
    except (OSError, ValueError):
        pid_max = 1 << 22
    return [p if p < pid_max else 300 + (p - pid_max) for p in range(child.pid, child.pid + count)]


class SharedDirectoryTest(unittest.TestCase):
    """Another user plants files in a 1777 directory that root's prof writes to."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="prof-e2e-security-")
        cls.addClassCleanup(shutil.rmtree, cls.tmp, True)
        os.chmod(cls.tmp, 0o755)
        why = None
        if os.geteuid() != 0:
            why = "not root"
        elif not shutil.which("useradd") or not shutil.which("runuser") or not shutil.which("userdel"):
            why = "useradd, runuser or userdel is missing"
        if why:
            if os.environ.get("CI"):
                raise AssertionError(f"the shared-directory cases need root and useradd under CI: {why}")
            raise unittest.SkipTest(why)
        cls.user = f"profplant{os.getpid() % 100000}"
        made = subprocess.run(["useradd", "-m", "-s", "/bin/sh", cls.user], capture_output=True, text=True)
        if made.returncode != 0:
            raise AssertionError(f"useradd {cls.user} failed: {made.stderr}")
        # Removed also when a later step of setUpClass fails (tearDownClass would not run).
        cls.addClassCleanup(subprocess.run, ["userdel", "-r", cls.user], capture_output=True)
        cls.db, cls.pid = profile(os.path.join(cls.tmp, "private"))

    def setUp(self):
        self.shared = tempfile.mkdtemp(prefix="shared-", dir=self.tmp)
        os.chmod(self.shared, 0o1777)
        # A root-only file that a planted symlink points at: it must never change.
        self.target = os.path.join(self.tmp, f"root-only-{self.id().rsplit('.', 1)[-1]}")
        with open(self.target, "w") as stream:
            stream.write("root's data\n")
        os.chmod(self.target, 0o600)

    def as_user(self, *command):
        result = subprocess.run(["runuser", "-u", self.user, "--"] + list(command), capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, f"{command}: {result.stderr}")

    def plant(self, kind, paths):
        """FIFOs (kind 'fifo') or symlinks to the root-only target ('link'), made by the other user in
        one process, so planting does not use up the pids the test predicts."""
        make = "os.mkfifo(p)" if kind == "fifo" else f"os.symlink({self.target!r}, p)"
        script = f"import os, sys\nfor p in sys.stdin.read().split(chr(0)):\n    {make}\n"
        # The system's python3: root's may live where the other user cannot reach it.
        python = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable
        result = subprocess.run(["runuser", "-u", self.user, "--", python, "-c", script],
                                input="\0".join(paths), capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, f"planting {kind}s failed: {result.stderr}")
        for path in paths:
            self.assertNotEqual(os.lstat(path).st_uid, 0, path)

    def bounded_prof(self, args):
        try:
            return e2e.run([e2e.Config.prof] + args, cwd=self.shared, timeout=BOUNDED_S)
        except subprocess.TimeoutExpired:
            self.fail(f"prof {args} hung on a planted file (no end after {BOUNDED_S} s)")

    def assert_untouched(self, fifos=()):
        with open(self.target) as stream:
            self.assertEqual(stream.read(), "root's data\n", "a planted symlink's target changed")
        self.assertEqual(stat.S_IMODE(os.stat(self.target).st_mode), 0o600)
        for path in fifos:
            if os.path.lexists(path):
                self.assertTrue(stat.S_ISFIFO(os.lstat(path).st_mode), path)

    def test_fifo_at_the_journal_of_a_db_read_with_db(self):
        db = os.path.join(self.shared, os.path.basename(self.db))
        shutil.copyfile(self.db, db)
        journal = db + "-journal"
        self.plant("fifo", [journal])
        result = self.bounded_prof(["--db", db, "-d", os.path.join(self.tmp, "out-journal")])
        self.assertEqual(result.returncode, BAD_INPUT, e2e.describe(result))
        lines = result.stderr.splitlines()
        self.assertEqual(len(lines), 1, e2e.describe(result))
        self.assertIn(journal, lines[0])
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "out-journal", f"result_{self.pid}.kernel.csv")))
        self.assert_untouched([journal])

    def test_fifos_and_links_at_report_names(self):
        # The reports of `--db` go to result_<pid>.*; their temp names end in .tmp-<prof's pid>.
        # Every report name and the temp names of the next pids are planted.
        db = self.db
        suffixes = [".kernel.csv", ".hiptrace.csv", ".api_trace.csv", ".kernel_trace.csv", ".copy_trace.csv",
                    ".copy_stats.csv", ".memory_stats.csv", ".summary.json", ".report.html", ".pftrace", "_copy.json"]
        base = os.path.join(self.shared, f"result_{self.pid}")
        fifos = [base + s + f".tmp-{p}" for s in suffixes for p in _next_pids(40)]
        self.plant("fifo", fifos)
        links = [base + s for s in suffixes[:3]]
        self.plant("link", links)
        result = self.bounded_prof(["--db", db, "-d", self.shared])
        self.assertNotEqual(result.returncode, 0, "planted names are refused, not written" + e2e.describe(result))
        self.assert_untouched(fifos)
        for link in links:
            self.assertTrue(os.path.islink(link), link)

    def test_planted_journals_and_links_during_a_run(self):
        # The collector's db is <runtime>-prof-<pid>.db: the next pids' side files are planted.
        pids = _next_pids(1500)  # other users' processes take pids too
        fifos = [os.path.join(self.shared, f"hip-prof-{p}.db-journal") for p in pids]
        links = [os.path.join(self.shared, f"hip-prof-{p}.db-wal") for p in pids]
        self.plant("fifo", fifos)
        self.plant("link", links)
        app = e2e.built_sample("multistream")
        result = self.bounded_prof(["--sim", "-d", self.shared, app, "1024", "2"])
        self.assertIn(result.returncode, (0, 73), e2e.describe(result))
        if result.returncode == 0:
            self.assertIn(e2e.parse_pid(result.stdout), pids, "the run's db name was among the planted ones")
        self.assert_untouched(fifos)

    def test_fifo_given_as_the_db(self):
        fifo = os.path.join(self.shared, "hip-prof-1.db")
        self.plant("fifo", [fifo])
        result = self.bounded_prof(["--db", fifo, "-d", os.path.join(self.tmp, "out-fifo")])
        self.assertEqual(result.returncode, BAD_INPUT, e2e.describe(result))
        self.assertIn("not a regular file", result.stderr)

    def test_fifo_among_the_dbs_of_db_merge(self):
        shutil.copyfile(self.db, os.path.join(self.shared, os.path.basename(self.db)))
        fifo = os.path.join(self.shared, "hip-prof-2.db")
        self.plant("fifo", [fifo])
        result = self.bounded_prof(["--db-merge", self.shared, "-d", os.path.join(self.tmp, "out-merge")])
        self.assert_untouched([fifo])
        self.assertTrue(os.path.exists(fifo))


class UntrustedContentTest(unittest.TestCase):
    """Names a spreadsheet, a markdown renderer or a terminal would act on, and databases from elsewhere."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="prof-e2e-untrusted-")
        cls.addClassCleanup(shutil.rmtree, cls.tmp, True)
        cls.db, cls.pid = profile(os.path.join(cls.tmp, "run"))

    def renamed(self, name, new_name):
        return copy_db(self.db, os.path.join(self.tmp, name),
                       ("UPDATE strings SET value = ? WHERE value = ?", (new_name, KERNEL)))

    def test_csv_cells_that_are_formulas_are_neutralised(self):
        db = self.renamed(f"hip-prof-{self.pid}.db", FORMULA)
        out = os.path.join(self.tmp, "csv")
        result = e2e.run_prof(["--db", db, "-d", out], cwd=self.tmp)
        self.assertEqual(result.returncode, 0, e2e.describe(result))
        checked = 0
        for path in glob.glob(os.path.join(out, "*.csv")):
            with open(path, newline="") as stream:
                text = stream.read()
            self.assertNotIn('\n"=', text, path)
            self.assertNotRegex(text, r"(^|,)=", path)
            rows = list(csv.reader(text.splitlines()))
            cells = [cell for row in rows for cell in row]
            if "'" + FORMULA in cells:
                checked += 1
            # Numbers, negative ones too, are values: no cell starts with the quote but a name.
            for cell in cells:
                if cell.startswith("'"):
                    self.assertEqual(cell, "'" + FORMULA, path)
        self.assertGreaterEqual(checked, 2, "the kernel stats and the kernel trace hold the neutralised name")
        with open(os.path.join(out, f"result_{self.pid}.kernel_trace.csv"), newline="") as stream:
            for row in csv.DictReader(stream):
                self.assertRegex(row["Duration_Ns"], r"^-?[0-9]+$")

    def test_compare_markdown_and_text_escape_names(self):
        marked = self.renamed("markup.db", MARKUP)
        result = e2e.run_prof(["--compare", self.db, marked, "--format", "markdown"], cwd=self.tmp)
        self.assertIn(result.returncode, (0, 1), e2e.describe(result))
        self.assertIn(r"\*\[x\](http://evil.example)\*\|\<b\>\`t\`\_u\_", result.stdout)
        self.assertNotIn("<b>", result.stdout)
        self.assertNotIn("[x](", result.stdout)
        escaped = self.renamed("escape.db", ESCAPE)
        for form in ("text", "markdown"):
            result = e2e.run_prof(["--compare", self.db, escaped, "--format", form], cwd=self.tmp)
            self.assertIn(result.returncode, (0, 1), e2e.describe(result))
            self.assertNotIn("\x1b", result.stdout)
            self.assertNotIn("\x07", result.stdout)
            self.assertIn("x1b", result.stdout)

    def assert_refused(self, args, db, problem, out, status=BAD_INPUT):
        result = e2e.run_prof(args, cwd=self.tmp)
        self.assertEqual(result.returncode, status, e2e.describe(result))
        lines = result.stderr.splitlines()
        self.assertEqual(len(lines), 1, "exactly one line" + e2e.describe(result))
        self.assertIn(db, lines[0])
        self.assertIn(problem, lines[0])
        if out:
            self.assertEqual(glob.glob(os.path.join(out, "*")), [], "no output when the input is refused")

    def test_db_with_a_text_begin_ns_is_refused(self):
        bad_dir = os.path.join(self.tmp, "bad")
        os.makedirs(bad_dir, exist_ok=True)
        db = copy_db(self.db, os.path.join(bad_dir, f"hip-prof-{self.pid}.db"),
                     "UPDATE api_calls SET begin_ns = CAST(begin_ns AS TEXT) || ' ns' WHERE rowid = (SELECT MIN(rowid) FROM api_calls)")
        out = os.path.join(self.tmp, "bad-out")
        os.makedirs(out, exist_ok=True)
        self.assert_refused(["--db", db, "-d", out], db, "api_calls", out)
        self.assert_refused(["--db-merge", bad_dir, "-d", out], db, "api_calls", out)
        # --compare keeps its own contract (docs/compare.md): 2 for bad input, 1 for a regression.
        self.assert_refused(["--compare", self.db, db], db, "api_calls", None, status=2)

    def test_db_with_an_interval_that_ends_before_it_begins_is_refused(self):
        db = copy_db(self.db, os.path.join(self.tmp, "backwards.db"),
                     "UPDATE kernels SET device_end_ns = device_begin_ns - 5 WHERE rowid = (SELECT MIN(rowid) FROM kernels)")
        out = os.path.join(self.tmp, "backwards-out")
        os.makedirs(out, exist_ok=True)
        self.assert_refused(["--db", db, "-d", out], db, "kernels", out)

    def test_db_without_a_column_is_refused(self):
        db = copy_db(self.db, os.path.join(self.tmp, "no-column.db"), "ALTER TABLE copies DROP COLUMN device_end_ns")
        out = os.path.join(self.tmp, "no-column-out")
        os.makedirs(out, exist_ok=True)
        self.assert_refused(["--db", db, "-d", out], db, "device_end_ns", out)


if __name__ == "__main__":
    e2e.main()
