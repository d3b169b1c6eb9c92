#!/usr/bin/env bash
# One call on the GPU machine: build, test, sanitize, compare, tune and benchmark.
# Usage: tools/device/check.sh [STAGE...]   (default: every stage)
# Stages: build test overlap sanitize stress check compare tune configs bench
# (stress: tools/device/tc_stress.sh, the tensor-core GEMM from 6 processes at once;
# not in the default list: STRESS_TOOL, STRESS_ROUNDS choose its sanitizer and rounds)
# Logs go to $OUT (or ./device-out); a short summary table is printed last.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/device-out}
LOGS=${LOGS:-/tmp/tt-logs}  # every log; packed into $OUT/logs.tgz at the end
mkdir -p "$OUT" "$LOGS"
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(build test overlap sanitize check compare tune bench)
build=${TT_BUILD_DIR:-build-device}
tt="$build/tools/tt"
summary=()
want() { [[ " ${stages[*]} " == *" $1 "* ]]; }
step() {  # step NAME LOG CMD...: runs, records pass/fail and seconds
  local name=$1 log=$2
  shift 2
  local t0=$SECONDS
  "$@" >"$LOGS/$log" 2>&1
  local rc=$?
  summary+=("$(printf '%-10s rc=%-3s %4ss  %s' "$name" "$rc" $((SECONDS - t0)) "$log")")
  return $rc
}

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv \
  >"$LOGS/gpu.txt" 2>&1
cat "$LOGS/gpu.txt"

if want build; then
  step configure configure.log cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DTT_CUDA_ARCHITECTURES=90 -DTT_BUILD_TESTS=ON -G Ninja
  step build build.log cmake --build "$build" -j 16 || { tail -50 "$LOGS/build.log"; }
fi
if want test; then
  step test ctest.log ctest --test-dir "$build" --output-on-failure -j 4 --timeout 600
  grep -E "tests passed|FAILED|Failed|\*\*\*" "$LOGS/ctest.log" | tail -25
fi
if want overlap; then
  # Model 3's GEMM + pass schedules side by side (and with OVERLAP_NCU=1 the kernels'
  # launch resources: cuBLAS's 128-thread CTAs take 255 registers, 2 per SM).
  step overlap overlap.log "$build/tools/overlap_harness"
  grep -E "^(INFO|TIME|SKIP|FAIL)" "$LOGS/overlap.log"
  sed -n '/==== summary/,$p' "$LOGS/overlap.log"
  if [ -n "${OVERLAP_NCU:-}" ] && command -v ncu >/dev/null; then
    step ncu ncu_overlap.log ncu --clock-control none --section LaunchStats --section Occupancy \
      "$build/tools/overlap_harness" ncu
    grep -E "^  [a-zA-Z_].*\(|Registers Per Thread|Block Size|Grid Size|Shared Memory Per Block|Theoretical Occupancy|Block Limit (Registers|Shared Mem|Warps)" \
      "$LOGS/ncu_overlap.log" | cut -c1-150
  fi
