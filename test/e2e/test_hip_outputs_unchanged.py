"""e2e: HIP's outputs for the multistream sample are what prof wrote before it knew several runtimes
(schema 1), normalised for what differs between any two runs: pids and tids, times and durations,
handle values (`aux`), the run's paths and the schema version. Changed on purpose since: the timeline
ends with an escaped displayTimeUnit "ns", a copy lane per direction and stream, and flow ends at their slices' middles
(regenerated then with --write-expected; the added files and meta below left out by hand), and a host<->device copy
call's args carry its host pointer (`host_ptr`, from api_args: a run's own address, left out like `aux`).

expected/multistream_hip_outputs.json is that normal form of the outputs of unmodified prof (schema 1)
for `prof --sim multistream 262144 3`. Regenerate it on purpose from such an output directory with
    python3 test/e2e/test_hip_outputs_unchanged.py --write-expected OUT_DIR PID

    python3 test/e2e/test_hip_outputs_unchanged.py --prof build/bin/prof --bin-dir build/test-bin
"""
import json
import os
import re
import sys
import tempfile
import unittest

import e2e_common as e2e

HERE = os.path.dirname(os.path.abspath(__file__))
EXPECTED = os.path.join(HERE, "expected", "multistream_hip_outputs.json")
SAMPLE_ARGS = ["262144", "3"]
# otherData keys whose values are the run's own (times, ids, paths, host) or prof's version.
RUN_KEYS = {"command_line", "end_ns", "host_name", "pid", "ppid", "start_ns", "wall_start_unix_ns", "time_origin_ns",
            "schema_version", "prof_version", "ring_full_waits",
            "ring_self_moves"}
# Added on purpose since schema 1: the run summary for prof --compare, and the run id it groups by;
# the trace CSVs and the copy and memory statistics; the HTML report.
ADDED_FILES = {"result_PID.summary.json", "result_PID.api_trace.csv", "result_PID.kernel_trace.csv",
               "result_PID.copy_trace.csv", "result_PID.copy_stats.csv", "result_PID.memory_stats.csv",
               "result_PID.report.html", "result_PID.pftrace"}
ADDED_META = {"run_id"}


def normal_csv(path):
    """Header, then (name, calls) sorted: rows are ordered by measured time, which varies. The
    columns appended since schema 1 (MedianNs, P95Ns, after hipprof's) are left out of the header
    when they are there, so the expected form stays that of the schema-1 prof."""
    header, rows = e2e.read_csv(path)
    if header[len(e2e.HIPPROF_CSV_HEADER):] == e2e.CSV_HEADER[len(e2e.HIPPROF_CSV_HEADER):]:
        header = header[:len(e2e.HIPPROF_CSV_HEADER)]
    return {"header": header, "rows": sorted([row["Name"], row["Calls"]] for row in rows)}


def normal_event(event, pid):
    event = dict(event)
    event.pop("ts", None)
    event.pop("dur", None)
    if event.get("tid") == pid:
        event["tid"] = "TID"
    args = dict(event.get("args", {}))
    args.pop("aux", None)
    args.pop("host_ptr", None)  # added since schema 1, an address of the run's own
    if isinstance(args.get("name"), str):
        args["name"] = args["name"].replace(str(pid), "TID")
    if args:
        event["args"] = args
    return json.dumps(event, sort_keys=True)


def normal_json(path, pid):
    trace = e2e.read_json(path)
    other = {key: ("RUN" if key in RUN_KEYS else value) for key, value in trace["otherData"].items()}
    return {"otherData": other, "displayTimeUnit": trace.get("displayTimeUnit"),
            "events": sorted(normal_event(event, pid) for event in trace["traceEvents"] if event.get("ph") != "C"),
            "counters": sum(1 for event in trace["traceEvents"] if event.get("ph") == "C")}


def normal_outputs(directory, pid):
    base = os.path.join(directory, f"result_{pid}")
    return {"hiptrace.csv": normal_csv(base + ".hiptrace.csv"), "kernel.csv": normal_csv(base + ".kernel.csv"),
            "_copy.json": normal_json(base + "_copy.json", pid),
            "files": sorted(re.sub(str(pid), "PID", name) for name in os.listdir(directory))}


class HipOutputsUnchangedTest(unittest.TestCase):
    def test_multistream_outputs_match_schema_1_prof(self):
        app = e2e.sample("multistream")
        with tempfile.TemporaryDirectory(prefix="prof-e2e-hipsame-") as tmp:
            out = os.path.join(tmp, "out")
            os.makedirs(out)
            done = e2e.run_prof(["--sim", "-d", out, app] + SAMPLE_ARGS, cwd=tmp)
            self.assertEqual(done.returncode, 0, e2e.describe(done))
            pid = e2e.parse_pid(done.stdout)
            got = normal_outputs(out, pid)
            headers = {key: e2e.read_csv(os.path.join(out, f"result_{pid}.{key}"))[0]
                       for key in ("hiptrace.csv", "kernel.csv")}
        with open(EXPECTED) as stream:
            want = json.load(stream)
        self.assertEqual([f for f in got["files"] if f not in ADDED_FILES], want["files"])
        self.assertTrue(ADDED_FILES <= set(got["files"]), got["files"])
        for key in ("hiptrace.csv", "kernel.csv"):
            self.assertEqual(got[key], want[key], key)
            self.assertEqual(headers[key], e2e.CSV_HEADER, key)
        other = got["_copy.json"]["otherData"]
        self.assertTrue(ADDED_META <= set(other), other)
        self.assertEqual({k: v for k, v in other.items() if k not in ADDED_META}, want["_copy.json"]["otherData"])
        # Added since schema 1: memory-in-use counters (ph "C"), one per hipMalloc/hipFree/host alloc and free.
        self.assertGreater(got["_copy.json"]["counters"], 0)
        got_events, want_events = got["_copy.json"]["events"], want["_copy.json"]["events"]
        missing = sorted(set(want_events) - set(got_events))[:5]
        extra = sorted(set(got_events) - set(want_events))[:5]
        self.assertEqual(got_events, want_events, f"timeline events differ; missing {missing}, extra {extra}")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--write-expected":
        with open(EXPECTED, "w") as stream:
            json.dump(normal_outputs(sys.argv[2], int(sys.argv[3])), stream, indent=1, sort_keys=True)
            stream.write("\n")
        sys.exit(0)
    e2e.main()
