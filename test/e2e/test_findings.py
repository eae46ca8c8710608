"""e2e: the findings engine (`prof --db x.db --analyze`, issue 40) on the samples written for it.

test/apps/findings_hip.cpp runs one phase per rule, each inside a roctx range named after the rule;
it is profiled with --hiptx-trace, so the markers table holds each phase's host window. Checked:

* the sample (`test_sample_*`, which hold without the engine): each phase's pattern is in the db as
  intended (24 blocking copies, 4000 copies of 4 KiB, a device gap of at least the host
  computation's 40 ms less a 1 ms kernel, 5 calls that returned errors and no other, ...);
* the engine (`test_analyze_*`): `--analyze --format json` reports every rule but rank-imbalance
  (those in EXPECTED_BUT_OPTIONAL may be missing, said so on stderr), and every call sequence a
  finding names lies inside its rule's phase; `--analyze-fail-above 5` exits 1.

test/apps/pipelined_hip.cpp, a clean pipeline (pinned memory, two overlapping streams, one final
synchronize): no finding above 5% of the run, and `--analyze-fail-above 5` exits 0.
test/apps/findings_{musa,cnrt,acl}.c (blocking copies, a wait after every launch, a device gap;
their phases' windows from the `PHASE <rule> <begin_ns> <end_ns>` lines they print, on prof's
clock): sync-copy, sync-after-launch and device-idle reported, each inside its phase.

Nothing here skips for a missing engine: a prof without --analyze fails every `test_analyze_*`
with the command's own error. Only times prof recorded are compared, and host gaps only as lower
bounds the samples make (their host computation is bounded by the clock, never by a count).

    python3 test/e2e/test_findings.py --prof build/bin/prof --bin-dir build/test-bin
"""
import glob
import json
import os
import re
import shutil
import sys
import tempfile
import unittest

import e2e_common as e2e

# Every rule findings_hip has a phase for, in the sample's order (rank-imbalance needs merged MPI
# runs: test_mpi_trace's business).
HIP_RULES = ["sync-copy", "pageable-copy", "small-copies", "alloc-churn", "launch-bound", "serialized-stream",
             "sync-after-launch", "device-idle", "api-errors"]
# Expected, but tolerated missing for now (reported on stderr, never silently): pageable-copy needs
# prof to record which host ranges are pinned. Shrink to empty once it does.
EXPECTED_BUT_OPTIONAL = set()
OTHER_RUNTIME_RULES = ["sync-copy", "sync-after-launch", "device-idle"]
FAIL_ABOVE_PERCENT = 5
CLEAN_SHARE_MAX = FAIL_ABOVE_PERCENT / 100
FINDINGS_VERSION = 1

# findings_common.h: the samples' sizes.
BLOCKING_COPIES = 24
BLOCKING_BYTES = 512 << 10
WAITED_LAUNCHES = 15
IDLE_HOST_NS = 40_000_000
IDLE_KERNEL_NS = 1_000_000
SERIAL_KERNEL_NS = 8_000_000 + 8  # findings_hip's: whole 256-thread blocks, 0.25 ns a thread
# A device gap the engine may rightly report outside the device-idle phase: a loaded host that did
# not feed the device for this long (half the rule's threshold of about 1 ms, so a threshold set a
# little lower still passes). Such a gap must be in the db, and the call named must touch it.
LOAD_GAP_NS = 500_000
# How many calls a finding's site names: those with the most time at stake (docs/findings.md).
SITE_CALLS = 5
# findings_common.h's kFindingsWaitedHostNs: host work after each waited launch.
WAITED_HOST_NS = 300_000
# The hooks read CLOCK_MONOTONIC through the time-stamp counter, within tens of ns of the kernel's
# clock (docs/design-hooks.md, "The hooks' clock"); the samples' PHASE lines read the kernel's
# clock itself (test_findings.partition).
HOOK_CLOCK_SLACK_NS = 1000

