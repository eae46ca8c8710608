"""e2e device times on a busy host: with two busy loops per CPU beside it, `prof --sim` on the
multistream sample (built by g++, and by hipcc when present) and on the CNRT and MUSA samples at
~10,000 ops must give every kernel, copy and memset exactly the device times of the simulator's
truth file. prof takes HIP's device times from the runtime's own per-op reports
(hipInitActivityCallback), CNRT's from Cambricon's CNPAPI activity records (libcnpapi.so) and
MUSA's from MUPTI's (libmupti.so), both joined to prof's pushed external ids
(docs/design-device-timing.md), which a real device stamps itself: when the program's threads run
does not move them. Asserted on what prof recorded (every op, to the ns), never on how long
anything took. The ACL sample is held to the same, with its device times from MSPTI
(libmspti.so's activity records); the calls whose work is several ops are left out (below).

    python3 test/e2e/test_busy_host.py --prof build/bin/prof --bin-dir build/test-bin
"""
import collections
import os
import subprocess
import tempfile
import unittest

import e2e_common as e2e

SAMPLE_ARGS = ["1024", "1000"]  # 10,001 ops: kernels, copies and memsets on several streams
CNRT_ROUNDS = "2500"  # 10,000 ops beside the sample's own 24: four per round on three queues
MUSA_ROUNDS = "2000"  # 2000 rounds of 5 ops: 10,003 ops on one stream and the null one
ACL_ROUNDS = "2000"  # acl_sample: 2000 rounds of five ops


class BusyLoops:
    """Two busy loops per CPU, for the length of a `with` block."""

    def __enter__(self):
        count = 2 * (os.cpu_count() or 1)
        self.loops = [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(count)]
        return self

    def __exit__(self, *exc):
        for loop in self.loops:
            loop.kill()
        for loop in self.loops:
            loop.wait()


