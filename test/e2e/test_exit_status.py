"""e2e: prof exits with the program's exit status, and everything after the program's name is the
program's, even when it looks like one of prof's options.

    python3 test/e2e/test_exit_status.py --prof build/bin/prof --bin-dir build/test-bin
"""
import os
import tempfile
import unittest

import e2e_common as e2e


class ExitStatusTest(unittest.TestCase):
    def profile(self, tmp, *args):
        app = e2e.built_sample("exit_status")
        return e2e.run_prof(["--sim", "-d", tmp, app] + list(args), cwd=tmp)

    def test_status_passes_through(self):
        for status in (0, 7, 255):
            with self.subTest(status=status), tempfile.TemporaryDirectory(prefix="prof-e2e-exit-") as tmp:
                profiled = self.profile(tmp, str(status))
                self.assertEqual(profiled.returncode, status, e2e.describe(profiled))
                dbs = e2e.find_dbs(tmp)
                self.assertEqual(len(dbs), 1, f"one db expected; {tmp} holds {e2e.list_dir(tmp)}")
                db = e2e.open_db(dbs[0])
                try:
                    expect = e2e.parse_expect(profiled.stdout)
                    self.assertEqual(e2e.scalar(db, "SELECT COUNT(*) FROM api_calls"), expect["api_calls"])
                    self.assertEqual(e2e.scalar(db, "SELECT COUNT(*) FROM copies"), expect["copies"])
                finally:
                    db.close()

    def test_arguments_after_the_program_are_the_programs(self):
        with tempfile.TemporaryDirectory(prefix="prof-e2e-exit-") as tmp:
            # exit_status creates its second argument as a file: prof must pass "--version" on.
            profiled = self.profile(tmp, "5", "--version")
            self.assertEqual(profiled.returncode, 5, e2e.describe(profiled))
            self.assertTrue(os.path.exists(os.path.join(tmp, "--version")),
                            f"the program did not get '--version'; {tmp} holds {e2e.list_dir(tmp)}")


if __name__ == "__main__":
    e2e.main()
