#!/usr/bin/env bash
# Builds tensortune with its tests (and the benchmark programs) and runs the whole
# suite; GPU tests skip cleanly where there is no GPU. Extra arguments go to cmake's
# configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install_deps.sh
bash tools/build.sh -DTT_BUILD_TESTS=ON "$@"
ctest --test-dir "${TT_BUILD_DIR:-build}" --output-on-failure -j "$(nproc)"
