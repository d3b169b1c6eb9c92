#!/usr/bin/env bash
# The session's closing device call, most important first, each step bounded: the whole
# build and the GPU test suite; `tt tune` of the transformer block in tf32 and accurate into
# a fresh database ($OUT/tuned.yaml); the block and its causal (GPT-2 masked_fill) form
# compiled with that database against PyTorch (eager, torch.compile, SDPA); the float64
# error of the compiled block in strict and accurate; memcheck over the new kernels' tests.
# Steps past BUDGET seconds are skipped. Logs in /tmp/tt-logs (tarred into $OUT).
source "$(dirname "$0")/device_env.sh"  # cd to the root; OUT, LOGS, build
BUDGET=${BUDGET:-540}
RUN_LOGS=$LOGS STEP_LIMIT=${STEP_TIMEOUT:-200}
source tools/device/run_step.sh  # run NAME LOG CMD..., the summary lines
step() {  # step NAME LOG CMD...: run, unless the budget is spent
  if ((SECONDS > BUDGET)); then
    summary+=("$(printf '%-26s skipped (budget)' "$1")")
    return 1
  fi
  run "$@"
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$LOGS/gpu.txt"

step configure configure.log cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DTT_CUDA_ARCHITECTURES=90a -DTT_BUILD_TESTS=ON -DTT_BUILD_BENCHMARKS=OFF \
  -DCMAKE_INSTALL_PREFIX=/tmp/tt-inst
step build build.log cmake --build "$build" -j 16 -- -k 0 ||
  grep -E "error|FAILED" "$LOGS/build.log" | head -20
step install install.log cmake --install "$build"
step example example.log bash -c "cmake -S examples/transformer_block -B /tmp/tb -G Ninja \
  -DCMAKE_PREFIX_PATH=/tmp/tt-inst -DCMAKE_BUILD_TYPE=Release && cmake --build /tmp/tb -j 16" ||
  tail -20 "$LOGS/example.log"
step ctest ctest.log ctest --test-dir "$build" -j 6 --output-on-failure --timeout 150 \
  -E "fuzz_libfuzzer|sanitize"
grep -E "tests passed|tests failed" "$LOGS/ctest.log"
sed -n '/The following tests FAILED/,$p' "$LOGS/ctest.log" | head -20
cp "$LOGS/ctest.log" "$OUT/" 2>/dev/null

tb=/tmp/tb/transformer_block
export HOME=/tmp/home_final && rm -rf "$HOME" && mkdir -p "$HOME"
db="$HOME/.cache/tensortune/tuning.yaml"
for mode in ${TUNE_MODES:-tf32 accurate}; do
  step "tune-$mode" "tune_$mode.log" /usr/bin/time -f "wall %e s" "$tb" tune TransformerBlock \
    --shape full --precision "$mode"
  grep -E "^TransformerBlock \(|^saved|^wall|failed|error" "$LOGS/tune_$mode.log"
done
[ -f "$db" ] && cp "$db" "$OUT/tuned.yaml"
step first-call first.log "$tb" compile TransformerBlock --shape full --device cuda --precision accurate
grep -E "^compile:" "$LOGS/first.log"

for model in TransformerBlock CausalTransformerBlock; do
  args=()
  for mode in strict tf32 accurate; do
    step "$model-$mode" "bench_${model}_$mode.log" "$tb" bench "$model" --shape full \
      --configs tuned --precision "$mode" --json "$OUT/${model}_$mode.json" &&
      args+=("$mode=$OUT/${model}_$mode.json")
    grep -E "^$model" "$LOGS/bench_${model}_$mode.log" | head -1
  done
  step "graph-$model-accurate" "graph_$model.log" "$tb" bench "$model" --shape full \
    --configs tuned --precision accurate --cuda-graph
  grep -E "^$model" "$LOGS/graph_$model.log" | sed "s/^/cuda graph: /"
  causal=""
  [ "$model" = CausalTransformerBlock ] && causal=--causal
  step "torch-$model" "torch_$model.log" python3 tools/device/bench_transformer.py $causal \
    --reps 20 --ours "${args[@]}"
  cat "$LOGS/torch_$model.log"
done
for mode in accurate strict; do
  step "cmp-$mode" "compare_$mode.log" "$tb" compare TransformerBlock --shape full \
    --precision "$mode" --reference float64 --mode eval
  tail -3 "$LOGS/compare_$mode.log"
done
step explain explain.log "$tb" compile CausalTransformerBlock --shape full --device cuda \
  --precision accurate --explain --eval
grep -E "^compile:|^group|kernel:" "$LOGS/explain.log" | head -24
for t in tc_gemm_test chain_test compile_attention_test; do
  step "memcheck-$t" "memcheck_$t.log" compute-sanitizer --tool memcheck --error-exitcode 9 \
    "$build/tests/$t"
  grep -E "ERROR SUMMARY|PASSED|FAILED" "$LOGS/memcheck_$t.log" | tail -2
done
tar czf "$OUT/logs.tgz" -C "$LOGS" .
printf '%s\n' "${summary[@]}"
