#!/usr/bin/env bash
# One device call for the residual steps in the tc GEMM's epilogue (issue 18's proj and
# fc2): the CMake build of compile_check.sh (plus tc_gemm_test) with the standalone
# harness built beside it by nvcc; tc_gemm_test's epilogue, residual and refusal cases;
# compile_test's block cases; the harness's `residual` mode at the block's proj
# (8192x1024x1024) and fc2 (8192x1024x4096) shapes (plain, residual in the epilogue,
# residual as a separate pass, cuBLASLt TF32 with and without C); the block compiled in
# tf32 and accurate (explain, plain replay, CUDA graph). No PyTorch (its torch.compile
# alone would take the call's time; compile_check.sh block has it).
# Usage: tools/device/tc_residual_check.sh   (REPS: timed repetitions, 10)
# Logs: $OUT/logs.tgz; the summary table is printed last and kept in $OUT/summary.txt.
source "$(dirname "$0")/device_env.sh"  # cd to the root; OUT, LOGS, build
REPS=${REPS:-10}
RUN_LOGS=$LOGS STEP_LIMIT=${STEP_TIMEOUT:-90}
source tools/device/run_step.sh
t0=$SECONDS
# The harness (nvcc alone, ~1 min) while CMake builds the library.
(OUT=$LOGS/tc_probe TC_TIMEOUT=20 tools/device/tc_check.sh probe >"$LOGS/tc_build.log" 2>&1) &
harness=$!
EXTRA_TARGETS="tc_gemm_test gemm_precision_test" STEP_TIMEOUT=${BUILD_TIMEOUT:-200} \
  tools/device/compile_check.sh build >"$LOGS/build_stage.log" 2>&1
tail -6 "$LOGS/build_stage.log"
wait $harness
tail -3 "$LOGS/tc_build.log"
echo "built after $((SECONDS - t0)) s"
build=build-device tb=/tmp/tb/transformer_block
# Most wanted first: the GEMM alone at proj's shape, the block in accurate, fc2's shape.
harness() {
  local name=residual_${1// /x}
  run "harness-${1// /x}" "$name.log" env OUT="$LOGS/$name" TC_BIN=/tmp/tc_gemm_harness \
    TC_TIMEOUT=100 tools/device/tc_check.sh residual $1 "$REPS"
  grep -E "^(FAIL|INFO)" "$LOGS/$name/tc_gemm_harness.log" | head -8
}
block() {
  run "explain-$1" "explain_$1.log" "$tb" compile TransformerBlock --shape full \
    --device cuda --precision "$1" --explain --eval
  grep -E "linear with epilogue" "$LOGS/explain_$1.log" | sed "s/^/$1: /"
  run "bench-$1" "bench_$1.log" "$tb" bench TransformerBlock --shape full \
    --configs tuned --precision "$1"
  grep -E "^TransformerBlock" "$LOGS/bench_$1.log" | sed "s/^/replay $1: /"
  run "graph-$1" "graph_$1.log" "$tb" bench TransformerBlock --shape full \
    --configs tuned --precision "$1" --cuda-graph
  grep -E "^TransformerBlock" "$LOGS/graph_$1.log" | sed "s/^/cuda graph $1: /"
}
harness "8192 1024 1024"
block accurate
harness "8192 1024 4096"
run tc-test tc_gemm_test.log "$build/tests/tc_gemm_test" \
  --gtest_filter='TcGemm.Residual*:TcGemm.Epilogue*:TcGemm.Refuses*:TcGemm.ProblemRules*:TcGemm.GroupNorm*:TcGemm.ColumnStatistics*'
grep -E "^\[  (FAILED|PASSED|SKIPPED) |tests ran|Failure|rel|error" "$LOGS/tc_gemm_test.log" | head -20
block tf32
run compile-test compile_test.log "$build/tests/compile_test" --gtest_filter='*TransformerBlock*'
grep -E "^\[  (FAILED|PASSED|SKIPPED) |tests ran" "$LOGS/compile_test.log" | head -6
run gemm-test gemm_precision_test.log "$build/tests/gemm_precision_test" \
  --gtest_filter='GemmPrecisionSpace.*:GemmPrecisionQueries.*'
grep -E "^\[  (FAILED|PASSED|SKIPPED) |tests ran" "$LOGS/gemm_precision_test.log" | head -6
# Where the kernels' spill loads and stores (if any) sit: between the first and last HGMMA
# of a kernel is the main loop.
cuobjdump -sass /tmp/tc_gemm_harness 2>/dev/null | python3 -c '
import re, sys
text = sys.stdin.read()
for fn in re.split(r"\n\s*Function : ", text)[1:]:
    name = fn.split("\n", 1)[0]
    if "tc_gemm_kernel" not in name: continue
    lines = fn.split("\n")
    hg = [i for i, l in enumerate(lines) if "HGMMA" in l]
    sp = [i for i, l in enumerate(lines) if re.search(r"\b(STL|LDL)", l)]
    inside = [i for i in sp if hg and hg[0] <= i <= hg[-1]]
    print(name[40:110], "spill ops", len(sp), "in the main loop", len(inside))
' | tee "$LOGS/spill_where.txt"
for f in "$LOGS"/residual_*/tc_gemm_harness.log; do cp "$f" "$OUT/$(basename "$(dirname "$f")").log"; done
tar czf "$OUT/logs.tgz" -C "$LOGS" .
{
  for f in "$LOGS"/residual_*/tc_gemm_harness.log; do sed -n '/==== summary/,$p' "$f"; done
  printf '%s\n' "${summary[@]}"
} | tee "$OUT/summary.txt"
