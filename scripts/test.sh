#!/usr/bin/env bash
# Installs every dependency (test ones included), builds prof and runs all test tiers
# (unit, integration, e2e) with CTest, then the same under ASan+UBSan and the collector/ring
# tests under TSan (scripts/test-sanitizers.sh; PROF_SKIP_SANITIZERS=1 skips that stage).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh" --tests
"$root/scripts/build.sh"
cd "${PROF_BUILD_DIR:-$root/build}"
ctest --output-on-failure -j"$(nproc)" --timeout 600
if [[ "${PROF_SKIP_SANITIZERS:-}" != 1 ]]; then
  "$root/scripts/test-sanitizers.sh"
fi
