"""integration: a version-1 database (written by prof before schema 2 and the runtimes table) still
reads, and HIP's outputs from it are those the version-1 prof wrote: byte for byte, but for the
timelines, which hold the same lines in the report's pass order.

fixtures/v1_multistream/v1.db is the multistream sample's db from a build of prof at schema 1
(`prof --sim multistream 262144 3`); expected/ and expected_range/ hold what that prof's
`prof --db v1.db [--group-stream | --index-range 3:20]` wrote, and its summary up to "Files written".

    python3 test/integration/check_v1_db.py --prof build/bin/prof
"""
import argparse
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "fixtures", "v1_multistream")
PROF = None


def timeline_lines(trace):
    """A timeline's lines (one event per line, separated by ",\\n") without their separators and
    without counter events, sorted: since the report writes each process's slices in its pass's
    order (correlation id) rather than by time, only the order of the lines differs. A flow start's
    time is left out (its id, process and thread are kept): since 2026-11-29 an arrow starts no
    later than it ends, 1 ns before its end when the work's middle comes before its call's, a rule
    the version-1 prof did not have."""
    lines = (line.rstrip(b",") for line in trace.split(b"\n") if not line.startswith(b'{"ph":"C"'))
    return sorted(re.sub(rb',"ts":[0-9.]+}$', b"}", line) if line.startswith(b'{"ph":"s"') else line for line in lines)


def summary_part(stdout):
    return stdout.split("Files written:")[0]


# Columns appended to the statistics CSVs since version 1, after hipprof's (which stay as they were).
ADDED_CSV_COLUMNS = b",MedianNs,P95Ns"


def hipprof_columns(csv_text):
    """A statistics CSV with the columns added since version 1 cut off: its lines end in them, two
    integers (names with commas are quoted, but come first)."""
    lines = csv_text.split(b"\n")
    assert lines[0].endswith(ADDED_CSV_COLUMNS), lines[0]
    return b"\n".join(line.rsplit(b",", 2)[0] if line else line for line in lines)


# A summary table's row: name, calls, then durations ("1.005 ms") and the percentage. Version 1
# showed Total and Average; Med and p95 came after them, and names are cut to 37 columns.
ROW = re.compile(r"^  (.*?) +(\d+)((?: +[0-9.]+ [a-z]+)+) +([0-9.]+%)$")


def summary_rows(text):
    """Each table's title and its rows as (name, calls, total, average, percent)."""
    tables, rows = [], None
    for line in text.split("\n"):
        if line and not line.startswith(" "):
            rows = []
            tables.append((line, rows))
        elif rows is not None and (m := ROW.match(line)):
            durations = re.findall(r"[0-9.]+ [a-z]+", m.group(3))
            rows.append((m.group(1).rstrip(), m.group(2), durations[0], durations[1], m.group(4)))
    return tables


def cut_name(name):
    return name if len(name) <= 37 else name[:34] + "..."


