#!/usr/bin/env bash
# One device call that proves the merged tree: builds every target (sm_90a, Ninja, -j16),
# runs the whole ctest suite on the GPU (FULL_LIMIT seconds in all, TEST_TIMEOUT each),
# then compute-sanitizer memcheck/racecheck/synccheck over the GPU attention tests (the
# wgmma kernels included) within SANITIZE_LIMIT seconds each, and memcheck over the test
# binaries in MEMCHECK_TESTS. The build dir stays for a
# second call on the same warm machine (compile_check.sh block seeds). Logs in $OUT; the
# failing tests' output and a summary table come last.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
build=${TT_BUILD_DIR:-build-device}
source tools/device/run_step.sh  # run NAME LOG CMD..., the summary lines
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv,noheader |
  tee "$OUT/gpu.txt"
run configure configure.log cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DTT_CUDA_ARCHITECTURES=90a -DTT_BUILD_TESTS=ON -DTT_BUILD_BENCHMARKS=OFF \
  -DCMAKE_INSTALL_PREFIX=/tmp/tt-inst || tail -30 "$OUT/configure.log"
run build build.log cmake --build "$build" -j 16 -- -k 0 ||
  grep -E "error|FAILED" "$OUT/build.log" | head -30
run ctest ctest.log timeout "${FULL_LIMIT:-330}" ctest --test-dir "$build" -j 6 --output-on-failure \
  --timeout "${TEST_TIMEOUT:-240}" -E "${CTEST_EXCLUDE:-fuzz_libfuzzer|sanitize}"
grep -E "tests passed|tests failed" "$OUT/ctest.log"
sed -n '/The following tests FAILED/,$p' "$OUT/ctest.log" | head -40
for tool in ${SANITIZE_TOOLS-memcheck racecheck synccheck}; do
  run "sanitize.$tool" "sanitize_$tool.log" timeout "${SANITIZE_LIMIT:-90}" \
    compute-sanitizer --tool "$tool" --error-exitcode 9 "$build/tests/attention_test" \
    --gtest_filter="${SANITIZE_FILTER:-AttentionCuda.*}"
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Invalid|Race|hazard|PASSED|FAILED" \
    "$OUT/sanitize_$tool.log" | head -6
done
# MEMCHECK_TESTS: more test binaries (whole) under compute-sanitizer memcheck.
for t in ${MEMCHECK_TESTS:-}; do
  run "memcheck.$t" "memcheck_$t.log" timeout "${SANITIZE_LIMIT:-90}" \
    compute-sanitizer --tool memcheck --error-exitcode 9 "$build/tests/$t"
  grep -E "ERROR SUMMARY|PASSED|FAILED" "$OUT/memcheck_$t.log" | head -4
done
printf '%s\n' "${summary[@]}"
