#!/usr/bin/env bash
# Runs every benchmark of docs/performance.md and prints its tables (markdown), all
# configurations of a table in the same run so their ratios compare like with like.
#   scripts/bench.sh [--smoke] [--repeat R] [--only api|launch|collector|exit|reports|programs|capture|threads|journal|
#                    idle|spawn|timing|afterdeath]
# --smoke: tiny N, one repeat, no 10M-event run (CTest's bench:smoke; numbers are meaningless).
# Needs a build ($PROF_BUILD_DIR, default build/); uftrace columns read "n/a" without uftrace.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${PROF_BUILD_DIR:-$root/build}
smoke=0 repeat=5 only=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --smoke) smoke=1; repeat=1; shift ;;
    --repeat) repeat=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    *) echo "bench: unknown option $1" >&2; exit 2 ;;
  esac
done
bench="$build/test-bin/api_overhead"
noop_lib="$build/test-bin/libnoop_preload.so"
prof="$build/bin/prof"
sim="$build/lib/prof/sim"
for f in "$bench" "$noop_lib" "$prof" "$sim/libamdhip64.so.5"; do
  [[ -e "$f" ]] || { echo "bench: $f missing (build first: scripts/build.sh)" >&2; exit 66; }
done
have_uftrace=0
command -v uftrace >/dev/null && have_uftrace=1
work=$(mktemp -d "${TMPDIR:-/tmp}/prof-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Sizes: per thread. The hook-cost runs give prof a ring that holds the whole run, so they time
# the hook, not the collector (the collector's sustained rate is its own table).
if ((smoke)); then
  api_calls=2000 api_calls_mt=500 launch_calls=200 rate_seconds=0.2 exit_events=(20000)
  ms_args=(256 4) kernels=500
else
  api_calls=1000000 api_calls_mt=250000 launch_calls=20000 rate_seconds=10 exit_events=(1000000 5000000)
  ms_args=(1024 2000) kernels=20000
fi

field() { sed -n "s/.*\b$1=\([0-9.]*\).*/\1/p" | tail -1; }  # key from the program's result line
# The median of the numbers on stdin; a run that printed no number ("nan", empty) is left out.
median() { { grep -E '^-?[0-9.]+$' || true; } | sort -n | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "nan"}'; }
ring_for() { echo $(($1 + $1 / 10 + 4096)); }  # records for calls + warm-up + strings

# run_config CONFIG ARGS...: one run of the benchmark program; prints its result line.
run_config() {
  local config=$1; shift
  rm -rf "$work/out" "$work/uftrace.data"; mkdir -p "$work/out"
  case "$config" in
    plain) env LD_LIBRARY_PATH="$sim" "$bench" "$@" ;;
    noop) env LD_LIBRARY_PATH="$sim" LD_PRELOAD="$noop_lib" "$bench" "$@" ;;
    uftrace)
      if ((have_uftrace)); then
        # --force: the program is not built with -pg; uftrace then traces its PLT (library) calls.
        (cd "$work" && env LD_LIBRARY_PATH="$sim" uftrace record --force -d "$work/uftrace.data" "$bench" "$@")
      else
        echo "ns_per_call=nan"
      fi ;;
    prof) "$prof" --sim -d "$work/out" "$bench" "$@" ;;
    # The whole run outside a capture window (--trace-start off, never started): the pass-through.
    prof_outside) "$prof" --sim --trace-start off -d "$work/out" "$bench" "$@" 2>/dev/null ;;
    *) echo "bench: unknown configuration $config" >&2; exit 2 ;;
  esac
}
# measure CONFIG ARGS...: median ns_per_call over the repeats.
measure() {
  local values=()
  for ((i = 0; i < repeat; i++)); do values+=("$(run_config "$@" | field ns_per_call)"); done
  printf '%s\n' "${values[@]}" | median
}

# ns_of CONFIG ARGS...: one run's ns_per_call. A run that prints none (uftrace failed once in an
# 8-thread round, and its empty value pulled the uftrace median down) is run again once, then
# said on stderr and counted as nan: left out of the medians, n/a in its round.
ns_of() {
  local v
  for _ in 1 2; do
    v=$(run_config "$@" | sed -n 's/.*\bns_per_call=\([0-9.]*\|nan\)\b.*/\1/p' | tail -1)
    [[ $v =~ ^[0-9.]+$|^nan$ ]] && { echo "$v"; return; }  # nan: no uftrace on this machine
  done
  echo "bench: configuration $1 printed no ns_per_call twice (${*:2})" >&2
  echo nan
}

