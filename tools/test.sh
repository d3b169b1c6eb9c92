#!/usr/bin/env bash
# Builds tensortune with its tests and runs the whole suite (GPU tests skip cleanly
# where there is no GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install_deps.sh
bash tools/build.sh -DTT_BUILD_TESTS=ON "$@"
ctest --test-dir "${TT_BUILD_DIR:-build}" --output-on-failure -j "$(nproc)"
