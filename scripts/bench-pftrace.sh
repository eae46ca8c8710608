#!/usr/bin/env bash
# Compares the two ways to write <base>.pftrace's protobuf (docs/design-reports.md, "Timelines"):
# Debian's libprotobuf with generated code against prof's own wire encoder. Prints a markdown table.
#   scripts/bench-pftrace.sh [SLICES]     (default 2,000,000)
# Needs a build ($PROF_BUILD_DIR, default build/) and protobuf-compiler + libprotobuf-dev
# (not prof dependencies: apt-get install protobuf-compiler libprotobuf-dev).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${PROF_BUILD_DIR:-$root/build}
command -v protoc >/dev/null || { echo "bench-pftrace: protoc missing (apt-get install protobuf-compiler libprotobuf-dev)" >&2; exit 69; }
[[ -f "$build/report/libprof_report.a" ]] || { echo "bench-pftrace: no build in $build (scripts/build.sh)" >&2; exit 66; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$root/scripts/bench-pftrace/trace_subset.proto" "$root/scripts/bench-pftrace/encoder_bench.cpp" "$work/"
(cd "$work" && protoc --cpp_out=. trace_subset.proto)
g++ -O2 -std=c++20 -I"$root" -I"$work" "$work/encoder_bench.cpp" "$work/trace_subset.pb.cc" \
  "$build/report/libprof_report.a" -lprotobuf -lpthread -o "$work/encoder_bench"
"$work/encoder_bench" "${1:-2000000}"
