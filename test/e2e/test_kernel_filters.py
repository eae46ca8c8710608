"""e2e: the kernel filters (--kernel-include-regex, --kernel-exclude-regex,
--kernel-iteration-range, --truncate-kernels) on a real run's database, through --db, --db-merge, a
live run and --recover of a killed run: exactly the selected launches in kernel.csv,
kernel_trace.csv, summary.json and the timeline (slices and launch arrows), every API call kept,
the db untouched; a bad regex or range refused with one stderr line, exit 2, nothing written.

    python3 test/e2e/test_kernel_filters.py --prof build/bin/prof --bin-dir build/test-bin
"""
import os
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

import e2e_common as e2e

EXIT_USAGE = 2
SCALE = "void scale<float>(float*, float const*, float, int)"
BLUR = "blur_shared(float*, float const*, int)"


def read_text(path):
    with open(path) as stream:
        return stream.read()


def kernel_counts(path):
    header, rows = e2e.read_csv(path)
    assert header == e2e.CSV_HEADER, header
    return {row["Name"]: int(row["Calls"]) for row in rows}


def launches(path):
    """kernel_trace.csv as (correlation id, name), in its order (launch order)."""
    _, rows = e2e.read_csv(path)
    return [(int(row["Correlation_Id"]), row["Kernel_Name"]) for row in rows]


def timeline(path):
    """(kernel slices as {correlation id: name}, the ids of launch arrows) of a _copy.json."""
    events = e2e.read_json(path)["traceEvents"]
    slices = {e["args"]["correlation_id"]: e["name"] for e in events if e.get("cat") == "kernel"}
    arrows = {e["id"] for e in events if e.get("cat") == "flow"}
    return slices, arrows


class KernelFiltersTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.holder = tempfile.TemporaryDirectory(prefix="prof-e2e-filters-")
        cls.root = cls.holder.name
        cls.app = e2e.built_sample("multistream")
        cls.run_dir = os.path.join(cls.root, "run")
        os.mkdir(cls.run_dir)
        profiled = e2e.run_prof(["--sim", "-d", cls.run_dir, "-o", "all", cls.app, "1024"],
                                cwd=cls.run_dir)
        if profiled.returncode != 0:
            raise AssertionError(e2e.describe(profiled))
        cls.db = e2e.find_dbs(cls.run_dir)[0]
        cls.all = launches(os.path.join(cls.run_dir, "all.kernel_trace.csv"))
        cls.all_slices, cls.all_arrows = timeline(os.path.join(cls.run_dir, "all_copy.json"))
        with e2e.open_db(cls.db) as connection:
            cls.db_kernels = e2e.scalar(connection, "SELECT COUNT(*) FROM kernels")
        names = [name for _, name in cls.all]
        # The run this test needs: each of two kernels launched several times.
        assert names.count(SCALE) >= 3 and names.count(BLUR) >= 3, names

    @classmethod
    def tearDownClass(cls):
        cls.holder.cleanup()

    def setUp(self):
        self.tmp = tempfile.mkdtemp(dir=self.root)

    def prof(self, args, status=0):
        completed = e2e.run_prof(args, cwd=self.tmp)
        self.assertEqual(completed.returncode, status, e2e.describe(completed))
        return completed

    def out(self, *args):
        """Reports of the run's db with `args` into a fresh directory; its path."""
        path = tempfile.mkdtemp(dir=self.tmp)
        self.prof(["--db", self.db, "-d", path, "-o", "f", "--summary-output", "none", *args])
        return path

    def check_kept(self, out, kept, base="f"):
        """Exactly the launches `kept` (as the unfiltered trace has them) in `out`'s outputs."""
        self.assertEqual(launches(os.path.join(out, f"{base}.kernel_trace.csv")), kept)
        expected = {}
        for _, name in kept:
            expected[name] = expected.get(name, 0) + 1
        self.assertEqual(kernel_counts(os.path.join(out, f"{base}.kernel.csv")), expected)
        slices, arrows = timeline(os.path.join(out, f"{base}_copy.json"))
        ids = {cid for cid, _ in kept}
        self.assertEqual(slices, {cid: name for cid, name in self.all_slices.items() if cid in ids})
        dropped = {cid for cid, _ in self.all} - ids
        self.assertEqual(arrows, self.all_arrows - dropped)  # the copies' arrows stay
        summary = e2e.read_json(os.path.join(out, f"{base}.summary.json"))
        entries = summary["entries"] if isinstance(summary, dict) else summary
        kernels = {e["name"]: e["calls"] for e in entries if e.get("kind") == "kernel"}
        self.assertEqual(kernels, expected)
        # The calls stay, every one of them.
        self.assertEqual(read_text(os.path.join(out, f"{base}.hiptrace.csv")),
                         read_text(os.path.join(self.run_dir, "all.hiptrace.csv")))

    def test_include_regex_and_iteration_range(self):
        out = self.out("--kernel-include-regex", "scale|gemm", "--kernel-iteration-range", "2:3")
        self.check_kept(out, [launch for launch in self.all if launch[1] == SCALE][1:3])

    def test_rocprofv3s_range_form(self):
        out = self.out("--kernel-iteration-range", "[1-2]")
        scale = [launch for launch in self.all if launch[1] == SCALE][:2]
        blur = [launch for launch in self.all if launch[1] == BLUR][:2]
        self.check_kept(out, [launch for launch in self.all if launch in scale + blur])

    def test_exclude_wins(self):
        out = self.out("--kernel-include-regex", "scale|blur", "--kernel-exclude-regex", "^blur")
        self.check_kept(out, [launch for launch in self.all if launch[1] == SCALE])

    def test_truncated_names(self):
        out = self.out("--truncate-kernels")
        names = {SCALE: "scale", BLUR: "blur_shared"}
        self.assertEqual(launches(os.path.join(out, "f.kernel_trace.csv")),
                         [(cid, names[name]) for cid, name in self.all])
        self.assertEqual(set(kernel_counts(os.path.join(out, "f.kernel.csv"))),
                         {"scale", "blur_shared"})

    def test_mangled_names_are_the_registered_symbols(self):
        """-M: the symbols the program registered, which the collector keeps beside the demangled
        names (kernel_symbols); the regexes still match the demangled name."""
        with e2e.open_db(self.db) as connection:
            symbols = dict(connection.execute(
                "SELECT s.value, k.symbol FROM kernel_symbols k JOIN strings s USING (string_id)").fetchall())
        self.assertEqual(set(symbols), {SCALE, BLUR})
        self.assertTrue(all(symbol.startswith("_Z") for symbol in symbols.values()), symbols)
        out = self.out("--mangled-kernels", "--kernel-include-regex", "^blur")
        self.assertEqual(launches(os.path.join(out, "f.kernel_trace.csv")),
                         [(cid, symbols[BLUR]) for cid, name in self.all if name == BLUR])
        self.assertEqual(set(kernel_counts(os.path.join(out, "f.kernel.csv"))), {symbols[BLUR]})

    def test_db_merge_filters_too(self):
        merge_in = os.path.join(self.tmp, "in")
        os.mkdir(merge_in)
        shutil.copy(self.db, merge_in)
        out = os.path.join(self.tmp, "merged")
        os.mkdir(out)
        self.prof(["--db-merge", merge_in, "-d", out, "--summary-output", "none",
                   "--kernel-exclude-regex", "scale"])
        self.assertEqual(kernel_counts(os.path.join(out, "result_merged.kernel.csv")),
                         {BLUR: sum(1 for _, name in self.all if name == BLUR)})

    def test_live_run_filters_the_reports_not_the_db(self):
        out = os.path.join(self.tmp, "live")
        os.mkdir(out)
        self.prof(["--sim", "-d", out, "-o", "live", "--kernel-include-regex", "blur",
                   "--kernel-iteration-range", "1:1", self.app, "1024"])
        self.assertEqual(kernel_counts(os.path.join(out, "live.kernel.csv")), {BLUR: 1})
        names = [name for _, name in launches(os.path.join(out, "live.kernel_trace.csv"))]
        self.assertEqual(names, [BLUR])
        with e2e.open_db(e2e.find_dbs(out)[0]) as connection:
            kernels = e2e.scalar(connection, "SELECT COUNT(*) FROM kernels")
        self.assertEqual(kernels, self.db_kernels)

    def test_recover_writes_the_reports_with_the_runs_filters(self):
        app = e2e.built_sample("idle")
        out = os.path.join(self.tmp, "killed")
        os.mkdir(out)
        filters = ["--kernel-include-regex", "tick", "--kernel-iteration-range", "2:4", "-T"]
        command = [e2e.Config.prof, "--sim", "-d", out, "-o", "rec", *filters, app, "1000"]
        prof = subprocess.Popen(command, cwd=self.tmp, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        run_dir, real_out = None, os.path.realpath(out)
        try:
            while run_dir is None and prof.poll() is None:
                run_dir = next((d for d in self.run_dirs() if self.writes_into(d, real_out)), None)
                time.sleep(0.02)
            self.assertIsNotNone(run_dir, "prof finished before its run directory was seen")
            manifest = e2e.run_manifest(run_dir)
        finally:
            prof.send_signal(signal.SIGKILL)
            prof.wait()
        kept = ("kernel_include_regex", "kernel_iteration_range", "truncate_kernels",
                "mangled_kernels")
        self.assertEqual({key: manifest.get(key) for key in kept},
                         {"kernel_include_regex": "tick", "kernel_iteration_range": "2:4",
                          "truncate_kernels": "1", "mangled_kernels": "0"})
        # The program runs on without prof: recovered once it is gone, the db has all its launches.
        pids = {int(name.split(".")[0]) for name in os.listdir(run_dir)
                if name.split(".")[0].isdigit()}
        while any(os.path.exists(f"/proc/{pid}") and not self.zombie(pid) for pid in pids):
            time.sleep(0.05)
        self.prof(["--recover", run_dir])
        with e2e.open_db(e2e.find_dbs(out)[0]) as connection:
            ticks = e2e.scalar(connection, "SELECT COUNT(*) FROM kernels")
        expected = {"tick": min(4, ticks) - 1} if ticks >= 2 else {}
        self.assertEqual(kernel_counts(os.path.join(out, "rec.kernel.csv")), expected)

    @staticmethod
    def run_dirs():
        for base in dict.fromkeys(["/dev/shm", os.environ.get("TMPDIR") or "/tmp"]):
            for name in os.listdir(base) if os.path.isdir(base) else []:
                if name.startswith("prof-run-"):
                    yield os.path.join(base, name)

    @staticmethod
    def writes_into(run_dir, real_out):
        return os.path.realpath(e2e.run_manifest(run_dir).get("output_dir", "")) == real_out

    @staticmethod
    def zombie(pid):
        try:
            with open(f"/proc/{pid}/stat") as stat:
                return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
        except OSError:
            return True

    def test_bad_regex_or_range_is_one_line_exit_2_nothing_written(self):
        # What the line says: the option, the value and what is wrong with it.
        for args, why in ((["--kernel-include-regex", "sc(ale"], "'sc(ale' is not a regex: "),
                          (["--kernel-exclude-regex", "["], "'[' is not a regex: "),
                          (["--kernel-iteration-range", "3:2"], "expected A:B"),
                          (["--kernel-iteration-range", "0:4"], "expected A:B"),
                          (["--kernel-iteration-range", "1:"], "expected A:B")):
            for command in (["--db", self.db], ["--sim", self.app, "1024"]):
                with self.subTest(args=args, command=command[0]):
                    out = tempfile.mkdtemp(dir=self.tmp)
                    if command[0] == "--sim":  # options go before the program
                        full = ["--sim", "-d", out, *args, *command[1:]]
                    else:
                        full = [*command, "-d", out, *args]
                    done = self.prof(full, status=EXIT_USAGE)
                    lines = [line for line in done.stderr.splitlines() if line.strip()]
                    self.assertEqual(len(lines), 1, done.stderr)
                    self.assertTrue(lines[0].startswith(f"prof: {args[0]}: "), lines[0])
                    self.assertIn(why, lines[0])
                    self.assertEqual(os.listdir(out), [], "nothing written, nothing ran")
                    self.assertEqual(done.stdout, "")


if __name__ == "__main__":
    e2e.main()
