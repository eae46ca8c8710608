"""e2e: `prof --sim` on the C CNRT sample (cnrt* calls only, no vendor SDK), checked against the
sample's own counts (its EXPECT line), its output without prof, and the simulated MLU's ground truth
(PROF_SIM_TRUTH): exact API counts, kernel names from the ELF symbol tables (the program's and a
library's), copy sizes and directions as issued in CNRT's numbering, the per-thread and legacy
queues, device times within 1 us of the truth, notifier timings in ms and us, a flow from each call
to its work, CNRT's output names and labels, and the program's last error untouched by prof.

    python3 test/e2e/test_cnrt.py --prof build/bin/prof --bin-dir build/test-bin
"""
import os
import re
import unittest

import e2e_common as e2e

APP = "cnrt_sample"
KERNELS = {"cnrt_scale_kernel": 2, "cnrt_lib_fill": 2}
# What the sample issues, in order, as (prof direction name, bytes): cnrtMemTransDir_t 0..5 mapped.
COPIES = [("H2D", 262144), ("Memset", 262144), ("D2D", 262144), ("D2H", 262144), ("H2D", 262144),
          ("Memset", 262144), ("H2D", 262144), ("P2P", 262144), ("P2P", 262144), ("D2H", 262144), ("H2H", 256),
          ("Default", 262144)]


class CnrtSampleTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        e2e.profile_sample(cls, APP, "cnrt")

    def require_db(self):
        self.assertIsNotNone(self.db, f"no {self.paths['db']}; {self.out} holds {e2e.list_dir(self.out)}"
                             + e2e.describe(self.profiled))
        return self.db

    def calls(self, name):
        return self.require_db().execute("SELECT a.* FROM api_calls a JOIN api_names n USING (api_id) WHERE n.name = ?"
                                         " ORDER BY a.sequence", (name,)).fetchall()

    def test_exit_status_and_output_are_the_programs(self):
        """Same output without prof: includes the cnrtErrorBusy answers, the errors and the last error
        (peek and get report the bad direction although prof timed a kernel in between)."""
        self.assertEqual(self.profiled.returncode, 0, e2e.describe(self.profiled))
        self.assertEqual(self.direct.returncode, 0, e2e.describe(self.direct))
        own = e2e.normalise_sample_output(e2e.program_stdout(self.direct.stdout))
        self.assertIn("END", own)
        self.assertEqual(e2e.normalise_sample_output(e2e.program_stdout(self.profiled.stdout)), own)
        self.assertIn("last error: peek 632013, get 632013, then 0", own)
        self.assertIn("while running: queue query 632014 (cnrtErrorBusy), notifier query 632014 (cnrtErrorBusy)", own)
        self.assertEqual(self.profiled.stderr.strip(), self.direct.stderr.strip())

    def test_outputs_and_labels_are_cnrts(self):
        for kind, path in self.paths.items():
            self.assertTrue(os.path.isfile(path), f"{kind}: {path} missing; {e2e.list_dir(self.out)}")
        db = self.require_db()
        self.assertEqual([tuple(r) for r in db.execute(
            "SELECT runtime_id, name, api_title, stream_label, device_label, api_csv_stem FROM runtimes")],
            [(2, "cnrt", "CNRT API", "Queue", "MLU", "cnrttrace")])
        self.assertIn("CNRT API (", self.profiled.stdout)
        names = {e["args"]["name"] for e in e2e.read_json(self.paths["json"])["traceEvents"]
                 if e.get("ph") == "M" and e.get("name") in ("process_name", "thread_name")}
        self.assertIn("Compute on MLU 0", names)
        self.assertTrue(any(n.startswith("Queue ") for n in names), names)

    def test_db_holds_exactly_the_samples_calls(self):
        db = self.require_db()
        for table, key in (("api_calls", "api_calls"), ("kernels", "kernels"), ("copies", "copies")):
            self.assertEqual(e2e.scalar(db, f"SELECT COUNT(*) FROM {table}"), self.expect[key], table)
        foreign = db.execute("SELECT n.name FROM api_calls a JOIN api_names n USING (api_id) "
                             "WHERE n.runtime_id != 2 OR n.name NOT LIKE 'cnrt%'").fetchall()
        self.assertEqual(foreign, [], "every recorded call is a CNRT call the program made")
        failed = [tuple(r) for r in db.execute("SELECT n.name, a.result FROM api_calls a JOIN api_names n USING (api_id)"
                                               " WHERE a.result != 0 AND n.name NOT LIKE '%LastError'"
                                               " AND n.name NOT LIKE 'cnrtQuery%' AND n.name != 'cnrtQueueQuery'")]
        self.assertEqual(sorted(failed), sorted([("cnrtNotifierElapsedTime", 100006), ("cnrtMemcpy", 632013),
                                                 ("cnrtQueueSync", 100014), ("cnrtTaskTopoEntityInvoke", 100006)]))
        # The queries answered cnrtErrorBusy while the work ran, then success.
        self.assertEqual([r["result"] for r in self.calls("cnrtQueueQuery")], [632014, 0])
        self.assertEqual([r["result"] for r in self.calls("cnrtQueryNotifier")], [632014, 0])

    def test_kernel_names_come_from_the_elf_symbol_tables(self):
        db = self.require_db()
        got = {}
        for (name,) in db.execute("SELECT s.value FROM kernels k LEFT JOIN strings s ON s.string_id = k.name_id"):
            got[name] = got.get(name, 0) + 1
        self.assertEqual(got, KERNELS, "one from the program, one from libcnrt_kernels.so, by symbol")
        geometry = [tuple(r) for r in db.execute("SELECT grid_x, grid_y, grid_z, block_x FROM kernels "
                                                 "ORDER BY correlation_id")]
        # grid = the task dims, block.x = the function type (cores per task)
        self.assertEqual(geometry, [(4 << 20, 1, 1, 1), (1024, 1, 1, 4), (256, 1, 1, 8), (64, 1, 1, 1)])

    def test_copies_have_the_issued_sizes_and_directions(self):
        db = self.require_db()
        got = [(r[0], r[1]) for r in db.execute(
            "SELECT d.name, m.bytes FROM copies m JOIN copy_directions d USING (direction) ORDER BY m.correlation_id")]
        self.assertEqual(got, COPIES)

    def test_host_copies_carry_their_host_pointer(self):
        """Each H2D and D2H copy (synchronous or not) records its host side, which the sample always
        allocates with cnrtHostMalloc: a report can tell it is pinned (report/host_memory.hpp)."""
        self.assertEqual(e2e.host_pointer_problems(self.require_db(), "cnrtHostMalloc"), [])
        self.assertGreater(e2e.scalar(self.require_db(), "SELECT COUNT(*) FROM api_args WHERE name = 'host_ptr'"), 0)

    def test_implicit_queues(self):
        """cnrtQueuePerThread is 1: its own queue; cnrtQueueLegacy is 2: the default queue (handle 0)."""
        db = self.require_db()
        handles = [r[0] for r in db.execute("SELECT s.stream_handle FROM kernels k JOIN streams s USING (stream_index)"
                                            " ORDER BY k.correlation_id")]
        self.assertEqual(handles[2], 1, "the kernel invoked on cnrtQueuePerThread")
        legacy_copy = db.execute("SELECT s.stream_handle FROM copies m JOIN streams s USING (stream_index) "
                                 "ORDER BY m.correlation_id LIMIT 1 OFFSET 4").fetchone()[0]
        self.assertEqual(legacy_copy, 0, "the copy on cnrtQueueLegacy is on the default queue")
        syncs = [r["stream_index"] for r in self.calls("cnrtQueueSync")]
        legacy_sync = db.execute("SELECT stream_handle FROM streams WHERE stream_index = ?", (syncs[2],)).fetchone()[0]
        self.assertEqual(legacy_sync, 0)

    def test_device_work_matches_the_truth(self):
        db = self.require_db()
        truth = e2e.read_truth(self.truth_path)
        self.assertEqual(len(truth), self.expect["kernels"] + self.expect["copies"])
        # The model numbers the per-thread stream 2 (HIP's hipStreamPerThread); CNRT's program says 1.
        # Every op is timed by CNPAPI's reports: exact, in this one run.
        off = e2e.truth_mismatches(self, db, truth, stream_handles={2: 1}, exact=True)
        self.assertEqual(off, [], "device times vs the simulated MLU's truth")

    def test_notifier_timings_are_ms_and_us(self):
        """cnrtNotifierElapsedTime is ms, cnrtNotifierDuration us: both span the two kernels the
        notifiers bracket, whose device times prof recorded."""
        match = re.search(r"^timing: elapsed_ms=([0-9.]+) duration_us=([0-9.]+)$", self.profiled.stdout, re.M)
        self.assertIsNotNone(match, self.profiled.stdout)
        ms, us = float(match.group(1)), float(match.group(2))
        self.assertAlmostEqual(us, ms * 1000, delta=0.01 * us)
        db = self.require_db()
        first, second = db.execute("SELECT device_begin_ns, device_end_ns FROM kernels ORDER BY correlation_id "
                                   "LIMIT 2").fetchall()
        kernels_us = (second[1] - first[0]) / 1000
        tolerance = 1000 if os.environ.get("PROF_E2E_NO_TIMING") == "1" else 2
        self.assertLessEqual(kernels_us, us + tolerance)

        # The notifiers span more than the kernels only by the host's own delays: the start
        # notifier completes no earlier than its call began, so the first kernel can start
        # after it by no more than from that call to the kernel's begin; and the stop notifier,
        # placed after the second kernel ended, completes when it is placed (its call's end).
        def call(name):
            return db.execute("SELECT c.begin_ns, c.end_ns FROM api_calls c JOIN api_names n USING (api_id) "
                              "WHERE n.name = ? ORDER BY c.begin_ns LIMIT 1", (name,)).fetchone()
        start_call, stop_call = call("cnrtPlaceNotifier"), call("cnrtPlaceNotifierWithFlags")
        before_us = max(0, first[0] - start_call[0]) / 1000
        after_us = max(0, stop_call[1] - second[1]) / 1000
        self.assertGreater(kernels_us, us - before_us - after_us - tolerance,
                           f"the notifiers span {us} us, the kernels {kernels_us} us; the host's delays "
                           f"{before_us} us before the first kernel and {after_us} us after the second")

    def test_csv_and_timeline_flows(self):
        db = self.require_db()
        header, rows = e2e.read_csv(self.paths["cnrttrace"])
        self.assertEqual(header, e2e.CSV_HEADER)
        per_api = dict(db.execute("SELECT n.name, COUNT(*) FROM api_calls a JOIN api_names n USING (api_id) "
                                  "GROUP BY n.name").fetchall())
        self.assertEqual({row["Name"]: int(row["Calls"]) for row in rows}, per_api)
        _, kernels = e2e.read_csv(self.paths["kernel"])
        self.assertEqual({row["Name"]: int(row["Calls"]) for row in kernels}, KERNELS)
        events = e2e.read_json(self.paths["json"])["traceEvents"]
        names = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"}
        api_pid = {name: pid for pid, name in names.items()}["Runtime API"]
        work = [e for e in events if e.get("ph") == "X" and e["pid"] != api_pid]
        self.assertEqual(len(work), self.expect["kernels"] + self.expect["copies"])
        starts = {str(e["id"]) for e in events if e.get("ph") == "s"}
        for event in work:
            self.assertIn(str(event["args"]["correlation_id"]), starts, f"no flow to {event}")

    def test_only_cnrt_is_traced_with_its_flag(self):
        out = os.path.join(self.tmp, "flag")
        os.makedirs(out)
        done = e2e.run_prof(["--sim", "--cnrt-trace", "-d", out, self.app], cwd=self.tmp)
        self.assertEqual(done.returncode, 0, e2e.describe(done))
        self.assertTrue(any(f.startswith("cnrt-prof-") for f in os.listdir(out)), os.listdir(out))
        other = os.path.join(self.tmp, "hip-only")
        os.makedirs(other)
        done = e2e.run_prof(["--sim", "--hip-trace", "-d", other, self.app], cwd=self.tmp)
        self.assertEqual(done.returncode, 0, e2e.describe(done))
        self.assertFalse(any(f.endswith(".db") for f in os.listdir(other)), "no CNRT calls recorded under --hip-trace")


if __name__ == "__main__":
    e2e.main()
