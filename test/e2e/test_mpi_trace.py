"""e2e --mpi-trace: `mpirun -np 4 prof --sim --mpi-trace` on an MPI + HIP sample gives four dbs,
each with the rank's MPI calls (bytes, peer, tag, communicator size) beside its HIP calls, kernel
and copies; `prof --db-merge` puts every rank's kernels and MPI calls on one timeline, a process
group per rank with an MPI lane per thread. Clock alignment: rank 2 runs with its clock 1000 s
ahead (PROF_TEST_CLOCK_SKEW, a test-only variable; longer than any run, so no delay of a loaded
machine can pass for it or hide it); the offset prof measures at MPI_Init and MPI_Finalize undoes it
within the stated uncertainty, so in the merged db every rank's last MPI_Barrier overlaps the
others', as a barrier must, while in rank 2's own db it does not. Times are only ordered, never
bounded: against each other and against this script's own CLOCK_MONOTONIC around the job.

    python3 test/e2e/test_mpi_trace.py --prof build/bin/prof --bin-dir build/test-bin
"""
import json
import os
import re
import shutil
import tempfile
import time
import unittest

import e2e_common as e2e

RANKS = 4
SKEW_RANK, SKEW_NS = 2, 1000 * 1_000_000_000  # more than e2e.TIMEOUT_S


class MpiTraceTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.mpirun, cls.app = e2e.mpi_job_or_skip("mpi_sample")  # mpi_sample needs libopenmpi-dev
        cls.tmp = tempfile.mkdtemp(prefix="prof-e2e-mpi-trace-")
        cls.addClassCleanup(shutil.rmtree, cls.tmp, True)
        cls.runs = os.path.join(cls.tmp, "runs")
        cls.merged = os.path.join(cls.tmp, "merged")
        env = {"PROF_TEST_CLOCK_SKEW": f"{SKEW_RANK}:{SKEW_NS}"}
        if "ASAN_OPTIONS" in os.environ:
            # The sanitizer stage: Open MPI's own allocations (its plugins are unloaded before the
            # leak check, so no suppression can name them) are not prof's to report.
            env["ASAN_OPTIONS"] = os.environ["ASAN_OPTIONS"] + ":detect_leaks=0"
        # prof's clock is CLOCK_MONOTONIC (common/clock.hpp), Python's monotonic one: every rank's
        # start and calls lie between these two readings, less the rank's skew. wall-clock: ordering
        cls.before_job_ns = time.monotonic_ns()
        cls.job = e2e.run([cls.mpirun, "--allow-run-as-root", "--oversubscribe", "-np", str(RANKS),
                           "-x", "PROF_TEST_CLOCK_SKEW", e2e.Config.prof, "--sim", "--mpi-trace", "-d", cls.runs,
                           cls.app], cwd=cls.tmp, env=env)
        cls.after_job_ns = time.monotonic_ns()  # wall-clock: ordering
        if cls.job.returncode != 0:
            raise AssertionError("the MPI job failed" + e2e.describe(cls.job))
        cls.merge = e2e.run_prof(["--db-merge", cls.runs, "-d", cls.merged], cwd=cls.tmp)
        cls.expect = {}
        for match in re.finditer(r"^EXPECT rank=(\d+) (.*)$", cls.job.stdout, re.M):
            cls.expect[int(match.group(1))] = {k: int(v) for k, v in (i.split("=") for i in match.group(2).split())}
        cls.dbs = {}
        for name in os.listdir(cls.runs):
            if name.endswith(".db"):
                db = e2e.open_db(os.path.join(cls.runs, name))
                cls.addClassCleanup(db.close)
                cls.dbs[int(e2e.scalar(db, "SELECT value FROM meta WHERE key = 'rank'"))] = db

    def calls(self, db, runtime):
        return db.execute("SELECT c.*, n.name FROM api_calls c JOIN api_names n USING (api_id) JOIN runtimes r"
                          " ON r.runtime_id = n.runtime_id WHERE r.name = ? ORDER BY c.begin_ns", (runtime,)).fetchall()

    def args(self, db, correlation_id):
        return dict(db.execute("SELECT name, value FROM api_args WHERE correlation_id = ?", (correlation_id,)))

    def test_one_db_per_rank_with_its_mpi_and_hip_work(self):
        self.assertEqual(sorted(self.dbs), list(range(RANKS)), os.listdir(self.runs))
        for rank, db in self.dbs.items():
            expect = self.expect[rank]
            self.assertEqual(len(self.calls(db, "mpi")), expect["mpi_calls"], f"rank {rank}")
            self.assertEqual(len(self.calls(db, "hip")), expect["hip_calls"], f"rank {rank}")
            self.assertEqual(e2e.scalar(db, "SELECT COUNT(*) FROM kernels WHERE device_end_ns IS NOT NULL"),
                             expect["kernels"])
            self.assertEqual(e2e.scalar(db, "SELECT COUNT(*) FROM copies WHERE device_end_ns IS NOT NULL"),
                             expect["copies"])

    def test_mpi_calls_carry_bytes_peer_tag_and_communicator_size(self):
        for rank, db in self.dbs.items():
            by_name = {}
            for call in self.calls(db, "mpi"):
                by_name.setdefault(call["name"], []).append(call)
            sendrecv = by_name["MPI_Sendrecv"][0]
            self.assertEqual(sendrecv["bytes"], 4096 * 4)
            self.assertEqual(self.args(db, sendrecv["correlation_id"]),
                             {"peer": (rank + 1) % RANKS, "tag": 7, "comm_size": RANKS})
            irecv = by_name["MPI_Irecv"][0]
            self.assertEqual((irecv["bytes"], self.args(db, irecv["correlation_id"])["peer"]),
                             (1024 * 4, (rank + RANKS - 1) % RANKS))
            self.assertEqual(by_name["MPI_Alltoall"][0]["bytes"], 4 * RANKS)
            self.assertEqual(self.args(db, by_name["MPI_Bcast"][0]["correlation_id"])["peer"], 0, "the root")
            self.assertEqual(len(by_name["MPI_Barrier"]), 2)

    def test_clock_offset_is_measured_within_its_uncertainty(self):
        for rank, db in self.dbs.items():
            meta = dict(db.execute("SELECT key, value FROM meta WHERE key LIKE 'clock_%'"))
            for when in ("init", "finalize"):
                offset, uncertainty = int(meta[f"clock_offset_{when}_ns"]), int(meta[f"clock_uncertainty_{when}_ns"])
                truth = -SKEW_NS if rank == SKEW_RANK else 0
                # Ranks share this host's clock: the offset is the skew, within half a round trip.
                self.assertLessEqual(abs(offset - truth), uncertainty + 1000, f"rank {rank} {when}: {meta}")

    def last_barriers(self, rows):
        """(begin, end) of each rank's last MPI_Barrier."""
        return {rank: (begin, end) for rank, begin, end in rows}

    def test_merge_aligns_the_skewed_rank(self):
        self.assertEqual(self.merge.returncode, 0, e2e.describe(self.merge))
        merged = e2e.open_db(os.path.join(self.merged, "result_merged.db"))
        self.addCleanup(merged.close)
        query = ("SELECT p.rank, MAX(c.begin_ns), MAX(c.end_ns) FROM api_calls c JOIN api_names n"
                 " ON n.process_id = c.process_id AND n.api_id = c.api_id JOIN processes p"
                 " ON p.process_id = c.process_id WHERE n.name = 'MPI_Barrier' GROUP BY p.rank")
        aligned = self.last_barriers(merged.execute(query).fetchall())
        raw = {rank: db.execute("SELECT MAX(c.begin_ns), MAX(c.end_ns) FROM api_calls c JOIN api_names n USING (api_id)"
                                " WHERE n.name = 'MPI_Barrier'").fetchone() for rank, db in self.dbs.items()}
        uncertainty = max(int(e2e.scalar(db, "SELECT MAX(CAST(value AS INTEGER)) FROM meta WHERE key LIKE"
                                              " 'clock_uncertainty_%'")) for db in self.dbs.values())
        # A barrier: no rank leaves before every rank entered.
        latest_entry = max(begin for begin, _ in aligned.values())
        earliest_exit = min(end for _, end in aligned.values())
        self.assertLessEqual(latest_entry, earliest_exit + 2 * uncertainty + 1000, aligned)
        # Without alignment rank 2 enters its barrier 1000 s after the others left theirs.
        self.assertGreater(raw[SKEW_RANK][0], min(end for _, end in raw.values()) + SKEW_NS // 2, raw)

    def test_each_ranks_start_is_on_its_calls_clock(self):
        # The start (meta start_ns, where the merge places a rank's process) is read on the clock
        # its calls are: on the skewed rank too. Less the rank's skew, the start and the calls lie
        # between this script's readings around the job, in that order; a start read before the
        # skew was applied is 1000 s before the job began.
        for rank, db in self.dbs.items():
            skew = SKEW_NS if rank == SKEW_RANK else 0
            start = int(e2e.scalar(db, "SELECT value FROM meta WHERE key = 'start_ns'")) - skew
            first = e2e.scalar(db, "SELECT MIN(begin_ns) FROM api_calls") - skew
            last = e2e.scalar(db, "SELECT MAX(end_ns) FROM api_calls") - skew
            order = {"job began": self.before_job_ns, "rank's start": start, "its first call": first,
                     "its last call's end": last, "job ended": self.after_job_ns}
            self.assertEqual(list(order.values()), sorted(order.values()), f"rank {rank}: {order}")

    def test_merged_timeline_has_every_rank_with_kernels_and_an_mpi_lane(self):
        self.assertEqual(self.merge.returncode, 0, e2e.describe(self.merge))
        with open(os.path.join(self.merged, "result_merged_copy.json")) as stream:
            trace = json.load(stream)
        events = trace["traceEvents"]
        names = {(e["pid"], e.get("tid")): e["args"]["name"] for e in events if e["ph"] == "M" and "name" in e["args"]}
        for rank in range(RANKS):
            groups = [pid for (pid, tid), name in names.items() if tid == 0 and f"(rank {rank}," in name]
            self.assertTrue(any(names[(pid, 0)].startswith("Runtime API") for pid in groups), names)
            self.assertTrue(any(names[(pid, 0)].startswith("Compute on Device") for pid in groups), names)
            mpi_lanes = [(pid, tid) for (pid, tid), name in names.items()
                         if pid in groups and name.startswith("MPI (Thread ")]
            self.assertEqual(len(mpi_lanes), 1, names)
            mpi_slices = [e for e in events if e["ph"] == "X" and (e["pid"], e["tid"]) == mpi_lanes[0]]
            self.assertEqual(len(mpi_slices), self.expect[rank]["mpi_calls"])
            sendrecv = next(e for e in mpi_slices if e["name"] == "MPI_Sendrecv")
            self.assertEqual((sendrecv["args"]["peer"], sendrecv["args"]["tag"], sendrecv["args"]["comm_size"]),
                             ((rank + 1) % RANKS, 7, RANKS))
            kernels = [e for e in events if e["ph"] == "X" and e.get("cat") == "kernel" and e["pid"] in groups]
            self.assertEqual([k["name"] for k in kernels], ["ring_step(float*, int)"])
        # The MPI statistics CSV: every MPI function the ranks called, 4 ranks' worth.
        header, rows = e2e.read_csv(os.path.join(self.merged, "result_merged.mpitrace.csv"))
        counts = {row["Name"]: int(row["Calls"]) for row in rows}
        self.assertEqual(counts["MPI_Barrier"], 2 * RANKS)
        self.assertEqual(counts["MPI_Sendrecv"], RANKS)


if __name__ == "__main__":
    e2e.main()