# overhead_table TITLE THREADS CALLS MODE: the configurations side by side. They run in rounds
# (each configuration once per round, one after another), so a busy moment of a shared machine
# falls on every configuration of a round rather than on all repeats of one of them; the table
# gives each configuration's median, and the last line the ratio of each round.
overhead_table() {
  local title=$1 threads=$2 calls=$3 mode=$4
  local common=(--mode "$mode" --calls "$calls" --threads "$threads")
  local plain noop uft prf dflt clk p n u f d
  local plains=() noops=() ufts=() prfs=() dflts=() rounds=()
  clk=$(measure plain --mode clock --calls $((smoke ? 100000 : 10000000)))
  for ((i = 0; i < repeat; i++)); do
    p=$(ns_of plain "${common[@]}")
    n=$(ns_of noop "${common[@]}")
    u=$(ns_of uftrace "${common[@]}")
    f=$(PROF_BUFFER_RECORDS=$(ring_for "$calls") ns_of prof "${common[@]}")
    d=$(ns_of prof "${common[@]}")
    plains+=("$p") noops+=("$n") ufts+=("$u") prfs+=("$f") dflts+=("$d")
    rounds+=("$(awk -v p="$p" -v u="$u" -v d="$d" 'BEGIN { if (p == "nan" || u == "nan" || d == "nan" || u - p <= 0) print "n/a"; else printf "%.2fx", (d - p) / (u - p) }')")
  done
  plain=$(printf '%s\n' "${plains[@]}" | median)
  noop=$(printf '%s\n' "${noops[@]}" | median)
  uft=$(printf '%s\n' "${ufts[@]}" | median)
  prf=$(printf '%s\n' "${prfs[@]}" | median)
  dflt=$(printf '%s\n' "${dflts[@]}" | median)
  echo
  echo "### $title ($calls calls x $threads thread(s), median of $repeat rounds)"
  echo
  awk -v plain="$plain" -v noop="$noop" -v uft="$uft" -v prf="$prf" -v clk="$clk" -v dflt="$dflt" 'BEGIN {
    printf "| configuration | ns/call | added ns/call |\n|---|---:|---:|\n"
    printf "| plain (simulated runtime) | %.1f | - |\n", plain
    printf "| do-nothing preload (floor) | %.1f | %.1f |\n", noop, noop - plain
    if (uft == "nan") printf "| uftrace record --force | n/a | n/a |\n"
    else printf "| uftrace record --force | %.1f | %.1f |\n", uft, uft - plain
    printf "| prof --sim (defaults: 4 MiB ring per thread) | %.1f | %.1f |\n", dflt, dflt - plain
    printf "| prof --sim, ring holding the whole run (hook alone) | %.1f | %.1f |\n", prf, prf - plain
    a = prf - plain
    printf "\n"
    if (uft != "nan") printf "- prof added / uftrace added: %.2fx with defaults, %.2fx hook alone (target <= 0.25x)\n", (dflt - plain) / (uft - plain), a / (uft - plain)
    printf "- prof added over the floor: %.1f ns; one clock read (prof::now_ns): %.1f ns;", prf - noop, clk
    printf " target <= 2 x %.1f + 15 = %.1f ns\n", clk, 2 * clk + 15
  }'
  echo "- each round, prof added / uftrace added with defaults: ${rounds[*]}"
}

section_api() {
  echo "## 1. API overhead: hipStreamQuery on an idle stream"
  overhead_table "1 thread" 1 "$api_calls" query
  overhead_table "8 threads" 8 "$api_calls_mt" query
}

