#!/usr/bin/env python3
"""Property test of the report's escaping: many random kernel and API names (commas, quotes,
backslashes, CR/LF, tabs, control bytes, NUL, non-ASCII UTF-8 and invalid UTF-8), with a fixed
seed so a failure reproduces. For every name the CSV read back by Python's csv module gives the
same fields (invalid bytes and NUL written as \\xNN, report/utf8.hpp), every field reads back to
the db's bytes, names that differ only in invalid bytes stay separate rows, and every JSON file
parses with the same names.

    python3 test/integration/check_names_property.py --tool build/test-bin/report_fixture_tool \\
        --work /tmp/prof-names [--seed 20240611] [--names 400]
"""
import argparse
import collections
import csv
import json
import os
import random
import shutil
import subprocess
import sys

from prof_text import escaped_text, unescaped

PIECES = [b",", b'"', b'""', b"\\", b"\\n", b"\n", b"\r", b"\r\n", b"\t", b" ", b"\x00", b"\x01", b"\x1f", b"\x7f",
          "λ".encode(), "核".encode(), "😀".encode(), "ü".encode(),
          b"\xff", b"\xfe", b"\xc0\xaf", b"\xe2\x82", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\x80", b"\xf0\x9f",
          b"<", b">", b"(", b")", b"*", b"&", b"'", b"{", b"}", b"[", b"]", b":", b"x", b"abc", b"float"]


def random_name(rng, prefix):
    # The prefix keeps names from looking mangled (_Z...), so the report shows them unchanged.
    return prefix + b"".join(rng.choice(PIECES) for _ in range(rng.randint(0, 12)))


def sql_text(raw):
    return f"CAST(X'{raw.hex()}' AS TEXT)"


def build_fixture(rng, count):
    kernels, apis = [], []
    seen = set()
    while len(kernels) < count:
        raw = random_name(rng, b"k")
        if raw not in seen:
            seen.add(raw)
            kernels.append((raw, rng.randint(1, 3)))
    while len(apis) < count // 4:
        raw = random_name(rng, b"hip")
        if raw not in seen:
            seen.add(raw)
            apis.append((raw, rng.randint(1, 3)))
    lines = ["INSERT INTO meta (key, value) VALUES ('schema_version', '1'), ('pid', '1'), ('start_ns', '0');",
             "INSERT INTO threads (thread_id, thread_index, created_ns) VALUES (7, 0, 0);"]
    lines += [f"INSERT INTO api_names (api_id, name) VALUES ({i + 1}, {sql_text(raw)});" for i, (raw, _) in enumerate(apis)]
    lines += [f"INSERT INTO strings (string_id, value) VALUES ({i + 1}, {sql_text(raw)});"
              for i, (raw, _) in enumerate(kernels)]
    correlation, t = 0, 1000
    for i, (_, calls) in enumerate(apis):
        for _ in range(calls):
            correlation += 1
            t += 100
            lines.append(f"INSERT INTO api_calls VALUES ({correlation}, {correlation}, {i + 1}, 7, {t}, {t + 50},"
                         " 0, NULL, 0, 0, 0);")
    for i, (_, calls) in enumerate(kernels):
        for _ in range(calls):
            correlation += 1
            t += 100
            lines.append(f"INSERT INTO kernels VALUES ({correlation}, {i + 1}, 4096, 0, 0, 1, 1, 1, 64, 1, 1, 0,"
                         f" {t}, {t + 10 + i});")
    return kernels, apis, "\n".join(lines) + "\n"


def expected_rows(names):
    """(name as written, calls) for each name: one row per distinct name."""
    return collections.Counter((escaped_text(raw), calls) for raw, calls in names)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tool", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--seed", type=int, default=20240611)
    parser.add_argument("--names", type=int, default=400)
    options = parser.parse_args()
    rng = random.Random(options.seed)
    shutil.rmtree(options.work, ignore_errors=True)
    os.makedirs(options.work)
    kernels, apis, sql = build_fixture(rng, options.names)
    fixture = os.path.join(options.work, "names.sql")
    with open(fixture, "w", encoding="ascii") as stream:
        stream.write(sql)
    done = subprocess.run([options.tool, fixture, options.work, "--group-stream"], capture_output=True)
    if done.returncode != 0:
        print(done.stderr.decode(errors="replace"))
        return 1
    failures = []
    for suffix, names in ((".kernel.csv", kernels), (".hiptrace.csv", apis)):
        path = os.path.join(options.work, "result" + suffix)
        with open(path, "rb") as stream:
            data = stream.read()
        data.decode("utf-8")  # strict: the file is valid UTF-8
        with open(path, newline="", encoding="utf-8") as stream:
            rows = list(csv.reader(stream))
        # hipprof's 8 columns, then MedianNs and P95Ns.
        if any(len(row) != 10 for row in rows):
            failures.append(f"{path}: a row without 10 fields")
        got = collections.Counter((row[0], int(row[1])) for row in rows[1:])
        if got != expected_rows(names):
            missing = expected_rows(names) - got
            failures.append(f"{path}: fields differ, e.g. expected {list(missing.items())[:3]}")
        if len(rows) - 1 != len(names):
            failures.append(f"{path}: {len(rows) - 1} rows for {len(names)} distinct names")
        if sorted(unescaped(row[0]) for row in rows[1:]) != sorted(raw for raw, _ in names):
            failures.append(f"{path}: names do not read back to the db's bytes")
    for suffix in ("_copy.json", "_stream.json"):
        path = os.path.join(options.work, "result" + suffix)
        with open(path, "rb") as stream:
            trace = json.loads(stream.read().decode("utf-8"))
        launches = collections.Counter(e["name"] for e in trace["traceEvents"] if e.get("cat") == "kernel")
        want = collections.Counter()
        for raw, calls in kernels:
            want[escaped_text(raw)] += calls
        if launches != want:
            failures.append(f"{path}: kernel names differ from the db's")
        calls = collections.Counter(e["name"] for e in trace["traceEvents"] if e.get("cat") == "api")
        want = collections.Counter()
        for raw, count in apis:
            want[escaped_text(raw)] += count
        if calls != want:
            failures.append(f"{path}: API names differ from the db's")
    for failure in failures:
        print("FAIL:", failure)
    print(f"{len(kernels) + len(apis)} names (seed {options.seed}): {'ok' if not failures else 'FAILED'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
