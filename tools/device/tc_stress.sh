#!/usr/bin/env bash
# The sm90 tensor-core GEMM under contention (issue 21): ROUNDS rounds of PROCS processes
# of tc_gemm_test at once (every variant with each epilogue: StressEveryVariantEveryEpilogue,
# plus the column-statistics and group-norm tests unless FILTER narrows it), each under
# compute-sanitizer's TOOL (racecheck, synccheck, memcheck, or "none" for plain runs).
# One process failing, or a sanitizer reporting a hazard, fails the round; the counts are
# printed last.
# Usage: TOOL=racecheck ROUNDS=20 PROCS=6 tools/device/tc_stress.sh [BUILD_DIR]
# Each process runs the stress test once (TT_TC_STRESS_ROUNDS=1). SHARD=1 gives process
# i of round r the shard (i + r) mod PROCS of PROCS (TT_TC_STRESS_SHARD), so that a round
# covers every case once between its processes, each process also running the cases
# that failed before the fix. BUDGET (seconds, default none) starts no round after it is
# spent; PROC_TIMEOUT (default 300 s) bounds each process. FIRST_ROUND numbers the logs
# of a later call that continues a split run.
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:-${TT_BUILD_DIR:-build-device}}
exe=$build/tests/tc_gemm_test
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
tool=${TOOL:-racecheck}
rounds=${ROUNDS:-20}
procs=${PROCS:-6}
first=${FIRST_ROUND:-1}
budget=${BUDGET:-0}
filter=${FILTER:-'TcGemm.StressEveryVariantEveryEpilogue:TcGemm.ColumnStatisticsPartials:TcGemm.GroupNormEpilogue'}
[ -x "$exe" ] || { echo "error: $exe is not built (cmake --build $build --target tc_gemm_test)" >&2; exit 2; }
export TT_TC_STRESS_ROUNDS=${TT_TC_STRESS_ROUNDS:-1}
failed_rounds=0
failed_procs=0
ran=0
logs=()
t0=$SECONDS
for ((r = first; r < first + rounds; ++r)); do
  if [ "$budget" -gt 0 ] && [ $((SECONDS - t0)) -ge "$budget" ]; then
    echo "budget of ${budget} s spent after $ran rounds: no more rounds started"
    break
  fi
  tr=$SECONDS
  pids=()
  for ((i = 1; i <= procs; ++i)); do
    log="$OUT/stress_${tool}_r${r}_p${i}.log"
    logs+=("$log")
    shard=()
    [ "${SHARD:-0}" = 1 ] && shard=(env "TT_TC_STRESS_SHARD=$(((i - 1 + r) % procs))/$procs")
    san=()
    [ "$tool" = none ] || san=(compute-sanitizer --tool "$tool" --error-exitcode 9)
    timeout "${PROC_TIMEOUT:-300}" "${shard[@]}" "${san[@]}" "$exe" --gtest_filter="$filter" \
      >"$log" 2>&1 &
    pids+=($!)
  done
  bad=0
  for ((i = 0; i < ${#pids[@]}; ++i)); do
    wait "${pids[$i]}"
    rc=$?
    if [ $rc -ne 0 ]; then
      bad=$((bad + 1))
      echo "round $r process $((i + 1)): failed, rc=$rc$([ $rc = 124 ] && echo ' (timed out)') (see stress_${tool}_r${r}_p$((i + 1)).log)"
    fi
  done
  ran=$((ran + 1))
  failed_procs=$((failed_procs + bad))
  [ $bad -eq 0 ] || failed_rounds=$((failed_rounds + 1))
  echo "round $r: $((procs - bad)) of $procs processes passed ($((SECONDS - tr)) s)"
done
[ $ran -gt 0 ] && grep -h -E "FAILED|Failure|ERROR SUMMARY|RACECHECK SUMMARY" "${logs[@]}" | sort | uniq -c | head -20
# The test prints "stress shard i/n: G GEMMs, P of them the pinned ping-pong cases".
[ $ran -gt 0 ] && cat "${logs[@]}" | awk '/^stress shard/ { g += $4; p += $6; n += 1 }
  END { printf "GEMMs checked: %d in %d processes, %d of them the pinned ping-pong cases\n", g, n, p }'
echo "tc_stress $tool: $failed_rounds of $ran rounds failed ($ran of $rounds rounds run), $failed_procs of $((ran * procs)) processes failed, $((SECONDS - t0)) s"
[ $failed_rounds -eq 0 ] && [ "$ran" -eq "$rounds" ]
