"""e2e: HIP reached only through a library loaded with RTLD_LOCAL (a C++ program's dlopen, and
Python's ctypes.CDLL, which is how extension modules load) works under prof exactly as without
it, and every call is traced with exact counts.

    python3 test/e2e/test_rtld_local.py --prof build/bin/prof --bin-dir build/test-bin
"""
import os
import re
import sys
import tempfile
import unittest

import e2e_common as e2e

PYTHON_LOADER = ("import ctypes, os, sys\n"
                 "lib = ctypes.CDLL(sys.argv[1])  # RTLD_LOCAL, as for extension modules\n"
                 "lib.rtld_local_run.restype = ctypes.c_long\n"
                 "calls = lib.rtld_local_run()\n"
                 "print(f'PID {os.getpid()}')\n"
                 "print(f'EXPECT api_calls={calls} kernels=1 copies=2')\n"
                 "print('END')\n")


class RtldLocalTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.library = e2e.sample("librtld_local_lib.so")
        cls.program = e2e.sample("rtld_local")
        if not os.path.exists(cls.library) or not os.access(cls.program, os.X_OK):
            raise unittest.SkipTest("rtld_local samples are not built")
        cls.tmp = tempfile.TemporaryDirectory(prefix="prof-e2e-rtld-local-")
        cls.commands = {"dlopen": [cls.program, cls.library],
                        "ctypes": [sys.executable, "-c", PYTHON_LOADER, cls.library]}

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def check(self, kind):
        work = os.path.join(self.tmp.name, kind)
        os.makedirs(work, exist_ok=True)
        plain = e2e.run_on_sim(self.commands[kind], cwd=work)
        self.assertEqual(plain.returncode, 0, e2e.describe(plain))
        self.assertIn("bad free: 1 hipErrorInvalidValue", plain.stdout)
        profiled = e2e.run_prof(["--sim", "-d", work] + self.commands[kind], cwd=work)
        self.assertEqual(profiled.returncode, plain.returncode, e2e.describe(profiled))
        self.assertEqual(e2e.normalise_sample_output(e2e.program_stdout(profiled.stdout)),
                         e2e.normalise_sample_output(e2e.program_stdout(plain.stdout)),
                         "the program's output differs under prof" + e2e.describe(profiled))
        expect = e2e.parse_expect(profiled.stdout)
        pid = e2e.parse_pid(profiled.stdout)
        db_path = os.path.join(work, f"hip-prof-{pid}.db")
        self.assertTrue(os.path.isfile(db_path), f"no {db_path}" + e2e.describe(profiled))
        db = e2e.open_db(db_path)
        try:
            self.assertEqual(e2e.scalar(db, "SELECT COUNT(*) FROM api_calls"), expect["api_calls"])
            self.assertEqual(e2e.scalar(db, "SELECT COUNT(*) FROM kernels"), expect["kernels"])
            self.assertEqual(e2e.scalar(db, "SELECT COUNT(*) FROM copies"), expect["copies"])
            names = [row[0] for row in db.execute(
                "SELECT n.name FROM api_calls a JOIN api_names n USING (api_id) ORDER BY a.sequence")]
            self.assertEqual(names[:2], ["hipSetDevice", "hipMalloc"])
            self.assertIn("hipGetErrorString", names)
        finally:
            db.close()

    def test_dlopen_rtld_local(self):
        self.check("dlopen")

    def test_python_ctypes(self):
        if "ASAN_OPTIONS" in os.environ:
            self.skipTest("the sanitizer stage: an uninstrumented python cannot load the instrumented library")
        self.check("ctypes")


if __name__ == "__main__":
    e2e.main()
