#!/usr/bin/env python3
"""Device times on a busy host (issue 36): runs each runtime's sample under `prof --sim` beside two
busy loops per CPU, RUNS times, and prints a table of how many of its ops prof timed exactly as the
simulator's truth file says and how many are more than 1 us off, with the runtime's own per-op
reports (the default) and with events (PROF_DEVICE_ACTIVITY=0). Ops of calls that enqueue several
(ACL's model runs and graph launches) are timed by events in both modes and left out, with the
graph's nodes.

    scripts/bench-busy-device-times.py [--runs 5] [--event-runs 1] [--runtimes hip,musa,cnrt,acl] [--build build]
"""
import argparse
import collections
import glob
import json
import os
import subprocess
import sys
import tempfile

SAMPLES = [  # runtime, sample, arguments (about 10,000-30,000 ops), the truth's stream handle -> the db's
    ("hip", "multistream", ["1024", "3000"], {}),
    ("musa", "musa_sample", ["6000"], {}),
    ("cnrt", "cnrt_sample", ["7500"], {2: 1}),
    ("acl", "acl_sample", ["6000"], {}),
]
SEVERAL = {"[graph launch]"}


def ops_of(db_path):
    import sqlite3
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        rows = db.execute(
            "SELECT s.stream_handle, k.device_begin_ns, k.device_end_ns, n.value FROM kernels k "
            "JOIN streams s USING (stream_index) LEFT JOIN strings n ON n.string_id = k.name_id "
            "UNION ALL SELECT s.stream_handle, c.device_begin_ns, c.device_end_ns, NULL FROM copies c "
            "JOIN streams s USING (stream_index)").fetchall()
    finally:
        db.close()
    return rows


def one_run(prof, app, args, handles, activity):
    with tempfile.TemporaryDirectory(prefix="prof-busy-") as tmp:
        truth = os.path.join(tmp, "truth.jsonl")
        env = dict(os.environ, PROF_SIM_TRUTH=truth, PROF_DEVICE_ACTIVITY="1" if activity else "0")
        done = subprocess.run([prof, "--sim", "-d", tmp, "--output-format", "stats", app, *args], cwd=tmp, env=env,
                              capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"prof failed on {app}: {done.stderr[-500:]}")
        dbs = glob.glob(os.path.join(tmp, "*prof-*.db"))
        rows = ops_of(dbs[0])
        with open(truth) as stream:
            truth_ops = [json.loads(line) for line in stream if line.strip()]
    # Ops of calls that enqueue several (a model run, a graph launch) are left out.
    several = [r for r in rows if r[3] in SEVERAL or (r[3] or "").startswith("model ")]
    ours = collections.defaultdict(list)
    for handle, begin, end, name in rows:
        if name in SEVERAL or (name or "").startswith("model "):
            continue
        ours[handle].append((begin or 0, end or 0))
    # The truth lists a model run's and a graph launch's ops one by one: a model's by name, a
    # graph's as each captured operator (ACL's sample: an Add and the Mul after it) on the stream of
    # the launch (as test/e2e/test_busy_host.py's ACL case).
    graph_streams = {r[0] for r in rows if r[3] in SEVERAL}
    nodes = set()
    for op in truth_ops:
        if op["stream"] in graph_streams and op.get("name") == "Add":
            nodes |= {(op["stream"], op["op_seq"]), (op["stream"], op["op_seq"] + 1)}
    theirs = collections.defaultdict(list)
    for op in truth_ops:
        if (op["stream"], op["op_seq"]) in nodes or (op.get("name") or "").startswith("model "):
            continue
        theirs[handles.get(op["stream"], op["stream"])].append((op["begin_ns"], op["end_ns"]))
    # Per stream, prof's ops and the truth's, both in device order, matched one to one.
    exact = off = total = 0
    for handle, mine in ours.items():
        for (begin, end), (b, e) in zip(sorted(mine), sorted(theirs[handle])):
            total += 1
            exact += (begin, end) == (b, e)
            off += max(abs(begin - b), abs(end - e)) > 1000
    return total, exact, off, len(several)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="runs with the runtime's reports")
    parser.add_argument("--event-runs", type=int, default=1, help="runs with events, for comparison")
    parser.add_argument("--runtimes", default="hip,musa,cnrt,acl")
    parser.add_argument("--build", default=os.path.join(os.path.dirname(__file__), "..", "build"))
    options = parser.parse_args()
    prof = os.path.abspath(os.path.join(options.build, "bin", "prof"))
    loops = [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(2 * (os.cpu_count() or 1))]
    try:
        print(f"| runtime | sample | device times from | ops per run | exactly the truth's (per run) | > 1 us off (per run) |")
        print("|---|---|---|---:|---|---|")
        for runtime, app, args, handles in SAMPLES:
            if runtime not in options.runtimes.split(","):
                continue
            path = os.path.join(options.build, "test-bin", app)
            for activity in (True, False):
                runs = options.runs if activity else options.event_runs
                if runs == 0:
                    continue
                results = [one_run(prof, path, args, handles, activity) for _ in range(runs)]
                print(f"| {runtime} | `{app} {' '.join(args)}` | {'runtime reports' if activity else 'events'} | "
                      f"{results[0][0]:,} | {', '.join(f'{r[1]:,}' for r in results)} | {', '.join(str(r[2]) for r in results)} |",
                      flush=True)
    finally:
        for loop in loops:
            loop.kill()


if __name__ == "__main__":
    main()
