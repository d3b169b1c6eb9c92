#!/usr/bin/env bash
# Issue 21's GPU proof, "0 failures in 20 rounds of 6 processes" of the tensor-core GEMM
# under compute-sanitizer's racecheck and synccheck: builds tc_gemm_test alone (Ninja,
# -j16, sm_90a, into build-device), then runs tools/device/tc_stress.sh with each tool:
# 20 rounds of 6 processes of TcGemm.StressEveryVariantEveryEpilogue at once, each
# process one sixth of the variant x store path x epilogue x shape cases (the six of a
# round cover every case once; the shares turn each round), and every process the
# cases that failed before the fix (the tf32 256x128 ping-pong 5-stage variant's column
# statistics at 300x131x100 and 300x132x100). Each tool has a time budget (no round
# starts after it is spent: the counts say how many ran); every step is bounded by
# `timeout`. Logs go to $OUT (default ./device-out); the summary comes last.
# Usage: tools/device/stress_proof.sh [build] [racecheck] [synccheck]   (default: all three;
# split them over calls where one call is too short for the build and both tools)
# RACECHECK_BUDGET / SYNCCHECK_BUDGET (seconds, default 120 each), ROUNDS (20), PROCS (6),
# BUILD_TIMEOUT (540 s), PROC_TIMEOUT (120 s), TT_BUILD_DIR (build-device).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
build=${TT_BUILD_DIR:-build-device}
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(build racecheck synccheck)
summary=()
timeout 30 nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader 2>&1 | tee "$OUT/gpu.txt"
for stage in "${stages[@]}"; do
  t0=$SECONDS
  case $stage in
    build)
      launcher=()
      command -v ccache >/dev/null 2>&1 &&
        launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
      timeout 120 cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DTT_CUDA_ARCHITECTURES=90a -DTT_BUILD_TESTS=ON -DTT_BUILD_BENCHMARKS=OFF \
        "${launcher[@]}" >"$OUT/configure.log" 2>&1 &&
        timeout "${BUILD_TIMEOUT:-540}" cmake --build "$build" -j 16 --target tc_gemm_test \
          >"$OUT/build.log" 2>&1
      rc=$?
      [ $rc -eq 0 ] || { tail -5 "$OUT/configure.log"; grep -E "error|Error" "$OUT/build.log" | head -30; }
      summary+=("$(printf 'build      rc=%-3s %4s s' $rc $((SECONDS - t0)))")
      [ $rc -eq 0 ] || break
      ;;
    racecheck | synccheck)
      upper=$(echo "$stage" | tr a-z A-Z)
      budget_var=${upper}_BUDGET
      budget=${!budget_var:-120}
      proc_timeout=${PROC_TIMEOUT:-120}
      # The budget bounds when rounds start; the last round may still run PROC_TIMEOUT.
      TOOL=$stage ROUNDS=${ROUNDS:-20} PROCS=${PROCS:-6} SHARD=1 BUDGET=$budget \
        PROC_TIMEOUT=$proc_timeout FILTER=TcGemm.StressEveryVariantEveryEpilogue \
        timeout $((budget + proc_timeout + 30)) bash tools/device/tc_stress.sh "$build" \
        >"$OUT/stress_$stage.log" 2>&1
      rc=$?
      grep -E "failed|spent" "$OUT/stress_$stage.log" | grep -v "^tc_stress" | head -10
      summary+=("$(printf '%-10s rc=%-3s %4s s  ' "$stage" $rc $((SECONDS - t0)))$(grep -E '^(GEMMs checked|tc_stress)' "$OUT/stress_$stage.log" | tr '\n' ' ')")
      ;;
    *)
      echo "error: unknown stage '$stage' (build, racecheck, synccheck)" >&2
      exit 2
      ;;
  esac
done
echo "==== summary (logs in $OUT)"
printf '%s\n' "${summary[@]}"
! printf '%s\n' "${summary[@]}" | grep -qv "rc=0 "
