"""Shared by prof's end-to-end tests: command line, running prof and the samples, reading outputs.

Every test file runs by hand:
    python3 test/e2e/test_multistream.py --prof build/bin/prof --bin-dir build/test-bin
and ends with a line `N passed, N failed`. Exit status: 0 all passed, 1 a failure, 77 all skipped
(CTest's SKIP_RETURN_CODE).
"""
import argparse
import collections
import contextlib
import csv
import glob
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest

# hipprof's columns, then prof's median and p95 after them (docs/formats.md).
HIPPROF_CSV_HEADER = ["Name", "Calls", "TotalDurationNs", "AverageNs", "Percentage", "MinNs", "MaxNs", "StdDevNs"]
CSV_HEADER = HIPPROF_CSV_HEADER + ["MedianNs", "P95Ns"]
TOLERANCE_NS = 1000  # device times must be this close to the simulated runtime's truth
# Work the calling thread ran itself ("on_caller" in the truth) ends, for a profiler, when its call
# returns: its end may trail the truth by the runtime's return path (docs/guarantees.md).
RETURN_PATH_NS = 3000
# Work that starts as it is submitted (an idle stream) begins, for prof, when its call began: the
# runtime's path from the call's entry to the submit lies between the two, so such a begin may lead
# the truth by up to this, as long as the truth's begin lies inside the call (docs/guarantees.md).
SUBMIT_PATH_NS = 3000
# PROF_E2E_NO_TIMING=1 (the sanitizer stage): 1 us is a precision of the uninstrumented build, so
# truth_mismatches holds device times only to this (they must still exist and be the right ops).
NO_TIMING_TOLERANCE_NS = 1_000_000
TIMEOUT_S = 300  # a hang guard, never a bound: a 64 MiB-/dev/shm churn run took over 120 s beside busy loops and two compilers
SKIP_RETURN_CODE = 77


class Config:
    prof = None
    bin_dir = None
    sim_dir = None
    options = None  # the parsed arguments, for test-specific ones


def main(add_arguments=None):
    """Parses our arguments, runs the unittest cases of __main__, prints the tally, exits."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--prof", required=True, help="the prof executable")
    parser.add_argument("--bin-dir", required=True, help="where the sample programs are (build/test-bin)")
    parser.add_argument("--sim-dir", help="directory of the simulated libamdhip64.so.5 "
                                          "(default: <prof dir>/../lib/prof/sim)")
    if add_arguments:
        add_arguments(parser)
    options, rest = parser.parse_known_args()
    Config.prof = os.path.abspath(options.prof)
    Config.bin_dir = os.path.abspath(options.bin_dir)
    Config.sim_dir = os.path.abspath(options.sim_dir or os.path.join(
        os.path.dirname(Config.prof), os.pardir, "lib", "prof", "sim"))
    Config.options = options

    program = unittest.main(argv=[sys.argv[0]] + rest, exit=False, verbosity=2)
    result = program.result
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    skipped = len(result.skipped)
    # A failing or skipping setUpClass counts as one failure or skip but runs no test.
    passed = max(0, result.testsRun - failed - skipped)
    if skipped:
        print(f"{skipped} skipped")
    print(f"{passed} passed, {failed} failed")
    if failed:
        sys.exit(1)
    sys.exit(SKIP_RETURN_CODE if skipped and not passed else 0)


def sample(name):
    return os.path.join(Config.bin_dir, name)


def built_sample(name, why=""):
    """The sample's path; SkipTest (for a whole class, or one test) when it is not built."""
    path = sample(name)
    if not os.access(path, os.X_OK):
        raise unittest.SkipTest(f"sample {path} is not built" + (f" {why}" if why else ""))
    return path


def mpi_job_or_skip(app):
    """For a test class's setUpClass: (mpirun, the sample `app`), or SkipTest when either is missing."""
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        raise unittest.SkipTest("mpirun is not installed (scripts/install-deps.sh --tests installs it)")
    path = built_sample(app)
    return mpirun, path


