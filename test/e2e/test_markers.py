"""e2e: roctx markers (--hiptx-trace) on prof's simulated devices, with test/apps/roctx_sample.cpp
(nested push/pop `forward` > `attention`, a start/stop range stopped on another thread, marks with
commas, quotes and UTF-8, ranges left open at exit). Checks the markers table (nesting levels, names,
ends, the other thread's stop, open ranges flagged), the timeline's "Markers and Ranges" lanes,
<base>.range_stats.csv and --kernel-stats-by-range's <base>.kernel_by_range.csv; without
--hiptx-trace nothing of it is recorded and the program's roctx calls still work.

    python3 test/e2e/test_markers.py --prof build/bin/prof --bin-dir build/test-bin
"""
import os
import re
import shutil
import tempfile
import unittest

import e2e_common as e2e

APP = "roctx_sample"


def run(test, *flags):
    tmp = tempfile.mkdtemp(prefix="prof-e2e-markers-")
    test.addCleanup(shutil.rmtree, tmp, True)
    out = os.path.join(tmp, "out")
    done = e2e.run_prof(["--sim", *flags, "-d", out, e2e.sample(APP)], cwd=tmp)
    test.assertEqual(done.returncode, 0, e2e.describe(done))
    return out, done, e2e.parse_pid(done.stdout)


def levels(stdout):
    match = re.search(r"^LEVELS (.*)$", stdout, re.MULTILINE)
    return {key: int(value) for key, value in (item.split("=") for item in match.group(1).split())}


class MarkersTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.access(e2e.sample(APP), os.X_OK):
            raise unittest.SkipTest(f"sample {e2e.sample(APP)} is not built")

    def setUp(self):
        self.out, self.done, self.pid = run(self, "--hiptx-trace", "--kernel-stats-by-range")
        self.base = os.path.join(self.out, f"result_{self.pid}")

    def test_the_simulated_roctx_has_roctracers_semantics(self):
        self.assertEqual(levels(self.done.stdout), {"forward": 0, "attention": 1, "pop_attention": 1,
                                                     "pop_forward": 0, "pop_empty": -1, "load": 1, "never": 2})
        direct = e2e.run_on_sim([e2e.sample(APP)], cwd=self.out)
        self.assertEqual(direct.returncode, 0, e2e.describe(direct))
        self.assertEqual(e2e.normalise_sample_output(e2e.program_stdout(direct.stdout)),
                         e2e.normalise_sample_output(e2e.program_stdout(self.done.stdout)))

    def test_markers_table_holds_nesting_names_and_ends(self):
        with e2e.open_db(os.path.join(self.out, f"hip-prof-{self.pid}.db")) as db:
            # markers came with schema 4
            self.assertGreaterEqual(int(e2e.scalar(db, "SELECT value FROM meta WHERE key = 'schema_version'")), 4)
            rows = {row["message"]: row for row in db.execute("SELECT * FROM markers")}
            main = self.pid
            forward, attention = rows["forward"], rows["attention"]
            self.assertEqual((forward["kind"], forward["level"]), ("push_pop", 0))
            self.assertEqual((attention["kind"], attention["level"]), ("push_pop", 1))
            # attention lies inside forward
            self.assertLessEqual(forward["begin_ns"], attention["begin_ns"])
            self.assertLessEqual(attention["end_ns"], forward["end_ns"])
            self.assertEqual(forward["thread_id"], main)
            self.assertEqual(forward["end_thread_id"], main)
            # begun on the main thread, stopped on the worker
            load = rows['load, "batch" ✓']
            self.assertEqual((load["kind"], load["range_id"], load["thread_id"]), ("start_stop", 1, main))
            self.assertNotEqual(load["end_thread_id"], main)
            worker = rows["worker"]
            self.assertEqual(worker["thread_id"], load["end_thread_id"])
            self.assertLessEqual(load["begin_ns"], worker["begin_ns"])
            self.assertGreaterEqual(load["end_ns"], worker["end_ns"])
            marks = sorted(row["message"] for row in rows.values() if row["kind"] == "mark")
            long_mark = "x" * 255  # cut at 256 bytes: the two-byte é at the cut goes whole
            self.assertEqual(marks, sorted(['start, "quoted" mark', "étape ✓ 日本語", long_mark]))
            for row in rows.values():
                self.assertEqual(row["source"], "roctx")
                self.assertIsNotNone(row["end_ns"])
                self.assertGreaterEqual(row["end_ns"], row["begin_ns"])
                if row["kind"] == "mark":
                    self.assertEqual(row["begin_ns"], row["end_ns"])
            open_ranges = {row["message"] for row in rows.values() if row["open_at_exit"]}
            self.assertEqual(open_ranges, {"never popped", "never stopped"})
            # closed at the process's end: after everything else it recorded
            last_call = e2e.scalar(db, "SELECT MAX(end_ns) FROM api_calls")
            for name in open_ranges:
                self.assertGreaterEqual(rows[name]["end_ns"], last_call)
            # markers are not calls: no roctx runtime, no roctx API table
            self.assertEqual(e2e.scalar(db, "SELECT value FROM meta WHERE key = 'runtime'"), "hip")
            self.assertEqual(e2e.scalar(db, "SELECT COUNT(*) FROM api_calls a JOIN api_names n USING (api_id)"
                                            " WHERE n.name LIKE 'roctx%'"), 0)

    def test_timeline_has_a_markers_lane_per_thread(self):
        trace = e2e.read_json(self.base + "_copy.json")["traceEvents"]
        lanes = {(e["pid"], e["tid"]): e["args"]["name"] for e in trace
                 if e.get("ph") == "M" and e["name"] == "thread_name"}
        marker_lanes = {key: name for key, name in lanes.items() if name.startswith("Markers and Ranges")}
        self.assertEqual(len(marker_lanes), 2, lanes)
        self.assertTrue(all(pid == 1 for pid, _ in marker_lanes), "in the Runtime API process")
        in_lanes = [e for e in trace if (e.get("pid"), e.get("tid")) in marker_lanes and e.get("ph") != "M"]
        by_name = {}
        for e in in_lanes:
            by_name.setdefault(e["name"], []).append(e)
        # push/pop: nested X slices on one lane
        forward, attention = by_name["forward"][0], by_name["attention"][0]
        self.assertEqual((forward["ph"], attention["ph"]), ("X", "X"))
        self.assertEqual(forward["tid"], attention["tid"])
        self.assertLessEqual(forward["ts"], attention["ts"])
        self.assertLessEqual(attention["ts"] + attention["dur"], forward["ts"] + forward["dur"] + 0.001)
        # start/stop: an async pair with one id
        load = by_name['load, "batch" ✓']
        self.assertEqual(sorted(e["ph"] for e in load), ["b", "e"])
        self.assertEqual(load[0]["id"], load[1]["id"])
        self.assertEqual(load[0]["args"]["range_id"], 1)
        # marks: instants, names intact
        for name in ['start, "quoted" mark', "étape ✓ 日本語"]:
            self.assertEqual([e["ph"] for e in by_name[name]], ["i"])
        self.assertEqual(by_name["never popped"][0]["args"]["open_at_exit"], 1)
        self.assertNotIn("open_at_exit", forward["args"])

    def test_range_stats_csv(self):
        header, rows = e2e.read_csv(self.base + ".range_stats.csv")
        self.assertEqual(header, e2e.CSV_HEADER)
        names = {row["Name"]: row for row in rows}
        self.assertEqual(set(names), {"forward", "attention", "worker", 'load, "batch" ✓', "never popped",
                                      "never stopped"})
        for row in rows:
            self.assertEqual(row["Calls"], "1")
            self.assertLessEqual(int(row["MinNs"]), int(row["AverageNs"]))
            self.assertLessEqual(int(row["AverageNs"]), int(row["MaxNs"]))
        self.assertGreaterEqual(int(names["forward"]["TotalDurationNs"]), int(names["attention"]["TotalDurationNs"]))
        self.assertAlmostEqual(sum(float(row["Percentage"]) for row in rows), 100.0, delta=0.1)

    def test_kernels_grouped_by_innermost_range(self):
        header, rows = e2e.read_csv(self.base + ".kernel_by_range.csv")
        self.assertEqual(header, ["Range"] + e2e.CSV_HEADER)
        grouped = {(row["Range"], row["Name"]): int(row["Calls"]) for row in rows}
        self.assertEqual(grouped, {("attention", "attention_kernel"): 2, ("forward", "mlp_kernel"): 3,
                                   ("worker", "worker_kernel"): 1, ("", "outside_kernel"): 1})

    def test_without_the_flag_nothing_is_recorded(self):
        out, done, pid = run(self)
        self.assertEqual(levels(done.stdout)["attention"], 1, "the program's roctx still answers")
        with e2e.open_db(os.path.join(out, f"hip-prof-{pid}.db")) as db:
            self.assertEqual(e2e.scalar(db, "SELECT COUNT(*) FROM markers"), 0)
        self.assertFalse(os.path.exists(os.path.join(out, f"result_{pid}.range_stats.csv")))
        self.assertFalse(os.path.exists(os.path.join(out, f"result_{pid}.kernel_by_range.csv")))

    def test_db_regeneration_writes_the_same_marker_reports(self):
        again = os.path.join(self.out, "again")
        done = e2e.run_prof(["--db", os.path.join(self.out, f"hip-prof-{self.pid}.db"), "-d", again, "-o", "r",
                             "--kernel-stats-by-range"], cwd=self.out)
        self.assertEqual(done.returncode, 0, e2e.describe(done))
        for suffix in (".range_stats.csv", ".kernel_by_range.csv"):
            with open(self.base + suffix) as a, open(os.path.join(again, "r" + suffix)) as b:
                self.assertEqual(a.read(), b.read(), suffix)

    def test_a_split_timeline_counts_markers_in_its_budget(self):
        """Timeline parts (docs/formats.md, "Parts") hold at most N events, markers included, and
        every mark and range is in exactly one part."""
        parts_dir = os.path.join(self.out, "parts")
        done = e2e.run_prof(["--db", os.path.join(self.out, f"hip-prof-{self.pid}.db"), "-d", parts_dir, "-o", "p",
                             "--json-max-events", "20"], cwd=self.out)
        self.assertEqual(done.returncode, 0, e2e.describe(done))
        names = sorted(n for n in os.listdir(parts_dir) if re.fullmatch(r"p_copy\.\d+\.json", n))
        self.assertGreater(len(names), 1, os.listdir(parts_dir))
        marker_events = 0
        for name in names:
            events = [e for e in e2e.read_json(os.path.join(parts_dir, name))["traceEvents"] if e["ph"] != "M"]
            self.assertLessEqual(len(events), 20, name)
            marker_events += sum(1 for e in events if e.get("cat") in ("marker", "range") and e["ph"] in "Xib")
        whole = e2e.read_json(self.base + "_copy.json")["traceEvents"]
        self.assertEqual(marker_events, sum(1 for e in whole if e.get("cat") in ("marker", "range") and e["ph"] in "Xib"))

    def test_db_merge_keeps_the_markers(self):
        merged = os.path.join(self.out, "merged")
        done = e2e.run_prof(["--db-merge", self.out, "-d", merged], cwd=self.out)
        self.assertEqual(done.returncode, 0, e2e.describe(done))
        with e2e.open_db(os.path.join(merged, "result_merged.db")) as db:
            self.assertEqual(e2e.scalar(db, "SELECT COUNT(*) FROM markers"), 9)
        _, rows = e2e.read_csv(os.path.join(merged, "result_merged.range_stats.csv"))
        self.assertIn("forward", {row["Name"] for row in rows})


