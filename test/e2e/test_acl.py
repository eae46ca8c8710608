"""e2e: `prof --sim` on the C ACL sample (acl* calls only, no vendor SDK), checked against the
sample's own counts (its EXPECT line), its output without prof, and the simulated NPU's ground
truth (PROF_SIM_TRUTH): exact API counts, operator and model names, copy sizes (`count`, never
`destMax`) and directions in ACL's 0..7 numbering, device times within 1 us of the truth, flows,
ACL's output names and labels, the program's error state untouched by prof; and a program that
calls HIP and ACL in one process, recorded in one database and one timeline.

    python3 test/e2e/test_acl.py --prof build/bin/prof --bin-dir build/test-bin
"""
import os
import shutil
import unittest

import e2e_common as e2e

APP = "acl_sample"
KERNELS = {"Add": 1, "Mul": 1, "Relu": 2, "Cast": 1, "model tiny_resnet.om": 2, "vector_scale_kernel": 4,
           "[graph launch]": 2}
# (direction, bytes) as issued: count bytes (the sample's destMax is twice that), ACL kinds mapped.
COPIES = [("H2D", 262144), ("Memset", 262144), ("Memset", 262144), ("H2D", 262144), ("D2D", 262144),
          ("D2H", 262144), ("H2H", 1024), ("Default", 262144)]


class AclSampleTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        e2e.profile_sample(cls, APP, "acl")

    def require_db(self):
        self.assertIsNotNone(self.db, f"no {self.paths['db']}; {e2e.list_dir(self.out)}" + e2e.describe(self.profiled))
        return self.db

    def test_exit_status_and_output_are_the_programs(self):
        """Same output without prof, including the error codes, the last error and the recent
        message (prof's timing events in between leave them as the program's calls left them)."""
        self.assertEqual((self.profiled.returncode, self.direct.returncode), (0, 0), e2e.describe(self.profiled))
        own = e2e.normalise_sample_output(e2e.program_stdout(self.direct.stdout))
        self.assertEqual(e2e.normalise_sample_output(e2e.program_stdout(self.profiled.stdout)), own)
        self.assertIn("last error: peek 100000, get 100000, then 0; message present; then none", own)
        self.assertIn("while running: stream 1, event 0", own)
        self.assertEqual(self.profiled.stderr.strip(), self.direct.stderr.strip())

    def test_outputs_and_labels_are_acls(self):
        for kind, path in self.paths.items():
            self.assertTrue(os.path.isfile(path), f"{kind}: {path} missing; {e2e.list_dir(self.out)}")
        db = self.require_db()
        self.assertEqual([tuple(r) for r in db.execute(
            "SELECT runtime_id, name, api_title, stream_label, device_label, api_csv_stem FROM runtimes")],
            [(3, "acl", "ACL API", "Stream", "NPU", "acltrace")])
        names = {e["args"]["name"] for e in e2e.read_json(self.paths["json"])["traceEvents"]
                 if e.get("ph") == "M" and e.get("name") == "process_name"}
        self.assertIn("Compute on NPU 0", names)

    def test_db_holds_exactly_the_samples_calls(self):
        db = self.require_db()
        for table, key in (("api_calls", "api_calls"), ("kernels", "kernels"), ("copies", "copies")):
            self.assertEqual(e2e.scalar(db, f"SELECT COUNT(*) FROM {table}"), self.expect[key], table)
        failed = sorted(tuple(r) for r in db.execute(
            "SELECT n.name, a.result FROM api_calls a JOIN api_names n USING (api_id) WHERE a.result != 0 "
            "AND n.name NOT LIKE '%LastError'"))
        self.assertEqual(failed, [("aclrtGetDeviceCount", 100001), ("aclrtMemcpy", 100000),
                                  ("aclrtSynchronizeStream", 107000)])
        # The queries' answers are their out-parameters (aux): not ready while running, then done.
        stream_answers = [r[0] for r in db.execute("SELECT a.aux FROM api_calls a JOIN api_names n USING (api_id) "
                                                   "WHERE n.name = 'aclrtStreamQuery' ORDER BY a.sequence")]
        event_answers = [r[0] for r in db.execute("SELECT a.aux FROM api_calls a JOIN api_names n USING (api_id) "
                                                  "WHERE n.name = 'aclrtQueryEventStatus' ORDER BY a.sequence")]
        self.assertEqual((stream_answers, event_answers), ([1, 0], [0, 1]))

    def test_operators_and_models_are_the_kernels(self):
        db = self.require_db()
        got = {}
        for (name,) in db.execute("SELECT s.value FROM kernels k LEFT JOIN strings s ON s.string_id = k.name_id"):
            got[name] = got.get(name, 0) + 1
        self.assertEqual(got, KERNELS)
        _, rows = e2e.read_csv(self.paths["kernel"])
        self.assertEqual({r["Name"]: int(r["Calls"]) for r in rows}, KERNELS)

    def test_copies_move_count_bytes_with_acl_kinds(self):
        db = self.require_db()
        got = [(r[0], r[1]) for r in db.execute(
            "SELECT d.name, m.bytes FROM copies m JOIN copy_directions d USING (direction) ORDER BY m.correlation_id")]
        self.assertEqual(got, COPIES)
        calls = {r[0]: r[1] for r in db.execute(
            "SELECT n.name, MAX(a.bytes) FROM api_calls a JOIN api_names n USING (api_id) "
            "WHERE n.name IN ('aclrtMemcpy', 'aclrtMemcpyAsync', 'aclrtMemset', 'aclrtMemsetAsync') GROUP BY n.name")}
        self.assertTrue(all(b <= 262144 for b in calls.values()), f"bytes are count, not destMax: {calls}")

    def mismatches(self, db, truth_path):
        truth = e2e.read_truth(truth_path)
        self.assertEqual(len(truth), self.expect["kernels"] - 2 + 4 + self.expect["copies"],
                         "truth: each graph launch is its two operators")
        # The truth lists a replayed graph's nodes (the captured Add and Mul on the side stream); prof
        # records one "[graph launch]" slice per replay (its span is checked in test_graph_launches).
        side = {r[0] for r in db.execute("SELECT s.stream_handle FROM kernels k JOIN streams s USING (stream_index) "
                                         "JOIN strings n ON n.string_id = k.name_id WHERE n.value = '[graph launch]'")}
        nodes = [t for t in truth if t["stream"] in side and t.get("name") in ("Add", "Mul")]
        self.assertEqual(len(nodes), 4, "two replays of two captured operators")
        # Operators and models are sized by the runtime (the program gives buffers, not a grid).
        return e2e.truth_mismatches(self, db, [t for t in truth if t not in nodes],
                                    geometry=lambda op: op.get("name") == "vector_scale_kernel", exact=True)

    def test_host_copies_carry_their_host_pointer(self):
        """Each H2D and D2H copy (synchronous or not) records its host side, which the sample always
        allocates with aclrtMallocHost: a report can tell it is pinned (report/host_memory.hpp)."""
        self.assertEqual(e2e.host_pointer_problems(self.require_db(), "aclrtMallocHost"), [])
        self.assertGreater(e2e.scalar(self.require_db(), "SELECT COUNT(*) FROM api_args WHERE name = 'host_ptr'"), 0)

    def test_device_work_matches_the_truth(self):
        """Every op, model runs and graph launches included, timed by MSPTI's reports: exact, in this one run."""
        off = self.mismatches(self.require_db(), self.truth_path)
        self.assertEqual(off, [], "device times vs the simulated NPU's truth")

    def test_graph_launches_span_their_nodes(self):
        db = self.require_db()
        truth = e2e.read_truth(self.truth_path)
        launches = db.execute("SELECT k.device_begin_ns, k.device_end_ns FROM kernels k JOIN strings n "
                              "ON n.string_id = k.name_id WHERE n.value = '[graph launch]' ORDER BY k.correlation_id"
                              ).fetchall()
        nodes = sorted((t for t in truth if t.get("name") in ("Add", "Mul") and t["op_seq"] > 4),
                       key=lambda t: t["begin_ns"])
        # A replay's two nodes report under the launch's id: the slice is their span, exactly.
        tolerance = e2e.NO_TIMING_TOLERANCE_NS if os.environ.get("PROF_E2E_NO_TIMING") == "1" else 0
        self.assertEqual(len(launches), 2)
        for (begin, end), pair in zip(launches, (nodes[0:2], nodes[2:4])):
            self.assertLessEqual(abs(begin - pair[0]["begin_ns"]), tolerance)
            self.assertLessEqual(abs(end - pair[1]["end_ns"]), tolerance)

    def test_flows_from_calls_to_work(self):
        events = e2e.read_json(self.paths["json"])["traceEvents"]
        names = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"}
        api_pid = {name: pid for pid, name in names.items()}["Runtime API"]
        work = [e for e in events if e.get("ph") == "X" and e["pid"] != api_pid]
        self.assertEqual(len(work), self.expect["kernels"] + self.expect["copies"])
        starts = {str(e["id"]) for e in events if e.get("ph") == "s"}
        for event in work:
            self.assertIn(str(event["args"]["correlation_id"]), starts, f"no flow to {event}")

    def test_functions_found_in_whichever_library_exports_them(self):
        """Newer CANN: the program links libascendcl.so, and the aclrt* (here every acl*) functions
        live in libacl_rt.so. prof hooks by symbol name and finds each real function wherever it is."""
        split = os.path.join(e2e.Config.bin_dir, "acl_split")
        app = os.path.join(split, "acl_sample")
        if not os.access(app, os.X_OK):
            self.skipTest("the split-library sample is not built")
        if shutil.which("nm"):
            exported = e2e.run(["nm", "-D", "--defined-only", os.path.join(split, "libascendcl.so")]).stdout
            self.assertNotIn(" T acl", exported, "the stand-in libascendcl.so defines no acl* function")
        out = os.path.join(self.tmp, "split")
        os.makedirs(out)
        done = e2e.run_prof(["-d", out, app], cwd=out)  # no --sim: the program's own RUNPATH finds both
        self.assertEqual(done.returncode, 0, e2e.describe(done))
        expect, pid = e2e.parse_expect(done.stdout), e2e.parse_pid(done.stdout)
        with e2e.open_db(os.path.join(out, f"acl-prof-{pid}.db")) as db:
            self.assertEqual(e2e.scalar(db, "SELECT COUNT(*) FROM api_calls"), expect["api_calls"])
            self.assertEqual(e2e.scalar(db, "SELECT COUNT(*) FROM kernels"), expect["kernels"])
            self.assertEqual(e2e.scalar(db, "SELECT COUNT(*) FROM kernels WHERE device_begin_ns IS NULL"), 0,
                             "device timing found aclrtCreateEventWithFlag and friends in libacl_rt.so")

    def test_hip_and_acl_in_one_process(self):
        app = e2e.built_sample("hip_acl")
        out = os.path.join(self.tmp, "both")
        os.makedirs(out)
        truth = os.path.join(self.tmp, "both.jsonl")
        done = e2e.run_prof(["--sim", "-d", out, app], cwd=self.tmp, env={"PROF_SIM_TRUTH": truth})
        self.assertEqual(done.returncode, 0, e2e.describe(done))
        pid, expect = e2e.parse_pid(done.stdout), e2e.parse_expect(done.stdout)
        self.assertEqual(sorted(f for f in os.listdir(out) if f.endswith(".db")), [f"prof-{pid}.db"])
        for stem in ("hiptrace", "acltrace"):
            self.assertTrue(os.path.isfile(os.path.join(out, f"result_{pid}.{stem}.csv")))
        with e2e.open_db(os.path.join(out, f"prof-{pid}.db")) as db:
            per_runtime = dict(db.execute("SELECT r.name, COUNT(*) FROM api_calls a JOIN api_names n USING (api_id) "
                                          "JOIN runtimes r USING (runtime_id) GROUP BY r.name").fetchall())
            self.assertEqual(per_runtime, {"hip": expect["hip_calls"], "acl": expect["acl_calls"]})
            names = {r[0] for r in db.execute("SELECT s.value FROM kernels k JOIN strings s ON s.string_id = k.name_id")}
            self.assertEqual(names, {"hip_scale", "Relu"})
            relu_sized = lambda op: op.get("name") != "Relu"  # the runtime sizes its operators
            # Both runtimes' reports time every op: exact, in this one run.
            off = e2e.truth_mismatches(self, db, e2e.read_truth(truth), geometry=relu_sized, exact=True)
            self.assertEqual(off, [], "device times vs the simulators' truth")
        events = e2e.read_json(os.path.join(out, f"result_{pid}_copy.json"))["traceEvents"]
        lanes = {e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"}
        self.assertIn("Compute on Device/NPU 0", lanes)
        self.assertIn("HIP API (", done.stdout)
        self.assertIn("ACL API (", done.stdout)


if __name__ == "__main__":
    e2e.main()
