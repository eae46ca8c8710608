"""e2e MPI: `mpirun -n 3 prof --sim ...` profiles each rank into its own database, each records
its rank (from the launcher's environment), and `prof --db-merge` orders the processes by rank
and names them by rank in the merged timeline. Skips when mpirun is not installed.

    python3 test/e2e/test_mpi.py --prof build/bin/prof --bin-dir build/test-bin
"""
import json
import os
import tempfile
import unittest

import e2e_common as e2e

RANKS = 3


class MpiTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.mpirun, cls.app = e2e.mpi_job_or_skip("multistream")
        cls.tmp = tempfile.TemporaryDirectory(prefix="prof-e2e-mpi-")
        cls.runs = os.path.join(cls.tmp.name, "runs")
        cls.merged = os.path.join(cls.tmp.name, "merged")
        os.mkdir(cls.runs)
        os.mkdir(cls.merged)
        cls.job = e2e.run([cls.mpirun, "--allow-run-as-root", "--oversubscribe", "-n", str(RANKS),
                           e2e.Config.prof, "--sim", "-d", cls.runs, cls.app, "1024", "1"],
                          cwd=cls.tmp.name)
        cls.merge = e2e.run_prof(["--db-merge", cls.runs, "-d", cls.merged], cwd=cls.tmp.name)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_each_rank_records_its_rank(self):
        self.assertEqual(self.job.returncode, 0, e2e.describe(self.job))
        dbs = e2e.find_dbs(self.runs)
        self.assertEqual(len(dbs), RANKS, e2e.describe(self.job))
        ranks = []
        for path in dbs:
            db = e2e.open_db(path)
            try:
                ranks.append(int(e2e.scalar(db, "SELECT value FROM meta WHERE key = 'rank'")))
            finally:
                db.close()
        self.assertEqual(sorted(ranks), list(range(RANKS)))

    def test_merge_orders_and_names_processes_by_rank(self):
        self.assertEqual(self.merge.returncode, 0, e2e.describe(self.merge))
        db = e2e.open_db(os.path.join(self.merged, "result_merged.db"))
        try:
            ranks = [row[0] for row in db.execute("SELECT rank FROM processes ORDER BY process_id")]
        finally:
            db.close()
        self.assertEqual(ranks, list(range(RANKS)))
        with open(os.path.join(self.merged, "result_merged_copy.json"), encoding="utf-8") as f:
            trace = json.load(f)
        names = [e["args"]["name"] for e in trace["traceEvents"]
                 if e.get("ph") == "M" and e.get("name") == "process_name"]
        for rank in range(RANKS):
            self.assertTrue(any(f"rank {rank}," in name for name in names), f"rank {rank} in {names}")


if __name__ == "__main__":
    e2e.main()
