#!/usr/bin/env bash
# One device call that checks a session's merged work within the call's limit: builds the
# tool, the install, the transformer-block example and the GPU test suites named below,
# then runs, most important first, each step bounded by STEP_TIMEOUT and skipped once
# BUDGET seconds have passed: the compile tests, the block against PyTorch (compile_check
# block), the chain kernel's bandwidth, the attention, dtype, indexing, model-golden and
# overlap suites, the op table's GPU half (small cases), the tc stress, and memcheck on
# the compiled CUDA tests (SKIP_BLOCK=1 leaves the block and chain out). Logs in $OUT; a
# summary last.
set -uo pipefail
cd "$(dirname "$0")/../.."
export OUT=${OUT:-$PWD/device-out}
BUDGET=${BUDGET:-520}
build=${TT_BUILD_DIR:-build-device}
tests="compile_test attention_test dtype_ops_test index_ops_test model_goldens_test overlap_test"
export STEP_TIMEOUT=300 EXTRA_TARGETS="$tests op_table_test tc_gemm_test"
bash tools/device/compile_check.sh build >"$OUT/build_stage.log" 2>&1
tail -3 "$OUT/build_stage.log"
LOGS=/tmp/tt-logs
summary=()
run() {  # run NAME TIMEOUT CMD...: only while the budget lasts
  local name=$1 limit=$2
  shift 2
  if ((SECONDS > BUDGET)); then
    summary+=("$(printf '%-14s skipped (budget)' "$name")")
    return
  fi
  local t0=$SECONDS
  timeout "$limit" "$@" >"$LOGS/$name.log" 2>&1
  local rc=$?
  summary+=("$(printf '%-14s rc=%-3s %4ss  %s' "$name" "$rc" $((SECONDS - t0)) \
    "$(grep -E '^\[  (PASSED|FAILED) |tests ran' "$LOGS/$name.log" | tr '\n' ' ' | cut -c1-90)")")
}
run compile_test 60 "$build/tests/compile_test"
if [ -z "${SKIP_BLOCK:-}" ]; then
  STEP_TIMEOUT=120 bash tools/device/compile_check.sh block chain >"$OUT/block_stage.log" 2>&1
  grep -E "^\| |^gelu|^\(x|^relu|^tanh|^case|copy " "$OUT/block_stage.log"
fi
for t in attention_test dtype_ops_test index_ops_test model_goldens_test overlap_test; do
  run "$t" 90 "$build/tests/$t"
done
TT_OP_TABLE_SMALL=1 run op_table 150 "$build/tests/op_table_test" \
  --gtest_filter='*CudaMatchesCpu*:*Compiled*'
run tc_stress 120 "$build/tests/tc_gemm_test" --gtest_filter='*Stress*:*ColumnStatistics*:*GroupNorm*'
run memcheck 90 compute-sanitizer --tool memcheck --error-exitcode 9 "$build/tests/compile_test" \
  --gtest_filter='*Cuda*'
tar czf "$OUT/logs.tgz" -C "$LOGS" .
printf '%s\n' "${summary[@]}"
