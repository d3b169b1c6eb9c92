#!/usr/bin/env bash
# One device call for tt::compile (issue 18): build, the compile tests (and under
# compute-sanitizer), the chain kernel's bandwidth, and the transformer block compiled
# against eager and PyTorch (eager, torch.compile, SDPA) in strict, tf32 and accurate.
# Usage: tools/device/compile_check.sh [STAGE...]  (build test sanitize chain block compare
# seeds tune tune-all); chain: chain_test, compile_bench (both chain kernels, a second process's
# cached load), compile_test's CUDA cases on the interpreter, PyTorch's same chains;
# seeds: the five seeds as compiled plain-op forwards against the same forwards eager
# (seeds_compiled_bench) and, with SEEDS_TORCH=1, PyTorch's eager and
# torch.compile in float32 and TF32 (bench_precision.py); tune: `tt tune` (compiled) from
# an empty database on TUNE_MODELS (default: model 3 and the transformer block), then a
# second process's first compiled call with that database; tune-all: `tt tune --all` per mode
# in TUNE_MODES (default strict tf32 accurate) from an empty database, each model's
# second-process first call, the entries merged into $OUT/tuned.yaml.
# EXTRA_TARGETS: more build targets; EXTRA_TESTS: more test binaries to run (with
# EXTRA_FILTER as their gtest filter); STEP_TIMEOUT: seconds per step (180).
# BUILD_TARGETS: the build's targets instead of the default list, and no install nor
# example (a short call: e.g. "chain_test compile_test compile_bench" for the chain
# stage); CHAIN_BENCH_ARGS: more compile_bench arguments (--no-sweep); CHAIN_CASES: the
# chain_torch.py cases to time (substrings of their names, comma-separated; all unset).
# Logs go to $OUT; a short table is printed last.
source "$(dirname "$0")/device_env.sh"  # cd to the root; OUT, LOGS, build
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(build test sanitize chain block compare)
want() { [[ " ${stages[*]} " == *" $1 "* ]]; }
# Logs stay on the machine (only 8 files come back); the steps print what matters.
RUN_LOGS=$LOGS STEP_LIMIT=${STEP_TIMEOUT:-180}
source tools/device/run_step.sh  # run NAME LOG CMD..., the summary lines
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader | tee "$LOGS/gpu.txt"

if want build; then
  run configure configure.log cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DTT_CUDA_ARCHITECTURES=90a -DTT_BUILD_TESTS=ON -DTT_BUILD_BENCHMARKS=OFF \
    -DCMAKE_INSTALL_PREFIX=/tmp/tt-inst
  run build build.log cmake --build "$build" -j 16 --target \
    ${BUILD_TARGETS:-tt compile_test compile_bench seeds_compiled_bench chain_test} \
    ${EXTRA_TARGETS:-} -- -k 0 || tail -40 "$LOGS/build.log"
  if [ -z "${BUILD_TARGETS:-}" ]; then
    run install install.log cmake --install "$build"
    run example example.log bash -c "cmake -S examples/transformer_block -B /tmp/tb -G Ninja \
      -DCMAKE_PREFIX_PATH=/tmp/tt-inst -DCMAKE_BUILD_TYPE=Release && cmake --build /tmp/tb -j 16" ||
      tail -30 "$LOGS/example.log"
  fi
fi
tb=/tmp/tb/transformer_block
if want test; then
  run test compile_test.log "$build/tests/compile_test"
  tail -5 "$LOGS/compile_test.log"
  for t in ${EXTRA_TESTS:-}; do
    run "$t" "$t.log" "$build/tests/$t" --gtest_filter="${EXTRA_FILTER:-*}"
    grep -E "tests ran|PASSED|FAILED" "$LOGS/$t.log" | tail -4
  done
fi
if want sanitize; then
  for tool in memcheck racecheck; do
    run "san-$tool" "sanitize_$tool.log" compute-sanitizer --tool "$tool" --error-exitcode 9 \
      "$build/tests/compile_test" --gtest_filter='*Cuda*'
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" "$LOGS/sanitize_$tool.log" | tail -3
  done
fi
if want chain; then
  # A fresh kernel cache (HOME), so the first process compiles every chain with NVRTC and
  # the second (--load-only) reads them back from disk.
  export HOME=/tmp/home_chain && rm -rf "$HOME" && mkdir -p "$HOME"
  run chain-test chain_test.log "$build/tests/chain_test"
  grep -E "tests ran|PASSED|FAILED" "$LOGS/chain_test.log" | tail -3
  # The chains, trees and DAGs: generated, interpreter and the chain-split form.
  run chain chain.log "$build/tools/compile_bench" --reps 20 ${CHAIN_BENCH_ARGS:-}
  cat "$LOGS/chain.log"
  run chain-load chain_load.log "$build/tools/compile_bench" --load-only
  cat "$LOGS/chain_load.log"
  run chain-interp compile_test_interp.log env TT_CHAIN_KERNEL=interpreter \
    "$build/tests/compile_test" --gtest_filter='*Cuda*:*Random*:CompileDag*'
  grep -E "PASSED|FAILED" "$LOGS/compile_test_interp.log" | tail -3
  run chain-torch chain_torch.log python3 tools/device/chain_torch.py --reps 20 \
    ${CHAIN_CASES:+--cases "$CHAIN_CASES"}
  cat "$LOGS/chain_torch.log"
