"""e2e (no prof): the C MUSA sample on the simulated libmusart.so.5 alone. What the sample prints
(the CUDA semantics it exercises: round trips, the bad-handle error's name and text, the last error
kept by musaPeekAtLastError and cleared by musaGetLastError) and the simulated device's truth file
(every kernel, copy and memset of the sample, in stream order, with the model's durations and the
registered kernel's device name). e2e:musa runs the same sample under prof.

    python3 test/e2e/test_musa_sample_sim.py --prof build/bin/prof --bin-dir build/test-bin \
        --sim-dir build/lib/prof/sim
"""
import collections
import json
import os
import re
import shutil
import tempfile
import unittest

import e2e_common as e2e

APP = "musa_sample"
REGISTERED_NAME = "_Z9vectorAddPKfS0_Pfi"
ELEMENTS = 1 << 16  # the sample's kCount
BYTES = ELEMENTS * 4
THREADS = ELEMENTS  # grid kCount/256 x block 256

# sim/model.hpp's formulas for the sample's sizes.
KERNEL_NS = 5000 + THREADS // 4
COPY_H2D_D2H_NS = 2000 + BYTES // 12
MEMSET_NS = 1000 + BYTES // 800


class MusaSampleOnSimTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.app = e2e.built_sample(APP)
        cls.tmp = tempfile.mkdtemp(prefix="prof-e2e-musa-sim-")
        cls.addClassCleanup(shutil.rmtree, cls.tmp, True)
        cls.truth_path = os.path.join(cls.tmp, "truth.jsonl")
        cls.result = e2e.run_on_sim([cls.app], cwd=cls.tmp, env={"PROF_SIM_TRUTH": cls.truth_path})
        cls.lines = cls.result.stdout.splitlines()

    def line(self, prefix):
        found = [line for line in self.lines if line.startswith(prefix)]
        self.assertEqual(len(found), 1, f"one line starting {prefix!r} expected" + e2e.describe(self.result))
        return found[0]

    def truth(self):
        with open(self.truth_path, encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]

    def test_exits_zero_quietly(self):
        self.assertEqual(self.result.returncode, 0, e2e.describe(self.result))
        self.assertEqual(self.result.stderr, "", e2e.describe(self.result))
        self.assertEqual(self.lines[-1:], ["END"], e2e.describe(self.result))

    def test_device_and_round_trips(self):
        self.assertRegex(self.line("devices "),
                         r"^devices 2, device 0: prof simulated MUSA device, [1-9]\d* multiprocessors$")
        self.assertEqual(self.line("async round trip"), "async round trip matches, kernels timed yes")
        self.assertEqual(self.line("blocking round trip"), "blocking round trip matches")

    def test_bad_handle_error_and_last_error(self):
        # CUDA: an invalid stream is cudaErrorInvalidResourceHandle (400); the failure is the
        # thread's last error until GetLastError reads and clears it; Peek leaves it.
        self.assertEqual(self.line("bad stream:"),
                         "bad stream: 400 musaErrorInvalidResourceHandle (invalid resource handle)")
        self.assertEqual(self.line("last error:"), "last error: peek 400, get 400, then 0")

    def test_output_is_deterministic(self):
        again = e2e.run_on_sim([self.app], cwd=self.tmp)
        self.assertEqual(again.returncode, 0, e2e.describe(again))
        self.assertEqual(e2e.normalise_sample_output(again.stdout.splitlines()),
                         e2e.normalise_sample_output(self.lines))

    def test_truth_has_every_op_with_model_times_in_stream_order(self):
        expect = e2e.parse_expect(self.result.stdout)
        ops = self.truth()
        kernels = [op for op in ops if op["kind"] == "kernel"]
        copies = [op for op in ops if op["kind"] in ("copy", "memset")]
        self.assertEqual(len(kernels), expect["kernels"], ops)
        self.assertEqual(len(copies), expect["copies"], ops)
        self.assertTrue(all(op["device"] == 0 for op in ops), ops)

        # The registered kernel carries its device name; the directly launched one has none.
        self.assertEqual(sorted(str(op["name"]) for op in kernels), sorted([REGISTERED_NAME, "None"]))
        for op in kernels:
            self.assertEqual((op["grid"], op["block"]), ([ELEMENTS // 256, 1, 1], [256, 1, 1]), op)
            self.assertEqual(op["end_ns"] - op["begin_ns"], KERNEL_NS, op)

        by_stream = collections.defaultdict(list)
        for op in ops:
            by_stream[op["stream"]].append(op)
        self.assertEqual(len(by_stream), 2, f"the sample's stream and the legacy default stream: {ops}")
        self.assertIn(0, by_stream, "blocking calls run on the legacy default stream (0)")
        sequences = {}
        for stream, stream_ops in by_stream.items():
            stream_ops.sort(key=lambda op: op["stream_seq"])
            sequences[stream] = [op["direction"] or op["name"] or "kernel" for op in stream_ops]
            for before, after in zip(stream_ops, stream_ops[1:]):
                self.assertGreaterEqual(after["begin_ns"], before["end_ns"], f"stream {stream} overlaps: {stream_ops}")
        async_stream = next(s for s in by_stream if s != 0)
        self.assertEqual(sequences[async_stream], ["H2D", "H2D", REGISTERED_NAME, "kernel", "D2H"])
        self.assertEqual(sequences[0], ["memset", "H2D", "D2H"])

        for op in copies:
            self.assertEqual(op["bytes"], BYTES, op)
            modelled = MEMSET_NS if op["kind"] == "memset" else COPY_H2D_D2H_NS
            if op["stream"] == 0:
                # A blocking op ends when its bytes arrived: never before the modelled end.
                self.assertGreaterEqual(op["end_ns"] - op["begin_ns"], modelled, op)
            else:
                self.assertEqual(op["end_ns"] - op["begin_ns"], modelled, op)

        # The legacy default stream's first op began after the async stream's work: the sample
        # synchronised that stream first (a non-blocking stream is not ordered by the legacy one).
        first_legacy = by_stream[0][0]
        last_async = by_stream[async_stream][-1]
        self.assertGreaterEqual(first_legacy["begin_ns"], last_async["end_ns"])


if __name__ == "__main__":
    e2e.main()