section_launch() {
  echo
  echo "## 2. Launch overhead (device timing on): host time in the call, batches of 64 then a sync"
  for mode in launch copy; do
    local plain noop uft prf prf_ev inject args=(--mode "$mode" --calls "$launch_calls")
    plain=$(measure plain "${args[@]}")
    noop=$(measure noop "${args[@]}")
    uft=$(measure uftrace "${args[@]}")
    prf=$(PROF_BUFFER_RECORDS=$(ring_for $((launch_calls * 3))) measure prof "${args[@]}")
    # The same with events instead of the runtime's per-op reports (docs/design-device-timing.md).
    prf_ev=$(PROF_DEVICE_ACTIVITY=0 PROF_BUFFER_RECORDS=$(ring_for $((launch_calls * 3))) measure prof "${args[@]}")
    # What device timing asks of the runtime: hipStreamIsCapturing and two hipEventRecord.
    inject=$(measure plain --mode inject --calls "$launch_calls")
    q_plain=$(measure plain --mode query --calls 200000)
    q_prof=$(PROF_BUFFER_RECORDS=$(ring_for 200000) measure prof --mode query --calls 200000)
    echo
    echo "### $([[ $mode == launch ]] && echo hipLaunchKernel || echo 'hipMemcpyAsync 64 B H2D') ($launch_calls calls, median of $repeat)"
    echo
    awk -v plain="$plain" -v noop="$noop" -v uft="$uft" -v prf="$prf" -v prf_ev="$prf_ev" -v inject="$inject" \
        -v qp="$q_plain" -v qf="$q_prof" -v mode="$mode" 'BEGIN {
      printf "| configuration | ns/call | added ns/call |\n|---|---:|---:|\n"
      printf "| plain (simulated runtime) | %.1f | - |\n", plain
      printf "| do-nothing preload (floor) | %.1f | %.1f |\n", noop, noop - plain
      if (uft == "nan") printf "| uftrace record --force | n/a | n/a |\n"
      else printf "| uftrace record --force | %.1f | %.1f |\n", uft, uft - plain
      printf "| prof --sim (device times from runtime reports) | %.1f | %.1f |\n", prf, prf - plain
      printf "| prof --sim, PROF_DEVICE_ACTIVITY=0 (events) | %.1f | %.1f |\n", prf_ev, prf_ev - plain
      if (mode == "launch") {
        # inject = isCapturing + 2 x eventRecord + launch, made by the program itself
        injected = inject - plain; api = qf - qp
        printf "\n- runtime cost of the injected calls (by hand, plain): %.1f ns; plain API overhead (hipStreamQuery): %.1f ns\n", injected, api
        printf "- prof added: %.1f ns; target <= 2 x %.1f + %.1f = %.1f ns\n", prf - plain, api, injected, 2 * api + injected
      }
    }'
  done
  # One burst: every launch back to back, one sync at the end (an eager framework's forward pass
  # outruns the device the same way). The launching thread's CPU time beside the wall time: the
  # difference is time spent waiting for a CPU behind the device model and prof's threads.
  local burst=(--mode launch --calls "$launch_calls" --batch "$launch_calls")
  local pw pc fw fc iw ic line
  pw=() pc=() fw=() fc=() iw=() ic=()
  for ((i = 0; i < repeat; i++)); do
    line=$(run_config plain "${burst[@]}"); pw+=("$(field ns_per_call <<<"$line")") pc+=("$(field cpu_ns_per_call <<<"$line")")
    line=$(run_config prof "${burst[@]}"); fw+=("$(field ns_per_call <<<"$line")") fc+=("$(field cpu_ns_per_call <<<"$line")")
    line=$(run_config plain --mode inject --calls "$launch_calls" --batch "$launch_calls")
    iw+=("$(field ns_per_call <<<"$line")") ic+=("$(field cpu_ns_per_call <<<"$line")")
  done
  echo
  echo "### hipLaunchKernel, one burst of $launch_calls launches then a sync (median of $repeat)"
  echo
  echo "| configuration | ns/call | thread CPU ns/call |"
  echo "|---|---:|---:|"
  echo "| plain (simulated runtime) | $(printf '%s\n' "${pw[@]}" | median) | $(printf '%s\n' "${pc[@]}" | median) |"
  echo "| prof --sim | $(printf '%s\n' "${fw[@]}" | median) | $(printf '%s\n' "${fc[@]}" | median) |"
  echo "| injected by hand (plain: is-capturing + 2 records + launch) | $(printf '%s\n' "${iw[@]}" | median) | $(printf '%s\n' "${ic[@]}" | median) |"
}

