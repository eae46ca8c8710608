#!/usr/bin/env bash
# Installs prof's build and test dependencies from Debian 12 packages. Idempotent:
# packages already present are skipped, and apt is only asked when something is missing.
#   scripts/install-deps.sh          build dependencies
#   scripts/install-deps.sh --tests  also the test-only ones (hipcc, HIP headers, uftrace for the benchmarks,
#                                    mpirun and the MPI headers for the MPI tests)
#   scripts/install-deps.sh --fuzz   also clang and libFuzzer, for scripts/fuzz.sh (not CI)
set -euo pipefail
build_pkgs=(build-essential cmake pkg-config libcli11-dev libsqlite3-dev libspdlog-dev catch2 libelf-dev python3)
test_pkgs=(hipcc libamdhip64-dev uftrace openmpi-bin libopenmpi-dev)
fuzz_pkgs=(clang libclang-rt-14-dev)
pkgs=("${build_pkgs[@]}")
if [[ "${1:-}" == "--tests" ]]; then pkgs+=("${test_pkgs[@]}"); fi
if [[ "${1:-}" == "--fuzz" ]]; then pkgs+=("${fuzz_pkgs[@]}"); fi

missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#pkgs[@]} packages present"
  exit 0
fi
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
