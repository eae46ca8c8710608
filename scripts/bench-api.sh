#!/usr/bin/env bash
# API overhead: ns per hipStreamQuery on the simulated device, plain and under prof, in one run.
#   scripts/bench-api.sh [--calls N] [--threads T] [--repeat R]
# Prints a table; the median of R runs of each configuration is reported.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${PROF_BUILD_DIR:-$root/build}
calls=2000000 threads=1 repeat=5
while [[ $# -gt 0 ]]; do
  case "$1" in
    --calls) calls=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    *) echo "bench-api: unknown option $1" >&2; exit 2 ;;
  esac
done
bench="$build/test-bin/api_overhead"
sim="$build/lib/prof/sim"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
measure() {  # label, command...
  local label=$1; shift
  local values=()
  for ((i = 0; i < repeat; i++)); do
    values+=("$("$@" | sed -n 's/^ns_per_call=\([0-9.]*\).*/\1/p')")
  done
  printf '%s\n' "${values[@]}" | median
}

plain=$(measure plain env LD_LIBRARY_PATH="$sim" "$bench" "$calls" "$threads")
profiled=$(measure prof "$build/bin/prof" --sim -d "$out" "$bench" "$calls" "$threads")
printf '%-28s %12s\n' "configuration" "ns/call"
printf '%-28s %12s\n' "plain (simulated runtime)" "$plain"
printf '%-28s %12s\n' "under prof --sim" "$profiled"
awk -v a="$plain" -v b="$profiled" 'BEGIN { printf "%-28s %12.1f\n", "added by prof", b - a }'
echo "(hipStreamQuery on an idle stream, $calls calls x $threads thread(s), median of $repeat runs)"
