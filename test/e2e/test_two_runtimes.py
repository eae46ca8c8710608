"""e2e: a program that calls HIP and MUSA (test/apps/two_runtimes.cpp) on prof's simulated devices.
With no flag prof records both in one database (prof-<pid>.db) and one timeline: an API CSV and a
summary table per runtime, every call with its runtime, both runtimes' kernels and copies with
device times within 1 us of the simulators' truth, a flow from each call to its work.
`--hip-trace` and `--musa-trace` record one runtime each, under that runtime's names.

    python3 test/e2e/test_two_runtimes.py --prof build/bin/prof --bin-dir build/test-bin
"""
import os
import shutil
import tempfile
import unittest

import e2e_common as e2e

APP = "two_runtimes"


def run(test, *flags):
    tmp = tempfile.mkdtemp(prefix="prof-e2e-two-")
    test.addCleanup(shutil.rmtree, tmp, True)
    out = os.path.join(tmp, "out")
    os.makedirs(out)
    truth = os.path.join(tmp, "truth.jsonl")
    done = e2e.run_prof(["--sim", *flags, "-d", out, e2e.sample(APP)], cwd=tmp, env={"PROF_SIM_TRUTH": truth})
    test.assertEqual(done.returncode, 0, e2e.describe(done))
    return out, done, e2e.parse_pid(done.stdout), e2e.parse_expect(done.stdout), truth


class TwoRuntimesTest(unittest.TestCase):
    def setUp(self):
        e2e.built_sample(APP)

    def test_one_database_and_one_timeline_hold_both(self):
        out, done, pid, expect, truth_path = run(self)
        base = f"result_{pid}"
        self.assertEqual(sorted(os.listdir(out)), sorted([f"prof-{pid}.db", f"{base}.hiptrace.csv",
                                                          f"{base}.musatrace.csv", f"{base}.kernel.csv",
                                                          f"{base}.summary.json", f"{base}_copy.json",
                                                          f"{base}.api_trace.csv", f"{base}.kernel_trace.csv",
                                                          f"{base}.copy_trace.csv", f"{base}.copy_stats.csv",
                                                          f"{base}.memory_stats.csv", f"{base}.report.html",
                                                          f"{base}.pftrace"]))
        direct = e2e.run_on_sim([e2e.sample(APP)], cwd=out)
        self.assertEqual(e2e.normalise_sample_output(e2e.program_stdout(done.stdout)),
                         e2e.normalise_sample_output(e2e.program_stdout(direct.stdout)))
        summary = done.stdout.split("END", 1)[1]
        self.assertLess(summary.index(f"HIP API ({expect['hip_calls']} calls"),
                        summary.index(f"MUSA API ({expect['musa_calls']} calls"))

        with e2e.open_db(os.path.join(out, f"prof-{pid}.db")) as db:
            self.assertEqual(e2e.scalar(db, "SELECT value FROM meta WHERE key = 'runtime'"), "hip,musa")
            per_runtime = dict(db.execute("SELECT r.name, COUNT(*) FROM api_calls a JOIN api_names n USING (api_id) "
                                          "JOIN runtimes r USING (runtime_id) GROUP BY r.name").fetchall())
            self.assertEqual(per_runtime, {"hip": expect["hip_calls"], "musa": expect["musa_calls"]})
            self.assertEqual(e2e.scalar(db, "SELECT COUNT(*) FROM kernels"), expect["kernels"])
            self.assertEqual(e2e.scalar(db, "SELECT COUNT(*) FROM copies"), expect["copies"])
            names = {row[0] for row in db.execute("SELECT s.value FROM kernels k JOIN strings s "
                                                  "ON s.string_id = k.name_id")}
            self.assertEqual(names, {"hip_double", "musa_triple"}, "kernels launched by address, named from the ELF")
            off = e2e.truth_mismatches(self, db, e2e.read_truth(truth_path))
        # ... in this run or one of two fresh ones (e2e_common.truth_matches_in_one_of_three).
        off = e2e.truth_matches_in_one_of_three(self, None, APP, off,
                                                lambda db, path: e2e.truth_mismatches(self, db, e2e.read_truth(path)))
        self.assertEqual(off, [], "device times vs the simulators' truth")

        for stem, prefix in (("hiptrace", "hip"), ("musatrace", "musa")):
            header, rows = e2e.read_csv(os.path.join(out, f"{base}.{stem}.csv"))
            self.assertEqual(header, e2e.CSV_HEADER)
            self.assertTrue(all(row["Name"].startswith(prefix) for row in rows), f"{stem}: {rows}")
        events = e2e.read_json(os.path.join(out, f"{base}_copy.json"))["traceEvents"]
        api = [e for e in events if e.get("cat") == "api"]
        self.assertEqual(len(api), expect["hip_calls"] + expect["musa_calls"], "both runtimes' calls, one timeline")
        work = [e for e in events if e.get("ph") == "X" and e.get("cat") in ("kernel", "copy")]
        self.assertEqual(len(work), expect["kernels"] + expect["copies"])
        starts = {e["id"] for e in events if e.get("ph") == "s"}
        self.assertEqual(starts, {e["args"]["correlation_id"] for e in work}, "a flow from each call to its work")

    def test_each_flag_records_its_runtime_alone(self):
        for flag, name, other in (("--hip-trace", "hip", "musa"), ("--musa-trace", "musa", "hip")):
            with self.subTest(flag=flag):
                out, done, pid, expect, _ = run(self, flag)
                self.assertEqual(sorted(f for f in os.listdir(out) if f.endswith(".db")), [f"{name}-prof-{pid}.db"])
                self.assertFalse(any(f.endswith(f".{other}trace.csv") for f in os.listdir(out)), os.listdir(out))
                with e2e.open_db(os.path.join(out, f"{name}-prof-{pid}.db")) as db:
                    self.assertEqual([r[0] for r in db.execute("SELECT name FROM runtimes")], [name])
                    self.assertEqual(e2e.scalar(db, "SELECT COUNT(*) FROM api_calls"), expect[f"{name}_calls"])
                    self.assertEqual(e2e.scalar(db, "SELECT COUNT(*) FROM kernels"), 1)
                    self.assertEqual(e2e.scalar(db, "SELECT COUNT(*) FROM copies"), 3)


if __name__ == "__main__":
    e2e.main()
