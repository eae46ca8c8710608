"""e2e: a run of several processes (a shell running the sample twice) prints each process's
summary under a line naming it (pid, host, command), then one summary over all of them whose
counts are the sums.

    python3 test/e2e/test_processes.py --prof build/bin/prof --bin-dir build/test-bin
"""
import os
import re
import shutil
import tempfile
import unittest

import e2e_common as e2e


def api_calls(block):
    return int(re.search(r"^HIP API \((\d+) calls", block, re.M).group(1))


class ProcessesTest(unittest.TestCase):
    def test_each_process_named_then_combined(self):
        app = e2e.built_sample("multistream")
        tmp = tempfile.mkdtemp(prefix="prof-e2e-processes-")
        self.addCleanup(shutil.rmtree, tmp, True)
        script = f"{app} 256 1 >/dev/null; {app} 512 1 >/dev/null"
        done = e2e.run_prof(["--sim", "-d", tmp, "sh", "-c", script], cwd=tmp)
        self.assertEqual(done.returncode, 0, e2e.describe(done))
        headings = re.findall(r"^== Process (\d+), host [^:]+: (.*) ==$", done.stdout, re.M)
        self.assertEqual([command for _, command in headings], [f"{app} 256 1", f"{app} 512 1"], done.stdout)
        parts = re.split(r"^== .* ==$", done.stdout, flags=re.M)[1:]
        self.assertEqual(len(parts), 3, done.stdout)
        self.assertIn("== All 2 processes ==", done.stdout)
        self.assertEqual(api_calls(parts[2]), api_calls(parts[0]) + api_calls(parts[1]))
        self.assertNotIn("Files written", parts[2])
        for pid, _ in headings:
            self.assertTrue(os.path.exists(os.path.join(tmp, f"hip-prof-{pid}.db")))


if __name__ == "__main__":
    e2e.main()
