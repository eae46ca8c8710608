"""e2e: `-o NAME` replaces result_<pid> as the base name of the reports; the db keeps its name.

    python3 test/e2e/test_output_name.py --prof build/bin/prof --bin-dir build/test-bin
"""
import os
import tempfile
import unittest

import e2e_common as e2e


class OutputNameTest(unittest.TestCase):
    def test_base_name(self):
        app = e2e.built_sample("multistream")
        with tempfile.TemporaryDirectory(prefix="prof-e2e-name-") as tmp:
            profiled = e2e.run_prof(["--sim", "--hip-trace", "-d", tmp, "-o", "my run", app, "256", "1"], cwd=tmp)
            self.assertEqual(profiled.returncode, 0, e2e.describe(profiled))
            pid = e2e.parse_pid(profiled.stdout)
            expected = sorted(os.path.basename(path) for path in e2e.output_paths(tmp, pid, "my run").values())
            self.assertEqual(e2e.list_dir(tmp), expected, "exactly the db and the reports named 'my run'")
            header, rows = e2e.read_csv(os.path.join(tmp, "my run.kernel.csv"))
            self.assertEqual(header, e2e.CSV_HEADER)
            self.assertEqual(sum(int(row["Calls"]) for row in rows), e2e.parse_expect(profiled.stdout)["kernels"])


if __name__ == "__main__":
    e2e.main()