class MstxTest(unittest.TestCase):
    """Ascend's mstx markers, on the simulated ACL runtime and a stand-in libms_tools_ext.so."""

    def test_mstx_ranges_and_marks(self):
        app = e2e.built_sample("mstx_sample")
        tmp = tempfile.mkdtemp(prefix="prof-e2e-mstx-")
        self.addCleanup(shutil.rmtree, tmp, True)
        done = e2e.run_prof(["--sim", "--hiptx-trace", "-d", tmp, app], cwd=tmp)
        self.assertEqual(done.returncode, 0, e2e.describe(done))
        pid = e2e.parse_pid(done.stdout)
        stream = int(re.search(r"^STREAM (\d+)$", done.stdout, re.MULTILINE).group(1))
        with e2e.open_db(os.path.join(tmp, f"acl-prof-{pid}.db")) as db:
            rows = {row["message"]: row for row in db.execute("SELECT * FROM markers")}
            self.assertEqual(set(rows), {"upload, step 1", "done, ✓", "never ended"})
            self.assertTrue(all(row["source"] == "mstx" for row in rows.values()))
            upload = rows["upload, step 1"]
            self.assertEqual((upload["kind"], upload["range_id"], upload["stream_handle"]), ("start_stop", 1, stream))
            self.assertEqual(upload["open_at_exit"], 0)
            copy = db.execute("SELECT device_begin_ns, device_end_ns FROM copies").fetchone()
            self.assertLessEqual(upload["begin_ns"], copy["device_begin_ns"])
            self.assertGreaterEqual(upload["end_ns"], copy["device_end_ns"])
            self.assertEqual(rows["done, ✓"]["kind"], "mark")
            self.assertEqual(rows["never ended"]["open_at_exit"], 1)
        _, stats = e2e.read_csv(os.path.join(tmp, f"result_{pid}.range_stats.csv"))
        self.assertEqual({row["Name"] for row in stats}, {"upload, step 1", "never ended"})


if __name__ == "__main__":
    e2e.main()
