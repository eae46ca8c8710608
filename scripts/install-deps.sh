#!/usr/bin/env bash
# Installs prof's build and test dependencies from Debian 12 packages. Idempotent:
# packages already present are skipped, and apt is only asked when something is missing.
#   scripts/install-deps.sh          build dependencies
#   scripts/install-deps.sh --tests  also the test-only ones (hipcc, HIP headers, uftrace for the
#                                    benchmarks, strace for e2e:recover's syscall counts, mpirun and the
#                                    MPI headers for the MPI tests, chromium and Node.js for the browser
#                                    test, man-db, groff and zsh for e2e:help's man page and
#                                    completion checks, universal-ctags and clang-format for the
#                                    style tests) and
#                                    test/browser's npm packages (npm ci, from its committed
#                                    lock file; again only when that file changes)
#   scripts/install-deps.sh --fuzz   also clang and libFuzzer, for scripts/fuzz.sh (not CI)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_pkgs=(build-essential cmake pkg-config libcli11-dev libsqlite3-dev libspdlog-dev catch2 libelf-dev python3)
test_pkgs=(hipcc libamdhip64-dev uftrace strace openmpi-bin libopenmpi-dev chromium nodejs man-db groff-base zsh universal-ctags clang-format)
fuzz_pkgs=(clang libclang-rt-14-dev)
pkgs=("${build_pkgs[@]}")
if [[ "${1:-}" == "--tests" ]]; then pkgs+=("${test_pkgs[@]}"); fi
if [[ "${1:-}" == "--fuzz" ]]; then pkgs+=("${fuzz_pkgs[@]}"); fi

SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
apt_install() {
  echo "install-deps: installing $*"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#pkgs[@]} packages present"
else
  apt_install "${missing[@]}"
  echo "install-deps: done"
fi

# test/browser's packages (playwright-core drives Debian's chromium; speedscope shows the timeline),
# exactly as its package-lock.json pins them. A stamp holds the lock file's hash, so an unchanged
# lock file costs nothing and a changed one reinstalls.
if [[ "${1:-}" == "--tests" ]]; then
  browser=$root/test/browser
  # Debian's own nodejs package comes without npm (NodeSource's has it).
  if ! command -v npm >/dev/null; then apt_install npm; fi
  stamp=$browser/node_modules/.prof-lock-sha256
  want=$(sha256sum "$browser/package-lock.json" | cut -d' ' -f1)
  if [[ ! -f $stamp || $(cat "$stamp") != "$want" ]]; then
    echo "install-deps: npm ci in test/browser"
    (cd "$browser" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    echo "$want" >"$stamp"
  fi
fi
