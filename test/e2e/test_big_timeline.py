"""e2e: a 5,000,000-call run. By default it writes no per-row outputs nobody asked for (trace CSVs,
JSON timeline: over a million calls they are gigabytes; the .pftrace holds the timeline) and the
summary says how to get them. Asked for, the JSON timeline opens in a trace viewer: a browser tab
parses a JSON trace whole, so prof splits a big timeline by time into parts within the limits that
docs/formats.md ("Parts") documents: at most 500,000 events and 128 MiB each. This checks the
largest part against them, that the parts hold every call exactly once, in time order, and that
the summary says what was written and why. Slow (about 40 s); skipped in the sanitizer stage.

    python3 test/e2e/test_big_timeline.py --prof build/bin/prof --bin-dir build/test-bin
"""
import os
import re
import shutil
import tempfile
import unittest

import e2e_common as e2e

CALLS = 5_000_000
PART_MAX_EVENTS = 500_000     # docs/formats.md, "Parts"
PART_MAX_BYTES = 128 << 20


def count_events(path):
    """Events by phase; the writer puts one event per line."""
    counts = {}
    with open(path, "rb") as stream:
        for line in stream:
            match = re.match(rb'\{"ph":"(\w)"', line)
            if match:
                counts[match.group(1)] = counts.get(match.group(1), 0) + 1
    return counts


class BigTimelineTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if os.environ.get("PROF_E2E_NO_TIMING") == "1":
            raise unittest.SkipTest("5M calls under a sanitizer take minutes; the normal stage runs this")
        app = e2e.built_sample("churn")
        cls.tmp = tempfile.mkdtemp(prefix="prof-e2e-big-")
        # Removed also when setUpClass fails half-way (tearDownClass then does not run).
        cls.addClassCleanup(shutil.rmtree, cls.tmp, True)
        cls.done = e2e.run([e2e.Config.prof, "--sim", "-d", cls.tmp, app, "1", "1", str(CALLS)], cwd=cls.tmp,
                           timeout=600)
        if cls.done.returncode != 0:
            raise AssertionError("profiling failed" + e2e.describe(cls.done))
        cls.pid = e2e.parse_pid(cls.done.stdout)
        cls.run_dir = cls.tmp
        # The JSON timeline, written from the run's db as the summary's note says.
        cls.tmp = os.path.join(cls.run_dir, "json")
        os.makedirs(cls.tmp)
        cls.db = os.path.join(cls.run_dir, f"hip-prof-{cls.pid}.db")
        cls.regenerated = e2e.run([e2e.Config.prof, "--db", cls.db, "-d", cls.tmp, "--output-format", "json"],
                                  cwd=cls.tmp, timeout=600)
        if cls.regenerated.returncode != 0:
            raise AssertionError("regenerating failed" + e2e.describe(cls.regenerated))
        stem = f"result_{cls.pid}_copy"
        cls.parts = sorted((n for n in os.listdir(cls.tmp) if re.fullmatch(re.escape(stem) + r"\.\d+\.json", n)),
                           key=lambda n: int(n.split(".")[-2]))
        cls.stem = stem

    def test_default_run_leaves_out_the_per_row_outputs(self):
        written = sorted(os.listdir(self.run_dir))
        self.assertIn(f"result_{self.pid}.pftrace", written)
        self.assertIn(f"result_{self.pid}.kernel.csv", written)
        self.assertEqual([n for n in written if n.endswith((".json", "_trace.csv")) and "summary" not in n], [],
                         "no JSON timeline or trace CSVs by default over a million calls")
        note = [line for line in self.done.stdout.splitlines() if line.startswith("Note: ")]
        self.assertEqual(len(note), 1, self.done.stdout[-2000:])
        self.assertIn("API calls: the trace CSVs and the JSON timeline were left out", note[0])
        self.assertIn("--output-format all", note[0])

    def test_parts_are_within_the_documented_limits(self):
        self.assertGreaterEqual(len(self.parts), CALLS // PART_MAX_EVENTS, self.parts)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, self.stem + ".json")))
        self.assertEqual(self.parts, [f"{self.stem}.{i}.json" for i in range(1, len(self.parts) + 1)])
        sizes = {name: os.path.getsize(os.path.join(self.tmp, name)) for name in self.parts}
        largest = max(sizes, key=sizes.get)
        self.assertLessEqual(sizes[largest], PART_MAX_BYTES)
        slices = 0
        for name in self.parts:
            counts = count_events(os.path.join(self.tmp, name))
            events = sum(n for phase, n in counts.items() if phase != b"M")
            self.assertLessEqual(events, PART_MAX_EVENTS, name)
            self.assertGreater(counts.get(b"M", 0), 0, f"{name} names its processes and lanes")
            slices += counts.get(b"X", 0)
        with e2e.open_db(self.db) as db:
            calls = e2e.scalar(db, "SELECT COUNT(*) FROM api_calls")
        self.assertGreaterEqual(calls, CALLS)
        self.assertEqual(slices, calls, "every call is in exactly one part")
        # The largest part is a whole, valid trace a viewer can parse.
        trace = e2e.read_json(os.path.join(self.tmp, largest))
        self.assertIn("traceEvents", trace)
        self.assertEqual(trace["otherData"]["pid"], str(self.pid))

    def test_parts_follow_each_other_in_time(self):
        previous_last = None
        for name in self.parts:
            first = last = None
            with open(os.path.join(self.tmp, name), "rb") as stream:
                for line in stream:
                    match = re.search(rb'"ph":"X".*?"ts":([0-9.]+)', line)
                    if match:
                        ts = float(match.group(1))
                        first = ts if first is None else min(first, ts)
                        last = ts if last is None else max(last, ts)
            if previous_last is not None:
                self.assertGreaterEqual(first, previous_last, name)
            previous_last = last

    def test_summary_says_what_was_written_and_why(self):
        note = [line for line in self.regenerated.stdout.splitlines() if line.startswith("Note: ")]
        self.assertEqual(len(note), 1, self.regenerated.stdout[-2000:])
        self.assertIn(f"split by time into {len(self.parts)} parts", note[0])
        for name in self.parts:
            self.assertIn(os.path.join(self.tmp, name), self.regenerated.stdout)
        self.assertNotIn("warning", self.done.stderr + self.regenerated.stderr)


if __name__ == "__main__":
    e2e.main()
