#!/usr/bin/env bash
# One device call for tt::compile's masked and causal attention (issue 18, the mask step):
# build, compile_attention_test (and compile_test's CUDA cases), the causal transformer
# block's explain report, and CausalTransformerBlock compiled against PyTorch's causal
# block (plain GPT-2 masked_fill and SDPA is_causal, eager and torch.compile).
# Usage: timeout 420 tools/device/causal_check.sh  (SKIP_BUILD=1: the build is there
# already). STEP_TIMEOUT: seconds per step (150). Logs go to /tmp/tt-logs; a short table is
# printed last, the bench JSON lands in $OUT.
source "$(dirname "$0")/device_env.sh"  # cd to the root; OUT, LOGS, build
RUN_LOGS=$LOGS STEP_LIMIT=${STEP_TIMEOUT:-150}
source tools/device/run_step.sh  # run NAME LOG CMD..., the summary lines
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader

if [ -z "${SKIP_BUILD:-}" ]; then
  # compile_check.sh's build stage (tt, the compile tests, the install and the example
  # built against it), with this script's test.
  OUT=$OUT EXTRA_TARGETS="compile_attention_test ${EXTRA_TARGETS:-}" tools/device/compile_check.sh build
fi
tb=/tmp/tb/transformer_block
run attention-test compile_attention_test.log "$build/tests/compile_attention_test"
grep -E "Failure|PASSED|FAILED|SKIPPED \]" "$LOGS/compile_attention_test.log" | tail -12
run compile-test-cuda compile_test.log "$build/tests/compile_test" --gtest_filter='*Cuda*'
grep -E "PASSED|FAILED" "$LOGS/compile_test.log" | tail -4
run explain explain.log "$tb" compile CausalTransformerBlock --shape full --device cuda \
  --precision tf32 --explain --eval
grep -E "^compile:|attention|kernel: scaled" "$LOGS/explain.log" | head -8
args=()
for mode in strict tf32 accurate; do
  run "bench-$mode" "bench_$mode.log" "$tb" bench CausalTransformerBlock --shape full \
    --configs tuned --precision "$mode" --json "$OUT/causal_$mode.json"
  grep -E "^CausalTransformerBlock" "$LOGS/bench_$mode.log" | head -2
  args+=("$mode=$OUT/causal_$mode.json")
done
run torch torch.log python3 tools/device/bench_transformer.py --causal --reps 20 --ours "${args[@]}"
cat "$LOGS/torch.log"
tar czf "$OUT/causal_logs.tgz" -C "$LOGS" .
printf '%s\n' "${summary[@]}"
