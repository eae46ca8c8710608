"""e2e: root's prof on a shared machine, against a second, unprivileged local user (issue 38).

The test creates that user (useradd), which plants files in a shared 1777 directory: a run
directory of its own for `prof --recover`, a journal directory inside root's output directory,
symlinks and a FIFO at the --summary-output name. Root's prof must refuse with one line naming the
file (non-zero exit), change nothing outside the run (the victim files keep content, mode and
inode) and never hang. It also holds PROF_* variables to their ranges (the library warns and takes
the default, the cli refuses) and escapes control characters in what prof prints to a terminal.
Root and useradd are required: without them the test skips, or fails when CI is set.

    sudo python3 test/e2e/test_security_user.py --prof build/bin/prof --bin-dir build/test-bin
"""
import os
import shutil
import stat
import subprocess
import tempfile
import unittest

import e2e_common as e2e

TIMEOUT_S = 60  # every command: a planted FIFO must not make prof wait forever
RING_HEADER_BYTES = 4096
RECORD_BYTES = 64


def unavailable(why):
    if os.environ.get("CI"):
        raise AssertionError(f"{why}: required in CI")
    raise unittest.SkipTest(why)


def run(command, env=None, cwd=None):
    merged = dict(os.environ)
    merged.pop("PROF_BUFFER_RECORDS", None)
    merged.update(env or {})
    return subprocess.run(command, env=merged, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT_S)


def read(path, mode="r"):
    with open(path, mode) as f:
        return f.read()


def prof_lines(stderr):
    return [line for line in stderr.splitlines() if line.startswith("prof: ")]


