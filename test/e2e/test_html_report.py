"""e2e: the HTML report of a real run (the multistream sample on the simulated device), read back
from its HTML, and loaded in a real browser: Debian's headless Chromium opens the report and the
timeline JSON in speedscope (test/browser/check_report.mjs), checks what rendered, and takes
screenshots.

    python3 test/e2e/test_html_report.py --prof build/bin/prof --bin-dir build/test-bin

The browser part needs /usr/bin/chromium and test/browser/node_modules (scripts/install-deps.sh
--tests installs both). Without them it fails when CI is set and skips otherwise; under
PROF_E2E_NO_TIMING=1 (the sanitizer stage) it skips. PROF_BROWSER_SHOTS=DIR keeps the screenshots.
"""
import html.parser
import json
import os
import shutil
import sqlite3
import subprocess
import tempfile
import unittest

import e2e_common as e2e

HERE = os.path.dirname(os.path.abspath(__file__))
BROWSER_DIR = os.path.join(HERE, os.pardir, "browser")
CHROMIUM = "/usr/bin/chromium"
# A kernel name with everything HTML must escape, non-ASCII, and markup that must stay text.
ODD_NAME = "void k<a&b, \"q\">('x', \u03bb, \u6838) <script>alert(1)</script>"


def browser_missing():
    """What the browser check lacks, or None."""
    if not shutil.which("node"):
        return "node is not installed"
    if not os.access(CHROMIUM, os.X_OK):
        return f"{CHROMIUM} is not installed (apt-get install chromium)"
    for package in ("playwright-core", "speedscope"):
        if not os.path.isdir(os.path.join(BROWSER_DIR, "node_modules", package)):
            return f"test/browser/node_modules/{package} is missing (npm ci in test/browser)"
    return None


def parse_duration_ns(text):
    """A human_duration cell ("1.23 ms", "850 ns") as ns."""
    number, unit = text.split()
    return float(number) * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[unit]


class Page(html.parser.HTMLParser):
    """The parts of the report the test reads: table cells by table id, links, tags seen."""

    def __init__(self):
        super().__init__()
        self.tables, self.hrefs, self.tags, self.attributes = {}, [], set(), []
        self._table, self._cell = None, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.add(tag)
        self.attributes.extend(attrs.items())
        if tag == "table":
            self._table = attrs.get("id")
            self.tables.setdefault(self._table, [])
        if tag == "td":
            self._cell = ""
        if tag == "a" and "href" in attrs:
            self.hrefs.append(attrs["href"])

    def handle_endtag(self, tag):
        if tag == "td" and self._cell is not None:
            self.tables[self._table].append(self._cell)
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data


def parse(path):
    page = Page()
    with open(path, encoding="utf-8") as stream:
        page.feed(stream.read())
    return page


class HtmlReportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.app = e2e.built_sample("multistream")
        cls.browser = os.environ.get("PROF_E2E_NO_TIMING") != "1"
        missing = browser_missing() if cls.browser else None
        if missing and os.environ.get("CI"):
            raise AssertionError(f"CI must run the browser check: {missing}")
        if missing:
            raise unittest.SkipTest(missing)
        cls.tmp = tempfile.mkdtemp(prefix="prof-e2e-html-")
        cls.addClassCleanup(shutil.rmtree, cls.tmp, True)
        cls.out = os.path.join(cls.tmp, "run")
        os.makedirs(cls.out)
        cls.done = e2e.run_prof(["--sim", "-d", cls.out, cls.app, "4096", "3"], cwd=cls.tmp)
        if cls.done.returncode != 0:
            raise AssertionError("profiling failed" + e2e.describe(cls.done))
        cls.pid = e2e.parse_pid(cls.done.stdout)
        cls.paths = e2e.output_paths(cls.out, cls.pid)
        _, rows = e2e.read_csv(cls.paths["kernel"])
        cls.kernel_names = [row["Name"] for row in rows]

    def test_written_and_listed(self):
        self.assertTrue(os.path.isfile(self.paths["html"]), e2e.list_dir(self.out))
        # The list ends at the first blank line (the findings block follows it).
        listed = [line.strip() for line in self.done.stdout.split("Files written:")[1].split("\n\n")[0].splitlines()]
        self.assertIn(self.paths["html"], listed)

    def test_page_holds_the_run(self):
        page = parse(self.paths["html"])
        # Name, calls, total, average, median, p95, min, max, percent.
        self.assertEqual(sorted(page.tables["kernels-table"][0::9]), sorted(self.kernel_names))
        _, api_rows = e2e.read_csv(self.paths["hiptrace"])
        self.assertEqual(sorted(page.tables["api-0-table"][0::9]), sorted(row["Name"] for row in api_rows))
        # Direction, calls, bytes, device time, average, median, p95, bandwidth.
        _, copy_rows = e2e.read_csv(self.paths["copy_stats"])
        self.assertEqual(sorted(page.tables["copies-table"][0::8]), sorted(row["Direction"] for row in copy_rows))
        self.assertEqual(page.tables["processes"][0], f"pid {self.pid}")
        # The run's duration is the program's (its start to the last end it recorded), not the time
        # until the db was complete, which is reported beside it.
        duration, db_build = (parse_duration_ns(cell) for cell in page.tables["processes"][4:6])
        meta_db = e2e.open_db(self.paths["db"])
        try:
            start, completed = (int(meta_db.execute("SELECT value FROM meta WHERE key = ?", (k,)).fetchone()[0])
                                for k in ("start_ns", "end_ns"))
            last = meta_db.execute("SELECT MAX(e) FROM (SELECT MAX(end_ns) AS e FROM api_calls UNION ALL "
                                   "SELECT MAX(device_end_ns) FROM kernels UNION ALL "
                                   "SELECT MAX(device_end_ns) FROM copies)").fetchone()[0]
        finally:
            meta_db.close()
        self.assertAlmostEqual(duration, last - start, delta=(last - start) * 0.01 + 1000, msg=page.tables["processes"])
        self.assertAlmostEqual(db_build, completed - last, delta=(completed - last) * 0.01 + 1000,
                               msg=page.tables["processes"])
        # Busy time per stream, as the db has it (the sum of the stream's kernel and copy durations).
        db = e2e.open_db(self.paths["db"])
        try:
            busy = {(device, stream): total for device, stream, total in db.execute(
                "SELECT device, stream_index, SUM(device_end_ns - device_begin_ns) FROM ("
                " SELECT device, stream_index, device_begin_ns, device_end_ns FROM kernels UNION ALL"
                " SELECT device, stream_index, device_begin_ns, device_end_ns FROM copies)"
                " WHERE device_begin_ns IS NOT NULL AND device_end_ns IS NOT NULL GROUP BY 1, 2")}
        finally:
            db.close()
        cells = page.tables["streams-table"]
        got = {(int(cells[i]), int(cells[i + 1])): int(cells[i + 4]) for i in range(0, len(cells), 9)}
        self.assertEqual(got, busy)
        self.assertIn("svg", page.tags)
        # Self-contained: no script, nothing loaded from anywhere; links only to files beside it.
        self.assertNotIn("script", page.tags)
        self.assertFalse([a for a in page.attributes if a[0] in ("src", "srcset")], "nothing is loaded")
        timeline = os.path.basename(self.paths["json"])
        self.assertIn(timeline, page.hrefs)
        for href in page.hrefs:
            self.assertTrue(href.startswith("#") or os.path.isfile(os.path.join(self.out, href)), href)

    def test_merged_report_lists_each_process(self):
        runs = os.path.join(self.tmp, "runs")
        os.makedirs(runs)
        shutil.copy(self.paths["db"], runs)
        second = e2e.run_prof(["--sim", "-d", runs, self.app, "256", "1"], cwd=self.tmp)
        self.assertEqual(second.returncode, 0, e2e.describe(second))
        merged = os.path.join(self.tmp, "merged")
        os.makedirs(merged)
        done = e2e.run_prof(["--db-merge", runs, "-d", merged, "-o", "all"], cwd=self.tmp)
        self.assertEqual(done.returncode, 0, e2e.describe(done))
        page = parse(os.path.join(merged, "all.report.html"))
        pids = sorted(int(cell.split()[1].rstrip(",")) for cell in page.tables["processes"][0::7])
        self.assertEqual(pids, sorted([self.pid, e2e.parse_pid(second.stdout)]))
        self.assertIn("all_copy.json", page.hrefs)

    def run_browser(self, report, shots, *args):
        done = subprocess.run(["node", os.path.join(BROWSER_DIR, "check_report.mjs"), "--report", report,
                               "--shots", shots, "--chromium", CHROMIUM, *args],
                              capture_output=True, text=True, timeout=150)
        self.assertEqual(done.returncode, 0, f"\n{done.stdout}\n{done.stderr}")
        self.assertIn(" 0 failed", done.stdout)
        return done

    def test_in_chromium(self):
        if not self.browser:
            self.skipTest("the browser check runs in the normal stage, not under sanitizers")
        shots = os.path.join(self.tmp, "shots")
        args = [arg for name in self.kernel_names for arg in ("--kernel", name)]
        # The page shows every finding `prof --analyze` gives for the same db.
        analyzed = e2e.run_prof(["--db", self.paths["db"], "--analyze", "--format", "json"], cwd=self.tmp)
        self.assertEqual(analyzed.returncode, 0, e2e.describe(analyzed))
        findings = len(json.loads(analyzed.stdout)["findings"])
        self.run_browser(self.paths["html"], shots, *args, "--findings", str(findings),
                         "--lane", "Compute on Device 0", "--lane", "Runtime API")
        for png in ("report.png", "timeline.png"):
            self.assertTrue(os.path.getsize(os.path.join(shots, png)) > 10000, png)
        # Names that HTML must escape, from a copy of the run's db with one kernel renamed.
        odd = os.path.join(self.tmp, "odd")
        os.makedirs(odd)
        db_copy = os.path.join(odd, "renamed.db")
        shutil.copy(self.paths["db"], db_copy)
        with sqlite3.connect(db_copy) as db:
            db.execute("UPDATE strings SET value = ? WHERE string_id = (SELECT MIN(name_id) FROM kernels)",
                       (ODD_NAME,))
        db.close()
        done = e2e.run_prof(["--db", db_copy, "-d", odd, "-o", "odd"], cwd=self.tmp)
        self.assertEqual(done.returncode, 0, e2e.describe(done))
        self.run_browser(os.path.join(odd, "odd.report.html"), os.path.join(odd, "shots"), "--kernel", ODD_NAME,
                         "--no-viewer")
        keep = os.environ.get("PROF_BROWSER_SHOTS")
        if keep:
            os.makedirs(keep, exist_ok=True)
            for png in ("report.png", "timeline.png"):
                shutil.copy(os.path.join(shots, png), os.path.join(keep, png))
            shutil.copy(os.path.join(odd, "shots", "report.png"), os.path.join(keep, "report_odd_names.png"))


if __name__ == "__main__":
    e2e.main()
