"""e2e: `prof --sim` on the C MUSA sample (musa* calls only, no vendor SDK), checked against the
sample's own counts (its EXPECT line), its output without prof, and the simulated device's ground
truth (PROF_SIM_TRUTH): exact API counts, demangled kernel names, copy sizes and directions, device
times within 1 us of the truth, a flow from each call to its work, MUSA's output names.

The sample prints `PID <pid>`, `EXPECT api_calls=N kernels=N copies=N` (copies counts copies and
memsets, as the truth file does) and ends with `END`, as test/apps/multistream.cpp does.

    python3 test/e2e/test_musa.py --prof build/bin/prof --bin-dir build/test-bin [--app musa_sample]
"""
import os
import shutil
import subprocess
import tempfile
import unittest

import e2e_common as e2e


def demangle(names):
    """c++filt's demangling of each name (unchanged where c++filt is missing or it is not mangled)."""
    if not names or shutil.which("c++filt") is None:
        return {name: name for name in names}
    done = subprocess.run(["c++filt"], input="\n".join(names) + "\n", capture_output=True, text=True)
    return dict(zip(names, done.stdout.splitlines()))


def demangled_or(table, name):
    return table.get(name, name)


class MusaSampleTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.app = e2e.built_sample(e2e.Config.options.app)
        cls.db = None
        cls.tmp = tempfile.mkdtemp(prefix="prof-e2e-musa-")
        cls.addClassCleanup(shutil.rmtree, cls.tmp, True)
        cls.out = os.path.join(cls.tmp, "out")
        cwd = os.path.join(cls.tmp, "cwd")
        os.makedirs(cls.out)
        os.makedirs(cwd)
        cls.truth_path = os.path.join(cls.tmp, "truth.jsonl")
        cls.direct = e2e.run_on_sim([cls.app], cwd=cwd)
        cls.profiled = e2e.run_prof(["--sim", "-d", cls.out, cls.app], cwd=cwd, env={"PROF_SIM_TRUTH": cls.truth_path})
        try:
            cls.expect = e2e.parse_expect(cls.profiled.stdout)
            cls.pid = e2e.parse_pid(cls.profiled.stdout)
        except AssertionError as error:
            raise AssertionError(f"{error}{e2e.describe(cls.profiled)}") from None
        base = os.path.join(cls.out, f"result_{cls.pid}")
        cls.paths = {"db": os.path.join(cls.out, f"musa-prof-{cls.pid}.db"), "musatrace": base + ".musatrace.csv",
                     "kernel": base + ".kernel.csv", "json": base + "_copy.json"}
        if os.path.exists(cls.paths["db"]):
            cls.db = e2e.open_db(cls.paths["db"])
            cls.addClassCleanup(cls.db.close)

    def require_db(self):
        self.assertIsNotNone(self.db, f"no {self.paths['db']}; {self.out} holds {e2e.list_dir(self.out)}"
                             + e2e.describe(self.profiled))
        return self.db

    def test_exit_status_and_output_are_the_programs(self):
        self.assertEqual(self.profiled.returncode, self.direct.returncode, e2e.describe(self.profiled))
        own = e2e.normalise_sample_output(e2e.program_stdout(self.direct.stdout))
        self.assertIn("END", own, "the sample should end its output with END" + e2e.describe(self.direct))
        self.assertEqual(e2e.normalise_sample_output(e2e.program_stdout(self.profiled.stdout)), own,
                         "under prof the program's stdout differs from running it on the sim directly")
        self.assertEqual(self.profiled.stderr.replace(self.direct.stderr, "", 1).strip() == "", True,
                         "prof added to the program's stderr:\n" + self.profiled.stderr)

    def test_outputs_are_named_for_musa(self):
        for kind, path in self.paths.items():
            self.assertTrue(os.path.isfile(path), f"{kind}: {path} missing; {self.out} holds {e2e.list_dir(self.out)}")
        self.assertEqual(sorted(f for f in os.listdir(self.out) if f.endswith(".db")), [f"musa-prof-{self.pid}.db"])
        self.assertFalse(any("hiptrace" in f for f in os.listdir(self.out)), "no HIP outputs for a MUSA program")

    def test_db_holds_exactly_the_samples_calls(self):
        db = self.require_db()
        self.assertEqual([tuple(r) for r in db.execute("SELECT runtime_id, name, api_csv_stem FROM runtimes")],
                         [(1, "musa", "musatrace")])
        self.assertEqual(e2e.scalar(db, "SELECT value FROM meta WHERE key = 'runtime'"), "musa")
        for table, key in (("api_calls", "api_calls"), ("kernels", "kernels"), ("copies", "copies")):
            self.assertEqual(e2e.scalar(db, f"SELECT COUNT(*) FROM {table}"), self.expect[key],
                             f"rows in {table} vs the sample's EXPECT {key}")
        foreign = db.execute("SELECT n.name FROM api_calls a JOIN api_names n USING (api_id) "
                             "WHERE n.runtime_id != 1 OR n.name NOT LIKE '%musa%'").fetchall()
        self.assertEqual(foreign, [], "every recorded call is a MUSA call")
        sequence = [row[0] for row in db.execute("SELECT sequence FROM api_calls ORDER BY sequence")]
        self.assertEqual(sequence, list(range(1, len(sequence) + 1)))

    def test_kernel_names_are_the_registered_ones_demangled(self):
        db = self.require_db()
        truth = [t for t in e2e.read_truth(self.truth_path) if t["kind"] == "kernel"]
        self.assertTrue(truth, "the sample launches kernels")
        ours = {row[0]: row[1] for row in db.execute(
            "SELECT k.function_address, s.value FROM kernels k LEFT JOIN strings s ON s.string_id = k.name_id")}
        demangled = demangle(sorted({t["name"] for t in truth if t.get("name")}))
        for t in truth:
            self.assertIn(t["function"], ours, f"no kernel row for the function of {t}")
            name = ours[t["function"]]
            self.assertIsNotNone(name, f"kernel without a name: {t}")
            if t.get("name"):  # registered through __musaRegisterFunction: its deviceName, demangled
                self.assertEqual(name, demangled_or(demangled, t["name"]), f"{t}")
            else:  # launched by address, never registered: named from the ELF symbol tables
                self.assertFalse(name.startswith(("unknown kernel", "_Z")), f"{name} for {t}")

    def test_device_work_matches_the_truth(self):
        db = self.require_db()
        truth = e2e.read_truth(self.truth_path)
        self.assertEqual(len(truth), self.expect["kernels"] + self.expect["copies"], "operations in the truth file")
        # Every op is timed by MUPTI's reports: exact, in this one run.
        off = e2e.truth_mismatches(self, db, truth, exact=True)
        if off:
            self.fail(f"{len(off)} of {2 * len(truth)} device times are missing or not the truth's:\n"
                      + "\n".join(off))

    def test_failed_calls_are_recorded_with_their_error(self):
        db = self.require_db()
        # musaGetLastError / musaPeekAtLastError return an earlier call's error by design.
        failed = [tuple(row) for row in db.execute(
            "SELECT n.name, a.result FROM api_calls a JOIN api_names n USING (api_id) "
            "WHERE a.result != 0 AND n.name NOT LIKE '%LastError'")]
        self.assertEqual(len(failed), self.expect.get("errors", len(failed)),
                         f"calls that returned an error vs the sample's EXPECT errors: {failed}")
        self.assertTrue(failed, "the sample provokes an error; prof records the call and its musaError_t")

    def test_csv_and_timeline(self):
        db = self.require_db()
        header, rows = e2e.read_csv(self.paths["musatrace"])
        self.assertEqual(header, e2e.CSV_HEADER)
        per_api = dict(db.execute("SELECT n.name, COUNT(*) FROM api_calls a JOIN api_names n USING (api_id) "
                                  "GROUP BY n.name").fetchall())
        self.assertEqual({row["Name"]: int(row["Calls"]) for row in rows}, per_api)
        events = e2e.read_json(self.paths["json"])["traceEvents"]
        names = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"}
        pid_of = {name: pid for pid, name in names.items()}
        api_pid = pid_of["Runtime API"]
        work = [e for e in events if e.get("ph") == "X" and e["pid"] != api_pid]
        self.assertEqual(len(work), self.expect["kernels"] + self.expect["copies"], "device slices")
        starts = {str(e["id"]): e for e in events if e.get("ph") == "s"}
        finishes = {str(e["id"]): e for e in events if e.get("ph") == "f"}
        for event in work:
            flow = str(event["args"]["correlation_id"])
            self.assertIn(flow, starts, f"no flow from the call to {event}")
            self.assertEqual(starts[flow]["pid"], api_pid)
            self.assertEqual(finishes[flow]["pid"], event["pid"])

    def test_reports_regenerate_and_filter(self):
        self.require_db()
        regen = os.path.join(self.tmp, "regen")
        os.makedirs(regen, exist_ok=True)
        done = e2e.run_prof(["--db", self.paths["db"], "-d", regen, "--group-stream", "--index-range", "1:5"],
                            cwd=self.tmp)
        self.assertEqual(done.returncode, 0, e2e.describe(done))
        _, rows = e2e.read_csv(os.path.join(regen, f"result_{self.pid}.musatrace.csv"))
        self.assertEqual(sum(int(row["Calls"]) for row in rows), min(5, self.expect["api_calls"]))
        self.assertTrue(os.path.isfile(os.path.join(regen, f"result_{self.pid}_stream.json")))
        self.assertIn("MUSA API", done.stdout)


if __name__ == "__main__":
    e2e.main(lambda parser: parser.add_argument("--app", default="musa_sample", help="sample to profile"))
