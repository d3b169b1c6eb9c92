#!/usr/bin/env bash
# Configures and builds tensortune into ${TT_BUILD_DIR:-build}. Extra arguments go to
# cmake's configure step (e.g. -DTT_CUDA_ARCHITECTURES=90).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${TT_BUILD_DIR:-build}
# A new build directory gets Ninja where it is installed: it compiles a target's sources
# while the libraries it links are still being built, where make starts a target only
# once its dependencies are done and leaves a core idle behind each library's slowest
# file. A configured directory keeps its generator (CMake refuses to change it), and
# CMAKE_GENERATOR or a -G argument wins.
generator=()
if [ -z "${CMAKE_GENERATOR:-}" ] && [ ! -f "$build_dir/CMakeCache.txt" ] &&
  [[ " $* " != *" -G"* ]] && command -v ninja >/dev/null 2>&1; then
  generator=(-G Ninja)
fi
cmake -S . -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build "$build_dir" -j "$(nproc)"
