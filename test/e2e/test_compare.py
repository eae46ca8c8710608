"""prof --compare: two profiles of the sample on the simulated device, compared as a CI job would.

The simulated kernel time grows with the problem size (sim/model.hpp: 5 us + 0.25 ns per thread),
so the multistream sample run with 64x the elements has kernels about 4x slower: a real
regression, made by the real program, that the comparison must name.

    python3 test/e2e/test_compare.py --prof build/bin/prof --bin-dir build/test-bin
"""
import csv
import glob
import io
import json
import os
import re
import sqlite3
import shutil
import tempfile
import unittest

import e2e_common as e2e

KERNELS = ["blur_shared(float*, float const*, int)", "void scale<float>(float*, float const*, float, int)"]


def profile(directory, *args):
    os.makedirs(directory, exist_ok=True)
    app = e2e.built_sample("multistream")
    result = e2e.run_prof(["--sim", "-d", directory, app] + [str(a) for a in args], cwd=directory)
    if result.returncode != 0:
        raise AssertionError("profiling the sample failed" + e2e.describe(result))
    return e2e.parse_pid(result.stdout)


class CompareTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="prof-e2e-compare-")
        # Removed also when setUpClass fails half-way (tearDownClass then does not run).
        cls.addClassCleanup(shutil.rmtree, cls.tmp, True)
        cls.base_dir = os.path.join(cls.tmp, "base")
        cls.big_dir = os.path.join(cls.tmp, "big")
        cls.base_pid = profile(cls.base_dir, 1024, 2)
        cls.big_pid = profile(cls.big_dir, 65536, 2)
        cls.base_db = os.path.join(cls.base_dir, f"hip-prof-{cls.base_pid}.db")
        cls.big_db = os.path.join(cls.big_dir, f"hip-prof-{cls.big_pid}.db")
        cls.base_summary = os.path.join(cls.base_dir, f"result_{cls.base_pid}.summary.json")

    def compare(self, *args):
        return e2e.run_prof(["--compare"] + list(args), cwd=self.tmp)

    def test_identical_profiles_compare_clean(self):
        for base, new in [(self.base_db, self.base_db), (self.base_summary, self.base_summary),
                          (self.base_db, self.base_summary), (self.base_dir, self.base_dir)]:
            result = self.compare(base, new)
            self.assertEqual(result.returncode, 0, e2e.describe(result))
            self.assertIn("verdict: clean", result.stdout)
            self.assertEqual(result.stderr, "")

    def test_summary_json_holds_the_db_numbers(self):
        summary = e2e.read_json(self.base_summary)
        self.assertEqual(summary["prof_summary"], 1)
        self.assertTrue(summary["run_id"])
        db = e2e.open_db(self.base_db)
        kernels = {e["name"]: e for e in summary["entries"] if e["kind"] == "kernel"}
        self.assertEqual(sorted(kernels), KERNELS)
        self.assertEqual(sum(e["calls"] for e in kernels.values()), e2e.scalar(db, "SELECT COUNT(*) FROM kernels"))
        self.assertEqual(sum(e["total_ns"] for e in kernels.values()),
                         e2e.scalar(db, "SELECT SUM(device_end_ns - device_begin_ns) FROM kernels"))
        apis = [e for e in summary["entries"] if e["kind"] == "api"]
        self.assertTrue(all(e["runtime"] == "hip" for e in apis))
        self.assertEqual(sum(e["calls"] for e in apis), e2e.scalar(db, "SELECT COUNT(*) FROM api_calls"))
        copies = {e["name"]: e for e in summary["entries"] if e["kind"] == "copy"}
        self.assertEqual(sum(e["bytes"] for e in copies.values()), e2e.scalar(db, "SELECT SUM(bytes) FROM copies"))
        # Percentiles: nearest rank, within 0.8% (a histogram keeps memory flat; docs/formats.md).
        for e in apis:
            durations = sorted(row[0] for row in db.execute(
                "SELECT end_ns - begin_ns FROM api_calls JOIN api_names USING (api_id) WHERE name = ?", (e["name"],)))
            for field, percent in (("median_ns", 50), ("p95_ns", 95)):
                exact = durations[max(1, -(-percent * len(durations) // 100)) - 1]
                self.assertLessEqual(abs(e[field] - exact), exact // 125, (e, field, exact))
            self.assertEqual((e["min_ns"], e["max_ns"]), (durations[0], durations[-1]))
        for e in summary["entries"]:
            if e["timed_calls"]:
                self.assertLessEqual(e["min_ns"], e["median_ns"])
                self.assertLessEqual(e["median_ns"], e["p95_ns"])
                self.assertLessEqual(e["p95_ns"], e["max_ns"])

    def test_four_times_slower_kernels_fail_and_are_named(self):
        result = self.compare(self.base_db, self.big_db)
        self.assertEqual(result.returncode, 1, e2e.describe(result))
        regressed = result.stdout.split("REGRESSED")[1].split("\n\n")[0]
        for kernel in KERNELS:
            self.assertIn(f"kernel {kernel}: total", regressed)
        out = self.compare(self.base_db, self.big_db, "--format", "json")
        self.assertEqual(out.returncode, 1, e2e.describe(out))
        report = json.loads(out.stdout)
        self.assertEqual((report["prof_compare"], report["verdict"]), (1, "regressed"))
        rows = {(r["kind"], r["name"]): r for r in report["entries"]}
        for kernel in KERNELS:
            row = rows[("kernel", kernel)]
            self.assertEqual(row["status"], "regressed")
            self.assertTrue(row["regression"])
            # Under PROF_E2E_NO_TIMING=1 (sanitizer builds) a kernel's device time is mostly ASan's
            # slowdown of the simulated device, not the modelled 4x: the verdict is checked, not the ratio.
            # The model's kernels take 5.26 us (base) and 21.4 us (big): 4.07x. A kernel launched on
            # an idle stream is measured from prof's begin event, placed just before it: its time
            # also holds the host's gap between the two calls (0 to 1 us on a quiet host; the
            # median of each name's 4 kernels is its second). The gap lowers the ratio: 3.0 allows
            # 3 us (a thread held off the CPU of a loaded host), while a wrong size or unit is far off.
            if os.environ.get("PROF_E2E_NO_TIMING") != "1":
                ratio = row["new"]["median_ns"] / row["base"]["median_ns"]
                self.assertGreater(ratio, 3.0, row)
                self.assertLess(ratio, 4.5, row)
        # Regressions come first, by name.
        flagged = [r["name"] for r in report["entries"] if r["regression"]]
        self.assertEqual(flagged, sorted(flagged))
        self.assertTrue(all(r["regression"] for r in report["entries"][:len(flagged)]))

    def test_added_and_removed_kernels_are_reported(self):
        summary = e2e.read_json(self.base_summary)
        removed = next(e for e in summary["entries"] if e["name"] == KERNELS[0])
        summary["entries"].remove(removed)
        added = dict(removed, name="fused_kernel(float*)")
        summary["entries"].append(added)
        edited = os.path.join(self.tmp, "edited.summary.json")
        with open(edited, "w") as f:
            json.dump(summary, f)
        result = self.compare(self.base_summary, edited, "--format", "csv")
        self.assertEqual(result.returncode, 1, e2e.describe(result))
        rows = {r["Name"]: r for r in csv.DictReader(io.StringIO(result.stdout))}
        self.assertEqual(rows[KERNELS[0]]["Status"], "vanished")
        self.assertEqual(rows["fused_kernel(float*)"]["Status"], "new")
        self.assertEqual(rows[KERNELS[1]]["Status"], "unchanged")
        # Without the call-count check a vanished kernel is reported but does not fail; a new one
        # still does (its time grew from nothing).
        loose = self.compare(self.base_summary, edited, "--ignore-call-count", "--format", "json")
        report = json.loads(loose.stdout)
        flagged = [r["name"] for r in report["entries"] if r["regression"]]
        self.assertEqual(flagged, ["fused_kernel(float*)"])
        self.assertIn(KERNELS[0], [r["name"] for r in report["entries"] if r["status"] == "vanished"])

    def test_markdown_renders_a_table(self):
        result = self.compare(self.base_db, self.big_db, "--format", "markdown")
        self.assertEqual(result.returncode, 1, e2e.describe(result))
        lines = result.stdout.splitlines()
        self.assertTrue(lines[0].startswith("### prof compare:"), lines[0])
        header = next(i for i, line in enumerate(lines) if line.startswith("| Status |"))
        self.assertTrue(lines[header + 1].startswith("|---|"))
        body = [line for line in lines[header + 2:] if line.startswith("| ")]
        columns = lines[header].count("|")
        self.assertTrue(all(line.count("|") - line.count("\\|") == columns for line in body), body)
        # Names are backslash-escaped (markup characters such as < and * show as written).
        self.assertTrue(any(KERNELS[1] in re.sub(r"\\(.)", r"\1", line) and "**regressed**" in line for line in body))

    def test_output_file(self):
        out = os.path.join(self.tmp, "reports")
        os.makedirs(out, exist_ok=True)
        result = self.compare(self.base_db, self.big_db, "--format", "csv", "-d", out, "-o", "ci")
        self.assertEqual(result.returncode, 1, e2e.describe(result))
        self.assertEqual(e2e.list_dir(out), ["ci.csv"])
        with open(os.path.join(out, "ci.csv")) as f:
            self.assertTrue(f.readline().startswith("Status,Kind,Runtime,Name,"))

    def test_repeated_noisy_runs_give_no_false_alarm(self):
        # The same program four times a side: host API times vary run to run (the machine is busy
        # with other tests); the comparison must see that as noise.
        sides = [os.path.join(self.tmp, "runs-a"), os.path.join(self.tmp, "runs-b")]
        for _ in range(4):
            for side in sides:
                profile(side, 1024, 2)
        result = self.compare(*sides)
        self.assertEqual(result.returncode, 0, e2e.describe(result))
        self.assertIn("(4 runs) vs new", result.stdout)
        self.assertIn("Repeated runs", result.stdout)
        # The summaries alone (what CI archives) give the same verdict.
        summaries = []
        for side in sides:
            only = side + "-summaries"
            os.makedirs(only)
            for path in glob.glob(os.path.join(side, "*.summary.json")):
                shutil.copy(path, only)
            summaries.append(only)
        again = self.compare(*summaries)
        self.assertEqual(again.returncode, 0, e2e.describe(again))
        # A slower side still fails against the repeated runs.
        slower = self.compare(sides[0], self.big_db)
        self.assertEqual(slower.returncode, 1, e2e.describe(slower))

    def test_a_few_slow_calls_are_not_a_regression(self):
        # What a busy CI machine does to an unchanged program: one of eight calls is descheduled and
        # the total grows 50%, while the median call stays. The same total reached by every call
        # getting slower (the median moves) is a regression.
        def summary(path, total, median, maximum):
            entry = {"kind": "api", "runtime": "hip", "name": "hipLaunchKernel", "calls": 8, "timed_calls": 8,
                     "total_ns": total, "average_ns": total // 8, "median_ns": median, "p95_ns": maximum,
                     "min_ns": median - 50, "max_ns": maximum, "bytes": 0}
            with open(path, "w") as f:
                json.dump({"prof_summary": 1, "processes": 1, "run_id": "", "meta": {}, "entries": [entry]}, f)
            return path
        base = summary(os.path.join(self.tmp, "calm.summary.json"), 80000, 10000, 10100)
        outlier = summary(os.path.join(self.tmp, "outlier.summary.json"), 120000, 10050, 50000)
        slower = summary(os.path.join(self.tmp, "slower.summary.json"), 120000, 15000, 15100)
        result = self.compare(base, outlier)
        self.assertEqual(result.returncode, 0, e2e.describe(result))
        self.assertIn("Not flagged although the total moved:", result.stdout)
        self.assertIn("Run summaries on a side (no per-call durations)", result.stdout)
        self.assertIn("api hip hipLaunchKernel: total +50.0% from a few calls: the median call", result.stdout)
        result = self.compare(base, slower)
        self.assertEqual(result.returncode, 1, e2e.describe(result))
        self.assertIn("api hip hipLaunchKernel: total 80.000 us -> 120.000 us (+50.0%)", result.stdout)
        # Improvements follow the same rule.
        self.assertEqual(self.compare(outlier, base).stdout.count("improved "), 0)
        self.assertIn("improved ", self.compare(slower, base).stdout)

    def test_processes_of_one_run_count_together(self):
        # Two processes recorded by one prof invocation share a run id: a folder holding them is one run.
        dbs = glob.glob(os.path.join(self.base_dir, "*.db"))
        self.assertEqual(len(dbs), 1)
        twice = os.path.join(self.tmp, "one-run-two-dbs")
        os.makedirs(twice, exist_ok=True)
        shutil.copy(dbs[0], os.path.join(twice, "a.db"))
        shutil.copy(dbs[0], os.path.join(twice, "b.db"))
        result = self.compare(self.base_db, twice, "--format", "json")
        report = json.loads(result.stdout)
        self.assertEqual(report["new"]["runs"], 1)
        row = next(r for r in report["entries"] if r["name"] == KERNELS[0])
        self.assertEqual(row["new"]["calls"], 2 * row["base"]["calls"])
        self.assertEqual(result.returncode, 1, "twice the calls is a regression")

    def test_ci_recipe_script(self):
        """scripts/ci-compare.sh, the recipe docs/compare.md gives: baseline on the first job, clean on
        an unchanged program, exit 1 naming the kernels when they got slower."""
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "scripts",
                              "ci-compare.sh")
        work = os.path.join(self.tmp, "ci-job")
        os.makedirs(work, exist_ok=True)
        env = {"PROF": e2e.Config.prof}
        app = e2e.sample("multistream")
        first = e2e.run(["bash", script, "--sim", "--runs", "3", app], cwd=work, env=env)
        self.assertEqual(first.returncode, 0, e2e.describe(first))
        self.assertIn("stored this job's 3 runs as the baseline", first.stdout)
        self.assertEqual(len(glob.glob(os.path.join(work, "prof-baseline", "*.summary.json"))), 3)
        same = e2e.run(["bash", script, "--sim", "--runs", "3", app], cwd=work, env=env)
        self.assertEqual(same.returncode, 0, e2e.describe(same))
        self.assertIn("verdict: clean", same.stdout)
        # 16x the work: each kernel's total grows by about 320 us, far beyond the spread a run can
        # bring (a thread descheduled inside a launch call now and then puts one kernel's begin
        # 30-40 us early in one of three runs; twice that spread hid a 64 us change).
        slower = e2e.run(["bash", script, "--sim", "--runs", "3", "--", app, "262144"], cwd=work, env=env)
        self.assertEqual(slower.returncode, 1, e2e.describe(slower))
        named = [kernel for kernel in KERNELS if f"kernel {kernel}: total" in slower.stdout]
        named += [copy for copy in ("H2D", "D2H") if f"copy {copy}: total" in slower.stdout]
        # At least one of what grew 16x (the two kernels, the two copy directions), and no other
        # kernel: a thread descheduled inside a launch call puts that kernel's begin early by as
        # long as it was off the CPU (30-40 us quiet, milliseconds beside the ASan stage's other
        # tests: issue 36), and a spread that large in one of three runs can hide one kernel's
        # change (the rule is twice the runs' spread); the copies' change is 20x theirs. The exact
        # naming of both kernels is checked on single dbs (test_four_times_slower_kernels_fail_and_are_named).
        self.assertTrue(named, slower.stdout)
        self.assertEqual([line for line in slower.stdout.splitlines() if line.startswith("  kernel ")
                          and not any(f"kernel {kernel}: total" in line for kernel in KERNELS)], [])
        with open(os.path.join(work, "prof-ci", "compare.md")) as f:
            self.assertIn("**regressed**", f.read())

    def edited_db(self, name, sql, *params):
        """A copy of the base db with `sql` applied: the same run with some durations changed."""
        path = os.path.join(self.tmp, name)
        shutil.copy(self.base_db, path)
        db = sqlite3.connect(path)
        db.execute(sql, params)
        db.commit()
        db.close()
        return path

    def test_two_runs_of_the_same_program_compare_clean(self):
        # Two separate runs, one per side, the first thing a user tries: host API times differ run
        # to run (the machine is busy with other tests), the device times do not.
        sides = [os.path.join(self.tmp, "same-a"), os.path.join(self.tmp, "same-b")]
        dbs = [os.path.join(side, f"hip-prof-{profile(side, 1024, 20)}.db") for side in sides]
        result = self.compare(*dbs)
        self.assertEqual(result.returncode, 0, e2e.describe(result))
        self.assertIn("verdict: clean", result.stdout)
        self.assertIn("One run per side", result.stdout)
        report = json.loads(self.compare(*dbs, "--format", "json").stdout)
        self.assertTrue(report["rule"]["per_call"])
        kernel_rows = [r for r in report["entries"] if r["kind"] == "kernel"]
        self.assertEqual(sorted(r["name"] for r in kernel_rows), KERNELS)
        for row in kernel_rows:
            self.assertEqual((row["timing"], row["test"]["testable"]), ("device", True), row)  # 40 against 40
            self.assertEqual(row["base"]["tested_calls"], 40)

    def test_few_slow_calls_of_a_run_are_not_a_regression(self):
        # hipStreamDestroy 6x slower over its 2 calls (the issue's +470%): no rank test can tell 2
        # calls from 2 at a family-wise 1%, so it is not a regression, and the report says why.
        slow = self.edited_db("slow-destroy.db",
                              "UPDATE api_calls SET end_ns = begin_ns + 6 * (end_ns - begin_ns) + 50000 "
                              "WHERE api_id = (SELECT api_id FROM api_names WHERE name = 'hipStreamDestroy')")
        result = self.compare(self.base_db, slow)
        self.assertEqual(result.returncode, 0, e2e.describe(result))
        self.assertRegex(result.stdout, r"api hip hipStreamDestroy: total \+\d+\.\d%: too few calls to tell "
                                        r"\(2 vs 2 calls: the rank test cannot go under p = 0\.167")
        # Every one of the 8 launch calls 1 ms slower: enough calls, far beyond run-to-run noise (and
        # beyond the first launch's own start-up cost, which 8 calls against 8 could not absorb).
        slower = self.edited_db("slow-launch.db",
                                "UPDATE api_calls SET end_ns = end_ns + 1000000 "
                                "WHERE api_id = (SELECT api_id FROM api_names WHERE name = 'hipLaunchKernel')")
        result = self.compare(self.base_db, slower)
        self.assertEqual(result.returncode, 1, e2e.describe(result))
        self.assertRegex(result.stdout, r"\n  api hip hipLaunchKernel: total .* rank test p = .* \(8 vs 8\)\n")

    def test_columns_never_run_together(self):
        result = self.compare(self.base_db, self.big_db)
        lines = result.stdout.splitlines()
        header = next(i for i, line in enumerate(lines) if line.startswith("Status  "))
        columns = re.split(r" {2,}", lines[header])
        self.assertEqual(columns, ["Status", "Kind", "Timing", "Calls", "Total", "Change", "Median", "Test", "Name"])
        rows = lines[header + 1:lines.index(next(line for line in lines[header:] if line.startswith("(")))]
        self.assertTrue(rows)
        for row in rows:
            # No cell holds two spaces, so two or more spaces are exactly the column gaps.
            self.assertEqual(len(re.split(r" {2,}", row)), len(columns), row)
        # Each column starts where its header does: content-wide columns, two spaces apart.
        starts = [lines[header].index(c) for c in columns]
        for row in rows:
            self.assertEqual([m.start(1) for m in re.finditer(r"(?:^| {2,})(\S)", row)], starts, row)

    def test_the_report_states_the_runs_and_what_they_allow(self):
        one = self.compare(self.base_db, self.big_db)
        self.assertIn(f"(1 run) vs new {self.big_db} (1 run)", one.stdout)
        self.assertIn("One run per side: run-to-run noise of host times", one.stdout)
        self.assertIn("Kernels and copies are timed by the device's clock", one.stdout)
        report = json.loads(self.compare(self.base_db, self.big_db, "--format", "json").stdout)
        self.assertEqual((report["base"]["runs"], report["new"]["runs"]), (1, 1))
        self.assertTrue(any(n.startswith("One run per side") for n in report["rule"]["notes"]))
        markdown = self.compare(self.base_db, self.big_db, "--format", "markdown").stdout
        self.assertIn("One run per side", markdown)
        summaries = self.compare(self.base_summary, self.base_summary)
        self.assertIn("Run summaries on a side (no per-call durations)", summaries.stdout)
        rows = list(csv.DictReader(io.StringIO(self.compare(self.base_db, self.big_db, "--format", "csv").stdout)))
        self.assertEqual({r["Timing"] for r in rows}, {"host", "device"})

    def test_bad_inputs_give_one_line_and_exit_2(self):
        not_db = os.path.join(self.tmp, "garbage.db")
        with open(not_db, "w") as f:
            f.write("not a database\n")
        bad_json = os.path.join(self.tmp, "bad.summary.json")
        with open(bad_json, "w") as f:
            f.write('{"prof_summary": 1, "entries": [{"kind": "api"}]}')
        empty = os.path.join(self.tmp, "empty-dir")
        os.makedirs(empty, exist_ok=True)
        cases = [
            ([os.path.join(self.tmp, "missing.db"), self.base_db], "missing.db"),
            ([not_db, self.base_db], "garbage.db"),
            ([bad_json, self.base_db], "bad.summary.json"),
            ([empty, self.base_db], "empty-dir"),
            ([self.base_db, self.base_db, "--threshold", "lots"], "--threshold"),
            ([self.base_db, self.base_db, "--min-time", "10"], "--min-time"),
            ([self.base_db, self.base_db, "--format", "xml"], "--format"),
            ([self.base_db], "--compare"),
        ]
        for args, named in cases:
            result = self.compare(*args)
            self.assertEqual(result.returncode, 2, e2e.describe(result))
            self.assertEqual(len(result.stderr.splitlines()), 1, e2e.describe(result))
            self.assertIn(named, result.stderr)
            self.assertEqual(result.stdout, "")


if __name__ == "__main__":
    e2e.main()
