#!/usr/bin/env bash
# The session's closing device call, made of the other check scripts, most important
# first, each bounded and skipped once BUDGET seconds have passed: the whole build and GPU
# test suite (full_check.sh, no sanitizers); the install and the example (compile_check.sh
# build); `tt tune` of the transformer block in TUNE_MODES (compile_check.sh tune), whose
# database comes back as $OUT/tuned.yaml and is used by everything after; the block against
# PyTorch and its float64 error (compile_check.sh block compare); the causal block against
# PyTorch (causal_check.sh); memcheck over the newest kernels' tests (MEMCHECK_TESTS). The
# scripts' logs and JSON stay in $LOGS (only 8 files come back); $OUT gets the tuned
# database and the logs' archive. TUNE_MODELS, TUNE_MODES (none: no tune), BENCH_BOTH and
# MEMCHECK_TESTS choose what those steps cover.
source "$(dirname "$0")/device_env.sh"  # cd to the root; OUT, LOGS, build
BUDGET=${BUDGET:-540}
RUN_LOGS=$LOGS STEP_LIMIT=${STEP_TIMEOUT:-240}
source tools/device/run_step.sh  # run NAME LOG CMD..., the summary lines
step() {  # step NAME LOG CMD...: run, unless the budget is spent
  if ((SECONDS > BUDGET)); then
    summary+=("$(printf '%-26s skipped (budget)' "$1")")
    return 1
  fi
  run "$@"
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$LOGS/gpu.txt"
here=(env OUT="$LOGS")  # the scripts below write their files where they stay

# The build (about 180 s) and the suite (about 75 s) are one step.
STEP_LIMIT=420 step full full_check.log env OUT="$LOGS/full" SANITIZE_TOOLS="" FULL_LIMIT=200 TEST_TIMEOUT=150 \
  bash tools/device/full_check.sh
grep -E "tests passed|tests failed" "$LOGS/full_check.log"
sed -n '/The following tests FAILED/,$p' "$LOGS/full_check.log" | head -20
step install install_stage.log "${here[@]}" bash tools/device/compile_check.sh build
# TUNE_MODES=none: the shipped database as it is (no tune).
if [ "${TUNE_MODES:-}" != none ]; then
  step tune tune_stage.log "${here[@]}" TUNE_MODELS="${TUNE_MODELS:-TransformerBlock}" \
    TUNE_MODES="${TUNE_MODES:-tf32 accurate}" bash tools/device/compile_check.sh tune
  grep -E "Block \(|^saved|^wall|^compile:|failed|error" "$LOGS/tune_stage.log"
fi
if [ -f "$LOGS/tuned.yaml" ]; then
  cp "$LOGS/tuned.yaml" "$OUT/tuned.yaml"
  export TT_TUNING_DB=$LOGS/tuned.yaml
fi
step block block_stage.log "${here[@]}" bash tools/device/compile_check.sh block compare
grep -E "^cuda graph|^\||rel L2|^TransformerBlock" "$LOGS/block_stage.log"
step causal causal_stage.log "${here[@]}" SKIP_BUILD=1 bash tools/device/causal_check.sh
grep -E "^\||^CausalTransformerBlock|is_causal" "$LOGS/causal_stage.log"
# BENCH_BOTH: models timed with their tuned and their default configs (`--configs both`).
for model in ${BENCH_BOTH:-}; do
  step "both-$model" "both_$model.log" /tmp/tb/transformer_block bench "$model" --shape full \
    --configs both
  grep -E "^$model|speedup|default" "$LOGS/both_$model.log" | head -6
done
for t in ${MEMCHECK_TESTS:-tc_gemm_test chain_test compile_attention_test}; do
  step "memcheck-$t" "memcheck_$t.log" compute-sanitizer --tool memcheck --error-exitcode 9 \
    "$build/tests/$t"
  grep -E "ERROR SUMMARY|PASSED|FAILED" "$LOGS/memcheck_$t.log" | tail -2
done
tar czf "$OUT/logs.tgz" -C "$LOGS" .
printf '%s\n' "${summary[@]}"
