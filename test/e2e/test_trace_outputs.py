"""e2e: the per-event trace CSVs, the copy statistics and the memory view of a real run (the
multistream sample on the simulated device), each checked against the database.

    python3 test/e2e/test_trace_outputs.py --prof build/bin/prof --bin-dir build/test-bin
"""
import csv
import os
import re
import shutil
import tempfile
import unittest

import e2e_common as e2e


def rows(path):
    with open(path, newline="", encoding="utf-8") as stream:
        return list(csv.DictReader(stream))


class TraceOutputsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        app = e2e.built_sample("multistream")
        cls.tmp = tempfile.mkdtemp(prefix="prof-e2e-traces-")
        # Removed also when setUpClass fails half-way (tearDownClass then does not run).
        cls.addClassCleanup(shutil.rmtree, cls.tmp, True)
        cls.done = e2e.run_prof(["--sim", "-d", cls.tmp, app, "4096", "3"], cwd=cls.tmp)
        if cls.done.returncode != 0:
            raise AssertionError("profiling failed" + e2e.describe(cls.done))
        cls.pid = e2e.parse_pid(cls.done.stdout)
        cls.paths = e2e.output_paths(cls.tmp, cls.pid)
        cls.db = e2e.open_db(cls.paths["db"])

    @classmethod
    def tearDownClass(cls):
        cls.db.close()

    def test_kernel_trace_has_every_dispatch(self):
        trace = {int(r["Correlation_Id"]): r for r in rows(self.paths["kernel_trace"])}
        kernels = self.db.execute("SELECT k.*, s.value AS name FROM kernels k JOIN strings s ON s.string_id = k.name_id"
                                  ).fetchall()
        self.assertEqual(sorted(trace), sorted(k["correlation_id"] for k in kernels))
        names = {r["Name"] for r in rows(self.paths["kernel"])}
        for k in kernels:
            r = trace[k["correlation_id"]]
            self.assertEqual((r["Kind"], r["Runtime"], int(r["Process_Id"])), ("KERNEL_DISPATCH", "hip", self.pid))
            self.assertEqual(int(r["Start_Timestamp"]), k["device_begin_ns"])
            self.assertEqual(int(r["End_Timestamp"]), k["device_end_ns"])
            self.assertEqual(int(r["Duration_Ns"]), k["device_end_ns"] - k["device_begin_ns"])
            self.assertEqual([int(r[f"Grid_Dim_{a}"]) for a in "XYZ"], [k["grid_x"], k["grid_y"], k["grid_z"]])
            self.assertEqual([int(r[f"Workgroup_Size_{a}"]) for a in "XYZ"], [k["block_x"], k["block_y"], k["block_z"]])
            self.assertEqual(int(r["Shared_Memory_Bytes"]), k["shared_mem_bytes"])
            self.assertIn(r["Kernel_Name"], names, "demangled as in the kernel statistics")
        ids = [int(r["Correlation_Id"]) for r in rows(self.paths["kernel_trace"])]
        self.assertEqual(ids, sorted(ids), "in launch order")

    def test_copy_trace_and_copy_stats(self):
        directions = dict(self.db.execute("SELECT direction, name FROM copy_directions").fetchall())
        copies = self.db.execute("SELECT * FROM copies").fetchall()
        trace = {int(r["Correlation_Id"]): r for r in rows(self.paths["copy_trace"])}
        self.assertEqual(sorted(trace), sorted(c["correlation_id"] for c in copies))
        per_direction = {}
        for c in copies:
            r = trace[c["correlation_id"]]
            name = directions[c["direction"]]
            self.assertEqual(r["Direction"], name)
            self.assertEqual(r["Kind"], "MEMORY_SET" if name == "Memset" else "MEMORY_COPY")
            self.assertEqual(int(r["Size"]), c["bytes"])
            ns = c["device_end_ns"] - c["device_begin_ns"]
            self.assertEqual(int(r["Duration_Ns"]), ns)
            self.assertAlmostEqual(float(r["Bandwidth_GBps"]), c["bytes"] / ns, delta=0.0006)
            calls, size, total = per_direction.get(name, (0, 0, 0))
            per_direction[name] = (calls + 1, size + c["bytes"], total + ns)
        stats = {r["Direction"]: r for r in rows(self.paths["copy_stats"])}
        self.assertEqual(set(stats), set(per_direction))
        for name, (calls, size, total) in per_direction.items():
            r = stats[name]
            self.assertEqual((int(r["Calls"]), int(r["TotalBytes"]), int(r["TotalDurationNs"])), (calls, size, total))
            self.assertAlmostEqual(float(r["BandwidthGBps"]), size / total, delta=0.0006)

    def test_api_trace_has_every_call_in_order(self):
        trace = rows(self.paths["api_trace"])
        self.assertEqual(len(trace), e2e.scalar(self.db, "SELECT COUNT(*) FROM api_calls"))
        self.assertEqual(sorted(int(r["Sequence"]) for r in trace), list(range(1, len(trace) + 1)))
        ids = [int(r["Correlation_Id"]) for r in trace]
        self.assertEqual(ids, sorted(ids), "in correlation id order")
        calls = {c["correlation_id"]: c for c in self.db.execute(
            "SELECT c.*, n.name FROM api_calls c JOIN api_names n USING (api_id)")}
        for r in trace:
            c = calls[int(r["Correlation_Id"])]
            self.assertEqual((r["Domain"], r["Function"], int(r["Thread_Id"])), ("hip", c["name"], c["thread_id"]))
            self.assertEqual((int(r["Start_Timestamp"]), int(r["End_Timestamp"]), int(r["Result"])),
                             (c["begin_ns"], c["end_ns"], c["result"]))

    def expected_memory(self):
        """Replays the allocation calls of the db: peak bytes in use per (kind, device)."""
        live, in_use, peak = {}, {}, {}
        sql = ("SELECT n.name, c.device, c.bytes, c.aux, c.result FROM api_calls c JOIN api_names n USING (api_id)"
               " WHERE n.name IN ('hipMalloc', 'hipFree', 'hipHostMalloc', 'hipHostFree') ORDER BY c.end_ns")
        for name, device, size, pointer, result in self.db.execute(sql):
            if result != 0:
                continue
            if name in ("hipMalloc", "hipHostMalloc"):
                key = ("device", device) if name == "hipMalloc" else ("host", -1)
                live[pointer] = (key, size)
                in_use[key] = in_use.get(key, 0) + size
                peak[key] = max(peak.get(key, 0), in_use[key])
            elif pointer in live:
                key, size = live.pop(pointer)
                in_use[key] -= size
        return peak, in_use

    def test_memory_view(self):
        peak, at_exit = self.expected_memory()
        self.assertTrue(peak, "the sample allocates device and pinned host memory")
        stats = {r["Name"]: r for r in rows(self.paths["memory_stats"])}
        for name in ("hipMalloc", "hipFree", "hipHostMalloc", "hipHostFree"):
            count = e2e.scalar(self.db, "SELECT COUNT(*) FROM api_calls JOIN api_names USING (api_id) WHERE name = ?",
                               name)
            self.assertEqual(int(stats[name]["Calls"]), count, name)
        malloc_bytes = e2e.scalar(self.db, "SELECT SUM(bytes) FROM api_calls JOIN api_names USING (api_id) "
                                           "WHERE name = 'hipMalloc' AND result = 0")
        self.assertEqual(int(stats["hipMalloc"]["TotalBytes"]), malloc_bytes)
        # The timeline: a counter track whose largest sample is the peak and whose last is what is left.
        trace = e2e.read_json(self.paths["json"])
        samples = [e for e in trace["traceEvents"] if e.get("ph") == "C" and e["name"] == "Device memory in use"]
        self.assertEqual(max(e["args"]["bytes"] for e in samples), peak[("device", 0)])
        self.assertEqual(samples[-1]["args"]["bytes"], at_exit[("device", 0)])
        host = [e for e in trace["traceEvents"] if e.get("ph") == "C" and e["name"] == "Pinned host memory in use"]
        self.assertEqual(max(e["args"]["bytes"] for e in host), peak[("host", -1)])
        # The summary: peak and at-exit per device.
        summary = self.done.stdout
        self.assertIn("Memory in use (peak, still allocated at exit)", summary)
        line = next(l for l in summary.splitlines() if l.strip().startswith("Device 0, device"))
        self.assertRegex(line, r"\d+\.\d\d KiB|\d+ B")

    def test_regenerated_from_the_db_byte_for_byte(self):
        again = os.path.join(self.tmp, "again")
        os.makedirs(again)
        done = e2e.run_prof(["--db", self.paths["db"], "-d", again], cwd=self.tmp)
        self.assertEqual(done.returncode, 0, e2e.describe(done))
        for key in ("api_trace", "kernel_trace", "copy_trace", "copy_stats", "memory_stats"):
            with open(self.paths[key], "rb") as first, open(os.path.join(again, os.path.basename(self.paths[key])),
                                                            "rb") as second:
                self.assertEqual(first.read(), second.read(), key)


if __name__ == "__main__":
    e2e.main()
