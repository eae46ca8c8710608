"""e2e: the host side of every host<->device copy (test/apps/host_copies.cpp, HIP and MUSA on prof's
simulated devices). prof records each H2D/D2H copy's host pointer as the call's `host_ptr` argument
(api_args), and the register calls' ranges; report/host_memory (run here by test-bin/host_memory_tool)
tells a copy of pinned memory (hipHostMalloc, musaMallocHost, a hipHostRegister'ed range while it is
registered) from one of pageable memory, copy for copy as the program says it made them.

    python3 test/e2e/test_host_copies.py --prof build/bin/prof --bin-dir build/test-bin
"""
import os
import shutil
import tempfile
import unittest

import e2e_common as e2e

APP = "host_copies"


class HostCopiesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        e2e.built_sample(APP)
        cls.tool = e2e.built_sample("host_memory_tool")
        cls.tmp = tempfile.mkdtemp(prefix="prof-e2e-host-copies-")
        out = os.path.join(cls.tmp, "out")
        os.makedirs(out)
        cls.done = e2e.run_prof(["--sim", "-d", out, e2e.sample(APP)], cwd=cls.tmp)
        cls.pid = e2e.parse_pid(cls.done.stdout) if cls.done.returncode == 0 else None
        cls.db_path = os.path.join(out, f"prof-{cls.pid}.db")
        cls.made = [line for line in e2e.program_stdout(cls.done.stdout) if line.startswith("COPY ")]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, True)

    def setUp(self):
        self.assertEqual(self.done.returncode, 0, e2e.describe(self.done))

    def test_every_host_copy_has_its_host_pointer(self):
        db = e2e.open_db(self.db_path)
        self.addCleanup(db.close)
        rows = db.execute(
            "SELECT r.name, n.name, c.aux, a.value, c.bytes FROM api_calls c "
            "JOIN api_names n ON n.api_id = c.api_id JOIN runtimes r ON r.runtime_id = n.runtime_id "
            "JOIN api_args a ON a.correlation_id = c.correlation_id AND a.name = 'host_ptr' "
            "ORDER BY c.begin_ns, c.correlation_id").fetchall()
        directions = {1: "H2D", 2: "D2H"}
        recorded = [f"COPY {rt} {directions[aux]} {value & (2**64 - 1)} {size}" for rt, _, aux, value, size in rows]
        self.assertEqual(recorded, [" ".join(line.split()[:5]) for line in self.made])
        # No other call carries a host pointer, and every copy call of the program has one.
        self.assertEqual(e2e.scalar(db, "SELECT COUNT(*) FROM api_args WHERE name != 'host_ptr'"), 0)
        self.assertEqual(e2e.scalar(db, "SELECT COUNT(*) FROM api_calls c JOIN api_names n USING (api_id) "
                                        "WHERE n.name LIKE '%Memcpy%'"), len(self.made))

    def test_register_calls_record_their_range(self):
        db = e2e.open_db(self.db_path)
        self.addCleanup(db.close)
        registered = [int(line.split()[3]) - 64 for line in self.made if line.endswith("pinned")
                      and line.split()[4] != "65536"]
        self.assertEqual(len(registered), 1)
        rows = dict(db.execute("SELECT n.name, c.aux FROM api_calls c JOIN api_names n USING (api_id) "
                               "WHERE n.name IN ('hipHostRegister', 'hipHostUnregister')").fetchall())
        self.assertEqual({name: aux & (2**64 - 1) for name, aux in rows.items()},
                         {"hipHostRegister": registered[0], "hipHostUnregister": registered[0]})
        self.assertEqual(e2e.scalar(db, "SELECT c.bytes FROM api_calls c JOIN api_names n USING (api_id) "
                                        "WHERE n.name = 'hipHostRegister'"), 65536)

    def test_host_memory_tells_pinned_from_pageable(self):
        done = e2e.run([self.tool, self.db_path])
        self.assertEqual(done.returncode, 0, e2e.describe(done))
        self.assertEqual(done.stdout.splitlines(), self.made)
        self.assertIn("pinned", " ".join(self.made))
        self.assertIn("pageable", " ".join(self.made))


if __name__ == "__main__":
    e2e.main()
