#!/usr/bin/env bash
# A CI regression check with prof, ready to copy into any CI (docs/compare.md):
#   scripts/ci-compare.sh [--runs N] [--baseline DIR] [--out DIR] [--sim] [--dbs] [--] PROGRAM [ARGS...]
# profiles PROGRAM N times (default 3: prof --compare treats the spread of repeated runs as noise),
# then compares the runs' summaries with the baseline's. The first run of a job (no baseline yet)
# stores its summaries as the baseline and passes. Exit status: 0 clean, 1 regressed (each
# regression named on stdout), 2 bad input, or the program's own status when it failed.
# Environment: PROF (the prof executable; default: prof on PATH), PROF_COMPARE_ARGS (more
# --compare options, e.g. "--threshold 10% --min-time 50us"). With GITHUB_STEP_SUMMARY set the
# markdown table is appended to the job summary. --dbs keeps the runs' databases (every call's
# duration: the per-call rule of docs/compare.md) in the baseline instead of their summaries (a few
# KB each: the totals rule).
set -euo pipefail
runs=3 baseline=prof-baseline out=prof-ci sim=() kind=summary.json
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --baseline) baseline=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --sim) sim=(--sim); shift ;;
    --dbs) kind=db; shift ;;
    --) shift; break ;;
    -*) echo "ci-compare: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[[ $# -gt 0 ]] || { echo "usage: $0 [--runs N] [--baseline DIR] [--out DIR] [--sim] [--dbs] [--] PROGRAM [ARGS...]" >&2; exit 2; }
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "ci-compare: --runs $runs: expected a positive number" >&2; exit 2; }
prof=${PROF:-prof}

rm -rf "$out/runs"
mkdir -p "$out/runs"
for ((i = 1; i <= runs; i++)); do
  # Each run in its own folder and prof invocation: its dbs share one run id.
  mkdir -p "$out/runs/$i"
  "$prof" "${sim[@]}" -d "$out/runs/$i" "$@" >"$out/runs/$i.log" 2>&1 || {
    status=$?
    echo "ci-compare: run $i of $* failed with status $status (log: $out/runs/$i.log)" >&2
    exit "$status"
  }
done
mkdir -p "$out/new"
rm -f "$out"/new/*.summary.json "$out"/new/*.db
for ((i = 1; i <= runs; i++)); do
  for f in "$out/runs/$i"/*."$kind"; do cp "$f" "$out/new/run$i-$(basename "$f")"; done
done

if ! compgen -G "$baseline/*.$kind" >/dev/null; then
  mkdir -p "$baseline"
  cp "$out"/new/*."$kind" "$baseline/"
  echo "ci-compare: no baseline in $baseline yet: stored this job's $runs runs as the baseline"
  exit 0
fi

# shellcheck disable=SC2086  # PROF_COMPARE_ARGS is a list of options
set +e
"$prof" --compare "$baseline" "$out/new" ${PROF_COMPARE_ARGS:-} --format markdown >"$out/compare.md"
"$prof" --compare "$baseline" "$out/new" ${PROF_COMPARE_ARGS:-}
status=$?
set -e
if [[ -n "${GITHUB_STEP_SUMMARY:-}" ]]; then cat "$out/compare.md" >>"$GITHUB_STEP_SUMMARY"; fi
exit "$status"