# Per runtime: the blocking copy, the launch and the stream synchronize of its findings sample.
CALLS = {
    "hip": {"copy": "hipMemcpy", "launch": "hipLaunchKernel", "sync": "hipStreamSynchronize"},
    "musa": {"copy": "musaMemcpy", "launch": "musaLaunchKernel", "sync": "musaStreamSynchronize"},
    "cnrt": {"copy": "cnrtMemcpy", "launch": "cnrtInvokeKernel", "sync": "cnrtQueueSync"},
    "acl": {"copy": "aclrtMemcpy", "launch": "aclrtLaunchKernel", "sync": "aclrtSynchronizeStream"},
}


def parse_phases(stdout):
    """The sample's `PHASE <rule> <begin_ns> <end_ns>` lines, as {rule: (begin_ns, end_ns)}."""
    return {name: (int(begin), int(end))
            for name, begin, end in re.findall(r"^PHASE (\S+) (\d+) (\d+)$", stdout, re.MULTILINE)}


def partition(phases):
    """Windows for the `PHASE` lines' phases that hold every call of each: the host clock of the
    hooks may read a little off the kernel's that the lines read (HOOK_CLOCK_SLACK_NS), so each
    window reaches out to the midpoint of the time between two phases, the first and the last by
    HOOK_CLOCK_SLACK_NS."""
    names = list(phases)
    windows = {}
    for i, name in enumerate(names):
        begin, end = phases[name]
        if i > 0:
            begin = (phases[names[i - 1]][1] + begin) // 2 + 1
        else:
            begin -= HOOK_CLOCK_SLACK_NS
        if i + 1 < len(names):
            end = (end + phases[names[i + 1]][0]) // 2
        else:
            end += HOOK_CLOCK_SLACK_NS
        windows[name] = (begin, end)
    return windows


def profile(cls, app, *flags):
    """Runs `prof --sim [flags] -d OUT app` for a test class; sets cls.done, pid, expect, phases, db_path
    and db (read-only). A failed run fails the class."""
    path = e2e.built_sample(app)
    cls.tmp = tempfile.mkdtemp(prefix=f"prof-e2e-findings-{app}-")
    cls.addClassCleanup(shutil.rmtree, cls.tmp, True)
    out = os.path.join(cls.tmp, "out")
    cls.done = e2e.run_prof(["--sim", *flags, "-d", out, path], cwd=cls.tmp)
    if cls.done.returncode != 0:
        raise AssertionError(f"{app} under prof failed" + e2e.describe(cls.done))
    cls.pid = e2e.parse_pid(cls.done.stdout)
    cls.expect = e2e.parse_expect(cls.done.stdout)
    cls.phases = parse_phases(cls.done.stdout)
    dbs = glob.glob(os.path.join(out, f"*prof-{cls.pid}.db"))
    if len(dbs) != 1:
        raise AssertionError(f"expected one db of pid {cls.pid} in {out}: {dbs}" + e2e.describe(cls.done))
    cls.db_path = dbs[0]
    cls.db = e2e.open_db(cls.db_path)
    cls.addClassCleanup(cls.db.close)


def analyze(db_path, *extra):
    return e2e.run_prof(["--db", db_path, "--analyze", "--format", "json", *extra], cwd=os.path.dirname(db_path))


def analyze_json(test, db_path, *extra, exit_status=0):
    """`prof --db <db> --analyze --format json [extra]`: its exit status must be `exit_status` and its
    output the findings document. A prof without the engine fails here, with its own message."""
    done = analyze(db_path, *extra)
    where = ("\n(prof --analyze is the findings engine of issue 40: a prof without it fails here)"
             + e2e.describe(done))
    try:
        document = json.loads(done.stdout)
    except ValueError as error:
        document = error
    if isinstance(document, ValueError):
        test.fail(f"prof --analyze --format json printed no JSON ({document}){where}")
    test.assertEqual(done.returncode, exit_status, where)
    test.assertIsInstance(document, dict, where)
    test.assertEqual(document.get("findings_version"), FINDINGS_VERSION, where)
    test.assertIsInstance(document.get("findings"), list, where)
    test.assertGreater(document.get("run_ns", 0), 0, where)
    for finding in document["findings"]:
        for key in ("rule", "title", "time_at_stake_ns", "share", "method", "count", "sites", "evidence", "fix"):
            test.assertIn(key, finding, f"finding {finding}{where}")
        # A fraction of the run (--analyze-fail-above takes percent).
        test.assertTrue(0 <= finding["share"] <= 1, f"share of finding {finding}{where}")
    return document