class SecondUserTest(unittest.TestCase):
    user = None

    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            unavailable("not root: the test runs root's prof against a second user")
        if not shutil.which("useradd") or not shutil.which("userdel") or not shutil.which("runuser"):
            unavailable("useradd, userdel or runuser missing")
        cls.app = e2e.built_sample("multistream")
        cls.user = f"profsec{os.getpid() % 100000}"
        made = subprocess.run(["useradd", "-M", "-s", "/bin/sh", cls.user], capture_output=True, text=True,
                              timeout=TIMEOUT_S)
        if made.returncode != 0:
            cls.user = None
            unavailable(f"useradd failed: {made.stderr.strip()}")
        try:
            import pwd
            cls.uid = pwd.getpwnam(cls.user).pw_uid
            cls.shared = tempfile.mkdtemp(prefix="prof-e2e-shared-")
            os.chmod(cls.shared, 0o1777)
            cls.private = tempfile.mkdtemp(prefix="prof-e2e-root-")  # root's victims, 0700
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        for name in ("shared", "private"):
            if getattr(cls, name, None):
                shutil.rmtree(getattr(cls, name), ignore_errors=True)
        if cls.user:
            # -r: any home or mail spool it got; "not found" warnings are expected with -M.
            subprocess.run(["userdel", "-r", cls.user], capture_output=True, timeout=TIMEOUT_S)
            cls.user = None

    # --- helpers ---------------------------------------------------------------------------

    def as_user(self, script):
        """Runs a shell script as the second user; it must succeed."""
        done = subprocess.run(["runuser", "-u", self.user, "--", "sh", "-c", script], capture_output=True,
                              text=True, timeout=TIMEOUT_S)
        self.assertEqual(done.returncode, 0, f"as {self.user}: {script}\n{done.stderr}")

    def victims(self):
        """A root-only 0600 file and a root-owned tree: what an attacker would have root destroy."""
        base = tempfile.mkdtemp(dir=self.private)
        tree = os.path.join(base, "tree")
        os.makedirs(os.path.join(tree, "sub"))
        with open(os.path.join(tree, "sub", "keep"), "w") as f:
            f.write("tree")
        secret = os.path.join(base, "secret")
        with open(secret, "w") as f:
            f.write("root only\n")
        os.chmod(secret, 0o600)
        return tree, secret

    def snapshot(self, *paths):
        state = {}
        for top in paths:
            for root, dirs, files in os.walk(top) if os.path.isdir(top) else [(os.path.dirname(top), [], [os.path.basename(top)])]:
                for name in files + dirs:
                    path = os.path.join(root, name)
                    st = os.lstat(path)
                    content = read(path, "rb") if stat.S_ISREG(st.st_mode) else None
                    state[path] = (st.st_ino, st.st_mode, st.st_uid, content)
        return state

    def assert_one_refusal(self, done, *words):
        self.assertNotEqual(done.returncode, 0, e2e.describe(done))
        lines = prof_lines(done.stderr)
        self.assertEqual(len(lines), 1, done.stderr)
        for word in words:
            self.assertIn(word, lines[0])
        return lines[0]

    def user_dir(self, prefix):
        path = tempfile.mkdtemp(prefix=prefix, dir=self.shared)
        os.chown(path, self.uid, -1)
        return path

    # --- 1. prof --recover on another user's run directory, or with paths pointing out of the run --

    def test_recover_refuses_another_users_run_directory(self):
        tree, secret = self.victims()
        before = self.snapshot(tree, secret)
        run_dir = os.path.join(self.shared, "prof-run-evil1")
        out = os.path.join(self.shared, "out-evil1")
        self.as_user(f"mkdir -m 0700 {run_dir} {out} && printf 'output_dir={out}\\njournal_dir={tree}\\n"
                     f"fallback_run_dir={tree}\\nprogram=x\\n' > {run_dir}/run.conf")
        done = run([e2e.Config.prof, "--recover", run_dir])
        line = self.assert_one_refusal(done, run_dir, "not by this user")
        self.assertIn(f"uid {self.uid}", line)
        self.assertEqual(self.snapshot(tree, secret), before)
        self.assertTrue(os.path.exists(os.path.join(run_dir, "run.conf")), "another user's run is not touched")

    def test_recover_refuses_a_journal_directory_another_user_planted(self):
        """Root's own run (its manifest root's), but the journal directory in the shared output
        directory was made first by the other user, with a .dbpath naming root's secret file."""
        tree, secret = self.victims()
        before = self.snapshot(tree, secret)
        out = tempfile.mkdtemp(prefix="out-", dir=self.shared)
        os.chmod(out, 0o1777)
        run_dir = tempfile.mkdtemp(prefix="prof-run-", dir=self.private)
        name = os.path.basename(run_dir)
        journal = os.path.join(out, "." + name)
        self.as_user(f"mkdir -m 0700 {journal} && printf '{secret}' > {journal}/4242.dbpath && touch {journal}/built")
        with open(os.path.join(run_dir, "run.conf"), "w") as f:
            f.write(f"output_dir={out}\njournal_dir={journal}\nprogram=x\nprof_pid=1\n")
        os.chmod(os.path.join(run_dir, "run.conf"), 0o600)
        done = run([e2e.Config.prof, "--recover", run_dir])
        self.assert_one_refusal(done, journal, "not by this user")
        self.assertEqual(self.snapshot(tree, secret), before)

    def test_recover_confines_paths_read_from_the_run(self):
        """Paths in root's own files that lead out of the run (what an edit would have made) are refused."""
        tree, secret = self.victims()
        before = self.snapshot(tree, secret)
        out = tempfile.mkdtemp(prefix="out-", dir=self.private)
        cases = {
            "journal_dir": lambda run_dir: f"output_dir={out}\njournal_dir={tree}\n",
            "fallback_run_dir": lambda run_dir: f"output_dir={out}\nfallback_run_dir={tree}\n",
            "..": lambda run_dir: f"output_dir={out}/../{os.path.basename(tree)}\n",
        }
        for what, manifest in cases.items():
            with self.subTest(what):
                run_dir = tempfile.mkdtemp(prefix="prof-run-", dir=self.private)
                with open(os.path.join(run_dir, "run.conf"), "w") as f:
                    f.write(manifest(run_dir) + "program=x\n")
                done = run([e2e.Config.prof, "--recover", run_dir])
                self.assert_one_refusal(done, "run.conf", "refusing")
        # A .dbpath of root's own journal directory that names a file outside the output directory.
        run_dir = tempfile.mkdtemp(prefix="prof-run-", dir=self.private)
        journal = os.path.join(out, "." + os.path.basename(run_dir))
        os.mkdir(journal, 0o700)
        with open(os.path.join(journal, "4242.dbpath"), "w") as f:
            f.write(secret)
        with open(os.path.join(run_dir, "run.conf"), "w") as f:
            f.write(f"output_dir={out}\njournal_dir={journal}\nprogram=x\n")
        done = run([e2e.Config.prof, "--recover", run_dir])
        self.assert_one_refusal(done, "4242.dbpath", secret)
        self.assertEqual(self.snapshot(tree, secret), before)

    def test_recover_refuses_a_symlinked_run_directory(self):
        tree, secret = self.victims()
        link = os.path.join(self.shared, "prof-run-link")
        self.as_user(f"ln -s {os.path.dirname(tree)} {link}")
        done = run([e2e.Config.prof, "--recover", link])
        self.assert_one_refusal(done, link, "symbolic link")
        self.assertTrue(os.path.isdir(tree))

    # --- 2. --summary-output through a planted symlink or FIFO ---------------------------------

    def test_summary_output_refuses_planted_files(self):
        tree, secret = self.victims()
        before = self.snapshot(tree, secret)
        out = tempfile.mkdtemp(prefix="out-", dir=self.private)
        dangling_target = os.path.join(os.path.dirname(secret), "created-by-prof")
        plants = {
            "symlink": (f"ln -s {secret} {{path}}", "symbolic link"),
            "dangling symlink": (f"ln -s {dangling_target} {{path}}", "symbolic link"),
            "fifo": ("mkfifo -m 0666 {path}", "not a regular file"),
            "their file": ("echo theirs > {path} && chmod 0666 {path}", "another user"),
        }
        for what, (script, problem) in plants.items():
            with self.subTest(what):
                path = os.path.join(self.shared, f"summary-{what.replace(' ', '-')}.txt")
                self.as_user(script.format(path=path))
                done = run([e2e.Config.prof, "--sim", "-d", out, "--force", "--summary-output", path, self.app])
                self.assert_one_refusal(done, path, problem)
                self.assertFalse(os.path.lexists(dangling_target))
        self.assertEqual(self.snapshot(tree, secret), before)

    def test_summary_output_keeps_an_existing_file_without_force(self):
        out = tempfile.mkdtemp(prefix="out-", dir=self.private)
        path = os.path.join(out, "notes.txt")
        with open(path, "w") as f:
            f.write("mine\n")
        done = run([e2e.Config.prof, "--sim", "-d", out, "--summary-output", path, self.app])
        self.assert_one_refusal(done, path, "--force")
        self.assertEqual(read(path), "mine\n")
        done = run([e2e.Config.prof, "--sim", "-d", out, "--force", "--summary-output", path, self.app])
        self.assertEqual(done.returncode, 0, e2e.describe(done))
        self.assertIn("HIP API (", read(path))

    # --- 3. environment variables ---------------------------------------------------------------

    def test_cli_refuses_bad_variables_before_launching(self):
        out = tempfile.mkdtemp(prefix="out-", dir=self.private)
        marker = os.path.join(out, "ran")
        for name, value in [("PROF_BUFFER_RECORDS", "-1"), ("PROF_BUFFER_RECORDS", "99999999999999999999999"),
                            ("PROF_BUFFER_WAIT_MS", "1e3"), ("PROF_SELF_MOVE", "2"), ("PROF_HOOK_CLOCK", "tsc"),
                            ("PROF_TEST_CLOCK_SKEW", "x"), ("TMPDIR", "relative")]:
            with self.subTest(name=name, value=value):
                done = run([e2e.Config.prof, "--sim", "-d", out, "sh", "-c", f"touch {marker}"], env={name: value})
                self.assertEqual(done.returncode, 2, e2e.describe(done))
                self.assert_one_refusal(done, f"{name}=")
                self.assertFalse(os.path.exists(marker), "nothing launched")

    def preloaded(self, run_dir, fallback, records):
        prefix = os.path.dirname(os.path.dirname(e2e.Config.prof))
        env = {"LD_PRELOAD": os.path.join(prefix, "lib", "prof", "libprof_preload.so"),
               "LD_LIBRARY_PATH": e2e.Config.sim_dir, "PROF_RUN_DIR": run_dir}
        if fallback:
            env["PROF_RUN_DIR_FALLBACK"] = fallback
        if records is not None:
            env["PROF_BUFFER_RECORDS"] = records
        return run([self.app, "64", "1"], env=env)

    def test_library_ignores_bad_buffer_sizes_and_keeps_rings_within_free_space(self):
        plain = run([self.app, "64", "1"], env={"LD_LIBRARY_PATH": e2e.Config.sim_dir})
        self.assertEqual(plain.returncode, 0, e2e.describe(plain))
        default_ring = RING_HEADER_BYTES + (1 << 16) * RECORD_BYTES
        for records, warned in [("-1", True), ("99999999999999999999999", True), (str(1 << 28), False)]:
            with self.subTest(records=records):
                run_dir = tempfile.mkdtemp(prefix="prof-run-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
                fallback = tempfile.mkdtemp(prefix="prof-run-", dir=self.private)
                try:
                    limits = {d: os.statvfs(d).f_bavail * os.statvfs(d).f_frsize // 64 for d in (run_dir, fallback)}
                    done = self.preloaded(run_dir, fallback, records)
                    self.assertEqual(done.returncode, plain.returncode, e2e.describe(done))
                    self.assertEqual(e2e.parse_expect(done.stdout), e2e.parse_expect(plain.stdout))
                    lines = prof_lines(done.stderr)
                    self.assertEqual(len(lines), 1 if warned else 0, done.stderr)
                    if warned:
                        self.assertIn("PROF_BUFFER_RECORDS=", lines[0])
                        self.assertIn("using the default", lines[0])
                    rings = [(d, os.path.getsize(os.path.join(d, n))) for d in limits for n in os.listdir(d)
                             if n.endswith(".buf")]
                    self.assertTrue(rings, "the program was recorded")
                    for d, size in rings:
                        self.assertLessEqual(size, default_ring if warned else max(limits[d], 4096 + 64 * 64))
                finally:
                    shutil.rmtree(run_dir, ignore_errors=True)
                    shutil.rmtree(fallback, ignore_errors=True)

    # --- 4. control characters on the terminal ------------------------------------------------

    def test_terminal_output_escapes_control_characters(self):
        out = tempfile.mkdtemp(prefix="out-", dir=self.private)
        evil = "\x1b]0;owned\x07\x1b[2J"
        missing = run([e2e.Config.prof, "--sim", "-d", out, f"/nonexistent/{evil}"])
        self.assertNotEqual(missing.returncode, 0)
        self.assertNotIn("\x1b", missing.stderr)
        self.assertIn("\\x1b]0;owned\\x07", missing.stderr)
        script = f"{self.app} 64 1 '{evil}' >/dev/null; {self.app} 64 1 >/dev/null"
        done = run([e2e.Config.prof, "--sim", "-d", out, "sh", "-c", script])
        self.assertEqual(done.returncode, 0, e2e.describe(done))
        self.assertNotIn("\x1b", done.stdout + done.stderr)
        self.assertIn("\\x1b[2J ==", done.stdout, "the process heading names the argument, escaped")


if __name__ == "__main__":
    e2e.main()
