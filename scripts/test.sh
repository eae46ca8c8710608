#!/usr/bin/env bash
# Installs every dependency (test ones included), builds prof and runs all test tiers
# (unit, integration, e2e, the viewer check) with CTest; then the e2e tier again with two busy
# loops per CPU beside it (scripts/test-under-load.sh; PROF_SKIP_LOAD=1 skips that stage); then
# the tests under ASan+UBSan and the collector/ring tests under TSan (scripts/test-sanitizers.sh;
# PROF_SKIP_SANITIZERS=1 skips that stage).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh" --tests
"$root/scripts/build.sh"
cd "${PROF_BUILD_DIR:-$root/build}"
ctest --output-on-failure -j"$(nproc)" --timeout 600
if [[ "${PROF_SKIP_LOAD:-}" != 1 ]]; then
  # The viewer check loads a browser for a minute; it ran above, on the quiet machine.
  "$root/scripts/test-under-load.sh" -E '^browser:'
fi
if [[ "${PROF_SKIP_SANITIZERS:-}" != 1 ]]; then
  "$root/scripts/test-sanitizers.sh"
fi
