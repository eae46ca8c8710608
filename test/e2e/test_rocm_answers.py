"""e2e (issue 42): the simulated HIP runtime answers as ROCm 5.2 does, with and without prof.

    python3 test/e2e/test_rocm_answers.py --prof build/bin/prof --bin-dir build/test-bin

The sample is test/apps/rocm_answers.cpp, one mode per answer the HeCBench programs met wrong:
hipHostGetDevicePointer on hipHostRegister'ed memory, hipGetDeviceProperties().managedMemory
against its attribute, hipFree of hipHostMalloc memory, the resident memory of a 1 GiB hipMalloc
(it was memset), hipCreateChannelDesc, and a program that forks three children (it hung). Each
mode runs on the simulator alone and under `prof --sim`: the answers are ROCm's in both, and prof's
db holds every call the program made, in order, with the result the program saw.
"""
import os
import re
import shutil
import tempfile
import unittest

import e2e_common as e2e

# hipError_t values (HIP 5.2's hip_runtime_api.h)
SUCCESS, INVALID_VALUE = 0, 1
ALREADY_REGISTERED, NOT_REGISTERED = 712, 713
# Resident memory a 1 GiB hipMalloc may add: the runtime's bookkeeping, not the allocation.
LAZY_RESIDENT_LIMIT_KIB = 64 * 1024

EXPECTED = {
    "register": {
        "get_before_register": INVALID_VALUE, "register": SUCCESS, "get_base": SUCCESS,
        "get_base_same": 1, "get_inside": SUCCESS, "get_inside_same": 1,
        "pointer_attributes": SUCCESS, "pointer_attributes_host": 1, "malloc": SUCCESS,
        "copy_from_device_pointer": SUCCESS, "copy_back": SUCCESS, "copied_bytes_right": 1,
        "register_again": ALREADY_REGISTERED, "unregister": SUCCESS,
        "unregister_again": NOT_REGISTERED, "get_after_unregister": INVALID_VALUE,
        "host_malloc": SUCCESS, "get_host_malloc_inside": SUCCESS,
        "get_host_malloc_inside_same": 1, "unregister_host_malloc": NOT_REGISTERED,
        "host_free": SUCCESS, "free": SUCCESS,
    },
    "props": {"managed_memory_prop": 1, "mismatches": 0},
    # ROCm 5.2's hipFree and hipHostFree are one function (ihipFree): each frees the other's memory.
    "free_host": {
        "host_malloc": SUCCESS, "free_of_host_malloc": SUCCESS,
        "host_free_after_free": INVALID_VALUE, "malloc": SUCCESS, "host_free_of_malloc": SUCCESS,
        "free_of_stack": INVALID_VALUE,
    },
    "lazy": {
        "malloc": SUCCESS, "memset": SUCCESS, "copy_untouched": SUCCESS, "copy_written": SUCCESS,
        "untouched_reads_zero": 1, "written_reads_back": 1, "free": SUCCESS,
    },
    "channel": {"x": 8, "y": 16, "z": 32, "w": 0, "f": 2},  # 2: hipChannelFormatKindFloat
    "fork": {
        "child_0_exit": 0, "child_0_signal": 0, "child_1_exit": 0, "child_1_signal": 0,
        "child_2_exit": 0, "child_2_signal": 0, "parent_last_memset_value": 63,
    },
}


def answers(stdout):
    return {key: int(value) for key, value in re.findall(r"^ANSWER (\S+) (-?\d+)$", stdout, re.M)}


def results_by_pid(stdout):
    """pid -> [(API name, result or None)] in call order, from the sample's RESULT lines."""
    calls = {}
    for pid, name, result in re.findall(r"^RESULT (\d+) (\w+) (\S+)$", stdout, re.M):
        calls.setdefault(int(pid), []).append((name, None if result == "-" else int(result)))
    return calls


class RocmAnswersTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.app = e2e.built_sample("rocm_answers")

    def run_both(self, mode):
        """(plain run, profiled run, the profiled run's directory)."""
        tmp = tempfile.mkdtemp(prefix=f"prof-e2e-rocm-answers-{mode}-")
        self.addCleanup(shutil.rmtree, tmp, True)
        plain = e2e.run_on_sim([self.app, mode], cwd=tmp)
        out = os.path.join(tmp, "out")
        os.makedirs(out)
        profiled = e2e.run_prof(["--sim", "-d", out, self.app, mode], cwd=tmp)
        for run in (plain, profiled):
            self.assertEqual(run.returncode, 0, e2e.describe(run))
        return plain, profiled, out

    def check_answers(self, mode, completed):
        got = answers(completed.stdout)
        expected = EXPECTED[mode]
        self.assertEqual({key: got.get(key) for key in expected}, expected,
                         e2e.describe(completed))
        self.assertNotIn("MISMATCH", completed.stdout)
        return got

    def check_db(self, completed, out, pid, calls):
        """The process's db holds exactly the calls it printed, in order, with their results."""
        db_path = e2e.output_paths(out, pid)["db"]
        self.assertTrue(os.path.isfile(db_path), f"no {db_path}; {out} holds {e2e.list_dir(out)}")
        db = e2e.open_db(db_path)
        try:
            rows = db.execute("SELECT n.name, a.result FROM api_calls a "
                              "JOIN api_names n USING (api_id) ORDER BY a.sequence").fetchall()
        finally:
            db.close()
        self.assertEqual([name for name, _ in rows], [name for name, _ in calls],
                         e2e.describe(completed))
        # Calls that return no hipError_t (hipCreateChannelDesc) print `-`: names only.
        recorded = [(name, result) for (name, result), (_, printed) in zip(rows, calls)
                    if printed is not None]
        self.assertEqual(recorded, [call for call in calls if call[1] is not None],
                         e2e.describe(completed))

    def check(self, mode):
        plain, profiled, out = self.run_both(mode)
        self.check_answers(mode, plain)
        self.check_answers(mode, profiled)
        pid = e2e.parse_pid(profiled.stdout)
        calls = results_by_pid(profiled.stdout)
        self.assertEqual(len(calls[pid]), e2e.parse_expect(profiled.stdout)["api_calls"])
        self.check_db(profiled, out, pid, calls[pid])
        return plain, profiled, out, calls

    def test_host_get_device_pointer_on_registered_memory(self):
        self.check("register")

    def test_device_properties_agree_with_attributes(self):
        self.check("props")

    def test_free_of_host_malloc_memory(self):
        self.check("free_host")

    def test_malloc_is_lazy(self):
        plain, profiled, _, _ = self.check("lazy")
        for run in (plain, profiled):
            growth = answers(run.stdout)["resident_growth_kib"]
            self.assertLess(growth, LAZY_RESIDENT_LIMIT_KIB,
                            f"a 1 GiB hipMalloc made {growth} KiB resident")

    def test_create_channel_desc(self):
        self.check("channel")

    def test_fork_three_children(self):
        if "ASAN_OPTIONS" in os.environ:
            # GCC 12's ASan (LLVM 14's runtime) takes no lock of its allocator or thread registry
            # around fork: a child forked while one of the parent's stream workers is inside
            # malloc inherits that lock held, and hangs in its next allocation or in the leak
            # check at exit (LLVM 17 added the fork handlers). Seen once in 3 sanitizer stages,
            # in the plain run without prof. The uninstrumented build runs this case in every stage.
            self.skipTest("forked children of a threaded program can deadlock inside GCC 12's ASan runtime")
        _, profiled, out, calls = self.check("fork")
        # The two children that called HIP are processes of their own, each with its calls.
        children = [pid for pid in calls if pid != e2e.parse_pid(profiled.stdout)]
        self.assertEqual(len(children), 2, e2e.describe(profiled))
        for child in children:
            self.check_db(profiled, out, child, calls[child])


if __name__ == "__main__":
    e2e.main()
