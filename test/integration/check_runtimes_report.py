"""integration: the reports take every runtime word from the database. A process that called two
runtimes gets one API statistics CSV per runtime (<base>.<api_csv_stem>.csv, each holding only its
runtime's calls), one summary table per runtime in runtime order, one kernel table and one timeline;
a runtime whose description says "Queue" and "MLU" gets those words in the timelines.

    python3 test/integration/check_runtimes_report.py --tool build/test-bin/report_fixture_tool
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = None


def read_csv(path):
    with open(path, newline="") as stream:
        rows = list(csv.reader(stream))
    return rows[0], {row[0]: int(row[1]) for row in rows[1:]}


class RuntimesReportTest(unittest.TestCase):
    def setUp(self):
        self.out = tempfile.mkdtemp(prefix="prof-runtimes-")
        self.addCleanup(shutil.rmtree, self.out, True)

    def report(self, sql):
        fixture = os.path.join(self.out, "fixture.sql")
        with open(fixture, "w") as stream:
            stream.write(sql)
        done = subprocess.run([TOOL, fixture, self.out, "--group-stream"], capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 0, done.stderr)
        return done.stdout

    def two_runtimes_sql(self):
        with open(os.path.join(HERE, "fixtures", "two_runtimes.sql")) as stream:
            return stream.read()

    def test_one_api_csv_per_runtime(self):
        self.report(self.two_runtimes_sql())
        header, hip = read_csv(os.path.join(self.out, "result.hiptrace.csv"))
        self.assertEqual(header[:5], ["Name", "Calls", "TotalDurationNs", "AverageNs", "Percentage"])
        self.assertEqual(hip, {"hipMemcpyAsync": 1, "hipLaunchKernel": 1})
        header, musa = read_csv(os.path.join(self.out, "result.musatrace.csv"))
        self.assertEqual(header[:5], ["Name", "Calls", "TotalDurationNs", "AverageNs", "Percentage"])
        self.assertEqual(musa, {"musaMalloc": 1, "musaMemcpyAsync": 2, "musaLaunchKernel": 1})
        _, kernels = read_csv(os.path.join(self.out, "result.kernel.csv"))
        self.assertEqual(kernels, {"scale(float*, int)": 2})

    def test_summary_has_a_table_per_runtime_in_runtime_order(self):
        stdout = self.report(self.two_runtimes_sql())
        self.assertIn("HIP API (2 calls, 2 names", stdout)
        self.assertIn("MUSA API (4 calls, 3 names", stdout)
        self.assertLess(stdout.index("HIP API"), stdout.index("MUSA API"))
        self.assertLess(stdout.index("MUSA API"), stdout.index("Kernels"))

    def test_one_timeline_holds_both_runtimes_with_flows(self):
        self.report(self.two_runtimes_sql())
        with open(os.path.join(self.out, "result_copy.json")) as stream:
            events = json.load(stream)["traceEvents"]
        api = {e["name"] for e in events if e.get("cat") == "api"}
        self.assertEqual(api, {"musaMalloc", "musaMemcpyAsync", "musaLaunchKernel", "hipMemcpyAsync", "hipLaunchKernel"})
        starts = {e["id"] for e in events if e["ph"] == "s"}
        self.assertEqual(starts, {2, 3, 4, 5, 6}, "a flow from each call to its work")

    def test_labels_come_from_the_database(self):
        sql = self.two_runtimes_sql().replace("'Stream', 'Device', 'musatrace'", "'Queue', 'MLU', 'musatrace'")
        self.report(sql)
        names = set()
        for view in ("copy", "stream"):
            with open(os.path.join(self.out, f"result_{view}.json")) as stream:
                names |= {e["args"]["name"] for e in json.load(stream)["traceEvents"] if e["ph"] == "M"
                          and e["name"] in ("process_name", "thread_name")}
        # Two runtimes with different words: both, joined.
        self.assertIn("Compute on Device/MLU 0", names)
        self.assertIn("Stream/Queue on Device/MLU 0", names)
        self.assertIn("Stream/Queue 1", names)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--tool", required=True)
    options, rest = parser.parse_known_args()
    TOOL = os.path.abspath(options.tool)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
