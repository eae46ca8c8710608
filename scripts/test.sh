#!/usr/bin/env bash
# Installs every dependency (test ones included), builds prof and runs all test tiers
# (unit, integration, e2e) with CTest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh" --tests
"$root/scripts/build.sh"
cd "${PROF_BUILD_DIR:-$root/build}"
ctest --output-on-failure -j"$(nproc)" --timeout 600