fi
if want sanitize; then
  # Every GPU test suite under memcheck and racecheck, all at once (the tools only
  # slow the kernels; the GPU has room for all of them): SANITIZE_LIMIT seconds each.
  t0=$SECONDS
  pids=()
  # SANITIZE_SUITES / SANITIZE_TOOLS narrow the run (default: every suite, both tools).
  for exe in "$build"/tests/cuda_*_test "$build"/tests/op_table_test "$build"/tests/fixtures_test \
    "$build"/tests/tune_gpu_test "$build"/tests/fused_plans_test "$build"/tests/tc_gemm_test \
    "$build"/tests/gemm_precision_test "$build"/tests/precision_bounds_test; do
    n=$(basename "$exe")
    [ -x "$exe" ] || continue
    [ -z "${SANITIZE_SUITES:-}" ] || [[ " $SANITIZE_SUITES " == *" $n "* ]] || continue
    tools=${SANITIZE_TOOLS:-memcheck racecheck}
    # The sm90 tensor-core kernels synchronise through mbarriers and named barriers:
    # synccheck too. The precision suites run those same kernels at large K, where
    # racecheck would take far longer than the limit: memcheck only.
    [ "$n" = tc_gemm_test ] && [ -z "${SANITIZE_TOOLS:-}" ] && tools="memcheck racecheck synccheck"
    case "$n" in gemm_precision_test | precision_bounds_test) [ -z "${SANITIZE_TOOLS:-}" ] && tools=memcheck ;; esac
    for tool in $tools; do
      # The allocator test asks for 1 PiB on purpose; memcheck would count that
      # failed cudaMalloc (an API error the test expects) as an error.
      # Racecheck tracks every shared-memory access and is far too slow for the
      # full-size cases of the op table; its small cases take every code path, and
      # memcheck runs the full-size ones too.
      filter=()
      small=()
      [ "$tool $n" = "memcheck cuda_runtime_test" ] && filter=(--gtest_filter=-*OutOfMemory*)
      if [ "$tool $n" = "racecheck op_table_test" ]; then
        # Even the small cases of all 57 rows take longer than the limit in one process
        # (330 s on an H100): the rows run in RACECHECK_GROUPS processes side by side.
        small=(env TT_OP_TABLE_SMALL=1)
        groups=${RACECHECK_GROUPS:-8}
        mapfile -t rows < <("$exe" --gtest_list_tests | awk '
          /^[^ ]/ { suite = $1 } /^  / && suite ~ /OpTableRow/ && $1 ~ /^CudaMatches/ { print suite $1 }')
        for ((g = 0; g < groups; g++)); do
          f=""
          for ((r = g; r < ${#rows[@]}; r += groups)); do f+="${f:+:}${rows[r]}"; done
          [ -n "$f" ] || continue
          timeout "${SANITIZE_LIMIT:-400}" "${small[@]}" compute-sanitizer --tool $tool \
            --error-exitcode 9 "$exe" --gtest_filter="$f" >"$LOGS/${tool}_$n.part$g.log" 2>&1 &
          pids+=("$!:$tool:$n.part$g")
        done
        continue
      fi
      timeout "${SANITIZE_LIMIT:-400}" "${small[@]}" compute-sanitizer --tool $tool \
        --error-exitcode 9 "$exe" "${filter[@]}" >"$LOGS/${tool}_$n.log" 2>&1 &
      pids+=("$!:$tool:$n")
    done
  done
  for p in "${pids[@]}"; do
    IFS=: read -r pid tool n <<<"$p"
    wait "$pid"
    rc=$?
    line=$(grep -hE "ERROR SUMMARY|RACECHECK SUMMARY" "$LOGS/${tool}_$n.log" | tail -1)
    tests=$(grep -hE "^\[  (PASSED|FAILED|SKIPPED) \]" "$LOGS/${tool}_$n.log" | head -2 | tr '\n' ' ')
    summary+=("$(printf '%-10s rc=%-3s %-22s %s %s' "$tool" "$rc" "$n" "$line" "$tests")")
  done
  summary+=("sanitize took $((SECONDS - t0))s")
fi
if want stress; then
  TOOL=${STRESS_TOOL:-racecheck} ROUNDS=${STRESS_ROUNDS:-10} OUT=$LOGS \
    step stress stress.log bash tools/device/tc_stress.sh "$build"
  tail -3 "$LOGS/stress.log"
fi
if want check; then
  step check check_cuda.log "$tt" check --device cuda tests/data/*.safetensors
  cat "$LOGS/check_cuda.log"
fi
if want compare; then
  step compare compare_full.log "$tt" compare --all --shape full
  cat "$LOGS/compare_full.log"
fi
if want tune; then
  export TT_TUNING_DB="$OUT/tuning.yaml"
  step tune tune_full.log "$tt" tune --all --shape full --db "$OUT/tuning.yaml" --report "$LOGS/report"
  tail -40 "$LOGS/tune_full.log"
  "$tt" db show --db "$OUT/tuning.yaml" >"$LOGS/db_show.log" 2>&1
fi
if want configs; then
  # Which config each kernel runs with from the shipped databases (no --db given).
  step configs configs.log "$tt" bench --all --shape small --reps 3 --configs tuned
  cat "$LOGS/configs.log"
fi
if want bench; then
  step bench bench_ours.log "$tt" bench --all --shape full --json "$OUT/ours.json"
  step bench bench_pytorch.log python3 tools/device/bench_pytorch.py --ours "$OUT/ours.json" \
    --out "$OUT/benchmarks.md"
  cat "$LOGS/bench_ours.log" | tail -20
  cat "$OUT/benchmarks.md"
fi
tar czf "$OUT/logs.tgz" -C "$LOGS" . 2>/dev/null
echo
echo "== summary"
printf '%s\n' "${summary[@]}" | tee "$OUT/summary.txt"
