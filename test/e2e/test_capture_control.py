"""e2e: capture control on prof's simulated devices, with test/apps/toggle_sample.cpp.
`--trace-start off` records exactly the calls inside the program's hipProfilerStart/Stop windows
(and roctxProfilerResume/Pause's), keeps the work enqueued inside a window whole (its device times
measured after the window closed), records the windows (capture_windows, a "Capture" lane, a note in
the summary); `--delay`/`--duration` open and close one window by time (never early; how late the
timer fires on a loaded machine is a benchmark, scripts/bench.sh --only timing, not a bound here);
bad values get one plain line and status 2.

    python3 test/e2e/test_capture_control.py --prof build/bin/prof --bin-dir build/test-bin
"""
import os
import re
import shutil
import tempfile
import unittest

import e2e_common as e2e

APP = "toggle_sample"


def run(test, flags, app_args=()):
    tmp = tempfile.mkdtemp(prefix="prof-e2e-capture-control-")
    test.addCleanup(shutil.rmtree, tmp, True)
    out = os.path.join(tmp, "out")
    done = e2e.run_prof(["--sim", *flags, "-d", out, e2e.sample(APP), *app_args], cwd=tmp)
    test.assertEqual(done.returncode, 0, e2e.describe(done))
    pid = e2e.parse_pid(done.stdout)
    return out, done, pid, e2e.open_db(os.path.join(out, f"hip-prof-{pid}.db"))


def windows(stdout):
    return [(int(n), int(calls), names.split(",") if names else [])
            for n, calls, names in re.findall(r"^WINDOW (\d+) calls=(\d+) names=(.*)$", stdout, re.MULTILINE)]


class CaptureControlTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.access(e2e.sample(APP), os.X_OK):
            raise unittest.SkipTest(f"sample {e2e.sample(APP)} is not built")

    def test_trace_start_off_records_exactly_the_calls_inside_the_windows(self):
        out, done, pid, db = run(self, ["--trace-start", "off"])
        with db:
            expected = windows(done.stdout)
            self.assertEqual(len(expected), 4)
            rows = db.execute("SELECT * FROM capture_windows ORDER BY begin_ns").fetchall()
            self.assertEqual([(r["started_by"], r["stopped_by"]) for r in rows],
                             [("hipProfilerStart", "hipProfilerStop")] * 3 + [("roctxProfilerResume", "roctxProfilerPause")])
            calls = db.execute("SELECT c.begin_ns, c.end_ns, n.name FROM api_calls c JOIN api_names n USING (api_id)"
                               " ORDER BY c.sequence").fetchall()
            self.assertEqual(len(calls), sum(count for _, count, _ in expected))
            # Each window holds exactly its own calls, in the program's order.
            for (n, count, names), window in zip(expected, rows):
                inside = [c["name"] for c in calls if window["begin_ns"] <= c["begin_ns"] and c["end_ns"] <= window["end_ns"]]
                self.assertEqual(inside, names, f"window {n}")
            # The work enqueued in window 1 is whole: the kernel and the copy have device times,
            # and they ended after the window had closed.
            first = rows[0]
            for table in ("kernels", "copies"):
                row = db.execute(f"SELECT device_begin_ns, device_end_ns FROM {table}").fetchone()
                self.assertIsNotNone(row, table)
                self.assertIsNotNone(row["device_end_ns"], table)
                self.assertGreaterEqual(row["device_begin_ns"], first["begin_ns"])
            self.assertEqual(e2e.scalar(db, "SELECT value FROM meta WHERE key = 'capture_control'"), "--trace-start off")
        self.assertIn("capture control (--trace-start off): recorded 4 windows", done.stdout)
        trace = e2e.read_json(os.path.join(out, f"result_{pid}_copy.json"))["traceEvents"]
        lane = [e for e in trace if e.get("ph") == "M" and e["name"] == "thread_name" and e["args"]["name"] == "Capture"]
        self.assertEqual(len(lane), 1)
        slices = [e for e in trace if e.get("ph") == "X" and e.get("cat") == "capture"]
        self.assertEqual([e["args"]["window"] for e in slices], [1, 2, 3, 4])

    def test_without_capture_control_every_call_is_recorded(self):
        out, done, pid, db = run(self, [])
        with db:
            inside = sum(count for _, count, _ in windows(done.stdout))
            outside = int(re.search(r"^OUTSIDE calls=(\d+)$", done.stdout, re.MULTILINE).group(1))
            self.assertEqual(e2e.scalar(db, "SELECT COUNT(*) FROM api_calls"), inside + outside)
            self.assertEqual(e2e.scalar(db, "SELECT COUNT(*) FROM capture_windows"), 0)
        self.assertNotIn("capture control", done.stdout)

    def test_delay_and_duration_record_one_window_by_time(self):
        out, done, pid, db = run(self, ["--delay", "300ms", "--duration", "400ms"], ["timed", "1.5"])
        with db:
            made = int(re.search(r"^TIMED calls=(\d+)$", done.stdout, re.MULTILINE).group(1))
            start = int(e2e.scalar(db, "SELECT value FROM meta WHERE key = 'start_ns'"))
            rows = db.execute("SELECT * FROM capture_windows").fetchall()
            self.assertEqual(len(rows), 1)
            window = rows[0]
            self.assertEqual((window["started_by"], window["stopped_by"]), ("--delay", "--duration"))
            # Never early (a timer may fire late on a loaded machine: the window then shifts).
            self.assertGreaterEqual(window["begin_ns"] - start, 300_000_000)
            self.assertGreaterEqual(window["end_ns"] - window["begin_ns"], 400_000_000 - 1_000_000)
            recorded = e2e.scalar(db, "SELECT COUNT(*) FROM api_calls")
            self.assertGreater(recorded, 0)
            self.assertLess(recorded, made)
            outside = e2e.scalar(db, "SELECT COUNT(*) FROM api_calls WHERE begin_ns < ?1 OR end_ns > ?2",
                                 window["begin_ns"], window["end_ns"])
            self.assertEqual(outside, 0)
            self.assertEqual(e2e.scalar(db, "SELECT value FROM meta WHERE key = 'capture_control'"),
                             "--delay 300ms --duration 400ms")

    def test_duration_alone_starts_at_the_programs_start(self):
        out, done, pid, db = run(self, ["--duration", "200ms"], ["timed", "0.6"])
        with db:
            window = db.execute("SELECT * FROM capture_windows").fetchone()
            start = int(e2e.scalar(db, "SELECT value FROM meta WHERE key = 'start_ns'"))
            # Open from the program's start: the window's begin is the start itself.
            self.assertEqual(window["begin_ns"], start)
            self.assertEqual(window["started_by"], "--delay", "logged as a delay of 0")
            self.assertEqual(window["stopped_by"], "--duration")
            self.assertGreater(e2e.scalar(db, "SELECT COUNT(*) FROM api_calls"), 0)

    def test_first_call_after_the_delay_is_the_windows_first(self):
        # Python loading the runtime late (ctypes): no thread of prof's before its first call (the
        # timer starts with it), and a first call made after --delay opens the window itself.
        program = ("import ctypes, os, time\n"
                   "print('threads', len(os.listdir('/proc/self/task')))\n"
                   "time.sleep(0.3)\n"
                   "hip = ctypes.CDLL('libamdhip64.so')\n"
                   "print('errors', sum(hip.hipStreamQuery(None) != 0 for _ in range(100)))\n"
                   "print('PID', os.getpid())\n")
        tmp = tempfile.mkdtemp(prefix="prof-e2e-capture-late-")
        self.addCleanup(shutil.rmtree, tmp, True)
        done = e2e.run_prof(["--sim", "--delay", "100ms", "-d", tmp, "python3", "-c", program], cwd=tmp)
        self.assertEqual(done.returncode, 0, e2e.describe(done))
        self.assertIn("threads 1\nerrors 0\n", done.stdout, e2e.describe(done))
        pid = e2e.parse_pid(done.stdout)
        with e2e.open_db(os.path.join(tmp, f"hip-prof-{pid}.db")) as db:
            self.assertEqual(e2e.scalar(db, "SELECT COUNT(*) FROM api_calls"), 100)
            window = db.execute("SELECT * FROM capture_windows").fetchone()
            self.assertEqual(window["started_by"], "--delay")
            self.assertLessEqual(window["begin_ns"], e2e.scalar(db, "SELECT MIN(begin_ns) FROM api_calls"))

    def test_bad_values_are_one_plain_line(self):
        for flags, expected in ((["--delay", "10"], "--delay 10: expected a time with a unit"),
                                (["--duration", "soon"], "--duration soon: expected a time with a unit"),
                                (["--duration", "0s"], "--duration 0s: expected a time with a unit"),
                                (["--trace-start", "maybe"], "--trace-start maybe: expected on or off")):
            done = e2e.run_prof([*flags, e2e.sample(APP)], cwd=tempfile.gettempdir())
            self.assertEqual(done.returncode, 2, e2e.describe(done))
            lines = done.stderr.strip().splitlines()
            self.assertEqual(len(lines), 1, done.stderr)
            self.assertTrue(lines[0].startswith(f"prof: {expected}"), lines[0])


if __name__ == "__main__":
    e2e.main()
