#!/usr/bin/env bash
# Measures `prof --compare`'s false-alarm and miss rates on the multistream sample (docs/compare.md,
# "Measured false alarms and misses") and prints a table:
#   scripts/compare-false-alarms.sh [--tries N] [--busy] [--iterations N] [--out DIR]
# Each try profiles the sample 9 times on the simulated device: A1-A3 and B1-B3 unchanged
# (multistream 1024 ITER), C1-C3 with every kernel about 4x longer (multistream 65536 ITER: the
# simulated kernel takes 5 us + 0.25 ns per thread, sim/model.hpp, so 5.26 us -> 21.38 us; the
# copies grow too). Then it compares
#   A1 vs B1 and A vs B (1 and 3 runs per side): a false alarm is any exit status but 0;
#   A1 vs C1 and A vs C: a miss is exit status 0, or a regression list that does not name both kernels.
# --busy runs two busy loops per CPU beside it (killed on exit). Environment: PROF (default
# build/bin/prof), SAMPLE (default build/test-bin/multistream), both relative to the repository.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
tries=20 busy=0 iterations=100 out=
while [[ $# -gt 0 ]]; do
  case "$1" in
    --tries) tries=$2; shift 2 ;;
    --iterations) iterations=$2; shift 2 ;;
    --busy) busy=1; shift ;;
    --out) out=$2; shift 2 ;;
    *) echo "usage: $0 [--tries N] [--busy] [--iterations N] [--out DIR]" >&2; exit 2 ;;
  esac
done
prof=${PROF:-$here/build/bin/prof}
sample=${SAMPLE:-$here/build/test-bin/multistream}
[[ -x $prof && -x $sample ]] || { echo "compare-false-alarms: build prof and the samples first (scripts/build.sh)" >&2; exit 2; }
if [[ -z $out ]]; then
  out=$(mktemp -d -t prof-compare-rates.XXXXXX)
  keep=0
else
  mkdir -p "$out"
  keep=1
fi

busy_pids=()
cleanup() {
  for pid in "${busy_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  if [[ $keep == 0 ]]; then rm -rf "$out"; fi
}
trap cleanup EXIT
if [[ $busy == 1 ]]; then
  for ((i = 0; i < 2 * $(nproc); i++)); do
    (while :; do :; done) &
    busy_pids+=($!)
  done
fi

kernels=("blur_shared(float*, float const*, int)" "void scale<float>(float*, float const*, float, int)")
profile() {  # profile DIR ELEMENTS: one run, its db linked into the side folder DIR's parent
  mkdir -p "$1"
  "$prof" --sim -d "$1" "$sample" "$2" "$iterations" >"$1.log" 2>&1
}
flagged() {  # flagged REPORT: exit 0 when the regressions name both kernels
  local list
  list=$(sed -n '/^REGRESSED/,/^$/p' "$1")
  for k in "${kernels[@]}"; do grep -qF "  kernel $k: " <<<"$list" || return 1; done
}

declare -A count=()
for ((t = 1; t <= tries; t++)); do
  dir=$out/try$t
  for side in A B C; do
    size=1024
    [[ $side == C ]] && size=65536
    mkdir -p "$dir/$side"
    for r in 1 2 3; do
      profile "$dir/runs/$side$r" "$size"
      ln "$dir/runs/$side$r"/*.db "$dir/$side/run$r.db"
    done
  done
  for case in "A1 B1" "A B" "A1 C1" "A C"; do
    set -- $case
    left=$dir/$1 right=$dir/$2
    [[ $1 == ?1 ]] && left=$(echo "$dir/runs/$1"/*.db) right=$(echo "$dir/runs/$2"/*.db)
    report=$dir/compare-$1-$2.txt
    status=0
    "$prof" --compare "$left" "$right" >"$report" 2>&1 || status=$?
    key="$1 $2"
    if [[ $2 == B* ]]; then
      [[ $status == 0 ]] && count[$key]=$((${count[$key]:-0} + 1)) || echo "try $t: false alarm, $report" >&2
    else
      [[ $status == 1 ]] && flagged "$report" && count[$key]=$((${count[$key]:-0} + 1)) || echo "try $t: miss, $report" >&2
    fi
  done
  [[ $keep == 1 ]] || rm -rf "$dir"
done

printf '%-44s  %-13s  %s\n' "case (multistream, $iterations iterations)" "runs per side" "as expected"
printf '%-44s  %-13s  %s\n' "unchanged: exit 0 (no false alarm)" 1 "${count[A1 B1]:-0} of $tries"
printf '%-44s  %-13s  %s\n' "unchanged: exit 0 (no false alarm)" 3 "${count[A B]:-0} of $tries"
printf '%-44s  %-13s  %s\n' "kernels 4x longer: exit 1, both kernels named" 1 "${count[A1 C1]:-0} of $tries"
printf '%-44s  %-13s  %s\n' "kernels 4x longer: exit 1, both kernels named" 3 "${count[A C]:-0} of $tries"
printf 'machine: %s CPUs, %s\n' "$(nproc)" "$([[ $busy == 1 ]] && echo "two busy loops per CPU beside it" || echo "no added load")"