# Python's standard library instead of the sqlite3 and GNU time programs: python3 is a build dependency.
sql() { python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$@"; }
cat >"$work/rss.py" <<'PY'
import resource, subprocess, sys
status = subprocess.run(sys.argv[2:]).returncode
open(sys.argv[1], "w").write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
sys.exit(status)
PY

# prof_run LABEL ARGS...: one profiled run; prints program fields, drops, db bytes, prof's tail time.
prof_run() {
  rm -rf "$work/out"; mkdir -p "$work/out"
  local line done_ns rss
  line=$(python3 "$work/rss.py" "$work/rss.txt" "$prof" --sim -d "$work/out" "$bench" "$@" | grep '^ns_per_call=')
  done_ns=$(date +%s%N)
  rss=$(cat "$work/rss.txt")
  local db
  db=$(ls "$work/out"/*.db)
  local rows drops waits db_ns
  rows=$(sql "$db" "SELECT count(*) FROM api_calls")
  drops=$(sql "$db" "SELECT coalesce(sum(count), 0) FROM drops")
  waits=$(sql "$db" "SELECT coalesce(max(value), 0) FROM meta WHERE key = 'ring_full_waits'")
  # The db's last write is its completion (reports come after, from the finished file).
  db_ns=$(python3 -c 'import os, sys; print(os.stat(sys.argv[1]).st_mtime_ns)' "$db")
  local exit_ns; exit_ns=$(field exit_realtime_ns <<<"$line")
  echo "$line rows=$rows drops=$drops waits=$waits db_bytes=$(stat -c %s "$db") prof_max_rss_kb=$rss" \
       "exit_to_outputs_ns=$((done_ns - exit_ns)) exit_to_db_ns=$((db_ns - exit_ns))"
}

# sustain_run THREADS SECONDS: hipStreamQuery at full speed under prof with default settings; the
# counters every ring's journal header holds once the program has exited (the mover copies them
# each cycle): ring-full waits, self-moves, drops, journal bytes. prof is then stopped (SIGKILL)
# and its run removed: the db of a 10 s run at full speed holds 100-300M calls, minutes to build
# and GBs of reports, and its build has its own table (section exit).
sustain_run() {
  local t=$1 s=$2 pid hwm=0
  rm -rf "$work/out"; mkdir -p "$work/out"
  "$prof" --sim -d "$work/out" "$bench" --mode query --threads "$t" --seconds "$s" --calls 1000 >"$work/sustain.txt" 2>&1 &
  pid=$!
  until grep -q '^ns_per_call=' "$work/sustain.txt"; do
    kill -0 "$pid" 2>/dev/null || { echo "bench: prof ended before the program's result line" >&2; cat "$work/sustain.txt" >&2; exit 1; }
    sleep 0.05
  done
  sleep 1  # the mover's final cycle: every record and counter in the journals
  hwm=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$pid/status" 2>/dev/null || echo 0)
  local counters
  counters=$(python3 - "$work/out" <<'PY'
import glob, os, struct, sys
waits = drops = self_moves = size = 0
for path in glob.glob(os.path.join(sys.argv[1], ".prof-run-*", "*.jrnl")):
    with open(path, "rb") as f:
        header = f.read(88)
    # JournalHeader (collector/journal.hpp): dropped at 48, full_waits at 56, self_moves at 80.
    d, w = struct.unpack_from("<QQ", header, 48)
    (m,) = struct.unpack_from("<Q", header, 80)
    drops, waits, self_moves = drops + d, waits + w, self_moves + m
    size += os.path.getsize(path) - 4096
print(f"waits={waits} drops={drops} self_moves={self_moves} journal_bytes={size}")
PY
)
  kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
  # The killed prof's run: its run directory (and fallback) and the output directory's journals.
  local journal run fallback base
  for journal in "$work/out"/.prof-run-*; do
    run=${journal##*/.}
    for base in /dev/shm "${TMPDIR:-/tmp}"; do
      [[ -d "$base/$run" ]] || continue
      fallback=$(sed -n 's/^fallback_run_dir=//p' "$base/$run/run.conf" 2>/dev/null || true)
      rm -rf "${base:?}/$run" ${fallback:+"$fallback"}
    done
  done
  rm -rf "$work/out"
  echo "$(grep '^ns_per_call=' "$work/sustain.txt") $counters prof_hwm_kb=${hwm:-0}"
}

section_collector() {
  echo
  echo "## 3. Collector: sustained rate with default settings (hipStreamQuery at full speed, journals' counters at the program's exit)"
  echo
  echo "| threads | seconds | calls/s | calls | ring-full waits | self-moves | dropped | journal bytes/call | prof max RSS MiB |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for t in 1 2 8; do
    local r
    r=$(sustain_run "$t" "$rate_seconds")
    awk -v r="$r" -v t="$t" -v s="$rate_seconds" 'BEGIN {
      n = split(r, kv, " "); for (i = 1; i <= n; i++) { split(kv[i], p, "="); f[p[1]] = p[2] }
      printf "| %d | %s | %.0f | %d | %d | %d | %d | %.2f | %.1f |\n", t, s, f["calls_per_s"], f["calls"], f["waits"],
             f["self_moves"], f["drops"], f["journal_bytes"] / (f["calls"] > 0 ? f["calls"] : 1), f["prof_hwm_kb"] / 1024 }'
  done
}

