"""e2e stream capture: the capture sample (test/apps/capture.cpp) captures work on two streams into
a graph and prints the graph it got (nodes, types, edges, kernel parameters), every return value
and last error, and the capture state. With and without prof the output must be the same: prof
never injects an event or a query into a capturing stream. Under prof the graph's launches are
recorded, with device times within 1 us of the simulator's truth, and the captured calls are
recorded as calls that ran no work.

    python3 test/e2e/test_capture.py --prof build/bin/prof --bin-dir build/test-bin
"""
import json
import os
import tempfile
import unittest

import e2e_common as e2e

NODES_PER_LAUNCH = 6  # truth lines per graph launch: 2 copies, 3 kernels, 1 memset (records are markers)


class CaptureTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        e2e.plain_and_profiled(cls, "capture")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def db(self):
        self.assertIsNotNone(self.db_path, e2e.describe(self.profiled))
        return e2e.open_db(self.db_path)

    def test_same_output_and_status(self):
        self.assertEqual(self.plain.returncode, 0, e2e.describe(self.plain))
        self.assertEqual(self.profiled.returncode, 0, e2e.describe(self.profiled))
        self.assertEqual(e2e.program_stdout(self.profiled.stdout), e2e.program_stdout(self.plain.stdout),
                         "the captured graph, return values and last errors are the same with prof")

    def test_the_graph_is_the_one_captured(self):
        # The comparison above proves little unless the sample did capture this graph.
        out = self.plain.stdout
        self.assertIn("graph: 8 nodes", out)
        types = [int(line.split()[3]) for line in out.splitlines() if line.strip().startswith("node ")]
        self.assertEqual(types, [2, 1, 8, 1, 8, 3, 1, 2])  # memcpy kernel record kernel record memset kernel memcpy
        edges = [line.strip() for line in out.splitlines() if line.strip().startswith("edge ")]
        self.assertEqual(edges, ["edge 0 -> 1", "edge 1 -> 2", "edge 2 -> 3", "edge 3 -> 4", "edge 2 -> 5",
                                 "edge 5 -> 6", "edge 4 -> 6", "edge 6 -> 7"])
        self.assertIn("kernel consume grid 128,2,1 block 64,2,1 shared 1024", out)
        self.assertIn("s1 capturing: ret 0 status 2", out)  # the spoiled capture is invalidated
        self.assertIn("spoiled graph is null", out)
        self.assertIn("after launch: back[0] 0.0 back[last] 3.0", out)  # the graph really ran
        # A capture begun on another thread holds just the launch this thread made into it.
        self.assertIn("graph captured from another thread's begin: 1 node(s)", out)

    def test_graph_launches_and_captured_calls_are_recorded(self):
        db = self.db()
        try:
            calls = dict(db.execute("SELECT n.name, COUNT(*) FROM api_calls a JOIN api_names n USING (api_id) "
                                    "GROUP BY n.name").fetchall())
            self.assertEqual(calls.get("hipGraphLaunch"), 3)
            self.assertEqual(calls.get("hipStreamBeginCapture"), 3)
            self.assertEqual(calls.get("hipStreamEndCapture"), 3)
            self.assertEqual(calls.get("hipGraphInstantiate"), 1)
            self.assertEqual(calls.get("hipLaunchKernel"), 5, "captured launches are calls")
            kernels = db.execute("SELECT s.value AS name, k.device_begin_ns, k.device_end_ns FROM kernels k "
                                 "LEFT JOIN strings s ON s.string_id = k.name_id").fetchall()
        finally:
            db.close()
        names = sorted(row["name"] for row in kernels)
        self.assertEqual(names, ["[graph launch]"] * 3, "only the graph launches ran work on the device")
        for row in kernels:
            self.assertIsNotNone(row["device_begin_ns"])
            self.assertLess(row["device_begin_ns"], row["device_end_ns"])

    def test_graph_launch_times_match_the_truth(self):
        if os.environ.get("PROF_E2E_NO_TIMING") == "1":
            self.skipTest("PROF_E2E_NO_TIMING=1: 1 us precision is a property of the uninstrumented build")
        truth = sorted(e2e.read_truth(self.truth_path), key=lambda op: op["stream_seq"])
        self.assertEqual(len(truth), 3 * NODES_PER_LAUNCH, "every node of every launch ran")
        self.assertEqual(len({op["stream"] for op in truth}), 1, "a graph launch runs on its launch stream")
        db = self.db()
        try:
            launches = db.execute("SELECT device_begin_ns, device_end_ns FROM kernels ORDER BY device_begin_ns"
                                  ).fetchall()
        finally:
            db.close()
        self.assertEqual(len(launches), 3)
        for i, launch in enumerate(launches):
            ops = truth[i * NODES_PER_LAUNCH:(i + 1) * NODES_PER_LAUNCH]
            begin, end = ops[0]["begin_ns"], ops[-1]["end_ns"]
            self.assertLessEqual(abs(launch["device_begin_ns"] - begin), e2e.TOLERANCE_NS, f"launch {i} begin")
            self.assertLessEqual(abs(launch["device_end_ns"] - end), e2e.TOLERANCE_NS, f"launch {i} end")

    def test_chrome_trace_shows_the_launches(self):
        pid = os.path.basename(self.db_path).split("-")[-1].split(".")[0]
        with open(e2e.output_paths(self.tmp.name, pid)["json"], encoding="utf-8") as f:
            trace = json.load(f)
        slices = [e for e in trace["traceEvents"] if e.get("ph") == "X" and e.get("name") == "[graph launch]"]
        self.assertEqual(len(slices), 3)


if __name__ == "__main__":
    e2e.main()
