#!/usr/bin/env bash
# Fuzzes the report's database reader and its CSV/JSON writers with libFuzzer (clang), each
# target for a bounded time. Not part of CI. Crashes are left as build-fuzz/crash-* files.
#   scripts/fuzz.sh [seconds per target, default 60] [target...]
# Targets: report_db (any bytes as --db), report_rows (valid schema, fuzzed values),
#          csv_json (escapers against strict readers).
# Needs clang and libFuzzer: scripts/install-deps.sh --fuzz
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${PROF_FUZZ_BUILD_DIR:-$root/build-fuzz}
seconds=${1:-60}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(report_db report_rows csv_json)
jobs=$(nproc)

# The libraries under test, instrumented for coverage, ASan and UBSan.
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPROF_BUILD_TESTS=OFF \
  -DPROF_SANITIZE=address,undefined,fuzzer-no-link >/dev/null
cmake --build "$build" -j"$jobs" --target prof_report prof_sqlite >/dev/null

flags=(-std=c++20 -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined -I"$root")
libs=("$build/report/libprof_report.a" "$build/collector/libprof_sqlite.a" $(pkg-config --libs sqlite3))

# Seeds for the db targets: the report's integration fixtures as real databases.
seeds=$build/seeds
mkdir -p "$seeds"
for sql in "$root"/test/integration/fixtures/*.sql; do
  db=$seeds/$(basename "$sql" .sql).db
  # The fixtures hold rows only; the schema comes from db/schema.hpp's raw strings.
  [[ -f $db ]] || python3 - "$root/db/schema.hpp" "$sql" "$db" <<'PY'
import re, sqlite3, sys
schema = re.findall(r'R"sql\((.*?)\)sql"', open(sys.argv[1]).read(), re.S)
db = sqlite3.connect(sys.argv[3])
for part in schema[:2] + [open(sys.argv[2]).read()]:
    db.executescript(part)
db.commit()
PY
done

status=0
for t in "${targets[@]}"; do
  exe=$build/fuzz_$t
  clang++ "${flags[@]}" "$root/test/fuzz/fuzz_$t.cpp" "${libs[@]}" -o "$exe"
  corpus=$build/corpus_$t
  mkdir -p "$corpus"
  extra=()
  [[ $t == report_db ]] && extra=("$seeds")
  echo "== fuzz_$t for ${seconds}s"
  (cd "$build" && "$exe" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
     "$corpus" "${extra[@]}") || status=1
done
exit $status
