#!/usr/bin/env bash
# Builds tensortune with its tests and the benchmark programs (named on the command
# line: a build directory that tools/quickstart.sh configured keeps them off otherwise)
# and runs the whole suite; GPU tests skip cleanly where there is no GPU. Extra
# arguments go to cmake's configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install_deps.sh
bash tools/build.sh -DTT_BUILD_TESTS=ON -DTT_BUILD_BENCHMARKS=ON "$@"
ctest --test-dir "${TT_BUILD_DIR:-build}" --output-on-failure -j "$(nproc)"
