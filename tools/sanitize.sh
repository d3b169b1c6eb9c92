#!/usr/bin/env bash
# The whole test suite on the CPU under AddressSanitizer and UndefinedBehaviorSanitizer
# (GCC or clang): configures BUILD_DIR (default build-asan; CPU only, tests on,
# benchmarks off, ccache when present) with -DTT_SANITIZE=address,undefined, builds it
# and runs ctest with leak detection on and every UBSan finding fatal. The libFuzzer
# step is skipped here (TT_SKIP_LIBFUZZER=1): it is an ASan/UBSan build of its own.
# -O1 -g, the sanitizers' usual level: -O3 builds Eigen's kernels far more slowly.
# Extra arguments go to ctest (e.g. -R overlap).
# Usage: tools/sanitize.sh [-B BUILD_DIR] [CTEST_ARGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
build=build-asan
if [ "${1:-}" = -B ]; then
  build=$2
  shift 2
fi
launcher=()
command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -g -DNDEBUG" \
  -DTT_SANITIZE=address,undefined -DTT_CUDA=OFF -DTT_BUILD_TESTS=ON -DTT_BUILD_BENCHMARKS=OFF \
  "${launcher[@]}"
cmake --build "$build" -j "${TT_JOBS:-$(nproc)}"
# allocator_may_return_null: an allocation beyond any memory returns null, as without
# ASan, which the library turns into tt::OutOfMemoryError (api_hostile_test asks for
# 4 TiB and expects that error; ASan would abort instead).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export TT_SKIP_LIBFUZZER=1
ctest --test-dir "$build" --output-on-failure -j "${TT_JOBS:-$(nproc)}" "$@"
