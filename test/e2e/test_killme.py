"""e2e: a program killed by SIGKILL. prof exits 128+9 and still records every call the program
committed before it died: the count the program printed before making them.

    python3 test/e2e/test_killme.py --prof build/bin/prof --bin-dir build/test-bin
"""
import os
import signal
import tempfile
import unittest

import e2e_common as e2e

CALLS = 1000


class KillmeTest(unittest.TestCase):
    def test_sigkill_exit_status_and_calls_recorded(self):
        app = e2e.built_sample("killme")
        with tempfile.TemporaryDirectory(prefix="prof-e2e-killme-") as tmp:
            profiled = e2e.run_prof(["--sim", "--hip-trace", "-d", tmp, app, str(CALLS)], cwd=tmp)
            self.assertEqual(profiled.returncode, 128 + signal.SIGKILL, "prof reports death by signal N as 128+N"
                             + e2e.describe(profiled))
            expect = e2e.parse_expect(profiled.stdout)
            self.assertEqual(expect["api_calls"], CALLS + 1)
            paths = e2e.output_paths(tmp, e2e.parse_pid(profiled.stdout))
            self.assertTrue(os.path.isfile(paths["db"]), f"no {paths['db']}; {tmp} holds {e2e.list_dir(tmp)}")
            db = e2e.open_db(paths["db"])
            try:
                per_api = dict(db.execute("SELECT n.name, COUNT(*) FROM api_calls a JOIN api_names n "
                                          "USING (api_id) GROUP BY n.name").fetchall())
                self.assertEqual(per_api, {"hipStreamCreate": 1, "hipStreamQuery": CALLS},
                                 "every call made before SIGKILL, and nothing else")
                sequence = [row[0] for row in db.execute("SELECT sequence FROM api_calls ORDER BY sequence")]
                self.assertEqual(sequence, list(range(1, CALLS + 2)), "sequence 1..N")
            finally:
                db.close()
            header, rows = e2e.read_csv(paths["hiptrace"])
            self.assertEqual(header, e2e.CSV_HEADER)
            self.assertEqual(sum(int(row["Calls"]) for row in rows), CALLS + 1, "hiptrace.csv sum of Calls")


if __name__ == "__main__":
    e2e.main()
