"""e2e: the reports' memory grows with distinct kernel names by a few hundred bytes each (issue 42).

    python3 test/e2e/test_report_memory.py --prof build/bin/prof --bin-dir build/test-bin

test-bin/synth_db writes two dbs of the same 700,000 events (200,000 kernels): one with 24
distinct kernel names, one with 200,000 (mangled, as __hipRegisterFunction stores them, so the
report demangles each). `prof --db` writes every report of each (the pftrace too); its peak RSS
is read from getrusage(RUSAGE_CHILDREN) in a process of its own, so nothing else counts. Before
the names were kept once (report/kernel_names.hpp), every pass kept its own copies and maps:
387 MB for 200,000 names, 1.8 KB per name; now about 125 MB, 500 bytes per name. Peak RSS does
not depend on how busy the machine is. A sanitizer build (shadow memory) is skipped.
"""
import os
import subprocess
import sys
import tempfile
import unittest

import e2e_common as e2e

EVENTS = 700_000  # synth_db: 2 kernels per 7 events, so 200,000 kernels
NAMES = 200_000
MAX_PEAK_MB = 150  # the old code took 387 MB
MAX_BYTES_PER_NAME = 700  # above the same events with 24 names; the old code took 1,800

# Runs a command and prints its peak RSS in KB: the child's alone (this process runs nothing else).
MEASURE = (
    "import resource, subprocess, sys\n"
    "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,\n"
    "                      text=True)\n"
    "if done.returncode != 0: sys.exit(done.stderr)\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)


def sanitized(binary):
    with open(binary, "rb") as f:
        data = f.read()
    return b"__asan_init" in data or b"__tsan_init" in data or b"__msan_init" in data


class ReportMemoryTest(unittest.TestCase):
    def peak_kb(self, db, out):
        command = [sys.executable, "-c", MEASURE, e2e.Config.prof, "--db", db, "-d", out]
        done = subprocess.run(command, capture_output=True, text=True, timeout=e2e.TIMEOUT_S)
        self.assertEqual(done.returncode, 0, done.stderr)
        return int(done.stdout.strip())

    def test_memory_per_distinct_kernel_name(self):
        synth = os.path.join(e2e.Config.bin_dir, "synth_db")
        if not os.path.exists(synth):
            self.skipTest("synth_db not built")
        if sanitized(e2e.Config.prof):
            self.skipTest("a sanitizer build: its shadow memory is not the report's")
        with tempfile.TemporaryDirectory(prefix="prof-e2e-report-memory-") as tmp:
            peaks = {}
            for names in (24, NAMES):
                db = os.path.join(tmp, f"names{names}.db")
                subprocess.run([synth, db, str(EVENTS), "4242", str(names)], check=True,
                               capture_output=True)
                out = os.path.join(tmp, f"out{names}")
                peaks[names] = self.peak_kb(db, out)
                with open(os.path.join(out, f"names{names}.kernel.csv")) as f:
                    self.assertEqual(sum(1 for _ in f), 1 + names)  # every name is a row
            per_name = (peaks[NAMES] - peaks[24]) * 1024 / (NAMES - 24)
            summary = (f"peak RSS {peaks[24] // 1024} MB with 24 names, "
                       f"{peaks[NAMES] // 1024} MB with {NAMES}: {per_name:.0f} bytes per name")
            print(summary)
            self.assertLess(peaks[NAMES], MAX_PEAK_MB * 1024, summary)
            self.assertLess(per_name, MAX_BYTES_PER_NAME, summary)


if __name__ == "__main__":
    e2e.main()
