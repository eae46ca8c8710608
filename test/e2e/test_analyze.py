"""e2e: `prof --db x.db --analyze` on real runs of the samples (docs/findings.md): the JSON form
parses and holds its schema, the idle sample's sleep is a device-idle finding, --analyze writes no
file, --db-merge --analyze gives each process's findings, and --analyze-fail-above decides the
exit status.

    python3 test/e2e/test_analyze.py --prof build/bin/prof --bin-dir build/test-bin
"""
import json
import os
import shutil
import tempfile
import unittest

import e2e_common as e2e

FINDING_KEYS = {"rule", "title", "time_at_stake_ns", "share", "method", "count", "sites", "evidence", "fix",
                "process_id", "pid", "rank"}
SITE_KEYS = {"api", "calls", "first_sequence", "sequences", "text"}
IDLE_SLEEP_MS = 100  # idle.cpp sleeps 200 ms to settle, then this, with nothing in flight


class AnalyzeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        multistream = e2e.built_sample("multistream")
        idle = e2e.built_sample("idle")
        cls.tmp = tempfile.mkdtemp(prefix="prof-e2e-analyze-")
        cls.addClassCleanup(shutil.rmtree, cls.tmp, True)
        cls.dbs = {}
        for name, command in (("multistream", [multistream, "262144", "3"]),
                              ("idle", [idle, str(IDLE_SLEEP_MS), "200"])):
            out = os.path.join(cls.tmp, name)
            os.makedirs(out)
            run = e2e.run_prof(["--sim", "-d", out] + command, cwd=out)
            assert run.returncode == 0, e2e.describe(run)
            dbs = e2e.find_dbs(out)
            assert len(dbs) == 1, f"{name}: {dbs}{e2e.describe(run)}"
            cls.dbs[name] = dbs[0]

    def analyze(self, db, *options):
        return e2e.run_prof(["--db", db, "--analyze"] + list(options), cwd=self.tmp)

    def analysis(self, name):
        run = self.analyze(self.dbs[name], "--format", "json")
        self.assertEqual(run.returncode, 0, e2e.describe(run))
        return json.loads(run.stdout)

    def test_json_form(self):
        for name in self.dbs:
            with self.subTest(name):
                result = self.analysis(name)
                self.assertEqual(result["findings_version"], 1)
                self.assertGreater(result["run_ns"], 0)
                self.assertEqual(len(result["processes"]), 1)
                stakes = [f["time_at_stake_ns"] for f in result["findings"]]
                self.assertEqual(stakes, sorted(stakes, reverse=True), "longest time at stake first")
                for finding in result["findings"]:
                    self.assertEqual(set(finding), FINDING_KEYS)
                    self.assertGreaterEqual(finding["share"], 0)
                    self.assertIsNone(finding["rank"])
                    for site in finding["sites"]:
                        self.assertEqual(set(site), SITE_KEYS)
                        self.assertEqual(site["first_sequence"], site["sequences"][0])

    def test_idle_sleep_is_a_device_idle_finding(self):
        idle = [f for f in self.analysis("idle")["findings"] if f["rule"] == "device-idle"]
        self.assertEqual(len(idle), 1, idle)
        # The device has nothing in flight through both sleeps: a gap at least that long (a sleep
        # lasts at least what it asks for), with no API call in it.
        self.assertGreaterEqual(idle[0]["time_at_stake_ns"], (200 + IDLE_SLEEP_MS) * 1_000_000)
        self.assertIn("host computation", idle[0]["evidence"])

    def test_text_form_writes_no_file(self):
        before = sorted(os.listdir(self.tmp)), sorted(os.listdir(os.path.dirname(self.dbs["idle"])))
        run = self.analyze(self.dbs["idle"])
        self.assertEqual(run.returncode, 0, e2e.describe(run))
        self.assertTrue(run.stdout.startswith("prof --analyze: "), run.stdout[:200])
        self.assertIn("[device-idle]", run.stdout)
        after = sorted(os.listdir(self.tmp)), sorted(os.listdir(os.path.dirname(self.dbs["idle"])))
        self.assertEqual(before, after)

    def test_fail_above(self):
        largest = max(f["share"] for f in self.analysis("idle")["findings"]) * 100
        self.assertGreater(largest, 1)
        below = self.analyze(self.dbs["idle"], "--analyze-fail-above", f"{largest / 2:.3f}%")
        self.assertEqual(below.returncode, 1, e2e.describe(below))
        above = self.analyze(self.dbs["idle"], "--analyze-fail-above", "100")
        self.assertEqual(above.returncode, 0, e2e.describe(above))

    def test_merged(self):
        merge_in = os.path.join(self.tmp, "merge-in")
        merge_out = os.path.join(self.tmp, "merge-out")
        os.makedirs(merge_in, exist_ok=True)
        for db in self.dbs.values():
            shutil.copy(db, merge_in)
        run = e2e.run_prof(["--db-merge", merge_in, "-d", merge_out, "--analyze", "--format", "json"],
                           cwd=self.tmp)
        self.assertEqual(run.returncode, 0, e2e.describe(run))
        result = json.loads(run.stdout)  # the findings alone on stdout: no summary before them
        self.assertEqual(len(result["processes"]), 2)
        self.assertEqual({p["process_id"] for p in result["processes"]}, {1, 2})
        idle_pid = self.analysis("idle")["processes"][0]["pid"]
        self.assertIn(("device-idle", idle_pid), {(f["rule"], f["pid"]) for f in result["findings"]})
        self.assertTrue(os.path.exists(os.path.join(merge_out, "result_merged.db")))

    def test_thresholds_are_options(self):
        # The idle sample's one gap is the sleep (at least IDLE_SLEEP_MS): a threshold above the
        # whole run drops it, one of 1 ms (the default, written out) keeps it.
        gap_ms = 200 + IDLE_SLEEP_MS
        for setting, expected in ((f"idle-gap-min={gap_ms * 1000}ms", 0), ("idle-gap-min=1ms", 1)):
            with self.subTest(setting):
                run = self.analyze(self.dbs["idle"], "--format", "json", "--analyze-set", setting)
                self.assertEqual(run.returncode, 0, e2e.describe(run))
                rules = [f["rule"] for f in json.loads(run.stdout)["findings"]]
                self.assertEqual(rules.count("device-idle"), expected, rules)

    def test_bad_input(self):
        missing = self.analyze(os.path.join(self.tmp, "missing.db"))
        self.assertEqual(missing.returncode, 66, e2e.describe(missing))
        self.assertEqual(len(missing.stderr.splitlines()), 1, missing.stderr)
        self.assertIn("missing.db", missing.stderr)
        for options in (["--analyze-fail-above", "lots"], ["--format", "csv"], ["--index-range", "1:10"],
                        ["--analyze-set", "idle-gap-min"], ["--analyze-set", "no-such-rule=1"],
                        ["--analyze-set", "min-share=150%"], ["--analyze-set", "small-copy-min-count=2.5"]):
            with self.subTest(options):
                run = self.analyze(self.dbs["idle"], *options)
                self.assertEqual(run.returncode, 2, e2e.describe(run))
                self.assertEqual(len(run.stderr.splitlines()), 1, run.stderr)
                self.assertIn(options[0], run.stderr)
        alone = e2e.run_prof(["--analyze"], cwd=self.tmp)
        self.assertEqual(alone.returncode, 2, e2e.describe(alone))
        not_db = os.path.join(self.tmp, "not.db")
        with open(not_db, "w") as f:
            f.write("not a database\n")
        bad = self.analyze(not_db)
        self.assertEqual(bad.returncode, 65, e2e.describe(bad))
        self.assertEqual(len(bad.stderr.splitlines()), 1, bad.stderr)


if __name__ == "__main__":
    e2e.main()