section_exit() {
  echo
  echo "### Time from the program's exit to prof's outputs complete (db and reports), one row per run"
  echo
  echo "| events | threads | program s | exit to complete db s | exit to outputs s | db MiB |"
  echo "|---:|---:|---:|---:|---:|---:|"
  local biggest=${exit_events[-1]}
  for run in "${exit_events[@]/%/:1}" "$biggest:8"; do
    local n=${run%:*} t=${run#*:} r
    for ((i = 0; i < repeat; i++)); do
      r=$(prof_run --mode query --threads "$t" --calls $((n / t)))
      awk -v r="$r" -v t="$t" 'BEGIN {
        n = split(r, kv, " "); for (i = 1; i <= n; i++) { split(kv[i], p, "="); f[p[1]] = p[2] }
        printf "| %d | %d | %.2f | %.2f | %.2f | %.1f |\n", f["rows"], t, f["wall_ns"] / 1e9, f["exit_to_db_ns"] / 1e9,
               f["exit_to_outputs_ns"] / 1e9, f["db_bytes"] / 1048576 }'
    done
  done
}

section_reports() {
  echo
  echo "## 4. Reports"
  if [[ -x "$root/scripts/bench-reports.sh" ]]; then
    if ((smoke)); then echo; echo "(skipped in --smoke: scripts/bench-reports.sh runs on its own)"
    # Issue 13's sizes: regeneration of 2M and 5M events (fastest of 3 runs each), then the merge.
    else "$root/scripts/bench-reports.sh" --events 2000000,5000000 --repeat 3; fi
  else
    echo; echo "(scripts/bench-reports.sh not present)"
  fi
}

# wall_of CONFIG ARGS...: median wall seconds of a whole command (prof: outputs included).
wall_of() {
  local values=() config=$1; shift
  for ((i = 0; i < repeat; i++)); do
    rm -rf "$work/out"; mkdir -p "$work/out"
    local t0 t1
    t0=$(date +%s%N)
    if [[ $config == plain ]]; then env LD_LIBRARY_PATH="$sim" "$@" >/dev/null
    else "$prof" --sim -d "$work/out" "$@" >/dev/null; fi
    t1=$(date +%s%N)
    values+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')")
  done
  printf '%s\n' "${values[@]}" | median
}

section_programs() {
  echo
  echo "## 5. Real-program slowdown (wall time of the whole command, prof's outputs included)"
  echo
  echo "| program | plain s | under prof s | slowdown |"
  echo "|---|---:|---:|---:|"
  local ms=("$build/test-bin/multistream" "${ms_args[@]}")
  local loop=("$bench" --mode launch --calls "$kernels" --batch 100)
  for name in multistream kernels; do
    local cmd a b
    if [[ $name == multistream ]]; then cmd=("${ms[@]}"); label="multistream ${ms_args[*]}"
    else cmd=("${loop[@]}"); label="$kernels small kernels, sync every 100"; fi
    a=$(wall_of plain "${cmd[@]}")
    b=$(wall_of prof "${cmd[@]}")
    awk -v l="$label" -v a="$a" -v b="$b" 'BEGIN { printf "| %s | %.3f | %.3f | %.2fx |\n", l, a, b, b / a }'
  done
}

section_capture() {
  echo
  echo "## 6. Capture control: hipStreamQuery inside and outside the window"
  local args=(--mode query --calls "$api_calls") plain noop inside outside
  plain=$(measure plain "${args[@]}")
  noop=$(measure noop "${args[@]}")
  inside=$(PROF_BUFFER_RECORDS=$(ring_for "$api_calls") measure prof "${args[@]}")
  outside=$(measure prof_outside "${args[@]}")
  echo
  echo "### $api_calls calls x 1 thread, median of $repeat"
  echo
  awk -v plain="$plain" -v noop="$noop" -v inside="$inside" -v outside="$outside" 'BEGIN {
    printf "| configuration | ns/call | added ns/call |\n|---|---:|---:|\n"
    printf "| plain (simulated runtime) | %.1f | - |\n", plain
    printf "| do-nothing preload (floor) | %.1f | %.1f |\n", noop, noop - plain
    printf "| prof --sim, inside the window (recorded) | %.1f | %.1f |\n", inside, inside - plain
    printf "| prof --sim --trace-start off, outside the window | %.1f | %.1f |\n", outside, outside - plain
  }'
}

