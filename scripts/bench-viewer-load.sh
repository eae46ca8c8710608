#!/usr/bin/env bash
# Viewer load benchmark: does one big run's <base>.pftrace open in Perfetto UI v20.1, how long does it
# take and how much memory does the browser use, against the JSON timeline's parts of the same run.
# Prints a markdown table (docs/benchmarks.md, "Viewer load"); it is not a test.
#
#   scripts/bench-viewer-load.sh [--iterations 357000] [--elements 1024] [--work DIR] [--reuse]
#                                [--timeout-s 1800] [--chromium /usr/bin/chromium]
#
# 1. `prof --sim -d WORK/run test-bin/multistream ELEMENTS ITERATIONS` (about 14 API calls an
#    iteration: 357,000 iterations are about 5M calls); --reuse keeps WORK/run's db and outputs
#    when they were made with the same arguments.
# 2. The reports written again from its db, timed with /usr/bin/time (wall, max RSS), as prof writes
#    them (`prof --db DB -d WORK/regen`) and without the pftrace (`--no-pftrace`, WORK/regen-nopf).
# 3. scripts/bench-viewer-load.mjs opens, each in a fresh headless Chromium: the .pftrace (one file),
#    the first JSON part (a full one) and the last part (or the one _copy.json when not split).
# Needs a build (PROF_BUILD_DIR, default build/: bin/prof, test-bin/multistream), sqlite3, node,
# /usr/bin/time, Chromium, and test/browser/node_modules (npm ci in test/browser).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${PROF_BUILD_DIR:-$root/build}"
iterations=357000 elements=1024 work=/tmp/prof-bench-viewer reuse=0 timeout_s=1800 chromium=/usr/bin/chromium
while [[ $# -gt 0 ]]; do
  case "$1" in
    --iterations) iterations="$2"; shift 2 ;;
    --elements) elements="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --reuse) reuse=1; shift ;;
    --timeout-s) timeout_s="$2"; shift 2 ;;
    --chromium) chromium="$2"; shift 2 ;;
    *) echo "bench-viewer-load.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
prof="$build/bin/prof" app="$build/test-bin/multistream"
for need in "$prof" "$app" "$root/test/browser/node_modules/playwright-core" "$chromium" /usr/bin/time; do
  [[ -e "$need" ]] || { echo "bench-viewer-load.sh: missing $need" >&2; exit 66; }
done
command -v sqlite3 >/dev/null || { echo "bench-viewer-load.sh: sqlite3 missing" >&2; exit 69; }
mkdir -p "$work"
run="$work/run" args="$elements $iterations"

# 1. the run
if [[ $reuse == 1 && -f "$run/args" && "$(cat "$run/args")" == "$args" ]] && ls "$run"/hip-prof-*.db >/dev/null 2>&1; then
  echo "reusing $run ($args)" >&2
else
  rm -rf "$run" && mkdir -p "$run"
  echo "prof --sim multistream $args ..." >&2
  /usr/bin/time -f "%e %M" -o "$run/time.txt" "$prof" --sim -d "$run" --summary-output none "$app" $elements $iterations \
    > "$run/prof.log" 2>&1
  echo "$args" > "$run/args"
fi
db=$(ls "$run"/hip-prof-*.db | head -1)
pid=${db##*hip-prof-}; pid=${pid%.db}
read -r run_s run_kb < "$run/time.txt"
counts=$(sqlite3 -separator ' ' "$db" 'SELECT (SELECT COUNT(*) FROM api_calls), (SELECT COUNT(*) FROM kernels), (SELECT COUNT(*) FROM copies)')
read -r n_api n_kernels n_copies <<< "$counts"

# 2. the reports again, timed
regen() { # DIR EXTRA-ARGS...: prints "wall_s max_rss_kb"
  local dir="$1"; shift
  rm -rf "$dir" && mkdir -p "$dir"
  /usr/bin/time -v -o "$dir.time" "$prof" --db "$db" -d "$dir" --summary-output none "$@" > "$dir.log" 2>&1
  local wall rss
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$dir.time" | awk -F: '{ s = 0; for (i = 1; i <= NF; ++i) s = s * 60 + $i; print s }')
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$dir.time")
  rm -rf "$dir" # only the times are kept (the outputs are the run's again)
  echo "$wall $rss"
}
echo "prof --db (reports with and without the pftrace) ..." >&2
read -r regen_s regen_kb <<< "$(regen "$work/regen")"
read -r nopf_s nopf_kb <<< "$(regen "$work/regen-nopf" --no-pftrace)"

# 3. the viewer
pftrace="$run/result_$pid.pftrace"
parts=$(ls "$run"/result_${pid}_copy.*.json 2>/dev/null | sort -V || true)
if [[ -n "$parts" ]]; then
  nparts=$(wc -l <<< "$parts")
  first=$(head -1 <<< "$parts") last=$(tail -1 <<< "$parts")
  traces=("$pftrace" "$first"); [[ "$last" != "$first" ]] && traces+=("$last")
else
  nparts=1
  traces=("$pftrace" "$run/result_${pid}_copy.json")
fi
json_bytes=$(cat "$run"/result_${pid}_copy*.json | wc -c)
echo "Perfetto UI: ${traces[*]##*/} ..." >&2
set +e
node "$root/scripts/bench-viewer-load.mjs" --chromium "$chromium" --timeout-s "$timeout_s" --json "$work/viewer.json" "${traces[@]}" >&2
viewer_rc=$?
set -e
[[ -f "$work/viewer.json" ]] || { echo "bench-viewer-load.sh: the viewer script wrote nothing (exit $viewer_rc)" >&2; exit 1; }

python3 - "$work/viewer.json" <<EOF
import json, sys
rows = json.load(open(sys.argv[1]))
mb = lambda b: f"{b / 1e6:,.0f} MB" if b >= 1e6 else f"{b / 1e3:,.0f} KB"
print(f"multistream $elements $iterations under prof --sim: {int('$n_api'):,} API calls, {int('$n_kernels'):,} kernels, "
      f"{int('$n_copies'):,} copies; the run {float('$run_s'):.1f} s, {int('$run_kb') // 1024} MB max RSS (the largest process, /usr/bin/time).")
print(f"Reports again from the db (prof --db): {float('$regen_s'):.1f} s, {int('$regen_kb') // 1024} MB max RSS; "
      f"with --no-pftrace {float('$nopf_s'):.1f} s, {int('$nopf_kb') // 1024} MB. "
      f"JSON timeline: $nparts part(s), {mb($json_bytes)} in all.")
print()
print("| file | size | slices in Perfetto | load | peak browser memory (PSS, all processes) | largest process RSS | result |")
print("|---|---:|---:|---:|---:|---:|---|")
for r in rows:
    until = r['load_s'] if r.get('load_s') is not None else r.get('load_s_until_error')
    load = f"{until:.1f} s" if r['slices'] is not None else (f"failed after {until:.1f} s" if until is not None else "failed")
    slices = f"{r['slices']:,}" if r['slices'] is not None else "-"
    # a dialog's first two paragraphs (the UI's own words); every other problem as it was
    problems = [" / ".join(p.split(" / ")[:2]) if p.startswith("dialog:") else p for p in r['problems']]
    result = "loaded, no import errors" if r['ok'] else " ".join("; ".join(problems + r['import_errors']).split()).replace("|", "/")
    print(f"| \`{r['file']}\` | {mb(r['bytes'])} | {slices} | {load} | {r['peak_pss_mb']:,} MB (idle: {r['base_pss_mb']} MB) | "
          f"{r['peak_proc_rss_mb']:,} MB | {result} |")
EOF
exit $viewer_rc