class BusyHostTest(unittest.TestCase):
    def device_times_beside_busy_loops(self, app, runtime="hip", args=SAMPLE_ARGS, stream_handles=None):
        path = e2e.built_sample(app, "(multistream_hip needs hipcc)")
        with tempfile.TemporaryDirectory(prefix=f"prof-e2e-busy-{app}-") as tmp:
            truth_path = os.path.join(tmp, "truth.jsonl")
            with BusyLoops():
                done = e2e.run_prof(["--sim", f"--{runtime}-trace", "-d", tmp, "--output-format", "stats", path, *args],
                                    cwd=tmp, env={"PROF_SIM_TRUTH": truth_path})
            self.assertEqual(done.returncode, 0, e2e.describe(done))
            dbs = e2e.find_dbs(tmp, runtime)
            self.assertEqual(len(dbs), 1, e2e.describe(done))
            truth = e2e.read_truth(truth_path)
            db = e2e.open_db(dbs[0])
            try:
                # Kinds, bytes, geometry and order per stream, and times within 1 us...
                self.assertEqual(e2e.truth_mismatches(self, db, truth, stream_handles=stream_handles), [],
                                 "device times off beside busy loops")
                # ... and in fact to the ns: every op's (begin, end) is the truth's.
                ours = sorted(tuple(row) for row in db.execute(
                    "SELECT device_begin_ns, device_end_ns FROM kernels UNION ALL "
                    "SELECT device_begin_ns, device_end_ns FROM copies"))
            finally:
                db.close()
            self.assertEqual(len(ours), len(truth))
            self.assertEqual(ours, sorted((op["begin_ns"], op["end_ns"]) for op in truth))
            return len(ours)

    def test_multistream_device_times_are_the_truths(self):
        self.device_times_beside_busy_loops("multistream")

    def test_hipcc_built_multistream_device_times_are_the_truths(self):
        self.device_times_beside_busy_loops("multistream_hip")

    def test_cnrt_sample_device_times_are_the_truths(self):
        # The model numbers the per-thread queue 2 (HIP's number); CNRT's program says 1 (test_cnrt.py).
        ops = self.device_times_beside_busy_loops("cnrt_sample", "cnrt", [CNRT_ROUNDS], stream_handles={2: 1})
        self.assertGreaterEqual(ops, 4 * int(CNRT_ROUNDS))

    def test_musa_sample_device_times_are_the_truths(self):
        # As test_musa.py matches MUSA's truth: the model's stream handles are the program's.
        ops = self.device_times_beside_busy_loops("musa_sample", "musa", [MUSA_ROUNDS])
        self.assertGreaterEqual(ops, 5 * int(MUSA_ROUNDS))
    def test_acl_sample_device_times_are_the_truths(self):
        """ACL: the sample with 2000 rounds (10,000 ops beside its own few dozen), whose device times
        prof takes from MSPTI (the simulated libmspti.so beside libascendcl.so): every kernel, copy
        and memset of one op per call has, stream by stream, exactly the truth's (begin, end). The
        calls whose work is several ops (aclmdlExecute, aclmdlExecuteAsync, aclmdlRIExecuteAsync:
        hook_support.hpp enqueues_several_ops) are timed by events around the call and left out:
        their rows are the model's two runs and the two graph launches, whose four captured
        operators the truth lists one by one."""
        path = e2e.built_sample("acl_sample", "")
        with tempfile.TemporaryDirectory(prefix="prof-e2e-busy-acl-") as tmp:
            truth_path = os.path.join(tmp, "truth.jsonl")
            with BusyLoops():
                done = e2e.run_prof(["--sim", "-d", tmp, "--output-format", "stats", path, ACL_ROUNDS],
                                    cwd=tmp, env={"PROF_SIM_TRUTH": truth_path})
            self.assertEqual(done.returncode, 0, e2e.describe(done))
            dbs = e2e.find_dbs(tmp, "acl")
            self.assertEqual(len(dbs), 1, e2e.describe(done))
            truth = e2e.read_truth(truth_path)
            db = e2e.open_db(dbs[0])
            try:
                rows = db.execute(
                    "SELECT s.stream_handle, 'kernel', n.value, k.device_begin_ns, k.device_end_ns, 0 FROM kernels k "
                    "JOIN streams s USING (stream_index) JOIN strings n ON n.string_id = k.name_id "
                    "UNION ALL SELECT s.stream_handle, CASE WHEN lower(d.name) = 'memset' THEN 'memset' ELSE 'copy' END, "
                    "NULL, c.device_begin_ns, c.device_end_ns, c.bytes FROM copies c "
                    "JOIN streams s USING (stream_index) JOIN copy_directions d ON d.direction = c.direction").fetchall()
            finally:
                db.close()
        several = {"model tiny_resnet.om", "[graph launch]"}
        self.assertEqual(sum(1 for r in rows if r[2] in several), 4, "two model runs and two graph launches")
        # The graph's nodes: on the stream of the graph launches, each captured Add and the Mul after it.
        graph_streams = {r[0] for r in rows if r[2] == "[graph launch]"}
        by_seq = {(t["stream"], t["op_seq"]): t for t in truth}
        nodes = set()
        for t in truth:
            if t["stream"] in graph_streams and t.get("name") == "Add":
                nodes |= {(t["stream"], t["op_seq"]), (t["stream"], t["op_seq"] + 1)}
        self.assertEqual(len(nodes), 4, "two replays of two captured operators")
        self.assertTrue(all(by_seq[n].get("name") in ("Add", "Mul") for n in nodes))
        expected = collections.defaultdict(list)
        for t in truth:
            if (t["stream"], t["op_seq"]) not in nodes and t.get("name") not in several:
                expected[t["stream"]].append((t["kind"], t["begin_ns"], t["end_ns"], t["bytes"] if t["kind"] != "kernel" else 0))
        ours = collections.defaultdict(list)
        for handle, kind, name, begin, end, size in rows:
            if name not in several:
                ours[handle].append((kind, begin, end, size))
        total = sum(len(ops) for ops in expected.values())
        self.assertGreaterEqual(total, 10000)
        self.assertEqual(sorted(ours), sorted(expected), "the streams")
        off = []
        for handle in expected:
            theirs, mine = sorted(expected[handle], key=lambda op: op[1:]), sorted(ours[handle], key=lambda op: op[1:])
            self.assertEqual(len(mine), len(theirs), f"stream {handle}: ops")
            stream_off = [(a, b) for a, b in zip(mine, theirs) if a != b]
            print(f"stream {handle}: {len(theirs) - len(stream_off)}/{len(theirs)} ops exactly the truth's", flush=True)
            off += stream_off
        # A short message: unittest's diff of two 10,000-op lists takes minutes.
        self.assertEqual(off[:3], [], f"{len(off)} of {total} ops off beside busy loops (prof's, the truth's)")


if __name__ == "__main__":
    e2e.main()
