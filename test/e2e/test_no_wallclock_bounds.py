"""The test suite's rule (docs/guarantees.md, "The tests"): a functional test asserts what prof
recorded, never how long something took on the wall clock; timing properties are in
scripts/bench.sh's tables. This script greps test/ for every reading of a wall clock (the patterns
below) and fails on one that does not say, on its line or in the three lines above, what it is for:

    wall-clock: ordering     the reading is only ordered against recorded times (before <= start)
    wall-clock: hang guard   a deadline that ends a wait which would otherwise hang, at e2e.TIMEOUT_S
    wall-clock: message      only printed, never compared

A reading with none of these is a bound in waiting. KNOWN counts the unmarked readings of files
outside test/e2e that others own: a file's count must match exactly (so a new reading fails, and a
fixed one makes the list shrink), and each is printed while it is there.

    python3 test/e2e/test_no_wallclock_bounds.py --prof build/bin/prof --bin-dir build/test-bin
"""
import collections
import os
import re
import unittest

import e2e_common as e2e

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir))
# Programs (test/apps prints its own timing for the benchmarks, test/bench is the benchmarks) and
# the fuzzers are not tests of timing; everything else under test/ is.
SKIPPED_DIRS = {"apps", "bench", "fuzz", "node_modules", "golden", "expected", "fixtures"}
EXTENSIONS = (".py", ".cpp", ".hpp", ".c", ".h", ".hip", ".sh", ".mjs", ".js")
CLOCK_READING = re.compile(
    r"\btime\.(monotonic|perf_counter|time|process_time)(_ns)?\(|\bdatetime\.(now|utcnow)\(|date \+%s%N"
    r"|\b(steady_clock|system_clock|high_resolution_clock)::now\(|\bclock_gettime\(|\b(hook_)?now_ns\(\)"
    r"|\bperformance\.now\(|\bDate\.now\(")
PURPOSE = re.compile(r"wall-clock: (ordering|hang guard|message)\b")
THIS_FILE = os.path.relpath(os.path.abspath(__file__), ROOT)
# Outside test/e2e, owned elsewhere: file -> (its readings without a purpose, why). Until someone
# marks or removes them, the count must stay exactly this.
KNOWN = {
    "test/unit/collector_ring_test.cpp": (3, "record times (a record's begin and end), not elapsed time"),
    "test/unit/sim_timing_test.cpp": (3, "ordering: a synchronize returns at or after the kernel's end"),
    "test/unit/hook_clock_test.cpp": (7, "the clock under test, ordered against clock_gettime (to mark)"),
    "test/browser/check_timeline.mjs": (6, "printed only: a viewer's load time (to mark `wall-clock: message`)"),
    "test/browser/test_timeline_viewers.py": (2, "printed only: the checker's time (to mark `wall-clock: message`)"),
}

def readings():
    """(file relative to the root, line number, text) of every clock reading under test/."""
    found = []
    for directory, subdirs, files in os.walk(os.path.join(ROOT, "test")):
        subdirs[:] = sorted(d for d in subdirs if d not in SKIPPED_DIRS)
        for name in sorted(files):
            path = os.path.join(directory, name)
            relative = os.path.relpath(path, ROOT)
            if not name.endswith(EXTENSIONS) or relative == THIS_FILE:
                continue
            with open(path, encoding="utf-8", errors="replace") as stream:
                lines = stream.read().splitlines()
            for number, line in enumerate(lines):
                if CLOCK_READING.search(line):
                    found.append((relative, number + 1, line.strip(), "\n".join(lines[max(0, number - 3):number + 1])))
    return found


class NoWallClockBoundsTest(unittest.TestCase):
    def test_every_clock_reading_says_what_it_is_for(self):
        unexplained = collections.defaultdict(list)
        for relative, number, text, context in readings():
            if not PURPOSE.search(context):
                unexplained[relative].append(f"{relative}:{number}: {text}")
        for relative, (count, why) in sorted(KNOWN.items()):
            print(f"known, still to fix: {relative}: {count} readings ({why})")
            self.assertEqual(len(unexplained.pop(relative, [])), count,
                             f"{relative}: KNOWN says {count} readings without a purpose; update KNOWN (fewer) or "
                             "mark the new one")
        self.assertEqual([line for lines in unexplained.values() for line in lines], [],
                         "wall-clock readings without `wall-clock: ordering|hang guard|message` "
                         "(docs/guarantees.md, \"The tests\")")

    def test_the_patterns_find_what_they_are_for(self):
        for line in ("started = time.monotonic()", "t = time.perf_counter_ns()", "x=$(date +%s%N)",
                     "auto t0 = std::chrono::steady_clock::now();", "clock_gettime(CLOCK_MONOTONIC, &ts);",
                     "const t = performance.now();", "const uint64_t t = prof::now_ns();"):
            self.assertTrue(CLOCK_READING.search(line), line)
        for line in ("deadline = e2e.TIMEOUT_S", "begin_ns = row['begin_ns']", "time.sleep(0.05)", "import time"):
            self.assertFalse(CLOCK_READING.search(line), line)


if __name__ == "__main__":
    e2e.main()
