#!/usr/bin/env python3
"""Integration test of prof's reports: builds each fixture db (fixtures/*.sql) with
report_fixture_tool, runs the report on it, then
  1. parses every CSV and JSON file with Python's csv and json modules and checks them against
     statistics recomputed here from the db (an independent implementation of the same rules),
  2. compares the normalised outputs to the golden files in test/golden/report/<case>/.

    python3 test/integration/check_outputs.py --tool build/test-bin/report_fixture_tool --work /tmp/x

To accept new output on purpose, regenerate the golden files and review them as a diff:
    PROF_UPDATE_GOLDEN=1 python3 test/integration/check_outputs.py --tool ... --work ...
    git diff test/golden/
"""
import argparse
import csv
import difflib
import io
import json
import math
import os
import re
import shutil
import sqlite3
import subprocess
import sys

from prof_text import escaped_text

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures")
GOLDEN = os.path.join(HERE, os.pardir, "golden", "report")
# hipprof's columns, then prof's own after them (scripts keyed on hipprof's keep working).
CSV_HEADER = ["Name", "Calls", "TotalDurationNs", "AverageNs", "Percentage", "MinNs", "MaxNs", "StdDevNs",
              "MedianNs", "P95Ns"]

# (case, fixture, report options)
CASES = [
    ("basic", "basic.sql", ["--group-stream"]),
    ("basic_range", "basic.sql", ["--range", "3", "9", "--group-stream"]),
    ("names", "names.sql", ["--group-stream"]),
    ("empty", "empty.sql", ["--group-stream"]),
]

# Names as the report writes them: bytes that are not UTF-8 as \xNN (report/utf8.hpp).
def repaired(raw):
    return escaped_text(raw)


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def round_half_up_div(numerator, denominator):
    return (2 * numerator + denominator) // (2 * denominator) if denominator > 0 else 0


def percent(part, whole):
    if whole <= 0:
        return "0.00"
    hundredths = (part * 20000 + whole) // (whole * 2)
    return f"{hundredths // 100}.{hundredths % 100:02d}"