def by_rule(document):
    found = {}
    for finding in document["findings"]:
        found.setdefault(finding["rule"], []).append(finding)
    return found


def call_times(db, sequences):
    """{sequence: (begin_ns, end_ns)} of api_calls."""
    wanted = sorted(set(sequences))
    times = {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start:start + 500]
        marks = ",".join("?" * len(chunk))
        times.update((row[0], (row[1], row[2])) for row in db.execute(
            f"SELECT sequence, begin_ns, end_ns FROM api_calls WHERE sequence IN ({marks})", chunk))
    return times


def calls(db, name, window=None):
    """The calls of API `name` (rows of api_calls: sequence, begin_ns, end_ns, result, bytes,
    stream_index), in call order, those beginning inside `window` only when given."""
    rows = db.execute("SELECT a.* FROM api_calls a JOIN api_names n USING (api_id) WHERE n.name = ?"
                      " ORDER BY a.sequence", (name,)).fetchall()
    return [row for row in rows if window is None or window[0] <= row["begin_ns"] <= window[1]]


def all_calls(db, window):
    return db.execute("SELECT a.*, n.name FROM api_calls a JOIN api_names n USING (api_id)"
                      " WHERE a.begin_ns BETWEEN ? AND ? ORDER BY a.sequence", window).fetchall()


def device_ops(db, table, window):
    """Kernels or copies whose launching call began inside `window`, with that call's times."""
    return db.execute(f"SELECT o.*, a.sequence, a.begin_ns AS call_begin_ns, a.end_ns AS call_end_ns"
                      f" FROM {table} o JOIN api_calls a USING (correlation_id)"
                      f" WHERE a.begin_ns BETWEEN ? AND ? ORDER BY a.sequence", window).fetchall()


def device_gaps(db, min_ns):
    """Gaps of at least `min_ns` in the union of every kernel's and copy's device time, as (begin, end)."""
    spans = sorted(tuple(row) for row in db.execute(
        "SELECT device_begin_ns, device_end_ns FROM kernels WHERE device_begin_ns IS NOT NULL"
        " UNION ALL SELECT device_begin_ns, device_end_ns FROM copies WHERE device_begin_ns IS NOT NULL"))
    gaps = []
    busy_until = None
    for begin, end in spans:
        if busy_until is not None and begin - busy_until >= min_ns:
            gaps.append((busy_until, begin))
        busy_until = end if busy_until is None else max(busy_until, end)
    return gaps


