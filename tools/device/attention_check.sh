#!/usr/bin/env bash
# Issue 19 on a GPU machine, in one call: builds only the attention targets (sm_90a,
# Ninja, -j16), runs the attention tests and the op table's attention row, the
# compute-sanitizer memcheck/racecheck/synccheck over the GPU attention tests, then
# times ours per precision (tools/device/attention_harness.cpp) against PyTorch's
# float32 SDPA and the plain composition (tools/device/bench_attention.py) at the
# issue's shapes. Logs go to $OUT (default ./attention-out); the table comes last.
# Usage: tools/device/attention_check.sh [--quick]   (--quick: two shapes, few reps)
# SANITIZE_TOOLS (default "memcheck racecheck synccheck"; empty: none) and
# SANITIZE_LIMIT (seconds per tool, default 120) and SANITIZE_FILTER (a gtest filter,
# default AttentionCuda.*) narrow the sanitizer stage (SANITIZE_PARALLEL=1: the tools side
# by side; TEST_BESIDE_SANITIZERS=1 with it: the tests beside them); STEP_LIMIT
# (seconds, default 600) ends any other step that hangs (a deadlocked kernel);
# KERNEL_BENCH=1 adds the kernels-alone bench (tools/device/attention_kernel_bench.cu);
# HARNESS=0 and PYTORCH=0 leave out the op's timing and PyTorch's; PREBUILT=DIR runs
# binaries built elsewhere (below); OP_TABLE_TEST="" leaves op_table_test out of the build.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/attention-out}
mkdir -p "$OUT"
build=${TT_BUILD_DIR:-build-attn}
quick=${1:-}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$OUT/gpu.txt"
t0=$SECONDS
# PREBUILT=DIR: DIR/attention_test and DIR/attention_harness built elsewhere for sm_90a
# (DIR/lib: shared libraries they need); used where they start here, else the build runs.
prebuilt_ok() {
  [ -n "${PREBUILT:-}" ] && [ -x "$PREBUILT/attention_test" ] &&
    LD_LIBRARY_PATH="$PREBUILT/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" \
      "$PREBUILT/attention_test" --gtest_list_tests >/dev/null 2>&1
}
if prebuilt_ok; then
  export LD_LIBRARY_PATH="$PREBUILT/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
  build=$PWD/build-prebuilt
  mkdir -p "$build/tests" "$build/tools"
  ln -sf "$PREBUILT/attention_test" "$build/tests/attention_test"
  ln -sf "$PREBUILT/attention_harness" "$build/tools/attention_harness"
  echo "prebuilt binaries from $PREBUILT"
else
  [ -n "${PREBUILT:-}" ] && echo "prebuilt binaries do not start here: building"
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTT_CUDA_ARCHITECTURES=90a \
    -DTT_BUILD_TESTS=ON -DTT_BUILD_BENCHMARKS=OFF >"$OUT/configure.log" 2>&1 ||
    { tail -30 "$OUT/configure.log"; exit 1; }
  cmake --build "$build" -j 16 --target attention_test ${OP_TABLE_TEST-op_table_test} \
    attention_harness >"$OUT/build.log" 2>&1 ||
    { grep -E "error|Error" "$OUT/build.log" | head -40; exit 1; }
fi
echo "build: $((SECONDS - t0)) s"

source tools/device/run_step.sh  # run NAME LOG CMD..., the summary lines (STEP_LIMIT)
# TEST_BESIDE_SANITIZERS=1 (with SANITIZE_PARALLEL=1): the tests run beside the
# sanitizers (their wall time, not the sum); their lines follow the sanitizers'.
test_failures() {
  grep -E "Failure|Expected|Which is|actual|FAILED|error" "$OUT/attention_test.log" | head -40
}
if [ "${TEST_BESIDE_SANITIZERS:-0}" = 1 ] && [ "${SANITIZE_PARALLEL:-0}" = 1 ]; then
  t_test=$SECONDS
  (timeout "${STEP_LIMIT:-0}" "$build/tests/attention_test" >"$OUT/attention_test.log" 2>&1
    echo "exit $?" >>"$OUT/attention_test.log") &
else
  run attention_test attention_test.log "$build/tests/attention_test" || test_failures
