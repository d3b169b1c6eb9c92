#!/usr/bin/env bash
# CI's libFuzzer step (the ctest fuzz_libfuzzer): builds the fuzz harnesses with clang,
# ASan and UBSan into BUILD_DIR (default build-fuzz; CPU only, ccache when present) and
# runs each for a fixed number of executions from its corpus and regressions
# (TT_FUZZ_RUNS, default 2000, seed 1: the same work every run). Exits 77 (ctest's
# skip) with the reason when clang cannot link a libFuzzer program here, or when
# TT_SKIP_LIBFUZZER=1 asks. Cost (2026-11-25, nothing cached, 2 cores shared with other
# builds): 8 min 12 s of CPU time, 18 min 23 s of wall time at a load average of ~11;
# the 5 x 2000 executions themselves take 17 s. CI runs the harnesses that need only the
# core and autotune libraries (TT_FUZZ_HARNESSES, default "safetensors database keys");
# the cli and shapes harnesses need the whole library rebuilt under clang with ASan (most
# of those 8 minutes): `TT_FUZZ_HARNESSES="safetensors database keys cli shapes"` runs all
# five. Every CI run still replays all five's corpora and regressions (fuzz_*_replay).
# Usage: tools/fuzz_ci.sh [BUILD_DIR]
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-fuzz}
cxx=${TT_FUZZ_CXX:-clang++}
if [ "${TT_SKIP_LIBFUZZER:-0}" = 1 ]; then
  echo "fuzz_libfuzzer skipped: TT_SKIP_LIBFUZZER=1"
  exit 77
fi
if ! command -v "$cxx" >/dev/null 2>&1; then
  echo "fuzz_libfuzzer skipped: $cxx is not installed (libFuzzer needs clang; apt-get install clang)"
  exit 77
fi
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf '#include <cstddef>\n#include <cstdint>\nextern "C" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }\n' \
  >"$probe/p.cpp"
if ! "$cxx" -fsanitize=fuzzer,address,undefined "$probe/p.cpp" -o "$probe/p" >"$probe/log" 2>&1; then
  echo "fuzz_libfuzzer skipped: $cxx cannot link a libFuzzer program ($(head -c 200 "$probe/log"))"
  exit 77
fi
launcher=()
command -v ccache >/dev/null 2>&1 && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
# -O1, the sanitizers' usual level: -O3 builds Eigen's kernels far more slowly.
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
  -DCMAKE_CXX_COMPILER="$cxx" -DTT_FUZZ=ON \
  -DTT_CUDA=OFF -DTT_NATIVE=OFF -DTT_BUILD_TESTS=OFF -DTT_BUILD_BENCHMARKS=OFF \
  -DTT_FUZZ_RUNS="${TT_FUZZ_RUNS:-2000}" "${launcher[@]}" >"$build.configure.log" 2>&1 ||
  { tail -20 "$build.configure.log"; exit 1; }
harnesses=(${TT_FUZZ_HARNESSES:-safetensors database keys})
targets=()
for h in "${harnesses[@]}"; do targets+=(--target "fuzz_$h"); done
cmake --build "$build" -j "${TT_FUZZ_JOBS:-$(nproc)}" "${targets[@]}" >"$build.build.log" 2>&1 ||
  { tail -40 "$build.build.log"; exit 1; }
pattern=$(IFS='|'; echo "${harnesses[*]}")
ctest --test-dir "$build" -R "fuzz_($pattern)_(work|runs)\$" --output-on-failure
