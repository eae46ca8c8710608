#!/usr/bin/env bash
# Installs what prof needs, builds it, and profiles the multiStream sample on the simulated
# HIP device. Outputs land in demo-output/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
out="$root/demo-output"
mkdir -p "$out"
echo
echo "== prof --sim --hip-trace -d demo-output build/test-bin/multistream 4096 =="
"$root/build/bin/prof" --sim --hip-trace -d "$out" "$root/build/test-bin/multistream" 4096
echo
echo "Outputs are in $out:"
ls -1 "$out"
echo "Open result_<pid>.report.html in a browser first (the run on one page); the timeline"
echo "result_<pid>_copy.json in https://ui.perfetto.dev (Open trace file)."