class PhaseChecks:
    """What findings_hip and the other runtimes' samples share: the engine's findings against the
    phase windows, and the copy, sync and idle phases' patterns in the db."""
    runtime = None
    rules = ()
    windows = {}

    def assertFindingsInsidePhases(self, document):
        found = by_rule(document)
        unexpected = sorted(set(found) - set(self.rules))
        self.assertEqual(unexpected, [], f"findings for rules this sample has no phase for: "
                                         f"{[found[rule] for rule in unexpected]}")
        gaps = device_gaps(self.db, LOAD_GAP_NS)
        for rule, findings in found.items():
            window = self.windows[rule]
            sequences = [seq for finding in findings for site in finding["sites"] for seq in site["sequences"]]
            self.assertTrue(sequences, f"{rule}: no call sequence named: {findings}")
            times = call_times(self.db, sequences)
            self.assertEqual(sorted(set(sequences) - set(times)), [], f"{rule}: sequences not in api_calls")
            outside = [seq for seq in sequences if not window[0] <= times[seq][0] <= window[1]]
            if rule == "device-idle":
                # A loaded host can leave the device idle elsewhere: tolerated only where the db has
                # such a gap and the named call touches it. A site names its calls with the most
                # at stake (the longest gaps), so the phase's own gap is named whenever it is among
                # the SITE_CALLS longest gaps the db holds; on a quiet host it is the longest.
                longest = sorted(gaps, key=lambda gap: gap[1] - gap[0], reverse=True)[:SITE_CALLS]
                if any(window[0] <= begin and end <= window[1] for begin, end in longest):
                    self.assertTrue(set(sequences) - set(outside),
                                    f"device-idle names no call of its phase {window}: {findings}")
                outside = [seq for seq in outside
                           if not any(times[seq][0] <= gap_end and gap_begin <= times[seq][1]
                                      for gap_begin, gap_end in gaps)]
            self.assertEqual(outside, [], f"{rule}: calls outside the phase {window} "
                                          f"({[(seq, times[seq]) for seq in outside]}): {findings}")

    def check_blocking_copies(self):
        window = self.windows["sync-copy"]
        copies = calls(self.db, CALLS[self.runtime]["copy"], window)
        self.assertEqual(len(copies), BLOCKING_COPIES)
        self.assertEqual(len(calls(self.db, CALLS[self.runtime]["copy"])), BLOCKING_COPIES, "blocking copies elsewhere")
        self.assertTrue(all(row["result"] == 0 and row["bytes"] == BLOCKING_BYTES for row in copies))
        ops = device_ops(self.db, "copies", window)
        self.assertEqual(len(ops), BLOCKING_COPIES)
        self.assertEqual(device_ops(self.db, "kernels", window), [])

    def check_waited_launches(self, unwaited_first=0):
        """Every launch of the phase but the first `unwaited_first` is followed by a stream
        synchronize before the next call that is not one."""
        window = self.windows["sync-after-launch"]
        names = CALLS[self.runtime]
        rows = all_calls(self.db, window)
        launches = [i for i, row in enumerate(rows) if row["name"] == names["launch"]]
        self.assertEqual(len(launches), WAITED_LAUNCHES + unwaited_first, [row["name"] for row in rows])
        waited = [i for i in launches if i + 1 < len(rows) and rows[i + 1]["name"] == names["sync"]]
        self.assertEqual(waited, launches[unwaited_first:])
        kernels = device_ops(self.db, "kernels", window)
        self.assertEqual(len(kernels), len(launches))
        self.assertTrue(all(k["device_begin_ns"] is not None for k in kernels))
        # The host works on each result before the next launch: the device idles at least that long.
        waited_kernels = kernels[unwaited_first:]
        idles = [b["device_begin_ns"] - a["device_end_ns"] for a, b in zip(waited_kernels, waited_kernels[1:])]
        self.assertTrue(all(idle >= WAITED_HOST_NS for idle in idles), idles)

    def check_idle_gap(self):
        window = self.windows["device-idle"]
        kernels = device_ops(self.db, "kernels", window)
        self.assertEqual(len(kernels), 2)
        first, second = kernels
        # No call between the two launches: the host computed, for at least IDLE_HOST_NS.
        between = self.db.execute("SELECT COUNT(*) FROM api_calls WHERE begin_ns > ? AND begin_ns < ?",
                                  (first["call_end_ns"], second["call_begin_ns"])).fetchone()[0]
        self.assertEqual(between, 0)
        self.assertGreaterEqual(second["call_begin_ns"] - first["call_end_ns"], IDLE_HOST_NS)
        gap = second["device_begin_ns"] - first["device_end_ns"]
        self.assertGreaterEqual(gap, IDLE_HOST_NS - IDLE_KERNEL_NS, "the device gap between the two kernels")
        # Nothing else ran on the device meanwhile.
        inside = self.db.execute(
            "SELECT (SELECT COUNT(*) FROM kernels WHERE device_end_ns > ? AND device_begin_ns < ?)"
            " + (SELECT COUNT(*) FROM copies WHERE device_end_ns > ? AND device_begin_ns < ?)",
            (first["device_end_ns"], second["device_begin_ns"]) * 2).fetchone()[0]
        self.assertEqual(inside, 0)


