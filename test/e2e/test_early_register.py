"""e2e (issue 42): calls a library makes from its constructor, before main and before prof's own
constructor (the dynamic linker initialises the program's libraries before a preloaded one), are
recorded like any other: the kernel registration, an allocation, and the launch later in main.

    python3 test/e2e/test_early_register.py --prof build/bin/prof --bin-dir build/test-bin --sim-dir build/lib/prof/sim

The sample is test/apps/early_register.c with its library test/apps/early_register_lib.c.
"""
import unittest

import e2e_common as e2e


class EarlyRegisterTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        e2e.profile_sample(cls, "early_register", "hip")

    def test_constructor_calls_are_recorded(self):
        self.assertEqual(self.direct.returncode, 0, e2e.describe(self.direct))
        self.assertEqual(self.profiled.returncode, 0, e2e.describe(self.profiled))
        self.assertEqual(e2e.normalise_sample_output(e2e.program_stdout(self.profiled.stdout)),
                         e2e.normalise_sample_output(e2e.program_stdout(self.direct.stdout)))
        db = self.db
        names = [row[0] for row in db.execute(
            "SELECT n.name FROM api_calls a JOIN api_names n USING (api_id) ORDER BY a.correlation_id")]
        self.assertEqual(len(names), self.expect["api_calls"], names)
        # The constructor's three calls come first, in its order, before any of main's.
        self.assertEqual(names[:4], ["__hipRegisterFatBinary", "__hipRegisterFunction", "hipMalloc", "hipStreamCreate"])
        kernels = db.execute("SELECT s.value, k.device_end_ns FROM kernels k JOIN strings s ON s.string_id = k.name_id"
                             ).fetchall()
        self.assertEqual(len(kernels), self.expect["kernels"])
        # The name comes from the registration made in the constructor.
        self.assertIn("early_kernel", kernels[0][0])
        self.assertIsNotNone(kernels[0][1])
        # The run's start is no later than its first call (the configuration is read at that call).
        start = int(e2e.scalar(db, "SELECT value FROM meta WHERE key = 'start_ns'"))
        self.assertLessEqual(start, e2e.scalar(db, "SELECT MIN(begin_ns) FROM api_calls"))


if __name__ == "__main__":
    e2e.main()
