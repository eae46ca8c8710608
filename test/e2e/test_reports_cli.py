"""e2e: the report commands on databases a real run produced: --db regeneration, --group-stream,
--index-range, --json-max-events, --db-merge (counts, order independence, --recursive), and
every bad input, each refused with one stderr line naming the culprit, its exit code and no
output files.

    python3 test/e2e/test_reports_cli.py --prof build/bin/prof --bin-dir build/test-bin
"""
import os
import shutil
import sqlite3
import tempfile
import unittest

import e2e_common as e2e

EXIT_USAGE, EXIT_EMPTY_RANGE, EXIT_BAD_INPUT, EXIT_NO_INPUT, EXIT_CANNOT_WRITE = 2, 3, 65, 66, 73


def csv_counts(path):
    header, rows = e2e.read_csv(path)
    assert header == e2e.CSV_HEADER, header
    return {row["Name"]: int(row["Calls"]) for row in rows}


def read_bytes(path):
    with open(path, "rb") as stream:
        return stream.read()


class ReportsCliTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.holder = tempfile.TemporaryDirectory(prefix="prof-e2e-reports-")
        cls.root = cls.holder.name
        app = e2e.built_sample("multistream")
        # Two runs: two processes (two pids) for the merge tests.
        cls.runs = []
        for index in range(2):
            directory = os.path.join(cls.root, f"run{index}")
            os.mkdir(directory)
            profiled = e2e.run_prof(["--sim", "-d", directory, app, "1024"], cwd=directory)
            if profiled.returncode != 0:
                raise AssertionError(e2e.describe(profiled))
            dbs = e2e.find_dbs(directory)
            assert len(dbs) == 1, dbs
            cls.runs.append((directory, dbs[0], int(os.path.basename(dbs[0])[len("hip-prof-"):-3])))

    @classmethod
    def tearDownClass(cls):
        cls.holder.cleanup()

    def setUp(self):
        self.tmp = tempfile.mkdtemp(dir=self.root)

    def prof(self, args, status=0):
        completed = e2e.run_prof(args, cwd=self.tmp)
        self.assertEqual(completed.returncode, status, e2e.describe(completed))
        return completed

    def out_dir(self, name="out"):
        path = os.path.join(self.tmp, name)
        os.mkdir(path)
        return path

    # --- regeneration and options -------------------------------------------------------------

    def test_db_regenerates_the_run_outputs_exactly(self):
        directory, db, pid = self.runs[0]
        out = self.out_dir()
        self.prof(["--db", db, "-d", out])
        for suffix in (".hiptrace.csv", ".kernel.csv", "_copy.json"):
            name = f"result_{pid}{suffix}"
            self.assertEqual(read_bytes(os.path.join(out, name)), read_bytes(os.path.join(directory, name)), name)

    def test_group_stream_writes_the_stream_view(self):
        _, db, pid = self.runs[0]
        out = self.out_dir()
        self.prof(["--db", db, "-d", out, "--group-stream"])
        trace = e2e.read_json(os.path.join(out, f"result_{pid}_stream.json"))
        names = {e["args"]["name"] for e in trace["traceEvents"] if e.get("name") == "process_name"}
        self.assertIn("Stream on Device 0", names)
        self.assertEqual(trace["otherData"]["view"], "stream")
        kinds = {e.get("cat") for e in trace["traceEvents"] if e.get("ph") == "X"}
        self.assertTrue({"api", "copy", "kernel"} <= kinds, kinds)

    def test_output_format_writes_only_the_outputs_asked_for(self):
        directory, db, pid = self.runs[0]
        base = f"result_{pid}"
        for formats, expected in (
                ("stats,summary", [".copy_stats.csv", ".hiptrace.csv", ".kernel.csv", ".memory_stats.csv",
                                   ".summary.json"]),
                ("trace", [".api_trace.csv", ".copy_trace.csv", ".kernel_trace.csv"]),
                ("json,pftrace,html", ["_copy.json", ".pftrace", ".report.html"])):
            out = self.out_dir(formats.replace(",", "-"))
            done = self.prof(["--db", db, "-d", out, "--output-format", formats])
            self.assertEqual(sorted(os.listdir(out)), sorted(base + suffix for suffix in expected), formats)
            for name in os.listdir(out):  # what is written is what a full run writes
                self.assertIn(os.path.join(out, name), done.stdout)
                if name.endswith(".csv"):
                    self.assertEqual(read_bytes(os.path.join(out, name)), read_bytes(os.path.join(directory, name)))

    def test_output_format_refuses_an_unknown_word_before_anything_runs(self):
        out = self.out_dir()
        app = e2e.built_sample("multistream")
        done = self.prof(["--sim", "-d", out, "--output-format", "stats,csv", app], status=2)
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        self.assertEqual(len(lines), 1, done.stderr)
        self.assertIn("--output-format", lines[0])
        self.assertIn("'csv' is not an output", lines[0])
        self.assertEqual(os.listdir(out), [], "nothing ran")

    def test_index_range_keeps_only_those_calls(self):
        _, db, pid = self.runs[0]
        out = self.out_dir()
        self.prof(["--db", db, "-d", out, "--index-range", "5:14"])
        self.assertEqual(sum(csv_counts(os.path.join(out, f"result_{pid}.hiptrace.csv")).values()), 10)
        trace = e2e.read_json(os.path.join(out, f"result_{pid}_copy.json"))
        sequences = sorted(e["args"]["sequence"] for e in trace["traceEvents"] if e.get("cat") == "api")
        self.assertEqual(sequences, list(range(5, 15)))
        with e2e.open_db(db) as connection:
            enqueued = {row[0] for row in connection.execute(
                "SELECT correlation_id FROM api_calls WHERE sequence BETWEEN 5 AND 14")}
        for event in trace["traceEvents"]:
            if event.get("cat") in ("copy", "kernel"):
                self.assertIn(event["args"]["correlation_id"], enqueued)

    def test_index_range_from_0_means_from_the_first_call(self):
        # hipprof's users count from 0: 0:B selects what 1:B selects, byte for byte.
        _, db, pid = self.runs[0]
        from_0, from_1 = self.out_dir("from0"), self.out_dir("from1")
        self.prof(["--db", db, "-d", from_0, "--index-range", "0:5"])
        self.prof(["--db", db, "-d", from_1, "--index-range", "1:5"])
        self.assertEqual(sum(csv_counts(os.path.join(from_0, f"result_{pid}.hiptrace.csv")).values()), 5)
        for suffix in (".hiptrace.csv", ".kernel.csv", "_copy.json"):
            name = f"result_{pid}{suffix}"
            self.assertEqual(read_bytes(os.path.join(from_0, name)), read_bytes(os.path.join(from_1, name)), name)

    def test_json_max_events_splits_into_valid_parts(self):
        _, db, pid = self.runs[0]
        out = self.out_dir()
        whole = self.out_dir("whole")
        self.prof(["--db", db, "-d", whole])
        self.prof(["--db", db, "-d", out, "--json-max-events", "40"])
        parts = sorted(n for n in os.listdir(out) if n.startswith(f"result_{pid}_copy."))
        self.assertGreater(len(parts), 1, parts)
        self.assertNotIn(f"result_{pid}_copy.json", parts)
        slices, flows, previous_end = [], set(), None
        for index, name in enumerate(sorted(parts, key=lambda n: int(n.split(".")[-2])), start=1):
            self.assertEqual(name, f"result_{pid}_copy.{index}.json")
            trace = e2e.read_json(os.path.join(out, name))
            events = [e for e in trace["traceEvents"] if e["ph"] != "M"]
            self.assertLessEqual(len(events), 40)
            self.assertTrue(any(e["name"] == "process_name" for e in trace["traceEvents"]), "each part names its lanes")
            own = [e for e in events if e["ph"] == "X" and "repeated_from_part" not in e["args"]]
            # Split by time: each part's own slices begin after the previous part's.
            if own and previous_end is not None:
                self.assertGreaterEqual(min(e["ts"] for e in own), previous_end)
            if own:
                previous_end = max(e["ts"] for e in own)
            slices += own
            # Every arrow is whole in its part and starts inside a slice of this part.
            starts = {e["id"]: e for e in events if e["ph"] == "s"}
            ends = {e["id"]: e for e in events if e["ph"] == "f"}
            self.assertEqual(set(starts), set(ends), name)
            for flow_id, start in starts.items():
                self.assertTrue(any(e["ph"] == "X" and e["pid"] == start["pid"] and e["tid"] == start["tid"]
                                    and e["ts"] <= start["ts"] <= e["ts"] + e["dur"] for e in events),
                                f"{name}: arrow {flow_id} starts outside every slice")
            flows |= set(starts)
        whole_trace = e2e.read_json(os.path.join(whole, f"result_{pid}_copy.json"))
        whole_slices = [e for e in whole_trace["traceEvents"] if e["ph"] == "X"]
        self.assertEqual(len(slices), len(whole_slices))
        self.assertEqual(flows, {e["id"] for e in whole_trace["traceEvents"] if e["ph"] == "s"})

    # --- merge --------------------------------------------------------------------------------

    def merge(self, inputs, out, extra=()):
        return self.prof(["--db-merge", inputs, "-d", out] + list(extra))

    def test_merging_n_copies_multiplies_every_count(self):
        _, db, pid = self.runs[0]
        single = self.out_dir("single")
        self.prof(["--db", db, "-d", single])
        inputs = self.out_dir("in")
        for index in range(3):
            # Three processes with the same calls: copies of one db are one process (merged once,
            # e2e:data_loss), so each copy is given a run of its own.
            copy = os.path.join(inputs, f"copy{index}.db")
            shutil.copy(db, copy)
            with sqlite3.connect(copy) as connection:
                connection.execute("DELETE FROM meta WHERE key = 'run_id'")
                connection.execute("INSERT INTO meta (key, value) VALUES ('run_id', ?)", (f"copy{index}",))
            connection.close()
        out = self.out_dir()
        self.merge(inputs, out)
        for suffix in (".hiptrace.csv", ".kernel.csv"):
            one = csv_counts(os.path.join(single, f"result_{pid}{suffix}"))
            merged = csv_counts(os.path.join(out, "result_merged" + suffix))
            self.assertEqual(merged, {name: 3 * calls for name, calls in one.items()}, suffix)
        with e2e.open_db(os.path.join(out, "result_merged.db")) as connection:
            self.assertEqual(e2e.scalar(connection, "SELECT COUNT(*) FROM processes"), 3)
            with e2e.open_db(db) as source:
                calls = e2e.scalar(source, "SELECT COUNT(*) FROM api_calls")
            self.assertEqual(e2e.scalar(connection, "SELECT COUNT(*) FROM api_calls"), 3 * calls)

    def test_merge_has_a_named_process_group_per_source_in_rank_then_pid_order(self):
        inputs = self.out_dir("in")
        for index, (_, db, _) in enumerate(self.runs):
            shutil.copy(db, os.path.join(inputs, f"z{index}.db"))
        # One source says it is MPI rank 0: it sorts first whatever its pid.
        last = os.path.join(inputs, "z1.db")
        with sqlite3.connect(last) as connection:
            connection.execute("INSERT INTO meta (key, value) VALUES ('rank', '0')")
        out = self.out_dir()
        self.merge(inputs, out)
        trace = e2e.read_json(os.path.join(out, "result_merged_copy.json"))
        api = [e for e in trace["traceEvents"] if e.get("name") == "process_name"
               and e["args"]["name"].startswith("Runtime API")]
        pid_of_rank0 = self.runs[1][2]
        self.assertEqual(api[0]["args"]["name"], f"Runtime API (rank 0, pid {pid_of_rank0}, host {os.uname().nodename})")
        self.assertIn(f"pid {self.runs[0][2]}", api[1]["args"]["name"])
        sort = {e["pid"]: e["args"]["sort_index"] for e in trace["traceEvents"] if e.get("name") == "process_sort_index"}
        self.assertLess(sort[api[0]["pid"]], sort[api[1]["pid"]])
        with e2e.open_db(os.path.join(out, "result_merged.db")) as connection:
            rows = connection.execute("SELECT pid, rank FROM processes ORDER BY process_id").fetchall()
        self.assertEqual([tuple(r) for r in rows], [(pid_of_rank0, 0), (self.runs[0][2], None)])

    def test_merge_does_not_depend_on_file_names_or_order(self):
        outputs = []
        for names in (("a.db", "b.db"), ("b.db", "a.db")):
            inputs = self.out_dir("in-" + names[0])
            for name, (_, db, _) in zip(names, self.runs):
                shutil.copy(db, os.path.join(inputs, name))
            out = self.out_dir("out-" + names[0])
            self.merge(inputs, out)
            outputs.append({n: read_bytes(os.path.join(out, n)) for n in os.listdir(out) if not n.endswith(".db")})
        self.assertEqual(outputs[0], outputs[1])

    def test_merge_is_not_recursive_unless_asked(self):
        inputs = self.out_dir("in")
        os.mkdir(os.path.join(inputs, "sub"))
        shutil.copy(self.runs[0][1], os.path.join(inputs, "sub", "x.db"))
        with open(os.path.join(inputs, "notes.txt"), "w") as stream:
            stream.write("not a db\n")
        out = self.out_dir()
        self.assert_refused(["--db-merge", inputs, "-d", out], EXIT_NO_INPUT, inputs, out)
        self.merge(inputs, out, ["--recursive"])
        self.assertTrue(os.path.exists(os.path.join(out, "result_merged.db")))
        # A second merge into the same place replaces prof's own outputs, and skips the merged db.
        self.merge(inputs, inputs, ["--recursive"])
        self.merge(inputs, inputs, ["--recursive"])
        with e2e.open_db(os.path.join(inputs, "result_merged.db")) as connection:
            self.assertEqual(e2e.scalar(connection, "SELECT COUNT(*) FROM processes"), 1)

    # --- bad input ----------------------------------------------------------------------------

    def assert_refused(self, args, status, named, out):
        before = sorted(os.listdir(out))
        completed = e2e.run_prof(args, cwd=self.tmp)
        self.assertEqual(completed.returncode, status, e2e.describe(completed))
        lines = completed.stderr.splitlines()
        self.assertEqual(len(lines), 1, "exactly one line on stderr" + e2e.describe(completed))
        self.assertIn(named, lines[0])
        self.assertEqual(completed.stdout, "", e2e.describe(completed))
        self.assertEqual(sorted(os.listdir(out)), before, "no output files")
        return lines[0]

    def bad_dbs(self):
        """name -> (path, expected words) of databases prof must refuse."""
        db = self.runs[0][1]
        bad = {}
        path = os.path.join(self.tmp, "text.db")
        with open(path, "w") as stream:
            stream.write("hello, this is not SQLite at all\n" * 10)
        bad["not sqlite"] = (path, "not a SQLite file")
        path = os.path.join(self.tmp, "truncated.db")
        shutil.copy(db, path)
        with sqlite3.connect(path) as connection:  # enough pages that a cut lands in table data
            connection.execute("CREATE TABLE padding (x)")
            connection.executemany("INSERT INTO padding VALUES (?)", [("x" * 500,)] * 400)
        os.truncate(path, os.path.getsize(path) // 3)
        bad["truncated"] = (path, "corrupt or truncated")
        path = os.path.join(self.tmp, "foreign.db")
        with sqlite3.connect(path) as connection:
            connection.execute("CREATE TABLE people (name TEXT)")
        bad["foreign"] = (path, "not a prof database")
        path = os.path.join(self.tmp, "newer.db")
        shutil.copy(db, path)
        with sqlite3.connect(path) as connection:
            connection.execute("UPDATE meta SET value = '999' WHERE key = 'schema_version'")
        bad["newer"] = (path, "newer prof")
        return bad

    def test_bad_databases_are_refused_by_db(self):
        out = self.out_dir()
        for name, (path, words) in self.bad_dbs().items():
            with self.subTest(name):
                line = self.assert_refused(["--db", path, "-d", out], EXIT_BAD_INPUT, path, out)
                self.assertIn(words, line)

    def test_bad_prof_databases_are_refused_by_db_merge(self):
        for name, (path, words) in self.bad_dbs().items():
            if name in ("not sqlite", "foreign"):
                continue  # not prof dbs: a merge skips them
            with self.subTest(name):
                inputs = tempfile.mkdtemp(dir=self.tmp)
                shutil.copy(self.runs[0][1], os.path.join(inputs, "good.db"))
                shutil.copy(path, os.path.join(inputs, "bad.db"))
                out = tempfile.mkdtemp(dir=self.tmp)
                line = self.assert_refused(["--db-merge", inputs, "--strict", "-d", out], EXIT_BAD_INPUT, "bad.db",
                                           out)
                self.assertIn(words, line)
                # Without --strict the good db is merged and the bad one named as skipped.
                merged = e2e.run_prof(["--db-merge", inputs, "-d", out], cwd=self.tmp)
                self.assertEqual(merged.returncode, 0, e2e.describe(merged))
                self.assertIn("skipped", merged.stderr)
                self.assertIn("bad.db", merged.stderr)

    def test_directory_errors(self):
        out = self.out_dir()
        empty = self.out_dir("empty")
        with open(os.path.join(empty, "notes.db"), "w") as stream:
            stream.write("not a database\n")
        self.assert_refused(["--db-merge", empty, "-d", out], EXIT_NO_INPUT, empty, out)
        missing = os.path.join(self.tmp, "missing")
        self.assert_refused(["--db-merge", missing, "-d", out], EXIT_NO_INPUT, missing, out)
        self.assert_refused(["--db", os.path.join(missing, "x.db"), "-d", out], EXIT_NO_INPUT, missing, out)

    def test_unwritable_output_dir(self):
        _, db, _ = self.runs[0]
        inputs = os.path.dirname(db)
        a_file = os.path.join(self.tmp, "a-file")
        open(a_file, "w").close()
        for directory in ("/proc", os.path.join(a_file, "below")):
            with self.subTest(directory=directory):
                watch = self.tmp  # /proc cannot be listed for changes; the test dir must stay clean
                self.assert_refused(["--db", db, "-d", directory], EXIT_CANNOT_WRITE, directory, watch)
                self.assert_refused(["--db-merge", inputs, "-d", directory], EXIT_CANNOT_WRITE, directory, watch)

    def test_existing_files_that_are_not_prof_are_never_replaced(self):
        _, db, pid = self.runs[0]
        inputs = os.path.dirname(db)
        out = self.out_dir()
        victim = os.path.join(self.tmp, "victim.txt")
        with open(victim, "w") as stream:
            stream.write("precious\n")
        cases = [
            (["--db", db, "-d", out], f"result_{pid}.kernel.csv", "file"),
            (["--db", db, "-d", out], f"result_{pid}_copy.json", "symlink"),
            (["--db-merge", inputs, "-d", out], "result_merged.db", "file"),
            (["--db-merge", inputs, "-d", out], "result_merged.db", "symlink"),
            (["--db-merge", inputs, "-d", out], "result_merged.hiptrace.csv", "file"),
        ]
        for args, name, kind in cases:
            with self.subTest(name=name, kind=kind):
                target = os.path.join(out, name)
                if kind == "file":
                    with open(target, "w") as stream:
                        stream.write("my own notes\n")
                else:
                    os.symlink(victim, target)
                if name.endswith(".db"):
                    # The merged db is the merge: refused, nothing is written.
                    self.assert_refused(args, EXIT_CANNOT_WRITE, target, out)
                else:
                    # Issue 16: a refused report costs only itself; the others are written and
                    # prof exits 73 with one line naming it.
                    before = set(os.listdir(out))
                    completed = e2e.run_prof(args, cwd=self.tmp)
                    self.assertEqual(completed.returncode, EXIT_CANNOT_WRITE, e2e.describe(completed))
                    lines = completed.stderr.splitlines()
                    self.assertEqual(len(lines), 1, e2e.describe(completed))
                    self.assertIn(target, lines[0])
                    written = set(os.listdir(out)) - before
                    self.assertGreaterEqual(len(written), 2, written)
                    for extra in written:
                        os.unlink(os.path.join(out, extra))
                with open(victim) as stream:
                    self.assertEqual(stream.read(), "precious\n")
                if kind == "file":
                    with open(target) as stream:
                        self.assertEqual(stream.read(), "my own notes\n")
                os.unlink(target)

    def test_index_range_beyond_the_dbs_calls_has_its_own_exit_code(self):
        # Well formed but empty: a script stepping through ranges tells it from a typo (2).
        _, db, _ = self.runs[0]
        with e2e.open_db(db) as connection:
            last = connection.execute("SELECT MAX(sequence) FROM api_calls").fetchone()[0]
        out = self.out_dir()
        done = self.assert_refused(["--db", db, "-d", out, "--index-range", f"{last + 1}:{last + 100}"],
                                   EXIT_EMPTY_RANGE, "--index-range", out)
        self.assertIn(f"has calls 1 to {last}", done)
        self.prof(["--db", db, "-d", out, "--index-range", f"{last}:{last + 100}"])  # overlapping: its one call

    def test_a_run_whose_index_range_holds_no_call_says_so(self):
        # A profiled run's exit status is the program's: the summary's note says why the reports are empty.
        out = self.out_dir()
        app = e2e.built_sample("multistream")
        done = e2e.run_prof(["--sim", "-d", out, "--index-range", "900000:900001", app, "1024"], cwd=out)
        self.assertEqual(done.returncode, 0, e2e.describe(done))
        notes = [line for line in done.stdout.splitlines() if line.startswith("Note: --index-range")]
        self.assertEqual(len(notes), 1, done.stdout[-2000:])
        self.assertRegex(notes[0], r"^Note: --index-range 900000:900001 holds none of the run's calls "
                                   r"\(1 to [0-9]+\): the reports are empty$")

    def test_malformed_index_range_is_a_usage_error(self):
        _, db, _ = self.runs[0]
        out = self.out_dir()
        for text in ("5", "0:0", "5:2", "9:2", "a:b", "1:2:3", "-1:4", "+1:4", ""):
            with self.subTest(text=text):
                self.assert_refused(["--db", db, "-d", out, "--index-range", text], EXIT_USAGE, "--index-range", out)


if __name__ == "__main__":
    e2e.main()