class FindingsHipTest(PhaseChecks, unittest.TestCase):
    runtime = "hip"
    rules = HIP_RULES

    @classmethod
    def setUpClass(cls):
        profile(cls, "findings_hip", "--hiptx-trace")
        cls.windows = {row["message"]: (row["begin_ns"], row["end_ns"]) for row in cls.db.execute(
            "SELECT message, begin_ns, end_ns FROM markers WHERE kind = 'push_pop'")}

    # --- the sample: each phase's pattern is in the db ---

    def test_sample_has_one_range_per_rule_in_order_around_its_phase(self):
        ranges = self.db.execute("SELECT message, begin_ns, end_ns, level, open_at_exit FROM markers"
                                 " ORDER BY begin_ns").fetchall()
        self.assertEqual([row["message"] for row in ranges], HIP_RULES)
        self.assertTrue(all(row["level"] == 0 and not row["open_at_exit"] for row in ranges))
        for before, after in zip(ranges, ranges[1:]):
            self.assertLessEqual(before["end_ns"], after["begin_ns"])
        self.assertEqual(list(self.phases), HIP_RULES)
        for rule, (begin, end) in self.phases.items():
            self.assertLessEqual(self.windows[rule][0], begin + HOOK_CLOCK_SLACK_NS, rule)
            self.assertLessEqual(end - HOOK_CLOCK_SLACK_NS, self.windows[rule][1], rule)

    def test_sample_sync_copy_blocks_on_every_copy(self):
        self.check_blocking_copies()
        self.assertEqual(self.expect["blocking_copies"], BLOCKING_COPIES)

    def test_sample_pageable_copy_is_async_from_unpinned_memory(self):
        window = self.windows["pageable-copy"]
        copies = calls(self.db, "hipMemcpyAsync", window)
        self.assertEqual(len(copies), self.expect["pageable_copies"])
        self.assertTrue(all(row["bytes"] == 256 << 10 for row in copies))
        # The only pinned memory is the two hipHostMalloc buffers, allocated before any phase.
        self.assertEqual(len(calls(self.db, "hipHostMalloc")), 2)
        self.assertEqual(calls(self.db, "hipHostMalloc", window), [])

    def test_sample_small_copies_are_mostly_overhead(self):
        window = self.windows["small-copies"]
        small = device_ops(self.db, "copies", window)
        self.assertEqual(len(small), self.expect["small_copies"])
        self.assertTrue(all(row["bytes"] == 4096 for row in small))
        small_ns = sum(row["device_end_ns"] - row["device_begin_ns"] for row in small)
        # The rule's premise (docs/findings.md): their time beyond their bytes at the run's best
        # bandwidth of a copy of 64 KiB or more is over half their time. A loaded host can only
        # lower a copy's rate (a blocking or staged copy ends when its thread has moved the bytes),
        # so the best rate is the simulator's model whatever the load.
        best = self.db.execute("SELECT MAX(CAST(bytes AS REAL) / (device_end_ns - device_begin_ns)) FROM copies"
                               " WHERE bytes >= 65536 AND device_end_ns > device_begin_ns").fetchone()[0]
        overhead_ns = small_ns - sum(row["bytes"] for row in small) / best
        self.assertGreater(overhead_ns, 0.5 * small_ns, "the small copies' overhead")
        self.assertEqual(self.db.execute("SELECT COUNT(*) FROM copies WHERE bytes < 65536").fetchone()[0], len(small))

    def test_sample_alloc_churn_repeats_one_size(self):
        window = self.windows["alloc-churn"]
        mallocs = calls(self.db, "hipMalloc", window)
        frees = calls(self.db, "hipFree", window)
        self.assertEqual(len(mallocs), self.expect["churn_allocs"])
        self.assertEqual(len(frees), self.expect["churn_allocs"])
        self.assertEqual({row["bytes"] for row in mallocs}, {256 << 10})
        self.assertTrue(all(row["result"] == 0 for row in mallocs + frees))

    def test_sample_launch_bound_kernels_are_shorter_than_their_launch_gaps(self):
        kernels = device_ops(self.db, "kernels", self.windows["launch-bound"])
        self.assertEqual(len(kernels), self.expect["tiny_kernels"])
        for kernel, after in zip(kernels, kernels[1:]):
            self.assertLess(kernel["device_end_ns"] - kernel["device_begin_ns"],
                            after["call_begin_ns"] - kernel["call_begin_ns"])
        # No kernel before them; the next ones (serialized-stream's) are long.
        earlier = self.db.execute("SELECT COUNT(*) FROM kernels k JOIN api_calls a USING (correlation_id)"
                                  " WHERE a.begin_ns < ?", (self.windows["launch-bound"][0],)).fetchone()[0]
        self.assertEqual(earlier, 0)
        following = device_ops(self.db, "kernels", self.windows["serialized-stream"])
        self.assertTrue(all(k["device_end_ns"] - k["device_begin_ns"] >= SERIAL_KERNEL_NS - e2e.TOLERANCE_NS
                            for k in following))

    def test_sample_serialized_stream_never_overlaps(self):
        window = self.windows["serialized-stream"]
        ops = sorted(list(device_ops(self.db, "kernels", window)) + list(device_ops(self.db, "copies", window)),
                     key=lambda op: op["device_begin_ns"])
        chunks = self.expect["serial_chunks"]
        self.assertEqual(len(ops), 3 * chunks)
        self.assertEqual(len({op["stream_index"] for op in ops}), 1)
        for before, after in zip(ops, ops[1:]):
            self.assertLessEqual(before["device_end_ns"], after["device_begin_ns"])
        # The stream is this phase's alone, and nothing else ran on the device meanwhile.
        stream = ops[0]["stream_index"]
        others = self.db.execute(
            "SELECT (SELECT COUNT(*) FROM kernels WHERE stream_index = ?) + (SELECT COUNT(*) FROM copies"
            " WHERE stream_index = ?)", (stream, stream)).fetchone()[0]
        self.assertEqual(others, len(ops))
        span = (ops[0]["device_begin_ns"], ops[-1]["device_end_ns"])
        beside = self.db.execute(
            "SELECT (SELECT COUNT(*) FROM kernels WHERE stream_index != ? AND device_end_ns > ?"
            " AND device_begin_ns < ?) + (SELECT COUNT(*) FROM copies WHERE stream_index != ?"
            " AND device_end_ns > ? AND device_begin_ns < ?)",
            (stream, *span) * 2).fetchone()[0]
        self.assertEqual(beside, 0)

    def test_sample_waits_after_every_launch_but_the_first(self):
        self.check_waited_launches(unwaited_first=1)

    def test_sample_device_idles_while_the_host_computes(self):
        self.check_idle_gap()

    def test_sample_errors_are_the_api_errors_phase_only(self):
        failed = self.db.execute("SELECT begin_ns, result FROM api_calls WHERE result != 0").fetchall()
        self.assertEqual(len(failed), self.expect["errors"])
        window = self.windows["api-errors"]
        self.assertTrue(all(window[0] <= row["begin_ns"] <= window[1] for row in failed), failed)
        self.assertEqual(sorted(row["result"] for row in failed), [1, 101, 400, 400, 400])

    # --- the engine ---

    def test_analyze_reports_every_rule(self):
        reported = set(by_rule(analyze_json(self, self.db_path)))
        missing = [rule for rule in HIP_RULES if rule not in reported]
        tolerated = [rule for rule in missing if rule in EXPECTED_BUT_OPTIONAL]
        if tolerated:
            print(f"\nfindings_hip: {tolerated} not reported (tolerated: EXPECTED_BUT_OPTIONAL)", file=sys.stderr)
        self.assertEqual([rule for rule in missing if rule not in EXPECTED_BUT_OPTIONAL], [])

    def test_analyze_names_calls_inside_each_rules_phase(self):
        self.assertFindingsInsidePhases(analyze_json(self, self.db_path))

    def test_analyze_names_the_right_calls(self):
        found = by_rule(analyze_json(self, self.db_path))
        apis = {rule: {site["api"] for finding in findings for site in finding["sites"]}
                for rule, findings in found.items()}
        self.assertIn("hipMemcpy", apis.get("sync-copy", set()))
        self.assertIn("hipLaunchKernel", apis.get("launch-bound", set()))
        self.assertTrue({"hipMalloc", "hipFree"} & apis.get("alloc-churn", set()), apis.get("alloc-churn"))
        self.assertEqual(sum(site["calls"] for finding in found.get("api-errors", []) for site in finding["sites"]),
                         self.expect["errors"])

    def test_analyze_fail_above_fails_this_run(self):
        analyze_json(self, self.db_path, "--analyze-fail-above", str(FAIL_ABOVE_PERCENT), exit_status=1)


class PipelinedHipTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        profile(cls, "pipelined_hip")

    def test_sample_is_pipelined(self):
        self.assertEqual(self.db.execute("SELECT COUNT(*) FROM kernels").fetchone()[0], self.expect["kernels"])
        self.assertEqual(self.db.execute("SELECT COUNT(*) FROM copies").fetchone()[0], self.expect["copies"])
        names = [row[0] for row in self.db.execute(
            "SELECT n.name FROM api_calls a JOIN api_names n USING (api_id) ORDER BY a.sequence")]
        waits = [name for name in names if "Synchronize" in name or name in ("hipMemcpy", "hipEventQuery")]
        self.assertEqual(waits, ["hipDeviceSynchronize"])
        self.assertEqual(names.count("hipHostMalloc"), 2)
        self.assertEqual(self.db.execute("SELECT COUNT(*) FROM api_calls WHERE result != 0").fetchone()[0], 0)
        # Two streams, and a copy on one runs while a kernel runs on the other.
        self.assertEqual(self.db.execute("SELECT COUNT(DISTINCT stream_index) FROM kernels").fetchone()[0], 2)
        overlapping = self.db.execute(
            "SELECT COUNT(*) FROM copies c JOIN kernels k ON c.stream_index != k.stream_index"
            " AND c.device_begin_ns < k.device_end_ns AND k.device_begin_ns < c.device_end_ns").fetchone()[0]
        self.assertGreater(overlapping, 0)

    def test_analyze_finds_nothing_of_weight(self):
        document = analyze_json(self, self.db_path)
        heavy = [finding for finding in document["findings"] if finding["share"] > CLEAN_SHARE_MAX]
        self.assertEqual(heavy, [])

    def test_analyze_fail_above_passes_this_run(self):
        analyze_json(self, self.db_path, "--analyze-fail-above", str(FAIL_ABOVE_PERCENT), exit_status=0)


