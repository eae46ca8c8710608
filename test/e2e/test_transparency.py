"""e2e transparency: the same program with and without prof prints the same return values and
last errors, exits the same way, and its device work overlaps the same way (simulated truth).
The runtime calling itself (hipMemcpyPeer -> hipMemcpy) is recorded once.

    python3 test/e2e/test_transparency.py --prof build/bin/prof --bin-dir build/test-bin
"""
import os
import tempfile
import unittest

import e2e_common as e2e


def program_stderr(stderr):
    return [line for line in stderr.splitlines() if not line.startswith("prof: ")]


def long_kernels(truth):
    return sorted((op for op in truth if op["kind"] == "kernel" and op["grid"] == [2048, 1, 1]),
                  key=lambda op: op["begin_ns"])


class TransparencyTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="prof-e2e-transparency-")
        tmp = cls.tmp.name
        cls.app = e2e.built_sample("transparency")
        cls.truth_plain = os.path.join(tmp, "plain.truth.jsonl")
        cls.truth_profiled = os.path.join(tmp, "profiled.truth.jsonl")
        cls.plain = e2e.run_on_sim([cls.app], cwd=tmp, env={"PROF_SIM_TRUTH": cls.truth_plain})
        cls.profiled = e2e.run_prof(["--sim", "-d", tmp, cls.app], cwd=tmp, env={"PROF_SIM_TRUTH": cls.truth_profiled})

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_same_output_and_status(self):
        self.assertEqual(self.plain.returncode, 3, e2e.describe(self.plain))
        self.assertEqual(self.profiled.returncode, self.plain.returncode, e2e.describe(self.profiled))
        self.assertIn("END", self.plain.stdout.splitlines())
        self.assertEqual(e2e.program_stdout(self.profiled.stdout), e2e.program_stdout(self.plain.stdout),
                         "every return value and last error the same with prof")
        self.assertEqual(program_stderr(self.profiled.stderr), program_stderr(self.plain.stderr))
        # The sequence does include failures, or the comparison would prove little.
        self.assertIn("(hipErrorInvalidHandle)", self.plain.stdout)
        self.assertIn("peek 400, get 400, peek again 0", self.plain.stdout)

    def test_no_added_synchronization(self):
        # The two long kernels go to two non-blocking streams, one launch after the other. Under
        # prof the second starts on the device as it is submitted, inside its launch call: held
        # for the first (an added synchronization), it would start when the first ended, about
        # 0.5 ms later. Whether the two overlap depends on the program's thread making the second
        # call before the first ended, which a loaded machine does not always let it do.
        for path in (self.truth_plain, self.truth_profiled):
            kernels = long_kernels(e2e.read_truth(path))
            self.assertEqual(len(kernels), 2, f"{path}: two long kernels")
            self.assertNotEqual(kernels[0]["stream"], kernels[1]["stream"])
            for kernel in kernels:
                self.assertEqual(kernel["end_ns"] - kernel["begin_ns"], 5000 + 2048 * 1024 // 4)
        dbs = e2e.find_dbs(self.tmp.name)
        self.assertEqual(len(dbs), 1, e2e.describe(self.profiled))
        db = e2e.open_db(dbs[0])
        try:
            launches = db.execute("SELECT c.begin_ns, c.end_ns, s.stream_handle FROM kernels k JOIN api_calls c"
                                  " USING (correlation_id) JOIN streams s USING (stream_index)"
                                  " WHERE k.grid_x = 2048 ORDER BY c.sequence").fetchall()
        finally:
            db.close()
        self.assertEqual(len(launches), 2, "prof recorded the two long launches")
        launch = launches[1]
        second = next(op for op in long_kernels(e2e.read_truth(self.truth_profiled))
                      if op["stream"] == launch["stream_handle"])
        # Its call's end was read after the runtime returned, the truth's begin before: the
        # tolerance is the two clock readings', not a duration.
        self.assertLessEqual(second["begin_ns"], launch["end_ns"] + e2e.TOLERANCE_NS,
                             f"the second kernel waited on the device after its launch call returned: {second}, "
                             f"call {tuple(launch)}")

    def test_nested_runtime_call_recorded_once(self):
        dbs = e2e.find_dbs(self.tmp.name)
        self.assertEqual(len(dbs), 1, e2e.describe(self.profiled))
        db = e2e.open_db(dbs[0])
        try:
            per_api = dict(db.execute("SELECT n.name, COUNT(*) FROM api_calls a JOIN api_names n USING (api_id) "
                                      "GROUP BY n.name").fetchall())
        finally:
            db.close()
        self.assertEqual(per_api.get("hipMemcpyPeer"), 3)
        self.assertNotIn("hipMemcpy", per_api, "the runtime's own hipMemcpy inside hipMemcpyPeer is not a call")
        # And the runtime did make them: without the guard this sample would show 3 hipMemcpy.
        self.assertEqual(per_api.get("hipGetLastError"), self.plain.stdout.count("last error after"))

    def test_no_thread_in_a_process_without_device_calls(self):
        # A launcher's shells and tools load prof's library too: none of them gets a thread from
        # it (the harvester starts at a process's first device-runtime call). With one, a program
        # that must be single-threaded failed: unshare(CLONE_NEWUSER) gives EINVAL.
        with tempfile.TemporaryDirectory(prefix="prof-e2e-threads-") as tmp:
            shell = e2e.run_prof(["--sim", "-d", tmp, "sh", "-c", "ls /proc/$$/task | wc -l; echo END"], cwd=tmp)
            self.assertEqual(shell.returncode, 0, e2e.describe(shell))
            self.assertEqual(e2e.program_stdout(shell.stdout), ["1", "END"], e2e.describe(shell))
            plain = e2e.run(["unshare", "--user", "true"], cwd=tmp)
            if plain.returncode != 0:
                self.skipTest("unshare --user is not allowed here: " + plain.stderr.strip())
            profiled = e2e.run_prof(["--sim", "-d", tmp, "unshare", "--user", "true"], cwd=tmp)
            self.assertEqual(profiled.returncode, 0, e2e.describe(profiled))
            self.assertNotIn("Invalid argument", profiled.stderr)

    def test_no_files_for_a_process_without_device_calls(self):
        # A process's .info, .lost and .maps are written when it first records: the shell and
        # its `true`s leave nothing in the run directory (each cost about 0.4 ms to start when
        # they did), and the sample that does record gets its files, true to its start.
        app = e2e.built_sample("multistream")
        # The shell's two readings of the clock bracket the program. wall-clock: ordering
        script = ('for i in 1 2 3; do /bin/true; done; ls "$PROF_RUN_DIR"; echo LISTED; '
                  f'before=$(date +%s%N); sleep 0.3; {app} 1024 1 >/dev/null; '
                  'echo "shell=$$ before=$before after=$(date +%s%N)"; echo END')
        with tempfile.TemporaryDirectory(prefix="prof-e2e-files-") as tmp:
            result = e2e.run_prof(["--sim", "-d", tmp, "sh", "-c", script], cwd=tmp)
            self.assertEqual(result.returncode, 0, e2e.describe(result))
            lines = e2e.program_stdout(result.stdout)
            listed = lines[:lines.index("LISTED")]
            self.assertEqual([n for n in listed if n.endswith((".info", ".lost", ".maps"))], [], e2e.describe(result))
            fields = dict(item.split("=") for item in lines[-2].split())
            dbs = e2e.find_dbs(tmp)
            self.assertEqual(len(dbs), 1, e2e.describe(result))
            db = e2e.open_db(dbs[0])
            try:
                meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
                first_call = e2e.scalar(db, "SELECT MIN(begin_ns) FROM api_calls")
            finally:
                db.close()
            self.assertEqual(meta["ppid"], fields["shell"])
            self.assertEqual(meta["command_line"], f"{app} 1024 1")
            # The start is the program's load, not its first call; the wall clock is the start's.
            self.assertLessEqual(int(meta["start_ns"]), first_call)
            wall_start = int(meta["wall_start_unix_ns"])
            # The shell read the clock before its 0.3 s sleep and again after the program exited.
            self.assertGreater(wall_start, int(fields["before"]) + 250_000_000, meta)
            self.assertLess(wall_start, int(fields["after"]), meta)


if __name__ == "__main__":
    e2e.main()
