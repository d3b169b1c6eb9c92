#!/usr/bin/env bash
# The sm90 tensor-core GEMM under contention (issue 21): ROUNDS rounds of PROCS processes
# of tc_gemm_test at once (every variant with each epilogue: StressEveryVariantEveryEpilogue,
# plus the column-statistics and group-norm tests), each under compute-sanitizer's TOOL
# (racecheck, synccheck, memcheck, or "none" for plain runs). One process failing, or a
# sanitizer reporting a hazard, fails the round; the counts are printed last.
# Usage: TOOL=racecheck ROUNDS=20 PROCS=6 tools/device/tc_stress.sh [BUILD_DIR]
# Each process runs the stress test once (TT_TC_STRESS_ROUNDS=1). A round's time under
# a sanitizer has not been measured yet: where one call has a time limit, split the 20
# rounds over calls (ROUNDS=5 FIRST_ROUND=6 ... numbers the logs of the later ones).
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
filter=${FILTER:-'TcGemm.StressEveryVariantEveryEpilogue:TcGemm.ColumnStatisticsPartials:TcGemm.GroupNormEpilogue'}
[ -x "$exe" ] || { echo "error: $exe is not built (cmake --build $build --target tc_gemm_test)" >&2; exit 2; }
export TT_TC_STRESS_ROUNDS=${TT_TC_STRESS_ROUNDS:-1}
failed_rounds=0
failed_procs=0
for ((r = first; r < first + rounds; ++r)); do
  pids=()
  for ((i = 1; i <= procs; ++i)); do
    log="$OUT/stress_${tool}_r${r}_p${i}.log"
    if [ "$tool" = none ]; then
      "$exe" --gtest_filter="$filter" >"$log" 2>&1 &
    else
      compute-sanitizer --tool "$tool" --error-exitcode 9 "$exe" --gtest_filter="$filter" \
        >"$log" 2>&1 &
    fi
    pids+=($!)
  done
  bad=0
  for ((i = 0; i < ${#pids[@]}; ++i)); do
    wait "${pids[$i]}" || { bad=$((bad + 1)); echo "round $r process $((i + 1)): failed (see stress_${tool}_r${r}_p$((i + 1)).log)"; }
  done
  failed_procs=$((failed_procs + bad))
  [ $bad -eq 0 ] || failed_rounds=$((failed_rounds + 1))
  echo "round $r: $((procs - bad)) of $procs processes passed"
done
grep -h -E "FAILED|Failure|ERROR SUMMARY|RACECHECK SUMMARY" "$OUT"/stress_"${tool}"_r*_p*.log | sort | uniq -c | head -20
echo "tc_stress $tool: $failed_rounds of $rounds rounds failed, $failed_procs of $((rounds * procs)) processes"
[ $failed_rounds -eq 0 ]