fi
if want block; then
  for mode in strict tf32 accurate; do
    run "explain-$mode" "explain_$mode.log" "$tb" compile TransformerBlock --shape full \
      --device cuda --precision "$mode" --explain --eval
    run "bench-$mode" "bench_$mode.log" "$tb" bench TransformerBlock --shape full \
      --configs tuned --precision "$mode" --json "$OUT/tb_$mode.json"
    run "eager-$mode" "eager_$mode.log" "$tb" bench TransformerBlock --shape full \
      --configs tuned --precision "$mode" --eager --json "$OUT/tb_${mode}_eager.json"
    run "graph-$mode" "graph_$mode.log" "$tb" bench TransformerBlock --shape full \
      --configs tuned --precision "$mode" --cuda-graph
    grep -E "^TransformerBlock" "$LOGS/graph_$mode.log" | sed "s/^/cuda graph $mode: /"
  done
  grep -h -E "^compile:|^group|kernel:" "$LOGS"/explain_tf32.log | head -30
  run torch torch.log python3 tools/device/bench_transformer.py --reps 20 \
    --ours strict="$OUT/tb_strict.json" tf32="$OUT/tb_tf32.json" accurate="$OUT/tb_accurate.json" \
    strict-eager="$OUT/tb_strict_eager.json" tf32-eager="$OUT/tb_tf32_eager.json" \
    accurate-eager="$OUT/tb_accurate_eager.json"
  cat "$LOGS/torch.log"
fi
if want compare; then
  for mode in strict tf32 accurate; do
    run "cmp-$mode" "compare_$mode.log" "$tb" compare TransformerBlock --shape full \
      --precision "$mode" --reference float64 --mode eval
    tail -4 "$LOGS/compare_$mode.log"
  done
fi
if want seeds; then
  run seeds seeds.log "$build/tools/seeds_compiled_bench" --shape full --reps 20 ${SEEDS_ARGS:-}
  cat "$LOGS/seeds.log"
  if [ -n "${SEEDS_TORCH:-}" ]; then
    run seeds-torch seeds_torch.log python3 tools/device/bench_precision.py --reps 20
    cat "$LOGS/seeds_torch.log"
  fi
fi
if want tune; then
  for model in ${TUNE_MODELS:-GemmSwishBiasGroupNorm TransformerBlock}; do
    for mode in ${TUNE_MODES:-tf32}; do
      # An empty user cache (HOME) per model and mode: the tune saves there, and the
      # second process reads it.
      home=/tmp/home_${model}_$mode
      rm -rf "$home" && mkdir -p "$home"
      run "tune-$model-$mode" "tune_${model}_$mode.log" env HOME="$home" /usr/bin/time -f "wall %e s" \
        "$tb" tune "$model" --shape full --precision "$mode"
      tail -8 "$LOGS/tune_${model}_$mode.log"
      run "first-$model-$mode" "first_${model}_$mode.log" env HOME="$home" "$tb" compile "$model" \
        --shape full --device cuda --precision "$mode"
      grep -E "^compile:" "$LOGS/first_${model}_$mode.log"
      # Every tuned entry into one database for the shipped one (autotune/db/).
      db="$home/.cache/tensortune/tuning.yaml"
      if [ -f "$OUT/tuned.yaml" ]; then
        "$tb" db merge "$OUT/tuned.yaml" "$db" -o "$OUT/tuned.yaml" >/dev/null
      else
        cp "$db" "$OUT/tuned.yaml"
      fi
    done
  done
fi
if want tune-all; then
  # `tt tune --all` (every registered model: the five seeds and the block) per mode from an
  # empty database and kernel cache (HOME), then a second process's first compiled forward
  # of each model with what the tune left; every mode's entries merged into $OUT/tuned.yaml.
  for mode in ${TUNE_MODES:-strict tf32 accurate}; do
    home=/tmp/home_all_$mode
    rm -rf "$home" && mkdir -p "$home"
    STEP_LIMIT=${TUNE_ALL_LIMIT:-300} run "tune-all-$mode" "tune_all_$mode.log" env HOME="$home" \
      /usr/bin/time -f "wall %e s" "$tb" tune --all --shape full --precision "$mode"
    grep -E "^[A-Za-z0-9]+ \(full shape|^saved|^wall|failed|error" "$LOGS/tune_all_$mode.log"
    for model in $("$tb" models --names 2>/dev/null || echo ${TUNE_MODELS:-}); do
      run "first-$model-$mode" "first_${model}_$mode.log" env HOME="$home" "$tb" compile "$model" \
        --shape full --device cuda --precision "$mode"
      grep -E "^compile:" "$LOGS/first_${model}_$mode.log" | sed "s/^/$model $mode /"
    done
    db="$home/.cache/tensortune/tuning.yaml"
    if [ -f "$OUT/tuned.yaml" ]; then
      "$tb" db merge "$OUT/tuned.yaml" "$db" -o "$OUT/tuned.yaml" >/dev/null
    else
      cp "$db" "$OUT/tuned.yaml"
    fi
    cp "$LOGS/tune_all_$mode.log" "$OUT/"
  done
fi
tar czf "$OUT/logs.tgz" -C "$LOGS" .
printf '%s\n' "${summary[@]}"