section_threads() {
  echo
  echo "## 7. A new thread's first call (hipStreamQuery): what prof adds when a program starts threads"
  local n=$((smoke ? 20 : 300)) program="$build/test-bin/new_threads" config line
  echo
  echo "### $n threads started one after another, each making two calls; microseconds, median of $repeat runs"
  echo
  echo "| configuration | first call, median | first call, p90 | second call, median |"
  echo "|---|---:|---:|---:|"
  for config in plain prof; do
    local medians=() p90s=() seconds=()
    for ((i = 0; i < repeat; i++)); do
      rm -rf "$work/out"; mkdir -p "$work/out"
      if [[ $config == plain ]]; then
        line=$(env LD_LIBRARY_PATH="$sim" "$program" "$n")
      else
        line=$("$prof" --sim -d "$work/out" --summary-output none "$program" "$n")
      fi
      medians+=("$(field first_call_median_us <<<"$line")")
      p90s+=("$(field first_call_p90_us <<<"$line")")
      seconds+=("$(field second_call_median_us <<<"$line")")
    done
    printf '| %s | %s | %s | %s |\n' "$([[ $config == plain ]] && echo "plain (simulated runtime)" || echo "prof --sim (defaults)")" \
      "$(printf '%s\n' "${medians[@]}" | median)" "$(printf '%s\n' "${p90s[@]}" | median)" \
      "$(printf '%s\n' "${seconds[@]}" | median)"
  done
}

section_journal() {
  echo
  echo "## 8. The journal: the mover's encoding of a ring, the builder's decoding"
  echo
  echo "One 4 MiB ring of back-to-back hipStreamQuery records, written by another thread; best of $((smoke ? 2 : 20)) rounds."
  echo
  echo "| records | encode ns/record | encode from cache ns/record | decode ns/record | journal bytes/record |"
  echo "|---:|---:|---:|---:|---:|"
  "$build/test-bin/journal_codec_bench" $((smoke ? 2 : 20))
}

# Shell code running "$1" `/bin/true` one after another: the short-lived processes of a launcher.
trues='i=0; while [ $i -lt "$1" ]; do /bin/true; i=$((i + 1)); done'

