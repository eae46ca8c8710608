#!/usr/bin/env bash
# Report benchmark: regeneration speed and memory, db bytes per event, merge time. Prints a table;
# it is not a timed test (the CTest smoke run only checks that it runs).
#
#   scripts/bench-reports.sh [--events 2000000,5000000] [--repeat 1] [--merge-dbs 16] [--merge-events 1000000]
#                            [--names 100000,1000000] [--prof PATH] [--work DIR]
#
# --events: one regeneration row per size (a comma list). --repeat R: each regeneration runs R
# times and the row shows the fastest (the machine is shared: the others measure the neighbours).
# --merge-dbs 0 skips the merge. --names: a "memory per distinct kernel name" row per count (a comma
# list; "" skips): peak RSS of a db with that many kernels, each named differently, against the same
# events with 24 names (issue 42). --prof: the prof to measure (default the build's), e.g. an older
# build for a before/after on the same dbs.
# Needs a build (PROF_BUILD_DIR, default build/): bin/prof and test-bin/synth_db. Synthetic dbs
# are kept in the work directory (default /tmp/prof-bench-reports) and reused when present.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${PROF_BUILD_DIR:-$root/build}"
events=2000000,5000000 repeat=1 merge_dbs=16 merge_events=1000000 names=100000,1000000
work=/tmp/prof-bench-reports prof=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --events) events="$2"; shift 2 ;;
    --repeat) repeat="$2"; shift 2 ;;
    --merge-dbs) merge_dbs="$2"; shift 2 ;;
    --merge-events) merge_events="$2"; shift 2 ;;
    --names) names="$2"; shift 2 ;;
    --prof) prof="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    *) echo "bench-reports.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
prof="${prof:-$build/bin/prof}" synth="$build/test-bin/synth_db"
for tool in "$prof" "$synth"; do
  [[ -x "$tool" ]] || { echo "bench-reports.sh: $tool is not built" >&2; exit 1; }
done
mkdir -p "$work"

# Runs a command; sets seconds, cpu_seconds (user + system) and peak_kb (the child's maximum
# resident set, from getrusage).
measure() {
  local result
  result=$(python3 - "$@" <<'PY'
import resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
elapsed = time.perf_counter() - start
if done.returncode:
    sys.exit(f"bench-reports.sh: {sys.argv[1:]} exited {done.returncode}")
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{elapsed:.3f} {usage.ru_utime + usage.ru_stime:.3f} {usage.ru_maxrss}")
PY
  )
  read -r seconds cpu_seconds peak_kb <<<"$result"
}

# The fastest of `repeat` runs (peak RSS: the largest).
measure_best() {
  local best_s="" best_cpu="" best_kb=0
  for ((r = 0; r < repeat; r++)); do
    rm -rf "$work/out" && mkdir -p "$work/out"
    measure "$@"
    if [[ -z $best_s ]] || python3 -c "import sys; sys.exit(0 if $seconds < $best_s else 1)"; then
      best_s=$seconds best_cpu=$cpu_seconds
    fi
    ((peak_kb > best_kb)) && best_kb=$peak_kb
  done
  seconds=$best_s cpu_seconds=$best_cpu peak_kb=$best_kb
}

make_db() {  # path events pid [names]
  [[ -s "$1" ]] || "$synth" "$1" "$2" "$3" ${4:+"$4"}
}

rate() { python3 -c "import sys; print(f'{$1 / $2 / 1e6:.2f}M')"; }

echo "prof: $prof"
echo
echo "| events | db bytes/event | regeneration s | CPU s | events/s | peak RSS MB | timeline MB | timeline parts |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
IFS=, read -r -a sizes <<<"$events"
for n in "${sizes[@]}"; do
  db="$work/big-$n.db"
  make_db "$db" "$n" 4242
  bytes=$(stat -c %s "$db")
  measure_best "$prof" --db "$db" -d "$work/out" -o regen --output-format all
  # The timeline: one file, or its parts when it is split by time (docs/formats.md, "Parts").
  json_bytes=$(cat "$work"/out/regen_copy*.json 2>/dev/null | wc -c)
  json_parts=$(ls "$work"/out/regen_copy*.json 2>/dev/null | wc -l)
  printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$n" "$(python3 -c "print(f'{$bytes / $n:.1f}')")" \
    "$seconds" "$cpu_seconds" "$(rate "$n" "$seconds")" "$((peak_kb / 1024))" "$((json_bytes >> 20))" "$json_parts"
  last_db=$db last_n=$n
done

echo
printf '%-48s %s\n' "measure" "value"
measure_best "$prof" --db "$last_db" -d "$work/out" -o regen --group-stream --output-format all
printf '%-48s %s\n' "regeneration of $last_n with --group-stream seconds" "$seconds"
printf '%-48s %s\n' "regeneration with --group-stream peak RSS MB" "$((peak_kb / 1024))"

if ((merge_dbs > 0)); then
  merge_dir="$work/merge-$merge_dbs-$merge_events"
  mkdir -p "$merge_dir"
  for i in $(seq 1 "$merge_dbs"); do
    make_db "$merge_dir/hip-prof-$((10000 + i)).db" "$merge_events" $((10000 + i))
  done
  rm -rf "$work/out" && mkdir -p "$work/out"
  measure "$prof" --db-merge "$merge_dir" -d "$work/out" --output-format all
  printf '%-48s %s\n' "merge of $merge_dbs dbs x $merge_events events seconds" "$seconds"
  printf '%-48s %s\n' "merge events/s (db + CSV + JSON)" "$(rate $((merge_dbs * merge_events)) "$seconds")"
  printf '%-48s %s\n' "merge peak RSS MB" "$((peak_kb / 1024))"
fi

if [[ -n $names ]]; then
  echo
  echo "memory per distinct kernel name (synth_db: 2 kernels per 7 events, a name per kernel)"
  echo
  echo "| names | events | peak RSS MB | same events, 24 names MB | bytes per name |"
  echo "|---:|---:|---:|---:|---:|"
  IFS=, read -r -a name_counts <<<"$names"
  for k in "${name_counts[@]}"; do
    n=$((k * 7 / 2))
    make_db "$work/names-$k.db" "$n" 4242 "$k"
    make_db "$work/names-$k-base.db" "$n" 4242 24
    measure_best "$prof" --db "$work/names-$k-base.db" -d "$work/out" -o names --output-format all
    base_kb=$peak_kb
    measure_best "$prof" --db "$work/names-$k.db" -d "$work/out" -o names --output-format all
    printf '| %s | %s | %s | %s | %s |\n' "$k" "$n" "$((peak_kb / 1024))" "$((base_kb / 1024))" \
      "$(((peak_kb - base_kb) * 1024 / (k - 24)))"
  done
fi
rm -rf "$work/out"