def nearest_rank(durations, percent_wanted):
    """The value at rank ceil(p/100 * n) of the sorted durations; 0 without any. The report's is
    within 0.8% of it (a histogram); the fixtures' durations are few, so there it is exact."""
    if not durations:
        return 0
    rank = max(1, -(-percent_wanted * len(durations) // 100))
    return sorted(durations)[rank - 1]


def expected_stats(groups):
    """groups: raw name -> list of durations (None = untimed) -> the CSV rows, in order."""
    rows = []
    for raw, durations in groups.items():
        timed = [d for d in durations if d is not None]
        total = sum(timed)
        mean = total / len(timed) if timed else 0
        stddev = math.floor(math.sqrt(sum((d - mean) ** 2 for d in timed) / len(timed)) + 0.5) if timed else 0
        rows.append((raw, len(durations), total, round_half_up_div(total, len(timed)), min(timed, default=0),
                     max(timed, default=0), stddev, nearest_rank(timed, 50), nearest_rank(timed, 95)))
    rows.sort(key=lambda row: (-row[2], row[0]))
    grand = sum(row[2] for row in rows)
    return [[repaired(raw), str(calls), str(total), str(avg), percent(total, grand), str(low), str(high), str(sd),
             str(median), str(p95)]
            for raw, calls, total, avg, low, high, sd, median, p95 in rows]


class Db:
    """The fixture db read back with Python's sqlite3, names as raw bytes."""

    def __init__(self, path, sequence_range):
        self.conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        self.conn.text_factory = bytes
        self.range = sequence_range

    def api_calls(self):
        sql = ("SELECT c.correlation_id, n.name, c.thread_id, c.begin_ns, c.end_ns, c.sequence FROM api_calls c "
               "JOIN api_names n USING (api_id)")
        rows = self.conn.execute(sql).fetchall()
        if self.range:
            rows = [r for r in rows if self.range[0] <= r[5] <= self.range[1]]
        return rows

    def covered(self, correlation_id, calls):
        return not self.range or correlation_id in calls

    def kernels(self):
        calls = {r[0] for r in self.api_calls()}
        rows = self.conn.execute(
            "SELECT k.correlation_id, CASE WHEN k.name_id IS NULL THEN printf('unknown kernel at 0x%x', "
            "k.function_address) ELSE s.value END, k.device, k.stream_index, k.device_begin_ns, k.device_end_ns "
            "FROM kernels k LEFT JOIN strings s ON s.string_id = k.name_id").fetchall()
        return [r for r in rows if self.covered(r[0], calls)]

    def copies(self):
        calls = {r[0] for r in self.api_calls()}
        rows = self.conn.execute("SELECT correlation_id, device, stream_index, direction, device_begin_ns, "
                                 "device_end_ns FROM copies").fetchall()
        return [r for r in rows if self.covered(r[0], calls)]

    def meta(self):
        return {repaired(k): repaired(v) for k, v in self.conn.execute("SELECT key, value FROM meta")}


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as stream:  # strict: invalid UTF-8 fails here
        return list(csv.reader(stream, strict=True))


def check_csv(path, expected):
    rows = read_csv(path)
    check(rows and rows[0] == CSV_HEADER, f"{path}: header {rows[:1]}")
    check(rows[1:] == expected, f"{path}: rows differ from the db\n  got:      {rows[1:]}\n  expected: {expected}")


def check_times_text(path):
    with open(path, encoding="utf-8") as stream:
        text = stream.read()
    for key, value in re.findall(r'"(ts|dur)":([^,}]*)', text):
        # Microseconds with three decimals, or with 4-7 ending in 1 where the three-decimal double
        # would lose 1 ns to Perfetto's truncation (docs/formats.md, "Times").
        check(re.fullmatch(r"-?\d+\.\d{3}(\d{0,3}1)?", value),
              f"{path}: {key} {value!r} is not microseconds with 3 decimals (or a nudge ending in 1)")
        ns = round(float(value) * 1000)
        check(int(float(value) * 1000.0) == ns, f"{path}: {key} {value!r} truncates to {int(float(value) * 1000.0)} ns "
              f"in Perfetto, not {ns}")
        check(len(value.split(".")[1]) == 3 or int(float(value[:value.index(".") + 4]) * 1000.0) != ns,
              f"{path}: {key} {value!r} carries a nudge its three decimals do not need")


def text_tail(path):
    with open(path, "rb") as stream:
        stream.seek(0, os.SEEK_END)
        stream.seek(max(0, stream.tell() - 64))
        return stream.read().decode("utf-8", "replace")


def check_trace(path, db, view):
    check_times_text(path)
    with open(path, encoding="utf-8") as stream:
        document = json.load(stream)
    # displayTimeUnit "ns" for catapult, written "display\u0054imeUnit" and last so that Perfetto
    # v20.1, which matched the raw key and read it as ts's unit, does not see it.
    check(document.get("displayTimeUnit") == "ns", f"{path}: displayTimeUnit is {document.get('displayTimeUnit')!r}")
    check('"display\\u0054imeUnit":"ns"\n}' in text_tail(path), f"{path}: displayTimeUnit is not escaped and last")
    other = document["otherData"]
    for key, value in db.meta().items():
        check(other.get(key) == value, f"{path}: otherData[{key!r}] = {other.get(key)!r}, meta has {value!r}")
    origin = other["time_origin_ns"]
    events = document["traceEvents"]
    processes = {e["pid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    lanes = {(e["pid"], e["tid"]) for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    slices = [e for e in events if e["ph"] == "X"]
    for e in slices:
        check(e["pid"] in processes and (e["pid"], e["tid"]) in lanes, f"{path}: slice on an unnamed lane: {e}")
        check(e["ts"] >= 0 and e["dur"] >= 0, f"{path}: negative time {e}")

    def us(ns):
        return (ns - origin) / 1000

    by_id = {}
    api = [e for e in slices if processes[e["pid"]] == "Runtime API"]
    calls = db.api_calls()
    check(len(api) == len(calls), f"{path}: {len(api)} API slices for {len(calls)} calls")
    # In the report's pass order (docs/formats.md): correlation id.
    for e, call in zip(api, sorted(calls, key=lambda r: r[0])):
        check(e["name"] == repaired(call[1]) and e["args"]["correlation_id"] == call[0], f"{path}: {e} vs {call}")
        check(e["tid"] == call[2] and math.isclose(e["ts"], us(call[3]), abs_tol=5e-4), f"{path}: {e} vs {call}")
        by_id[call[0]] = e
    device = [e for e in slices if processes[e["pid"]] != "Runtime API"]
    timed_kernels = [k for k in db.kernels() if k[4] is not None]
    timed_copies = [c for c in db.copies() if c[4] is not None]
    check(len(device) == len(timed_kernels) + len(timed_copies), f"{path}: device slices vs timed kernels+copies")
    kernel_names = {k[0]: repaired(k[1]) for k in timed_kernels}
    for e in device:
        cid = e["args"]["correlation_id"]
        if e["cat"] == "kernel":
            check(e["name"] == kernel_names[cid], f"{path}: kernel name {e['name']!r} vs {kernel_names[cid]!r}")
            check(re.fullmatch(r"\(\d+,\d+,\d+\)", e["args"]["grid"]), f"{path}: grid {e}")
        want = ("Stream on Device " if view == "stream" else
                "Compute on Device " if e["cat"] == "kernel" else "Memory Copy on Device ")
        check(processes[e["pid"]].startswith(want), f"{path}: {e} in process {processes[e['pid']]}")
    rows = {}
    for e in slices:
        rows.setdefault((e["pid"], e["tid"]), []).append(e)
    starts = {e["id"]: e for e in events if e["ph"] == "s"}
    finishes = {e["id"]: e for e in events if e["ph"] == "f"}
    targets = {e["args"]["correlation_id"]: e for e in device}
    check(set(starts) == set(finishes) == set(targets) & set(by_id), f"{path}: flow ids")
    for flow_id, start in starts.items():
        source, target, finish = by_id[flow_id], targets[flow_id], finishes[flow_id]
        # A viewer binds each end to the slice that encloses its time on its row: the end must lie
        # inside its own slice (at the midpoint, strictly inside when the slice is 2 ns or longer)
        # and inside no other slice of that row. The start is no later than the finish (viewers sort
        # flow events by time and drop a flow that ends first): when the work's midpoint comes
        # before its call's, the start is 1 ns before the finish, still strictly inside the call.
        def middle(slice_):
            begin_ns, dur_ns = round(slice_["ts"] * 1000), round(slice_["dur"] * 1000)
            return begin_ns + dur_ns // 2 if dur_ns >= 2 else begin_ns
        finish_ns = round(finish["ts"] * 1000)
        check(finish_ns == middle(target), f"{path}: flow end {finish} is not at the middle of {target}")
        start_ns, source_begin = round(start["ts"] * 1000), round(source["ts"] * 1000)
        check(start_ns == middle(source) or (start_ns == finish_ns - 1 and start_ns > source_begin),
              f"{path}: flow start {start} is neither at the middle of {source} nor just before its end {finish}")
        check(start_ns <= finish_ns, f"{path}: flow {flow_id} starts at {start_ns} after it ends at {finish_ns}")
        for end, slice_ in ((start, source), (finish, target)):
            check((end["pid"], end["tid"]) == (slice_["pid"], slice_["tid"]), f"{path}: flow end {end} vs {slice_}")
            at_ns = round(end["ts"] * 1000)
            others = [o for o in rows[(end["pid"], end["tid"])] if o is not slice_ and
                      round(o["ts"] * 1000) <= at_ns <= round(o["ts"] * 1000) + round(o["dur"] * 1000)]
            check(not others, f"{path}: flow end {end} also lies in {others[:1]}")
        check(finish["bp"] == "e", f"{path}: flow end {finish} binds to the next slice")


def check_trace_csvs(out, db):
    """One trace row per call, dispatch and copy the db covers, with its correlation id and device times."""
    def rows(name):
        with open(os.path.join(out, name), encoding="utf-8", newline="") as stream:
            return list(csv.DictReader(stream))
    api = rows("result.api_trace.csv")
    check(sorted(int(r["Correlation_Id"]) for r in api) == sorted(c[0] for c in db.api_calls()),
          "api_trace.csv: not one row per covered call")
    kernels = {int(r["Correlation_Id"]): r for r in rows("result.kernel_trace.csv")}
    check(sorted(kernels) == sorted(k[0] for k in db.kernels()), "kernel_trace.csv: not one row per covered kernel")
    for k in db.kernels():
        row = kernels[k[0]]
        check(row["Start_Timestamp"] == ("" if k[4] is None else str(k[4])), f"kernel_trace.csv: start of {k}")
        check(row["End_Timestamp"] == ("" if k[5] is None else str(k[5])), f"kernel_trace.csv: end of {k}")
    copies = {int(r["Correlation_Id"]): r for r in rows("result.copy_trace.csv")}
    check(sorted(copies) == sorted(c[0] for c in db.copies()), "copy_trace.csv: not one row per covered copy")


def check_copy_quantiles(path, db):
    """<base>.copy_stats.csv: its old columns first, then each direction's median and p95 device time."""
    names = {direction: repaired(name) for direction, name in
             db.conn.execute("SELECT direction, name FROM copy_directions")}
    groups = {}
    for copy in db.copies():
        timed = groups.setdefault(names.get(copy[3], f"Direction {copy[3]}"), [])
        if copy[4] is not None:
            timed.append(copy[5] - copy[4])
    rows = read_csv(path)
    check(rows and rows[0] == ["Direction", "Calls", "TotalBytes", "TotalDurationNs", "AverageNs", "Percentage",
                               "MinNs", "MaxNs", "BandwidthGBps", "MedianNs", "P95Ns"], f"{path}: header {rows[:1]}")
    got = {row[0]: (row[9], row[10]) for row in rows[1:]}
    want = {name: (str(nearest_rank(d, 50)), str(nearest_rank(d, 95))) for name, d in groups.items()}
    check(got == want, f"{path}: median and p95 differ from the db\n  got:  {got}\n  want: {want}")


def check_run_summary(path, api_groups, kernel_groups):
    """<base>.summary.json: the API calls and totals per name, and the kernels' calls and total, as the db has them."""
    with open(path, encoding="utf-8") as stream:
        summary = json.load(stream)
    check(summary.get("prof_summary") == 1, f"{path}: no prof_summary version 1")
    got = {e["name"]: (e["calls"], e["total_ns"]) for e in summary["entries"] if e["kind"] == "api"}
    want = {repaired(name): (len(d), sum(d)) for name, d in api_groups.items()}
    check(got == want, f"{path}: API entries differ from the db\n  got:  {sorted(got.items())}\n  want: {sorted(want.items())}")
    kernels = [e for e in summary["entries"] if e["kind"] == "kernel"]
    durations = [d for group in kernel_groups.values() for d in group]
    check((sum(e["calls"] for e in kernels), sum(e["total_ns"] for e in kernels)) ==
          (len(durations), sum(d for d in durations if d is not None)), f"{path}: kernel entries differ from the db")


def check_case(tool, work, case, fixture, options, update):
    out = os.path.join(work, case)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    completed = subprocess.run([tool, os.path.join(FIXTURES, fixture), out] + options, capture_output=True)
    check(completed.returncode == 0, f"{case}: tool exit {completed.returncode}: {completed.stderr!r}")
    summary = completed.stdout.decode("utf-8")  # strict: the summary must be valid UTF-8 too
    sequence_range = None
    if "--range" in options:
        at = options.index("--range")
        sequence_range = (int(options[at + 1]), int(options[at + 2]))
    db = Db(os.path.join(out, "fixture.db"), sequence_range)

    outputs = ["result.hiptrace.csv", "result.kernel.csv", "result.summary.json", "result_copy.json",
               "result.api_trace.csv", "result.kernel_trace.csv", "result.copy_trace.csv", "result.copy_stats.csv",
               "result.memory_stats.csv", "result.report.html", "result.pftrace"]
    if "--group-stream" in options:
        outputs.append("result_stream.json")
    check(sorted(os.listdir(out)) == sorted(outputs + ["fixture.db"]), f"{case}: files {os.listdir(out)}")

    api_groups, kernel_groups = {}, {}
    for call in db.api_calls():
        api_groups.setdefault(call[1], []).append(call[4] - call[3])
    for kernel in db.kernels():
        kernel_groups.setdefault(kernel[1], []).append(None if kernel[4] is None else kernel[5] - kernel[4])
    check_csv(os.path.join(out, "result.hiptrace.csv"), expected_stats(api_groups))
    check_csv(os.path.join(out, "result.kernel.csv"), expected_stats(kernel_groups))
    check_copy_quantiles(os.path.join(out, "result.copy_stats.csv"), db)
    check_trace(os.path.join(out, "result_copy.json"), db, "copy")
    check_run_summary(os.path.join(out, "result.summary.json"), api_groups, kernel_groups)
    check_trace_csvs(out, db)
    if "--group-stream" in options:
        check_trace(os.path.join(out, "result_stream.json"), db, "stream")

    # Golden comparison; the only run-dependent text is the output directory in the summary.
    # The pftrace is binary (unit-tested in report_pftrace_writer_test.cpp, viewed in browser:timeline):
    # here it starts with prof's first packet.
    with open(os.path.join(out, "result.pftrace"), "rb") as stream:
        check(stream.read(6) == b"\x0a\x04\x50\x01\x68\x01", f"{case}: result.pftrace does not start with prof's packet")
    actual = {name: open(os.path.join(out, name), encoding="utf-8", newline="").read() for name in outputs
              if not name.endswith(".pftrace")}
    actual["summary.txt"] = summary.replace(out, "<OUT>")
    golden_dir = os.path.join(GOLDEN, case)
    if update:
        shutil.rmtree(golden_dir, ignore_errors=True)
        os.makedirs(golden_dir)
        for name, text in actual.items():
            with open(os.path.join(golden_dir, name), "w", encoding="utf-8", newline="") as stream:
                stream.write(text)
        return
    check(os.path.isdir(golden_dir), f"{case}: no golden files in {golden_dir} (PROF_UPDATE_GOLDEN=1 makes them)")
    check(sorted(os.listdir(golden_dir)) == sorted(actual), f"{case}: golden files {os.listdir(golden_dir)}")
    for name, text in actual.items():
        with open(os.path.join(golden_dir, name), encoding="utf-8", newline="") as stream:
            expected = stream.read()
        if text != expected:
            diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True),
                                                f"golden/{case}/{name}", f"actual/{case}/{name}"))
            raise Failure(f"{case}: {name} differs from its golden file\n{diff}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tool", required=True, help="the report_fixture_tool executable")
    parser.add_argument("--work", required=True, help="scratch directory (emptied per case)")
    options = parser.parse_args()
    update = os.environ.get("PROF_UPDATE_GOLDEN") == "1"
    failed = 0
    for case, fixture, case_options in CASES:
        try:
            check_case(options.tool, options.work, case, fixture, case_options, update)
            print(f"ok   {case}" + (" (golden files rewritten)" if update else ""))
        except (Failure, KeyError, ValueError) as error:
            failed += 1
            print(f"FAIL {case}: {type(error).__name__}: {error}")
    print(f"{len(CASES) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