# prof_cpu PID: "<ns on CPU> <voluntary switches>", summed over the process's threads.
prof_cpu() {
  local ns=0 sw=0 t a v
  for t in /proc/"$1"/task/*; do
    read -r a _ < "$t/schedstat" 2>/dev/null || continue
    v=$(awk '/^voluntary_ctxt_switches/ {print $2}' "$t/status" 2>/dev/null)
    ns=$((ns + a)) sw=$((sw + ${v:-0}))
  done
  echo "$ns $sw"
}

section_idle() {
  # The idle sample (test/apps/idle.cpp) sleeps with nothing in flight; prof's threads are
  # measured over the middle of that sleep. Launcher processes: short-lived processes run under
  # prof before the program, as a pyenv shim runs about 80 (each left its files in the run
  # directory before a process wrote them at its first recorded call).
  local sleep_ms=6000 from=2 span=3
  ((smoke)) && sleep_ms=1500 from=0.6 span=0.5
  echo
  echo "## 9. prof while the program sleeps (prof's threads, all of them; median of $repeat)"
  echo
  echo "| launcher processes before the program | prof CPU ms per s | prof wake-ups per s |"
  echo "|---:|---:|---:|"
  local n i pid c1 s1 c2 s2 cpus wakes
  for n in 0 80; do
    cpus=() wakes=()
    for ((i = 0; i < repeat; i++)); do
      rm -rf "$work/out"; mkdir -p "$work/out"
      "$prof" --sim -d "$work/out" sh -c "$trues"'; exec "$2" "$3" 0' \
        sh "$n" "$build/test-bin/idle" "$sleep_ms" >/dev/null 2>&1 &
      pid=$!
      sleep "$from"; read -r c1 s1 < <(prof_cpu "$pid")
      sleep "$span"; read -r c2 s2 < <(prof_cpu "$pid")
      wait "$pid" || true
      cpus+=("$(awk -v a="$c1" -v b="$c2" -v s="$span" 'BEGIN { printf "%.2f", (b - a) / 1e6 / s }')")
      wakes+=("$(awk -v a="$s1" -v b="$s2" -v s="$span" 'BEGIN { printf "%.0f", (b - a) / s }')")
    done
    printf '| %d | %s | %s |\n' "$n" "$(printf '%s\n' "${cpus[@]}" | median)" "$(printf '%s\n' "${wakes[@]}" | median)"
  done
}

section_spawn() {
  # Processes that never call a runtime (a launcher's shells and tools) load prof's library all the
  # same: a shell times N `/bin/true` (each a fork of the shell and an exec), plain, with the
  # library loaded but not enabled (no run directory: the floor), and under prof.
  local n=200 i plain=() floor=() profd=() lib="$build/lib/prof/libprof_preload.so"
  ((smoke)) && n=10
  local loop='s=$(date +%s%N); '"$trues"'; e=$(date +%s%N); echo "us_per_process=$(awk -v a="$s" -v b="$e" -v n="$1" "BEGIN { printf \"%.1f\", (b - a) / 1000 / n }")"'
  for ((i = 0; i < repeat; i++)); do
    plain+=("$(sh -c "$loop" sh "$n" | field us_per_process)")
    floor+=("$(env LD_PRELOAD="$lib" sh -c "$loop" sh "$n" | field us_per_process)")
    rm -rf "$work/out"; mkdir -p "$work/out"
    profd+=("$("$prof" --sim -d "$work/out" sh -c "$loop" sh "$n" 2>/dev/null | field us_per_process)")
  done
  local p f d
  p=$(printf '%s\n' "${plain[@]}" | median) f=$(printf '%s\n' "${floor[@]}" | median) d=$(printf '%s\n' "${profd[@]}" | median)
  echo
  echo "## 10. A process that never calls a runtime ($n x /bin/true from a shell, us per process, median of $repeat)"
  echo
  echo "| configuration | us per process | added us |"
  echo "|---|---:|---:|"
  echo "| plain | $p | - |"
  awk -v p="$p" -v f="$f" -v d="$d" 'BEGIN {
    printf "| prof library loaded, not enabled (floor) | %.1f | %.1f |\n", f, f - p
    printf "| prof --sim | %.1f | %.1f |\n", d, d - p }'
}

section_timing() {
  # The timing properties the functional tests no longer bound (docs/guarantees.md, "The tests"):
  # each row the median and the worst of the repeats, beside the bound the test once held.
  local i line v own_plain=() own_prof=() stop=() late_open=() late_close=() skew=() t0 t1 pid db
  local ms="$build/test-bin/multistream" daemon="$build/test-bin/daemon" toggle="$build/test-bin/toggle_sample"
  local mpi="$build/test-bin/mpi_sample"
  for ((i = 0; i < repeat; i++)); do
    # The sample's own timed loop (events around 30 calls), plain and under prof.
    own_plain+=("$(env LD_LIBRARY_PATH="$sim" "$ms" | sed -n 's/^timing: .* took \([0-9.]*\) ms$/\1/p')")
    rm -rf "$work/out"; mkdir -p "$work/out"
    own_prof+=("$("$prof" --sim -d "$work/out" --summary-output none "$ms" | sed -n 's/^timing: .* took \([0-9.]*\) ms$/\1/p')")
    # --wait-timeout 1 with a child that outlives it: from prof's start to its return.
    rm -rf "$work/out"; mkdir -p "$work/out"
    t0=$(date +%s%N)
    "$prof" --sim --wait-timeout 1 -d "$work/out" --summary-output none "$daemon" linger 600 "$work/linger.pid" \
      >/dev/null 2>&1 || true
    t1=$(date +%s%N)
    pid=$(cat "$work/linger.pid" 2>/dev/null || true)
    [[ -n "$pid" ]] && { kill -9 "$pid" 2>/dev/null || true; }
    rm -f "$work/linger.pid"
    stop+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')")
    # --delay 300ms --duration 400ms: how late the window opened and how much longer it lasted.
    rm -rf "$work/out"; mkdir -p "$work/out"
    "$prof" --sim --delay 300ms --duration 400ms -d "$work/out" --summary-output none "$toggle" timed 1.5 >/dev/null 2>&1
    db=$(ls "$work/out"/*.db)
    late_open+=("$(sql "$db" "SELECT ROUND((w.begin_ns - CAST(m.value AS INTEGER) - 300000000) / 1e6, 3) FROM capture_windows w, meta m WHERE m.key = 'start_ns'")")
    late_close+=("$(sql "$db" "SELECT ROUND((end_ns - begin_ns - 400000000) / 1e6, 3) FROM capture_windows")")
    # MPI: a rank's first call after its start (the start is read at the library's load).
    if command -v mpirun >/dev/null && [[ -x "$mpi" ]]; then
      rm -rf "$work/out"; mkdir -p "$work/out"
      mpirun --allow-run-as-root --oversubscribe -np 4 "$prof" --sim --mpi-trace -d "$work/out" --summary-output none \
        "$mpi" >/dev/null 2>&1 || true
      v=0
      for db in "$work/out"/*.db; do
        line=$(sql "$db" "SELECT (SELECT MIN(begin_ns) FROM api_calls) - CAST(value AS INTEGER) FROM meta WHERE key = 'start_ns'")
        ((line > v)) && v=$line
      done
      skew+=("$(awk -v v="$v" 'BEGIN { printf "%.1f", v / 1e6 }')")
    fi
  done
  worst() { sort -n | tail -1; }
  row() {  # LABEL UNIT ONCE-BOUND VALUES...
    local label=$1 unit=$2 bound=$3; shift 3
    if (($# == 0)); then printf '| %s | n/a | n/a | %s |\n' "$label" "$bound"; return; fi
    printf '| %s | %s %s | %s %s | %s |\n' "$label" "$(printf '%s\n' "$@" | median)" "$unit" \
      "$(printf '%s\n' "$@" | worst)" "$unit" "$bound"
  }
  echo
  echo "## 11. Timing the tests do not bound (median and worst of $repeat)"
  echo
  echo "| property | median | worst | the bound a test once held |"
  echo "|---|---:|---:|---|"
  row "multistream's own timed loop, plain" ms "-" "${own_plain[@]}"
  row "the same under prof --sim" ms "plain + 0.15 ms (best of 15)" "${own_prof[@]}"
  row "prof --wait-timeout 1 returns, a child still running" s "< 6 s" "${stop[@]}"
  row "--delay 300ms: the window opens late by" ms "< 1500 ms" "${late_open[@]}"
  row "--duration 400ms: the window lasts longer by" ms "< 1500 ms" "${late_close[@]}"
  row "mpirun -np 4: a rank's first call after its start, worst rank" ms "< 25 ms" "${skew[@]}"
}

section_afterdeath() {
  # The program after prof's death (docs/guarantees.md): prof_killed's second phase, 2M
  # hipStreamQuery calls on one thread and 4 x 500k on four, plain, under a live prof, and after
  # prof was SIGKILLed at the phase's start (its records go on into the journal).
  local app="$build/test-bin/prof_killed" n1=2000000 n4=500000
  ((smoke)) && n1=20000 n4=5000
  echo
  echo "## The program after prof is killed (ns per call, median of $repeat; dropped: calls prof --recover did not get)"
  echo
  echo "| threads | calls | plain | prof alive | prof killed | killed / alive | dropped after the kill |"
  echo "|---:|---:|---:|---:|---:|---:|---:|"
  python3 - "$app" "$prof" "$sim" "$work" "$repeat" "$n1" "$n4" <<'PY'
import glob, os, re, signal, sqlite3, statistics, subprocess, sys
app, prof, sim, work, repeat, n1, n4 = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])

def run(mode, threads, calls):
    out = os.path.join(work, "death")
    subprocess.run(["rm", "-rf", out]); os.makedirs(out)
    if mode == "plain":
        cmd, env = [app], dict(os.environ, LD_LIBRARY_PATH=sim)
    else:
        cmd, env = [prof, "--sim", "-d", out, "--summary-output", "none", app], dict(os.environ)
    p = subprocess.Popen(cmd + ["1000", str(calls), str(threads)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, env=env)
    ready = p.stdout.readline()
    pid = int(ready.split()[1])
    if mode == "killed":
        os.kill(p.pid, signal.SIGKILL); p.wait()
    p.stdin.write("go\n"); p.stdin.close()
    line = p.stdout.readline()
    expected, ns = (int(x) for x in re.search(r"api_calls=(\d+) phase2_ns=(\d+)", line).groups())
    dropped = 0
    if mode == "killed":
        while os.path.exists(f"/proc/{pid}") and open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] != "Z":
            pass
        runs = [d for d in glob.glob("/dev/shm/prof-run-*") if open(os.path.join(d, "run.conf")).read().find(out) >= 0]
        subprocess.run([prof, "--recover", *runs], capture_output=True)
        db = sqlite3.connect(os.path.join(out, f"hip-prof-{pid}.db"))
        dropped = expected - db.execute("SELECT COUNT(*) FROM api_calls").fetchone()[0]
    else:
        p.wait()
    return ns / (threads * calls), dropped

for threads, calls in ((1, n1), (4, n4)):
    cells, drops = {}, []
    for mode in ("plain", "alive", "killed"):
        values = []
        for _ in range(repeat):
            ns, dropped = run(mode, threads, calls)
            values.append(ns)
            if mode == "killed": drops.append(dropped)
        cells[mode] = statistics.median(values)
    print(f"| {threads} | {threads * calls:,} | {cells['plain']:.0f} | {cells['alive']:.0f} | {cells['killed']:.0f} | "
          f"{cells['killed'] / cells['alive']:.2f} | {max(drops):,} |")
PY
}

echo "# prof benchmarks: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPU(s), $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)"
echo "# clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)," \
     "uftrace: $( ((have_uftrace)) && uftrace --version | head -1 || echo absent)"
for s in api launch collector exit reports programs capture threads journal idle spawn timing afterdeath; do
  [[ -z "$only" || "$only" == "$s" ]] && "section_$s"
done
exit 0
