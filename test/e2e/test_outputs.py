"""e2e: outputs people can use as they are (issue 16's first list): -d is created and followed
through symlinks, no run's files are replaced silently, an output that cannot be written makes prof
exit 73 naming it and the program's status, `--`, --summary-output and plain messages for bad
options, --db-merge skips (and names) what it cannot merge, and scripts without #! run with /bin/sh.

    python3 test/e2e/test_outputs.py --prof build/bin/prof --bin-dir build/test-bin
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import e2e_common as e2e


class OutputsTest(unittest.TestCase):
    def setUp(self):
        self.app = e2e.built_sample("multistream")
        self.tmp = tempfile.mkdtemp(prefix="prof-e2e-outputs-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def prof(self, *args, cwd=None):
        return e2e.run_prof(list(args), cwd=cwd or self.tmp)

    def files(self, directory):
        return sorted(os.listdir(directory))

    def test_missing_output_directory_is_created(self):
        done = self.prof("--sim", "-d", "out/nested/deeper", self.app)
        self.assertEqual(done.returncode, 0, e2e.describe(done))
        out = os.path.join(self.tmp, "out", "nested", "deeper")
        pid = e2e.parse_pid(done.stdout)
        self.assertIn(f"hip-prof-{pid}.db", self.files(out))
        self.assertIn(f"result_{pid}.kernel.csv", self.files(out))
        self.assertEqual(os.stat(out).st_mode & 0o777, 0o755 & ~current_umask())

    def test_symlinked_directory_and_path_component(self):
        real = os.path.join(self.tmp, "scratch-real")
        os.makedirs(os.path.join(real, "runs"))
        os.symlink(real, os.path.join(self.tmp, "scratch"))
        for where in ("scratch", "scratch/runs"):
            done = self.prof("--sim", "-d", where, self.app)
            self.assertEqual(done.returncode, 0, e2e.describe(done))
            self.assertNotIn("unable to open", done.stderr)
            pid = e2e.parse_pid(done.stdout)
            target = os.path.join(self.tmp, where.replace("scratch", "scratch-real"))
            self.assertIn(f"hip-prof-{pid}.db", self.files(target))
            self.assertIn(f"result_{pid}_copy.json", self.files(target))

    def test_a_symlink_at_an_output_name_is_refused_with_status_73(self):
        out = os.path.join(self.tmp, "out")
        os.makedirs(out)
        victim = os.path.join(self.tmp, "victim.txt")
        with open(victim, "w") as f:
            f.write("keep me\n")
        os.symlink(victim, os.path.join(out, "run.kernel.csv"))
        done = self.prof("--sim", "--force", "-d", out, "-o", "run", self.app)
        self.assertEqual(done.returncode, 73, e2e.describe(done))
        self.assertIn("run.kernel.csv", done.stderr)
        self.assertIn("the program's status 0", done.stderr)
        with open(victim) as f:
            self.assertEqual(f.read(), "keep me\n", "never written through the link")
        self.assertTrue(any(f.endswith(".db") for f in self.files(out)), "the database is kept")
        self.assertIn("run.hiptrace.csv", self.files(out), "the other reports are still written")
        self.assertIn("run_copy.json", self.files(out))
        # Without --force the name counts as taken: the reports go to run.2.* and prof exits 0.
        done = self.prof("--sim", "-d", out, "-o", "run", self.app)
        self.assertEqual(done.returncode, 0, e2e.describe(done))
        self.assertIn("run.2.kernel.csv", self.files(out))

    def test_a_database_that_cannot_be_written_exits_73(self):
        out = os.path.join(self.tmp, "out")
        os.makedirs(out)
        # The output directory is replaced by a file once the program runs, in one step (renameat2's
        # RENAME_EXCHANGE: prof makes a removed output directory again, and did so between an
        # `rm -rf` and a `touch` once under ASan): nothing can be written.
        swap = ("import ctypes, os, sys\n"
                "libc = ctypes.CDLL(None, use_errno=True)\n"
                "open(sys.argv[2], 'w').close()\n"
                "if libc.renameat2(-100, sys.argv[1].encode(), -100, sys.argv[2].encode(), 2) != 0:\n"
                "    sys.exit('renameat2: ' + os.strerror(ctypes.get_errno()))\n")
        aside = out + ".aside"
        done = self.prof("--sim", "-d", out, "bash", "-c",
                         f"{sys.executable} -c \"$0\" {out} {aside} && exec {self.app}", swap)
        self.assertEqual(done.returncode, 73, e2e.describe(done))
        self.assertIn("the program's status 0", done.stderr)

    def test_runs_with_the_same_pid_keep_both(self):
        if shutil.which("unshare") is None or subprocess.run(["unshare", "-pf", "--mount-proc", "true"]).returncode:
            self.skipTest("no pid namespaces here")
        out = os.path.join(self.tmp, "out")
        pids = []
        for _ in range(2):
            done = e2e.run(["unshare", "-pf", "--mount-proc", e2e.Config.prof, "--sim", "-d", out, self.app],
                           cwd=self.tmp)
            self.assertEqual(done.returncode, 0, e2e.describe(done))
            pids.append(e2e.parse_pid(done.stdout))
        self.assertEqual(pids[0], pids[1], "a pid namespace gives the program the same pid")
        pid = pids[0]
        files = self.files(out)
        self.assertIn(f"hip-prof-{pid}.db", files)
        self.assertIn(f"hip-prof-{pid}.2.db", files)
        self.assertIn(f"result_{pid}.kernel.csv", files)
        self.assertIn(f"result_{pid}.2.kernel.csv", files)
        # Each run's reports describe its own database.
        regen = self.prof("--db", os.path.join(out, f"hip-prof-{pid}.2.db"), "-d", os.path.join(self.tmp, "r"))
        self.assertEqual(regen.returncode, 0, e2e.describe(regen))

    def test_same_output_name_twice_is_not_clobbered(self):
        out = os.path.join(self.tmp, "out")
        first = self.prof("--sim", "-d", out, "-o", "run1", self.app)
        second = self.prof("--sim", "-d", out, "-o", "run1", self.app)
        self.assertEqual((first.returncode, second.returncode), (0, 0), e2e.describe(second))
        self.assertIn("run1.2", second.stderr)
        self.assertIn("run1.hiptrace.csv", self.files(out))
        self.assertIn("run1.2.hiptrace.csv", self.files(out))
        forced = self.prof("--sim", "--force", "-d", out, "-o", "run1", self.app)
        self.assertEqual(forced.returncode, 0, e2e.describe(forced))
        self.assertNotIn("run1.3.hiptrace.csv", self.files(out))

    def test_command_line(self):
        done = self.prof("--sim", "-d", "out", "--", self.app)
        self.assertEqual(done.returncode, 0, e2e.describe(done))
        bad = self.prof("--json-max-events", "0", self.app)
        self.assertEqual(bad.returncode, 2)
        self.assertEqual(len(bad.stderr.splitlines()), 1)
        self.assertIn("at least 1", bad.stderr)
        self.assertLess(len(bad.stderr), 200, "no 309-digit number")
        dot = self.prof("-o", ".", self.app)
        self.assertEqual(dot.returncode, 2)
        self.assertIn("-o .", dot.stderr)
        sub = self.prof("--sim", "-d", "out2", "-o", "a/b", self.app)
        self.assertEqual(sub.returncode, 0, e2e.describe(sub))
        self.assertIn("b.kernel.csv", self.files(os.path.join(self.tmp, "out2", "a")))

    def test_summary_output(self):
        quiet = self.prof("--sim", "-d", "out", "--summary-output", "none", self.app)
        self.assertEqual(quiet.returncode, 0)
        self.assertNotIn("HIP API (", quiet.stdout)
        self.assertIn("EXPECT api_calls=", quiet.stdout, "the program's own output stays")
        to_err = self.prof("--sim", "-d", "out", "--summary-output", "stderr", self.app)
        self.assertNotIn("HIP API (", to_err.stdout)
        self.assertIn("HIP API (", to_err.stderr)
        to_file = self.prof("--sim", "-d", "out", "--summary-output", "summary.txt", self.app)
        self.assertNotIn("HIP API (", to_file.stdout)
        with open(os.path.join(self.tmp, "summary.txt")) as f:
            self.assertIn("HIP API (", f.read())

    def test_db_merge_skips_what_it_cannot_merge(self):
        runs = os.path.join(self.tmp, "runs")
        for _ in range(2):
            self.assertEqual(self.prof("--sim", "-d", runs, self.app).returncode, 0)
        dbs = [f for f in self.files(runs) if f.endswith(".db")]
        elsewhere = os.path.join(self.tmp, "elsewhere")
        os.makedirs(elsewhere)
        shutil.move(os.path.join(runs, dbs[1]), os.path.join(elsewhere, dbs[1]))
        os.symlink(os.path.join(elsewhere, dbs[1]), os.path.join(runs, "linked.db"))
        with open(os.path.join(runs, dbs[0]), "rb") as f:
            data = f.read()
        with open(os.path.join(runs, "broken.db"), "wb") as f:
            f.write(data[:len(data) // 3])  # a prof db cut short
        done = self.prof("--db-merge", runs, "-d", os.path.join(self.tmp, "merged"))
        self.assertEqual(done.returncode, 0, e2e.describe(done))
        self.assertIn("skipped", done.stderr)
        self.assertIn("broken.db", done.stderr)
        merged = e2e.open_db(os.path.join(self.tmp, "merged", "result_merged.db"))
        self.assertEqual(e2e.scalar(merged, "SELECT COUNT(*) FROM processes"), 2, "the good and the linked db")
        merged.close()
        strict = self.prof("--db-merge", runs, "--strict", "-d", os.path.join(self.tmp, "strict"))
        self.assertNotEqual(strict.returncode, 0, e2e.describe(strict))
        self.assertIn("broken.db", strict.stderr)

    def test_script_without_shebang_runs_with_sh(self):
        script = os.path.join(self.tmp, "no-shebang")
        with open(script, "w") as f:
            f.write(f'echo "args: $*"\nexec {self.app}\n')
        os.chmod(script, 0o755)
        done = self.prof("--sim", "-d", "out", script, "one", "two")
        self.assertEqual(done.returncode, 0, e2e.describe(done))
        self.assertIn("args: one two", done.stdout)
        self.assertIn("HIP API (", done.stdout)


def current_umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


if __name__ == "__main__":
    e2e.main()
