#!/usr/bin/env bash
# The e2e tier on a busy machine (issue 37): two busy loops per CPU run beside
# `ctest -L e2e --output-on-failure -j2 --timeout 600`, and are stopped however the tests end.
# A functional test passes here as it does on a quiet machine (docs/guarantees.md, "The tests").
#   scripts/test-under-load.sh [extra ctest arguments, e.g. -R 'e2e:multistream']
# Needs a build ($PROF_BUILD_DIR, default build/). Exit status: ctest's.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${PROF_BUILD_DIR:-$root/build}
[[ -f "$build/CTestTestfile.cmake" ]] || { echo "test-under-load: no build in $build (scripts/build.sh)" >&2; exit 66; }
loops=()
stop_loops() {
  local pid
  for pid in "${loops[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${loops[@]}"; do wait "$pid" 2>/dev/null || true; done
  loops=()
}
trap stop_loops EXIT
trap 'exit 130' INT TERM
cpus=$(nproc)
for ((i = 0; i < 2 * cpus; i++)); do
  bash -c 'while :; do :; done' &
  loops+=($!)
done
echo "test-under-load: ${#loops[@]} busy loops on $cpus CPU(s) (pids ${loops[*]})"
cd "$build"
started=$(date +%s)
status=0
ctest -L e2e --output-on-failure -j2 --timeout 600 "$@" || status=$?
echo "test-under-load: ctest exit status $status after $(( $(date +%s) - started )) s under load"
exit "$status"
