#!/usr/bin/env bash
# Report benchmark: regeneration speed and memory, db bytes per event, merge time. Prints a table;
# it is not a timed test (the CTest smoke run only checks that it runs).
#
#   scripts/bench-reports.sh [--events 10000000] [--merge-dbs 16] [--merge-events 1000000] [--work DIR]
#
# Needs a build (PROF_BUILD_DIR, default build/): bin/prof and test-bin/synth_db. Synthetic dbs
# are kept in the work directory (default /tmp/prof-bench-reports) and reused when present.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${PROF_BUILD_DIR:-$root/build}"
events=10000000 merge_dbs=16 merge_events=1000000 work=/tmp/prof-bench-reports
while [[ $# -gt 0 ]]; do
  case "$1" in
    --events) events="$2"; shift 2 ;;
    --merge-dbs) merge_dbs="$2"; shift 2 ;;
    --merge-events) merge_events="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    *) echo "bench-reports.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
prof="$build/bin/prof" synth="$build/test-bin/synth_db"
for tool in "$prof" "$synth"; do
  [[ -x "$tool" ]] || { echo "bench-reports.sh: $tool is not built" >&2; exit 1; }
done
mkdir -p "$work"

# Runs a command; sets seconds and peak_kb (the child's maximum resident set, from getrusage).
measure() {
  local result
  result=$(python3 - "$@" <<'PY'
import resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
elapsed = time.perf_counter() - start
if done.returncode:
    sys.exit(f"bench-reports.sh: {sys.argv[1:]} exited {done.returncode}")
print(f"{elapsed:.3f} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}")
PY
  )
  seconds=${result% *} peak_kb=${result#* }
}

make_db() {  # path events pid
  [[ -s "$1" ]] || "$synth" "$1" "$2" "$3"
}

rate() { python3 -c "import sys; print(f'{$1 / $2 / 1e6:.2f}M')"; }

big="$work/big-$events.db"
make_db "$big" "$events" 4242
bytes=$(stat -c %s "$big")
rm -rf "$work/out" && mkdir -p "$work/out"
measure "$prof" --db "$big" -d "$work/out" -o regen
regen_s=$seconds regen_kb=$peak_kb
rm -rf "$work/out" && mkdir -p "$work/out"
measure "$prof" --db "$big" -d "$work/out" -o regen --group-stream
stream_s=$seconds stream_kb=$peak_kb
# The timeline: one file, or its parts when it is split by time (docs/formats.md, "Parts").
json_bytes=$(cat "$work"/out/regen_copy*.json 2>/dev/null | wc -c)
json_parts=$(ls "$work"/out/regen_copy*.json 2>/dev/null | wc -l)

small="$work/small.db"
make_db "$small" $((events / 10 > 0 ? events / 10 : 1)) 4243
rm -rf "$work/out" && mkdir -p "$work/out"
measure "$prof" --db "$small" -d "$work/out" -o small
small_kb=$peak_kb

merge_dir="$work/merge-$merge_dbs-$merge_events"
mkdir -p "$merge_dir"
for i in $(seq 1 "$merge_dbs"); do make_db "$merge_dir/hip-prof-$((10000 + i)).db" "$merge_events" $((10000 + i)); done
rm -rf "$work/out" && mkdir -p "$work/out"
measure "$prof" --db-merge "$merge_dir" -d "$work/out"
merge_s=$seconds merge_kb=$peak_kb
merged_events=$((merge_dbs * merge_events))

rm -rf "$work/out"
printf '%-48s %s\n' "measure" "value"
printf '%-48s %s\n' "events in the db" "$events"
printf '%-48s %s\n' "db bytes per event" "$(python3 -c "print(f'{$bytes / $events:.1f}')")"
printf '%-48s %s\n' "regeneration (CSV + _copy.json) seconds" "$regen_s"
printf '%-48s %s\n' "regeneration events/s" "$(rate "$events" "$regen_s")"
printf '%-48s %s\n' "regeneration peak RSS MB" "$((regen_kb / 1024))"
printf '%-48s %s\n' "peak RSS MB at 1/10 the events" "$((small_kb / 1024))"
printf '%-48s %s\n' "_copy.json MB (all parts)" "$((json_bytes >> 20))"
printf '%-48s %s\n' "_copy.json parts" "$json_parts"
printf '%-48s %s\n' "regeneration with --group-stream seconds" "$stream_s"
printf '%-48s %s\n' "regeneration with --group-stream peak RSS MB" "$((stream_kb / 1024))"
printf '%-48s %s\n' "merge of $merge_dbs dbs x $merge_events events seconds" "$merge_s"
printf '%-48s %s\n' "merge events/s (db + CSV + JSON)" "$(rate "$merged_events" "$merge_s")"
printf '%-48s %s\n' "merge peak RSS MB" "$((merge_kb / 1024))"