fi
if [ -x "$build/tests/op_table_test" ]; then
  run op_table.attention op_table.log "$build/tests/op_table_test" \
    --gtest_filter='*scaled_dot_product_attention*' ||
    grep -E "Failure|FAILED|rel_l2|Which" "$OUT/op_table.log" | head -20
fi
# The sanitizers over the GPU attention tests (their shapes are small: every tile
# edge, mask kind and mode), with a time limit each.
# SANITIZE_PARALLEL=1 runs the tools side by side (the wall time of the slowest).
sanitize() {
  timeout "${SANITIZE_LIMIT:-120}" compute-sanitizer --tool "$1" --error-exitcode 9 \
    "$build/tests/attention_test" --gtest_filter="${SANITIZE_FILTER:-AttentionCuda.*}"
}
if [ "${SANITIZE_PARALLEL:-0}" = 1 ]; then
  t1=$SECONDS
  for tool in ${SANITIZE_TOOLS-memcheck racecheck synccheck}; do
    (sanitize "$tool" >"$OUT/sanitize_$tool.log" 2>&1; echo "exit $?" >>"$OUT/sanitize_$tool.log") &
  done
  wait
  if [ -n "${t_test:-}" ]; then
    summary+=("$(printf '%-26s %-7s %4ss' attention_test "$(tail -1 "$OUT/attention_test.log")" \
      $((SECONDS - t_test)))")
    test_failures
  fi
  for tool in ${SANITIZE_TOOLS-memcheck racecheck synccheck}; do
    summary+=("$(printf '%-26s %-7s %4ss' "sanitize.$tool" "$(tail -1 "$OUT/sanitize_$tool.log")" \
      $((SECONDS - t1)))")
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Invalid|Race|hazard" "$OUT/sanitize_$tool.log" | head -5
  done
else
  for tool in ${SANITIZE_TOOLS-memcheck racecheck synccheck}; do
    run "sanitize.$tool" "sanitize_$tool.log" timeout "${SANITIZE_LIMIT:-120}" \
      compute-sanitizer --tool "$tool" --error-exitcode 9 "$build/tests/attention_test" \
      --gtest_filter="${SANITIZE_FILTER:-AttentionCuda.*}"
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Invalid|Race|hazard" "$OUT/sanitize_$tool.log" | head -5
  done
fi
[ "${HARNESS:-1}" = 1 ] && run harness harness.log "$build/tools/attention_harness" $quick
[ "${PYTORCH:-1}" = 1 ] && run pytorch pytorch.log python3 tools/device/bench_attention.py $quick
# KERNEL_BENCH=1: the kernels alone, variants and accurate-mode schemes side by side
# (tools/device/attention_kernel_bench.cu; one nvcc call, about a minute).
if [ "${KERNEL_BENCH:-0}" = 1 ]; then
  # KERNEL_BENCH_BIN: a bench built beforehand (the same nvcc line) to save the minute.
  kb=${KERNEL_BENCH_BIN:-}
  if [ -z "$kb" ]; then
    kb=$build/attention_kernel_bench
    nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a --expt-relaxed-constexpr \
      -I. -Xcompiler=-fopenmp tools/device/attention_kernel_bench.cu -o "$kb" -lgomp || kb=
  fi
  [ -n "$kb" ] && run kernel_bench kernel_bench.log "$kb"
  grep -h "^KB" "$OUT/kernel_bench.log" | cut -d, -f2- |
    awk -F, '{printf "%-26s %-26s %9s %7s %9s\n", $1, $2, $3, $4, $5}'
fi
grep -hs "^GPU" "$OUT/harness.log" "$OUT/pytorch.log" || true
printf '%s\n' "${summary[@]}"
echo "==== configs (ms) ===="
{ grep -hs "^CONFIG" "$OUT/harness.log" || true; } | cut -d, -f2- |
  awk -F, '{printf "%-9s %-26s %-30s %s\n", $1, $2, $3, $4}' | head -80
echo "==== table: shape | impl | ms | TFLOP/s | rel L2 vs float64 | config ===="
{ grep -hs "^RESULT" "$OUT/harness.log" "$OUT/pytorch.log" || true; } | cut -d, -f2- |
  sort -s -t, -k1,1 |
  awk -F, '{printf "%-26s %-20s %9s %7s %9s  %s\n", $1, $2, $3, $4, $5, $6}'
