"""e2e: HIP reached only through dlopen + dlsym (as Triton's driver, ctypes and many Python
frameworks reach it), also with RTLD_DEEPBIND and through dlvsym, is traced under prof as a linked
program is: every call, the kernel and the copies, with device times within 1 us of the simulated
device's truth, and the program's output unchanged. Python's ctypes (dlopen + dlsym underneath)
too.

    python3 test/e2e/test_dlsym.py --prof build/bin/prof --bin-dir build/test-bin --sim-dir build/lib/prof/sim
"""
import os
import shutil
import sys
import tempfile
import unittest

import e2e_common as e2e

CTYPES_PROGRAM = ("import ctypes, os\n"
                  "hip = ctypes.CDLL('libamdhip64.so.5')  # RTLD_LOCAL; every attribute is a dlsym\n"
                  "print(f'PID {os.getpid()}')\n"
                  "ptr = ctypes.c_void_p()\n"
                  "assert hip.hipMalloc(ctypes.byref(ptr), ctypes.c_size_t(4096)) == 0\n"
                  "assert hip.hipMemsetAsync(ptr, 0, ctypes.c_size_t(4096), None) == 0\n"
                  "assert hip.hipDeviceSynchronize() == 0\n"
                  "assert hip.hipFree(ptr) == 0\n"
                  "print('EXPECT api_calls=4 kernels=0 copies=1')\n"
                  "print('END')\n")


class DlsymTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.app = e2e.built_sample("dlsym_hip")
        cls.tmp = tempfile.mkdtemp(prefix="prof-e2e-dlsym-")
        cls.addClassCleanup(shutil.rmtree, cls.tmp, True)

    def profile(self, command, name):
        """One run under prof with a truth file: (completed, db, truth lines)."""
        out = tempfile.mkdtemp(prefix=name + "-", dir=self.tmp)
        truth = os.path.join(out, "truth.jsonl")
        done = e2e.run_prof(["--sim", "-d", out] + command, cwd=out, env={"PROF_SIM_TRUTH": truth})
        self.assertEqual(done.returncode, 0, e2e.describe(done))
        db_path = os.path.join(out, f"hip-prof-{e2e.parse_pid(done.stdout)}.db")
        self.assertTrue(os.path.exists(db_path), "prof recorded nothing" + e2e.describe(done))
        db = e2e.open_db(db_path)
        self.addCleanup(db.close)
        return done, db, e2e.read_truth(truth)

    def check(self, command, name):
        plain = e2e.run_on_sim(command, cwd=self.tmp)
        self.assertEqual(plain.returncode, 0, e2e.describe(plain))
        off = None
        for _ in range(3):  # device times to 1 us in one of three runs (e2e_common.truth_matches_in_one_of_three)
            done, db, truth = self.profile(command, name)
            self.assertEqual(e2e.normalise_sample_output(e2e.program_stdout(done.stdout)),
                             e2e.normalise_sample_output(e2e.program_stdout(plain.stdout)))
            expect = e2e.parse_expect(done.stdout)
            self.assertEqual(e2e.scalar(db, "SELECT COUNT(*) FROM api_calls"), expect["api_calls"])
            self.assertEqual(e2e.scalar(db, "SELECT COUNT(*) FROM kernels"), expect["kernels"])
            self.assertEqual(e2e.scalar(db, "SELECT COUNT(*) FROM copies"), expect["copies"])
            self.assertEqual(len(truth), expect["kernels"] + expect["copies"])
            off = e2e.truth_mismatches(self, db, truth)
            if not off:
                break
        self.assertEqual(off, [], "device times vs the simulated device's truth")
        return db

    def test_dlsym_on_a_local_handle(self):
        db = self.check([self.app, "local"], "local")
        names = {row[0] for row in db.execute("SELECT s.value FROM kernels k JOIN strings s ON s.string_id = k.name_id")}
        self.assertEqual(names, {"dlsym_kernel(float*, int)"})

    def test_dlsym_on_a_deepbind_handle(self):
        self.check([self.app, "deepbind"], "deepbind")

    def test_dlvsym(self):
        self.check([self.app, "dlvsym"], "dlvsym")

    def test_python_ctypes(self):
        self.check([sys.executable, "-c", CTYPES_PROGRAM], "ctypes")


if __name__ == "__main__":
    e2e.main()
