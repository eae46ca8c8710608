"""e2e: -d and -o are patterns (%pid%, %ppid%, %hostname%, %rank%, %env{VAR}%, %q{VAR}%, %%),
expanded per profiled process: its db and reports land in the expanded place. A pattern prof does
not know is a usage error (exit 2, one line, nothing written, nothing run). With mpirun installed,
each rank of `mpirun -n 2 prof -o 'rank%rank%'` names its outputs by its rank.

    python3 test/e2e/test_path_patterns.py --prof build/bin/prof --bin-dir build/test-bin
"""
import os
import shutil
import socket
import tempfile
import unittest

import e2e_common as e2e

USAGE = 2
# The launchers' rank variables: blanked (an empty one is no rank), so a test run under mpirun or
# Slurm sees only the rank it sets.
RANK_VARIABLES = ["OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "MV2_COMM_WORLD_RANK", "SLURM_PROCID"]


def with_rank(rank, **more):
    env = {name: "" for name in RANK_VARIABLES}
    env["PMI_RANK"] = str(rank)
    env.update(more)
    return env


class PathPatternTest(unittest.TestCase):
    def setUp(self):
        self.app = e2e.built_sample("multistream")
        self.tmp = tempfile.mkdtemp(prefix="prof-e2e-patterns-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def files_written(self, stdout):
        self.assertIn("Files written:", stdout)
        # The list ends at the first blank line (the findings block follows it).
        files = stdout.split("Files written:")[1].split("\n\n")[0]
        return [line.strip() for line in files.splitlines() if line.startswith("  ")]

    def test_each_pattern_expands_to_the_process_value(self):
        done = e2e.run_prof(["--sim", "-d", os.path.join(self.tmp, "out_%pid%"), "-o", "r_%rank%_%env{X}%%%",
                             self.app, "256", "1"], cwd=self.tmp, env=with_rank(2, X="abc"))
        self.assertEqual(done.returncode, 0, e2e.describe(done))
        pid = e2e.parse_pid(done.stdout)
        out = os.path.join(self.tmp, f"out_{pid}")
        self.assertEqual(e2e.list_dir(self.tmp), [f"out_{pid}"], "only the expanded directory, no journal left")
        expected = e2e.output_paths(out, pid, "r_2_abc%")
        self.assertEqual(e2e.list_dir(out), sorted(os.path.basename(path) for path in expected.values()))
        written = self.files_written(done.stdout)
        self.assertEqual(written[0], expected["db"], "the db is named first, where it now is")
        self.assertEqual(sorted(written), sorted(expected.values()))
        db = e2e.open_db(expected["db"])
        try:
            self.assertEqual(e2e.scalar(db, "SELECT value FROM meta WHERE key = 'rank'"), "2")
        finally:
            db.close()

    def test_parent_host_and_unset_q(self):
        # %ppid% of the launched program is prof itself; %q{}% of an unset variable is empty.
        done = e2e.run_prof(["--sim", "-d", "p%ppid%/%hostname%", "-o", "run%q{PROF_E2E_UNSET}%",
                             self.app, "256", "1"], cwd=self.tmp, env=with_rank(0))
        self.assertEqual(done.returncode, 0, e2e.describe(done))
        pid = e2e.parse_pid(done.stdout)
        (parent,) = [name for name in e2e.list_dir(self.tmp) if name.startswith("p")]
        out = os.path.join(self.tmp, parent, socket.gethostname())
        self.assertTrue(os.path.isfile(os.path.join(out, f"hip-prof-{pid}.db")), e2e.list_dir(self.tmp))
        self.assertTrue(os.path.isfile(os.path.join(out, "run.kernel.csv")), e2e.describe(done))

    def test_unknown_or_malformed_pattern_is_a_usage_error(self):
        for option, value, named in [("-o", "r_%bogus%", "%bogus%"), ("-d", "out_%pid", "%pid"),
                                     ("-o", "r_%env{PROF_E2E_UNSET}%", "PROF_E2E_UNSET"), ("-d", "50%", "%")]:
            with self.subTest(option=option, value=value):
                out = os.path.join(self.tmp, "out")
                args = ["--sim", "-d", out, option, value] if option == "-o" else ["--sim", option, value]
                done = e2e.run_prof(args + [self.app, "256", "1"], cwd=self.tmp)
                self.assertEqual(done.returncode, USAGE, e2e.describe(done))
                lines = done.stderr.splitlines()
                self.assertEqual(len(lines), 1, e2e.describe(done))
                self.assertTrue(lines[0].startswith(f"prof: {option} {value}: "), lines[0])
                self.assertIn(named, lines[0][len(f"prof: {option} {value}: "):])
                self.assertNotIn("PID ", done.stdout, "the program did not run")
                self.assertEqual(e2e.list_dir(self.tmp), [], "nothing written")

    def test_db_regeneration_names_the_db_process(self):
        run = e2e.run_prof(["--sim", "-d", self.tmp, self.app, "256", "1"], cwd=self.tmp, env=with_rank(5))
        self.assertEqual(run.returncode, 0, e2e.describe(run))
        pid = e2e.parse_pid(run.stdout)
        db = os.path.join(self.tmp, f"hip-prof-{pid}.db")
        again = e2e.run_prof(["--db", db, "-d", os.path.join(self.tmp, "again_%pid%"), "-o", "x%rank%"],
                             cwd=self.tmp, env=with_rank(9))
        self.assertEqual(again.returncode, 0, e2e.describe(again))
        self.assertTrue(os.path.isfile(os.path.join(self.tmp, f"again_{pid}", "x5.kernel.csv")),
                        "the db's rank (5), not the regenerating prof's (9)")

    def test_merge_refuses_a_single_process_value(self):
        done = e2e.run_prof(["--db-merge", self.tmp, "-d", os.path.join(self.tmp, "m_%pid%")], cwd=self.tmp)
        self.assertEqual(done.returncode, USAGE, e2e.describe(done))
        self.assertEqual(len(done.stderr.splitlines()), 1, e2e.describe(done))
        self.assertIn("%pid%", done.stderr)
        self.assertEqual(e2e.list_dir(self.tmp), [])


class MpiRankPatternTest(unittest.TestCase):
    def test_each_rank_names_its_outputs(self):
        mpirun, app = e2e.mpi_job_or_skip("multistream")
        tmp = tempfile.mkdtemp(prefix="prof-e2e-patterns-mpi-")
        self.addCleanup(shutil.rmtree, tmp, True)
        job = e2e.run([mpirun, "--allow-run-as-root", "--oversubscribe", "-n", "2", e2e.Config.prof, "--sim",
                       "-d", "runs/%hostname%", "-o", "rank%rank%", app, "256", "1"], cwd=tmp)
        self.assertEqual(job.returncode, 0, e2e.describe(job))
        out = os.path.join(tmp, "runs", socket.gethostname())
        for rank in range(2):
            self.assertTrue(os.path.isfile(os.path.join(out, f"rank{rank}.kernel.csv")), e2e.list_dir(out))
        self.assertEqual(len(e2e.find_dbs(out)), 2)


if __name__ == "__main__":
    e2e.main()