def run(command, cwd=None, env=None, timeout=TIMEOUT_S):
    merged = dict(os.environ)
    merged.pop("PROF_SIM_TRUTH", None)
    merged.update(env or {})
    try:
        return subprocess.run(command, cwd=cwd, env=merged, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        # subprocess killed prof: its run is orphaned, and every later prof would mention it on
        # stderr. Finish it, so one timed-out test does not fail the ones after it.
        if Config.prof and command and command[0] == Config.prof:
            subprocess.run([Config.prof, "--recover"], capture_output=True, timeout=timeout)
        raise


def run_prof(args, cwd, env=None):
    return run([Config.prof] + list(args), cwd=cwd, env=env)


def run_on_sim(command, cwd, env=None):
    """Runs a sample directly on the simulated runtime, without prof."""
    library_path = os.environ.get("LD_LIBRARY_PATH")
    merged = {"LD_LIBRARY_PATH": Config.sim_dir + (":" + library_path if library_path else "")}
    merged.update(env or {})
    return run(command, cwd=cwd, env=merged)


def program_stdout(stdout):
    """A sample's own lines, up to its END line: prof's summary follows it."""
    lines = stdout.splitlines()
    return lines[:lines.index("END") + 1] if "END" in lines else lines


def describe(completed):
    """The part of a finished command an assertion message needs."""
    return (f"\ncommand: {completed.args}\nexit status: {completed.returncode}\n"
            f"stdout (tail):\n{completed.stdout[-3000:]}\nstderr (tail):\n{completed.stderr[-3000:]}")


def parse_expect(stdout):
    """The sample's `EXPECT api_calls=N kernels=N copies=N` line as a dict."""
    match = re.search(r"^EXPECT (.*)$", stdout, re.MULTILINE)
    if not match:
        raise AssertionError(f"no EXPECT line in the sample's output:\n{stdout}")
    return {key: int(value) for key, value in (item.split("=") for item in match.group(1).split())}


def parse_pid(stdout):
    match = re.search(r"^PID (\d+)$", stdout, re.MULTILINE)
    if not match:
        raise AssertionError(f"no PID line in the sample's output:\n{stdout}")
    return int(match.group(1))


def plain_and_profiled(cls, name):
    """For a test class's setUpClass: runs the sample `name` on the simulator alone and under
    `prof --sim` with a truth file, and sets cls.tmp, app, truth_path, plain, profiled and db_path
    (None unless exactly one db was written). Skips when the sample is not built."""
    cls.tmp = tempfile.TemporaryDirectory(prefix=f"prof-e2e-{name}-")
    tmp = cls.tmp.name
    cls.app = built_sample(name)
    cls.truth_path = os.path.join(tmp, "profiled.truth.jsonl")
    cls.plain = run_on_sim([cls.app], cwd=tmp)
    cls.profiled = run_prof(["--sim", "-d", tmp, cls.app], cwd=tmp, env={"PROF_SIM_TRUTH": cls.truth_path})
    dbs = find_dbs(tmp)
    cls.db_path = dbs[0] if len(dbs) == 1 else None


def profile_sample(cls, app, runtime):
    """For a test class: runs the sample `app` on the simulator alone and under `prof --sim` (with a
    truth file), and sets cls.tmp, out, truth_path, direct, profiled, expect, pid, paths (db, the
    runtime's API CSV, kernel CSV, timeline) and db (open read-only, or None). Skips when the sample
    is not built."""
    cls.app = built_sample(app)
    cls.tmp = tempfile.mkdtemp(prefix=f"prof-e2e-{runtime}-")
    cls.addClassCleanup(shutil.rmtree, cls.tmp, True)
    cls.out = os.path.join(cls.tmp, "out")
    cwd = os.path.join(cls.tmp, "cwd")
    os.makedirs(cls.out)
    os.makedirs(cwd)
    cls.truth_path = os.path.join(cls.tmp, "truth.jsonl")
    cls.direct = run_on_sim([cls.app], cwd=cwd)
    cls.profiled = run_prof(["--sim", "-d", cls.out, cls.app], cwd=cwd, env={"PROF_SIM_TRUTH": cls.truth_path})
    try:
        cls.expect = parse_expect(cls.profiled.stdout)
        cls.pid = parse_pid(cls.profiled.stdout)
    except AssertionError as error:
        raise AssertionError(f"{error}{describe(cls.profiled)}") from None
    base = os.path.join(cls.out, f"result_{cls.pid}")
    cls.paths = {"db": os.path.join(cls.out, f"{runtime}-prof-{cls.pid}.db"), f"{runtime}trace": base + f".{runtime}trace.csv",
                 "kernel": base + ".kernel.csv", "json": base + "_copy.json"}
    cls.db = open_db(cls.paths["db"]) if os.path.exists(cls.paths["db"]) else None
    if cls.db:
        cls.addClassCleanup(cls.db.close)


def truth_matches_in_one_of_three(test, runtime, app, first_off, mismatches, args=()):
    """Device times within TOLERANCE_NS in this run, or else in one of two fresh runs of `app`.

    A sample's calls, kinds, bytes and geometry are checked in every run (mismatches() asserts
    them); the 1 us precision is a property of prof on a machine that lets the program's thread
    run: on a 2-core box with other work, a thread preempted between a call's return and the event
    prof places after it now and then lands one op a few us off. `mismatches(db, truth_path)`
    returns the off lines of one run; returns the last run's (empty when one matched). `runtime`
    None: the sample calls several runtimes (its db is prof-<pid>.db)."""
    off = first_off
    tmp = tempfile.mkdtemp(prefix=f"prof-e2e-{runtime or 'mixed'}-again-")
    try:
        for attempt in range(2):
            if not off:
                break
            out = os.path.join(tmp, str(attempt))
            os.makedirs(out)
            truth = os.path.join(out, "truth.jsonl")
            done = run_prof(["--sim", "-d", out, sample(app), *args], cwd=out, env={"PROF_SIM_TRUTH": truth})
            test.assertEqual(done.returncode, 0, describe(done))
            # The run's own directory holds its one db (not every sample prints a PID line).
            dbs = find_dbs(out, runtime)
            test.assertEqual(len(dbs), 1, describe(done))
            db = open_db(dbs[0])
            try:
                off = mismatches(db, truth)
            finally:
                db.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return off


def normalise_sample_output(lines):
    """Blanks what differs between two runs of a sample: its pid and measured times."""
    return [re.sub(r"[0-9.]+", "#", line) if line.startswith(("PID ", "timing:")) else line for line in lines]


def output_paths(directory, pid, base=None):
    base = base or f"result_{pid}"
    return {
        "db": os.path.join(directory, f"hip-prof-{pid}.db"),
        "hiptrace": os.path.join(directory, f"{base}.hiptrace.csv"),
        "kernel": os.path.join(directory, f"{base}.kernel.csv"),
        "json": os.path.join(directory, f"{base}_copy.json"),
        "summary": os.path.join(directory, f"{base}.summary.json"),
        "api_trace": os.path.join(directory, f"{base}.api_trace.csv"),
        "kernel_trace": os.path.join(directory, f"{base}.kernel_trace.csv"),
        "copy_trace": os.path.join(directory, f"{base}.copy_trace.csv"),
        "copy_stats": os.path.join(directory, f"{base}.copy_stats.csv"),
        "memory_stats": os.path.join(directory, f"{base}.memory_stats.csv"),
        "html": os.path.join(directory, f"{base}.report.html"),
        "pftrace": os.path.join(directory, f"{base}.pftrace"),
    }


def list_dir(directory):
    return sorted(os.listdir(directory))


def open_db(path):
    # Read-only, so a test can never repair what it checks.
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    connection.row_factory = sqlite3.Row
    return connection


def scalar(db, sql, *params):
    return db.execute(sql, params).fetchone()[0]


def read_csv(path):
    """(header, rows as dicts); the csv module undoes RFC 4180 quoting."""
    with open(path, newline="") as stream:
        reader = csv.reader(stream)
        header = next(reader, None)
        rows = [dict(zip(header, row)) for row in reader] if header else []
    return header, rows


def read_json(path):
    with open(path) as stream:
        return json.load(stream)


def read_truth(path):
    with open(path) as stream:
        return [json.loads(line) for line in stream if line.strip()]


def find_dbs(directory, runtime="hip"):
    """The dbs in `directory` of a run of `runtime` (None: a run of several runtimes, prof-<pid>.db)."""
    return sorted(glob.glob(os.path.join(directory, f"{runtime + '-' if runtime else ''}prof-*.db")))


def host_pointer_problems(db, pinned_alloc):
    """The copy calls whose host pointer (api_args `host_ptr`) is not as prof records it: one for every
    H2D or D2H copy (its aux, 1 or 2), none for a copy of another direction or any other call; and,
    when every host buffer of the program is pinned, each inside a live-or-not allocation of the
    `pinned_alloc` call (bytes = size, aux = pointer). As lines, empty when all is well."""
    problems = []
    for name, aux, count in db.execute(
            "SELECT n.name, c.aux, COUNT(a.value) FROM api_calls c JOIN api_names n USING (api_id) "
            "LEFT JOIN api_args a ON a.correlation_id = c.correlation_id AND a.name = 'host_ptr' "
            "WHERE n.name LIKE '%Memcpy%' GROUP BY c.correlation_id ORDER BY c.correlation_id"):
        if count != (1 if aux in (1, 2) else 0):
            problems.append(f"{name} (direction {aux}) has {count} host_ptr")
    strays = db.execute("SELECT n.name FROM api_args a JOIN api_calls c USING (correlation_id) "
                        "JOIN api_names n USING (api_id) WHERE a.name = 'host_ptr' AND n.name NOT LIKE '%Memcpy%'")
    problems += [f"{name} is no copy but has a host_ptr" for (name,) in strays]
    if pinned_alloc:
        ranges = db.execute("SELECT c.aux, c.bytes FROM api_calls c JOIN api_names n USING (api_id) "
                            "WHERE n.name = ? AND c.result = 0", (pinned_alloc,)).fetchall()
        for name, host, size in db.execute(
                "SELECT n.name, a.value, c.bytes FROM api_args a JOIN api_calls c USING (correlation_id) "
                "JOIN api_names n USING (api_id) WHERE a.name = 'host_ptr' AND c.result = 0"):
            if not any(base <= host and host + size <= base + length for base, length in ranges):
                problems.append(f"{name} of {size} bytes at {host} is in no {pinned_alloc} allocation")
    return problems


def within(difference, early, late):
    """Whether prof's time minus the truth's is no more than `early` before it and `late` after it."""
    return -early <= difference <= late


def truth_mismatches(test, db, truth, stream_handles=None, geometry=lambda op: True, exact=False):
    """Matches each operation of the simulator's truth file to prof's kernel/copy row (by device,
    stream and order on the stream), asserts kind, geometry, bytes and direction, and returns the
    device times missing or further than TOLERANCE_NS from the truth, as lines (NO_TIMING_TOLERANCE_NS
    under PROF_E2E_NO_TIMING=1). `exact`: every op is timed by the runtime's own reports, which equal
    the truth to the ns whatever the load (docs/design-device-timing.md), so nothing is tolerated.
    `stream_handles` maps the truth's stream handles to the program's; `geometry(op)` says whether a
    kernel's grid and block are the program's (not for work the runtime sizes itself, such as ACL's
    operators)."""
    no_timing = os.environ.get("PROF_E2E_NO_TIMING") == "1"
    tolerance = NO_TIMING_TOLERANCE_NS if no_timing else 0 if exact else TOLERANCE_NS
    exact = exact and not no_timing
    # A handle can name one stream per runtime (each runtime's null stream is handle 0).
    indices_of = collections.defaultdict(list)
    for handle, index in db.execute("SELECT stream_handle, stream_index FROM streams"):
        indices_of[handle].append(index)
    directions = dict(db.execute("SELECT direction, name FROM copy_directions").fetchall())
    ops = collections.defaultdict(list)  # (device, stream_index) -> operations in device order
    for row in db.execute("SELECT * FROM kernels"):
        ops[row["device"], row["stream_index"]].append(("kernel", dict(row)))
    for row in db.execute("SELECT * FROM copies"):
        kind = "memset" if directions[row["direction"]].lower() == "memset" else "copy"
        ops[row["device"], row["stream_index"]].append((kind, dict(row)))
    call_span = {corr: (begin, end) for corr, begin, end in db.execute(
        "SELECT correlation_id, begin_ns, end_ns FROM api_calls")}
    for stream_ops in ops.values():
        stream_ops.sort(key=lambda op: op[1]["device_begin_ns"] or call_span.get(op[1]["correlation_id"], (0,))[0])

    def started_as_submitted(row, expected):
        # prof's begin is its call's begin (the op started at once), and the truth's begin is inside the call.
        begin, end = call_span.get(row["correlation_id"], (None, 0))
        return row["device_begin_ns"] == begin and expected["begin_ns"] <= end

    off = []
    for expected in truth:
        if stream_handles and expected["stream"] in stream_handles:
            # The model's handle for a runtime's implicit stream (the per-thread stream is 2 in the
            # model, HIP's number; CNRT's program says 1).
            expected = dict(expected, stream=stream_handles[expected["stream"]])
        where = f"truth {expected}"
        test.assertIn(expected["stream"], indices_of, f"stream handle not in the streams table; {where}")
        candidates = [ops[expected["device"], index][expected["op_seq"] - 1]
                      for index in indices_of[expected["stream"]]
                      if len(ops[expected["device"], index]) >= expected["op_seq"]]
        test.assertTrue(candidates, f"prof has too few operations; {where}")
        # Of several same-handle streams, the one whose operation is this one: same kind, closest in time.
        kind, row = min(candidates, key=lambda op: (op[0] != expected["kind"],
                                                    abs((op[1]["device_begin_ns"] or 0) - expected["begin_ns"])))
        test.assertEqual(kind, expected["kind"], f"operation kind; prof row {row}; {where}")
        for ours, theirs in (("device_begin_ns", "begin_ns"), ("device_end_ns", "end_ns")):
            if row[ours] is None:
                off.append(f"{expected['kind']} stream {expected['stream']} op {expected['op_seq']}: no {ours}")
            elif not within(row[ours] - expected[theirs],
                            early=max(tolerance, SUBMIT_PATH_NS) if ours == "device_begin_ns" and not exact
                            and started_as_submitted(row, expected) else tolerance,
                            late=max(tolerance, RETURN_PATH_NS) if ours == "device_end_ns" and not exact
                            and expected.get("on_caller") else tolerance):
                off.append(f"{expected['kind']} {expected['direction'] or ''} stream {expected['stream']} "
                           f"op {expected['op_seq']}: {ours} off by {row[ours] - expected[theirs]} ns")
        if kind == "kernel":
            if geometry(expected):
                test.assertEqual([row["grid_x"], row["grid_y"], row["grid_z"]], expected["grid"], where)
                test.assertEqual([row["block_x"], row["block_y"], row["block_z"]], expected["block"], where)
        else:
            test.assertEqual(row["bytes"], expected["bytes"], where)
            # A copy issued as "default" (the runtime infers the direction) is recorded as issued.
            if directions[row["direction"]].lower() != "default":
                test.assertEqual(directions[row["direction"]].lower(), expected["direction"].lower(), where)
    return off


def run_manifest(run_dir):
    """A run directory's run.conf (cli/recovery.hpp) as a dict; {} when it has none."""
    try:
        with open(os.path.join(run_dir, "run.conf")) as f:
            return dict(line.split("=", 1) for line in f.read().splitlines() if "=" in line)
    except OSError:
        return {}


@contextlib.contextmanager
def small_tmpfs(test, path, size):
    """A tmpfs of `size` (mount's size=, e.g. "200k") at the new directory `path` for the block: a
    full disk on demand. Skips the test where one cannot be mounted (not root, no mount)."""
    os.mkdir(path)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", path],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        test.skipTest("cannot mount a small tmpfs here: " + mounted.stderr.strip())
    try:
        yield path
    finally:
        subprocess.run(["umount", path], capture_output=True)
