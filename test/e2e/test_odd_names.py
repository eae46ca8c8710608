"""e2e: hostile or odd kernel names (issue 42). The odd_names sample registers kernels through
hipModuleGetFunction with two names that differ only in bytes that are not UTF-8, one full of
terminal controls (ESC, U+202E, U+2028/9, BEL, a C1 CSI), CJK and combining names, and launches
each a different number of times. Under `prof --sim`:
- the two invalid-UTF-8 kernels stay two rows, with their own counts, in the kernel CSV, the JSON
  timeline, the run summary (JSON) and the terminal summary, and every name written reads back to
  the program's bytes (docs/formats.md, "Names");
- the terminal summary, and compare's text table, hold no raw ESC, BEL, C1, bidi or separator
  character: each is written as a visible escape;
- the summary's kernel table lines up on a terminal: the column after the name ends at the same
  display column on every row, CJK names included (two columns per character).

    python3 test/e2e/test_odd_names.py --prof build/bin/prof --bin-dir build/test-bin
"""
import collections
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unicodedata
import unittest

import e2e_common as e2e

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "integration"))
from prof_text import unescaped  # noqa: E402  (the documented reading back, test/integration)

BAD_A, BAD_B = b"bad\xff\xfe", b"bad\xfe\xff"
# Bytes that must never reach a terminal: ESC, BEL, C1 CSI (U+009B), U+202E, U+2028, U+2029.
RAW_CONTROLS = [b"\x1b", b"\x07", b"\xc2\x9b", "\u202e".encode(), "\u2028".encode(), "\u2029".encode()]


def columns(text):
    """Display columns on a terminal: East Asian Wide/Fullwidth 2, combining marks 0, else 1."""
    width = 0
    for char in text:
        if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me"):
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def run_bytes(command, cwd):
    env = dict(os.environ)
    env.pop("PROF_SIM_TRUTH", None)
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, timeout=e2e.TIMEOUT_S)


class OddNamesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.app = e2e.built_sample("odd_names")
        cls.tmp = tempfile.mkdtemp(prefix="prof-e2e-odd-names-")
        cls.addClassCleanup(shutil.rmtree, cls.tmp, True)
        cls.out = os.path.join(cls.tmp, "out")
        os.makedirs(cls.out)
        cls.done = run_bytes([e2e.Config.prof, "--sim", "-d", cls.out, cls.app], cwd=cls.tmp)
        if cls.done.returncode != 0:
            raise AssertionError(f"prof failed ({cls.done.returncode}): {cls.done.stderr[-2000:]!r}")
        stdout = cls.done.stdout
        lines = stdout.split(b"\n")
        cls.expected = {}  # raw name -> launches, as the program printed them
        for line in lines:
            if line.startswith(b"NAME "):
                _, hex_name, launches = line.decode("ascii").split()
                cls.expected[bytes.fromhex(hex_name)] = int(launches)
        cls.pid = int(re.search(rb"^PID (\d+)$", stdout, re.MULTILINE).group(1))
        cls.summary = b"\n".join(lines[lines.index(b"END") + 1:])  # prof's own lines
        cls.paths = e2e.output_paths(cls.out, cls.pid)

    def test_the_sample_names_what_it_launched(self):
        self.assertEqual(len(self.expected), 7)
        self.assertEqual(self.expected[BAD_A], 2)
        self.assertEqual(self.expected[BAD_B], 3)

    def test_kernel_csv_keeps_distinct_names_distinct(self):
        with open(self.paths["kernel"], "rb") as stream:
            text = stream.read().decode("utf-8")  # strict: valid UTF-8 whatever the names
        rows = list(csv.DictReader(io.StringIO(text, newline="")))
        got = {unescaped(row["Name"]): int(row["Calls"]) for row in rows}
        self.assertEqual(len(rows), len(self.expected), "one row per distinct kernel")
        self.assertEqual(got, self.expected)
        names = {row["Name"] for row in rows}
        self.assertIn("bad\\xff\\xfe", names)
        self.assertIn("bad\\xfe\\xff", names)

    def test_json_timeline_keeps_distinct_names_distinct(self):
        with open(self.paths["json"], "rb") as stream:
            trace = json.loads(stream.read().decode("utf-8"))
        launches = collections.Counter(unescaped(e["name"]) for e in trace["traceEvents"] if e.get("cat") == "kernel")
        self.assertEqual(dict(launches), self.expected)

    def test_run_summary_keeps_distinct_names_distinct(self):
        with open(self.paths["summary"], "rb") as stream:
            summary = json.loads(stream.read().decode("utf-8"))
        kernels = {unescaped(e["name"]): e["calls"] for e in summary["entries"] if e["kind"] == "kernel"}
        self.assertEqual(kernels, self.expected)

    def test_db_holds_the_raw_bytes(self):
        db = e2e.open_db(self.paths["db"])
        self.addCleanup(db.close)
        db.text_factory = bytes
        stored = {row[0] for row in db.execute("SELECT value FROM strings")}
        self.assertIn(BAD_A, stored)
        self.assertIn(BAD_B, stored)

    def test_terminal_summary_escapes_controls(self):
        for raw in RAW_CONTROLS:
            self.assertNotIn(raw, self.summary, f"{raw!r} reached the terminal raw")
        text = self.summary.decode("utf-8")
        # Escaped, then cut to the table's 37 name columns (34 and "...").
        self.assertIn("evil\\x1b[31m\\u202egpj.exe\\u2028\\u2...", text)
        self.assertRegex(text, r"\n  bad\\xff\\xfe +2 ")
        self.assertRegex(text, r"\n  bad\\xfe\\xff +3 ")

    def test_terminal_summary_columns_line_up(self):
        text = self.summary.decode("utf-8")
        table = text[text.index("\nKernels (") + 1:].split("\n\n")[0].split("\n")[1:]  # header and rows
        self.assertEqual(len(table), 1 + len(self.expected), text)
        ends = set()
        for line in table:
            # The Calls column is right-aligned after the name: where it ends is where the name's
            # column (padded) plus ten columns ends, on every row.
            match = re.match(r"^(.*?) +(Calls|\d+) ", line)
            self.assertIsNotNone(match, line)
            ends.add(columns(line[:match.end(2)]))
        self.assertEqual(len(ends), 1, "the Calls column ends at one display column:\n" + "\n".join(table))
        self.assertIn("\u6838\u51fd\u6570_\u8ba1\u7b97", text)  # the CJK name is shown, not escaped

    def test_compare_text_escapes_and_keeps_rows(self):
        # NEW: the run summary with every kernel 10x slower; BASE: the db. Names are read back from
        # the summary's escaped text to the db's bytes, so each kernel is one row on both sides
        # (regressed), not a vanished and a new one.
        with open(self.paths["summary"], "rb") as stream:
            summary = json.loads(stream.read().decode("utf-8"))
        for entry in summary["entries"]:
            if entry["kind"] == "kernel":
                for key in ("total_ns", "average_ns", "median_ns", "p95_ns", "min_ns", "max_ns"):
                    entry[key] = entry[key] * 10
        slower = os.path.join(self.tmp, "slower.summary.json")
        with open(slower, "w", encoding="utf-8") as stream:
            json.dump(summary, stream)
        done = run_bytes([e2e.Config.prof, "--compare", self.paths["db"], slower, "--min-time", "0"], cwd=self.tmp)
        self.assertIn(done.returncode, (0, 1), done.stderr)
        for raw in RAW_CONTROLS:
            self.assertNotIn(raw, done.stdout, f"{raw!r} reached the terminal raw")
        text = done.stdout.decode("utf-8")
        kernel_rows = [line for line in text.split("\n") if re.match(r"^\w+ +kernel ", line)]
        self.assertEqual(len(kernel_rows), len(self.expected), text)
        self.assertTrue(all(line.startswith("regressed") for line in kernel_rows), text)
        self.assertTrue(any(line.endswith("bad\\xff\\xfe") for line in kernel_rows), text)
        self.assertTrue(any(line.endswith("bad\\xfe\\xff") for line in kernel_rows), text)
        self.assertIn("evil\\x1b[31m\\u202egpj.exe", text)


if __name__ == "__main__":
    e2e.main()
