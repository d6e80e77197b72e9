#!/usr/bin/env bash
# Installs the Debian 12 packages schedsim needs. Idempotent: installs only what is missing.
#   scripts/install-deps.sh            build dependencies
#   scripts/install-deps.sh --test     build + test dependencies (tracing and browser tests)
set -euo pipefail

build_pkgs=(g++ cmake make pkg-config libboost-program-options-dev libboost-math-dev
            nlohmann-json3-dev
            libspdlog-dev catch2 zlib1g-dev libzstd-dev
            libtracecmd-dev libtracefs-dev libtraceevent-dev help2man
            pybind11-dev python3-dev python3-pandas)
# Tests that record real traces need hackbench (rt-tests) and perf; the HTML report test needs a
# browser; scripts/lint.sh needs clang-tidy; the Slurm sweep test runs a one-node Slurm
# (scripts/slurm-local.sh); the fuzz targets (scripts/fuzz.sh) need clang and libFuzzer; trace-cmd
# re-records the trace.dat fixture (docs/traces.md "Fixtures"); the benchmarks (bench/run-all.sh)
# need GNU time, valgrind (callgrind instruction counts) and SimPy 3 for the peer model in bench/peers/;
# python3 runs the fidelity scripts (scripts/fidelity*.sh, the test docs.fidelity-report); pytest,
# nbconvert, ipykernel and matplotlib run the Python module's tests and its example notebook
# (docs/python.md); pybind11-dev, python3-dev and python3-pandas build it and give its DataFrames.
test_pkgs=(rt-tests linux-perf trace-cmd chromium clang-tidy slurm-wlm munge clang-14 libfuzzer-14-dev
           time valgrind python3 python3-simpy3
           python3-pytest jupyter-nbconvert jupyter-client python3-ipykernel python3-nbformat python3-matplotlib)

want=("${build_pkgs[@]}")
for arg in "$@"; do
  case "$arg" in
    --test) want+=("${test_pkgs[@]}") ;;
    -h|--help) sed -n '2,4p' "$0"; exit 0 ;;
    *) echo "install-deps.sh: unknown option '$arg' (expected --test)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps.sh: missing Debian packages: ${missing[*]}" >&2
  echo "install-deps.sh: run as root (or: sudo apt-get install ${missing[*]})" >&2
  exit 1
fi
echo "install-deps.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
