#!/usr/bin/env bash
# Accurate attention at head dim 128 on fp16 tensor cores (wgmma pipe 6's head-dim-128
# variant, issue 19 tenth step) on a GPU machine in one call of at most ~6 minutes: the
# attention tests, the op at B8 H16 T1024 E128 full and causal in accurate mode (every
# config of its space timed: pipe 6 beside simt2) with PyTorch's float32 SDPA in the same
# run, the kernels alone (the split's pre-pass apart), then compute-sanitizer memcheck,
# racecheck and synccheck side by side over SANITIZE_FILTER (default AttentionCuda.*)
# with what time is left. PREBUILT=DIR: attention_test, attention_harness and
# attention_kernel_bench built elsewhere for sm_90a (DIR/lib: shared libraries they
# need); else they are built here (Ninja, -j16) in TT_BUILD_DIR (default build-attn; an
# absolute path outside the tree keeps the build for a second call on the same machine).
# KERNEL_BENCH_BIN: the kernel bench built beforehand (nvcc, as attention_check.sh does);
# its head-dim-128 kernel's SASS is counted (local memory, HGMMA). SANITIZE_TOOLS="": no
# sanitizers; SANITIZE_ONLY=1: the sanitizers alone (SANITIZE_LIMIT seconds each). Logs
# in $OUT; the tables come last.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/attention-out}
mkdir -p "$OUT"
t0=$SECONDS
left() { echo $((${BUDGET:-330} - (SECONDS - t0))); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$OUT/gpu.txt"
bin=""
if [ -n "${PREBUILT:-}" ] && [ -x "$PREBUILT/attention_test" ]; then
  export LD_LIBRARY_PATH="$PREBUILT/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
  "$PREBUILT/attention_test" --gtest_list_tests >/dev/null 2>&1 && bin=$PREBUILT
  [ -z "$bin" ] && echo "prebuilt binaries do not start here: building"
fi
if [ -z "$bin" ]; then
  build=${TT_BUILD_DIR:-build-attn}
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTT_CUDA_ARCHITECTURES=90a \
    -DTT_BUILD_TESTS=ON -DTT_BUILD_BENCHMARKS=OFF >"$OUT/configure.log" 2>&1 ||
    { tail -30 "$OUT/configure.log"; exit 1; }
  timeout 240 cmake --build "$build" -j 16 --target attention_test attention_harness \
    >"$OUT/build.log" 2>&1 || { grep -E "error|Error" "$OUT/build.log" | head -40; exit 1; }
  build=$(cd "$build" && pwd)
  mkdir -p "$build/bin"
  ln -sf "$build/tests/attention_test" "$build/tools/attention_harness" "$build/bin/"
  bin=$build/bin
fi
echo "binaries: $bin ($((SECONDS - t0)) s)"

source tools/device/run_step.sh  # run NAME LOG CMD..., the summary lines (STEP_LIMIT)
if [ "${SANITIZE_ONLY:-0}" != 1 ]; then
# The op at head dim 128 (the harness's shapes 4 and 5) in accurate mode, PyTorch beside.
STEP_LIMIT=90 ATTN_SHAPES=4,5 ATTN_MODES=accurate run harness harness.log "$bin/attention_harness"
STEP_LIMIT=60 ATTN_SHAPES=4,5 run pytorch pytorch.log python3 tools/device/bench_attention.py
kb=${KERNEL_BENCH_BIN:-$bin/attention_kernel_bench}
if [ -x "$kb" ]; then
  STEP_LIMIT=60 KB_FILTER=${KB_FILTER:-"f16 e128,wg p5 wg2 bn64 st2"} run kernel_bench \
    kernel_bench.log "$kb"
  # The split kernels' SASS: local memory (spills) and the wgmma count per variant.
  cuobjdump -sass "$kb" >"$OUT/kb.sass" 2>&1
  awk '/Function :/ {f = $3} /f16split_kernel/ && /Function :/ {on = 1} /Function :/ && !/f16split/ {on = 0}
       on && /LDL|STL/ {l[f]++} on && /HGMMA/ {h[f]++}
       END {for (k in h) printf "SASS %s HGMMA %d LDL/STL %d\n", k, h[k], l[k]}' "$OUT/kb.sass"
  gzip -f "$OUT/kb.sass"
fi
# The tests with what time is left (the timings above first), 20 to 150 s.
tl=$(left)
[ "$tl" -gt 150 ] && tl=150
[ "$tl" -lt 20 ] && tl=20
STEP_LIMIT=$tl run attention_test attention_test.log "$bin/attention_test" \
  --gtest_filter='Attention*' ||
  grep -E "Failure|Expected|Which is|actual|FAILED|error" "$OUT/attention_test.log" | head -40
grep -h "^f16 split" "$OUT/attention_test.log" | head -32
fi
# The sanitizers side by side with the time that is left (at least 60 s each).
lim=${SANITIZE_LIMIT:-$(left)}
[ "$lim" -lt 60 ] && lim=60
for tool in ${SANITIZE_TOOLS-memcheck racecheck synccheck}; do
  (timeout "$lim" compute-sanitizer --tool "$tool" --error-exitcode 9 "$bin/attention_test" \
    --gtest_filter="${SANITIZE_FILTER:-AttentionCuda.*}" >"$OUT/sanitize_$tool.log" 2>&1
  echo "exit $?" >>"$OUT/sanitize_$tool.log") &
done
wait
for tool in ${SANITIZE_TOOLS-memcheck racecheck synccheck}; do
  summary+=("$(printf '%-26s %-7s (limit %ss)' "sanitize.$tool" \
    "$(tail -1 "$OUT/sanitize_$tool.log")" "$lim")")
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Invalid|Race|hazard|PASSED|FAILED" \
    "$OUT/sanitize_$tool.log" | head -6
done
grep -E "^\[  (PASSED|FAILED)|^\[       OK|^\[  FAILED" "$OUT/attention_test.log" | tail -40
grep -hs "^GPU" "$OUT/harness.log" "$OUT/pytorch.log" "$OUT/kernel_bench.log" || true
printf '%s\n' "${summary[@]}"
echo "==== kernels alone: shape | variant | ms | TFLOP/s | rel L2 vs float64 ===="
grep -hs "^KB" "$OUT/kernel_bench.log" | cut -d, -f2- |
  awk -F, '{printf "%-24s %-24s %9s %7s %9s\n", $1, $2, $3, $4, $5}'
echo "==== configs (ms) ===="
{ grep -hs "^CONFIG" "$OUT/harness.log" || true; } | cut -d, -f2- |
  awk -F, '{printf "%-9s %-24s %-30s %s\n", $1, $2, $3, $4}'
echo "==== table: shape | impl | ms | TFLOP/s | rel L2 vs float64 | config ===="
{ grep -hs "^RESULT" "$OUT/harness.log" "$OUT/pytorch.log" || true; } | cut -d, -f2- |
  sort -s -t, -k1,1 |
  awk -F, '{printf "%-24s %-20s %9s %7s %9s  %s\n", $1, $2, $3, $4, $5, $6}'
# At most 8 files come back from a lent machine: the logs as one archive.
tar czf /tmp/attention_logs.tgz -C "$OUT" . && rm -f "$OUT"/* && mv /tmp/attention_logs.tgz "$OUT/"
