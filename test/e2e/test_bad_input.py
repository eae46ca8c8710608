"""e2e: prof's own failures. Each has its exit status and exactly one line on stderr naming the
file or option: 2 usage, 125 prof failed (nothing is launched), 126 not executable, 127 not found.

    python3 test/e2e/test_bad_input.py --prof build/bin/prof --bin-dir build/test-bin
"""
import os
import tempfile
import unittest

import e2e_common as e2e


class BadInputTest(unittest.TestCase):
    def setUp(self):
        self.tmp_holder = tempfile.TemporaryDirectory(prefix="prof-e2e-bad-")
        self.tmp = self.tmp_holder.name

    def tearDown(self):
        self.tmp_holder.cleanup()

    def assert_failure(self, args, status, named):
        profiled = e2e.run_prof(args, cwd=self.tmp)
        self.assertEqual(profiled.returncode, status, e2e.describe(profiled))
        lines = profiled.stderr.splitlines()
        self.assertEqual(len(lines), 1, "exactly one line on stderr" + e2e.describe(profiled))
        self.assertIn(named, lines[0], "the stderr line names the culprit")
        self.assertEqual(profiled.stdout, "", "nothing on stdout when prof fails" + e2e.describe(profiled))
        return profiled

    def test_missing_program_is_127(self):
        missing = os.path.join(self.tmp, "no-such-program")
        self.assert_failure(["--sim", missing], 127, missing)
        self.assert_failure(["--sim", "no-such-program-on-path"], 127, "no-such-program-on-path")

    def test_not_executable_is_126(self):
        path = os.path.join(self.tmp, "not-executable")
        with open(path, "w") as stream:
            stream.write("#!/bin/sh\nexit 0\n")
        os.chmod(path, 0o644)
        self.assert_failure(["--sim", path], 126, path)

    def test_unusable_output_dir_is_73_and_launches_nothing(self):
        # A missing -d is created (issue 16); a path through a file, or a directory that refuses new
        # files (/proc, even to root), cannot be written: prof's "cannot write" status, 73.
        app = e2e.built_sample("exit_status")
        a_file = os.path.join(self.tmp, "a-file")
        open(a_file, "w").close()
        for directory in (a_file, os.path.join(a_file, "below"), "/proc"):
            with self.subTest(directory=directory):
                marker = os.path.join(self.tmp, "marker")
                self.assert_failure(["--sim", "-d", directory, app, "0", marker], 73, directory)
                self.assertFalse(os.path.exists(marker), "prof launched the program although it cannot write")

    def test_unknown_option_is_2(self):
        app = e2e.built_sample("exit_status")
        self.assert_failure(["--no-such-option", app, "0"], 2, "--no-such-option")

    def test_no_program_is_2(self):
        profiled = e2e.run_prof(["--sim"], cwd=self.tmp)
        self.assertEqual(profiled.returncode, 2, e2e.describe(profiled))
        self.assertNotEqual(profiled.stderr, "", "a usage error says why")


if __name__ == "__main__":
    e2e.main()
