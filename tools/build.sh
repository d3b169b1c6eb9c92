#!/usr/bin/env bash
# Configures and builds tensortune into ${TT_BUILD_DIR:-build}. Extra arguments go to
# cmake's configure step (e.g. -DTT_CUDA_ARCHITECTURES=90).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${TT_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build "$build_dir" -j "$(nproc)"