class V1DatabaseTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="prof-v1-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        # prof --db only reads its input; a copy still guards the checked-in fixture.
        self.db = os.path.join(self.tmp, "v1.db")
        shutil.copy(os.path.join(FIXTURE, "v1.db"), self.db)

    def run_prof(self, *args):
        out = os.path.join(self.tmp, "out")
        os.makedirs(out, exist_ok=True)
        done = subprocess.run([PROF, "--db", self.db, "-d", out, *args], capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 0, done.stderr)
        return out, done.stdout

    def assert_same_files(self, out, expected_dir, stdout):
        expected = sorted(f for f in os.listdir(expected_dir) if f != "summary.txt")
        # Files added after version 1: the run summary JSON (prof --compare), the trace CSVs and statistics,
        # the HTML report, the Perfetto protobuf trace.
        added = ["v1.summary.json", "v1.api_trace.csv", "v1.kernel_trace.csv", "v1.copy_trace.csv", "v1.copy_stats.csv",
                 "v1.memory_stats.csv", "v1.report.html", "v1.pftrace"]
        self.assertEqual(sorted(os.listdir(out)), sorted(expected + added), "a different set of files")
        with open(os.path.join(out, "v1.summary.json")) as stream:
            summary = json.load(stream)
        kernels = sum(e["calls"] for e in summary["entries"] if e["kind"] == "kernel")
        with sqlite3.connect(f"file:{self.db}?mode=ro", uri=True) as db:
            self.assertEqual(kernels, db.execute(
                "SELECT COUNT(*) FROM kernels" + (" WHERE correlation_id IN (SELECT correlation_id FROM api_calls "
                                                  "WHERE sequence BETWEEN 3 AND 20)" if "range" in expected_dir else "")
            ).fetchone()[0])
        self.assertTrue(all(e["runtime"] == "hip" for e in summary["entries"] if e["kind"] == "api"))
        for name in expected:
            with open(os.path.join(out, name), "rb") as got, open(os.path.join(expected_dir, name), "rb") as want:
                text = got.read()
                if name.endswith(".json"):
                    # Added since: the memory-in-use counter tracks ("ph":"C" lines); the rest is unchanged.
                    self.assertIn(b'{"ph":"C","name":"Device memory in use"', text)
                    self.assertEqual(timeline_lines(text), timeline_lines(want.read()),
                                     f"{name} differs from the version-1 prof's")
                    continue
                self.assertEqual(hipprof_columns(text), want.read(), f"{name} differs from the version-1 prof's")
        with open(os.path.join(expected_dir, "summary.txt")) as want:
            summary = summary_part(stdout)
            self.assertIn("\nMemory in use (peak, still allocated at exit)\n", summary)
            # Added since: Med and p95 columns, the copy and stream tables; names cut to fit 100 columns.
            self.assertIn("\nCopies and memsets (", summary)
            self.assertIn("\nStreams (", summary)
            got = [t for t in summary_rows(summary)
                   if not t[0].startswith(("Memory in use", "Copies and memsets", "Streams ("))]
            wanted = [(title, [(cut_name(row[0]),) + row[1:] for row in rows])
                      for title, rows in summary_rows(want.read())]
            self.assertEqual(got, wanted, "the summary differs")
            self.assertTrue(any(rows for _, rows in got), "no table rows were read")

    def test_fixture_is_version_1(self):
        with sqlite3.connect(f"file:{self.db}?mode=ro", uri=True) as db:
            self.assertEqual(db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0], "1")
            self.assertIsNone(db.execute("SELECT name FROM sqlite_master WHERE name = 'runtimes'").fetchone())

    def test_reports_are_unchanged(self):
        out, stdout = self.run_prof("--group-stream")
        self.assert_same_files(out, os.path.join(FIXTURE, "expected"), stdout)

    def test_index_range_reports_are_unchanged(self):
        out, stdout = self.run_prof("--index-range", "3:20")
        self.assert_same_files(out, os.path.join(FIXTURE, "expected_range"), stdout)

    def test_merge_reads_a_version_1_source(self):
        inputs = os.path.join(self.tmp, "inputs")
        os.makedirs(inputs)
        shutil.copy(self.db, os.path.join(inputs, "hip-prof-5831.db"))
        out = os.path.join(self.tmp, "merged")
        os.makedirs(out)
        done = subprocess.run([PROF, "--db-merge", inputs, "-d", out], capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 0, done.stderr)
        with sqlite3.connect(os.path.join(out, "result_merged.db")) as db:
            self.assertEqual(db.execute("SELECT name, api_csv_stem FROM runtimes").fetchall(), [("hip", "hiptrace")])
            self.assertEqual(db.execute("SELECT COUNT(*) FROM api_names WHERE runtime_id <> 0").fetchone()[0], 0)
        with open(os.path.join(out, "result_merged.hiptrace.csv")) as got, \
                open(os.path.join(FIXTURE, "expected", "v1.hiptrace.csv")) as want:
            self.assertEqual(hipprof_columns(got.read().encode()), want.read().encode(),
                             "merging one v1 db should give its own API statistics")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--prof", required=True)
    options, rest = parser.parse_known_args()
    PROF = os.path.abspath(options.prof)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