class OtherRuntimeFindings(PhaseChecks):
    """findings_<runtime>: the copy, sync and idle phases, windows from its PHASE lines."""
    rules = OTHER_RUNTIME_RULES

    @classmethod
    def setUpClass(cls):
        profile(cls, f"findings_{cls.runtime}")
        cls.windows = partition(cls.phases)

    def test_sample_has_its_phases(self):
        self.assertEqual(list(self.phases), OTHER_RUNTIME_RULES)
        self.assertEqual(self.expect["blocking_copies"], BLOCKING_COPIES)

    def test_sample_sync_copy_blocks_on_every_copy(self):
        self.check_blocking_copies()

    def test_sample_waits_after_every_launch(self):
        self.check_waited_launches()

    def test_sample_device_idles_while_the_host_computes(self):
        self.check_idle_gap()

    def test_analyze_reports_copy_sync_and_idle_inside_their_phases(self):
        document = analyze_json(self, self.db_path)
        self.assertEqual(sorted(set(OTHER_RUNTIME_RULES) - set(by_rule(document))), [])
        self.assertFindingsInsidePhases(document)


class FindingsMusaTest(OtherRuntimeFindings, unittest.TestCase):
    runtime = "musa"


class FindingsCnrtTest(OtherRuntimeFindings, unittest.TestCase):
    runtime = "cnrt"


class FindingsAclTest(OtherRuntimeFindings, unittest.TestCase):
    runtime = "acl"


if __name__ == "__main__":
    e2e.main()
