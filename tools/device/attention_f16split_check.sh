#!/usr/bin/env bash
# The 2 x fp16 split of accurate attention (wgmma pipe 6, issue 19) on a GPU machine in
# one call: first the kernels-alone bench (tools/device/attention_kernel_bench.cu, before
# any build, so that nothing else loads the machine) narrowed to the split's variants, its
# pre-pass alone and its fixed-cost cuts, beside accurate pipe 5 and tf32 pipe 5 (and a
# baseline bench binary where KB_BASE_BIN names one: the same rows from an older tree);
# then tools/device/attention_check.sh (build, attention tests, the op's timing and
# PyTorch's, the sanitizers side by side), no op table. QUICK=--quick (the default) or
# QUICK="": the op's timing at two shapes and 5 reps, or at ATTN_SHAPES with 20.
# KERNEL_BENCH_BIN (a bench built beforehand with the nvcc line in its header) saves its
# minute of nvcc; PREBUILT=DIR (attention_test, attention_harness built for sm_90a) skips
# the builds; CHECK_LIMIT bounds attention_check.sh. Logs in $OUT (as one archive); the
# tables come last.
set -uo pipefail
cd "$(dirname "$0")/../.."
export OUT=${OUT:-$PWD/attention-out}
mkdir -p "$OUT"
export STEP_LIMIT=${STEP_LIMIT:-200} SANITIZE_PARALLEL=1 SANITIZE_LIMIT=${SANITIZE_LIMIT:-200}
export KERNEL_BENCH=0 OP_TABLE_TEST=""
export KB_FILTER=${KB_FILTER:-"f16,acc p5,wg p5 wg2 bn64 st4"}
kb=${KERNEL_BENCH_BIN:-}
if [ -z "$kb" ]; then
  kb=/tmp/attention_kernel_bench
  timeout 300 nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a --expt-relaxed-constexpr \
    -I. -Xcompiler=-fopenmp tools/device/attention_kernel_bench.cu -o "$kb" -lgomp || kb=
fi
if [ -n "$kb" ]; then
  timeout "$STEP_LIMIT" "$kb" >"$OUT/kernel_bench.log" 2>&1
  echo "kernel_bench rc=$?"
fi
if [ -n "${KB_BASE_BIN:-}" ] && [ -x "$KB_BASE_BIN" ]; then
  KB_FILTER=${KB_BASE_FILTER:-"f16 p6 op,f16 pre-pass"} timeout "$STEP_LIMIT" "$KB_BASE_BIN" \
    >"$OUT/kernel_bench_base.log" 2>&1
  echo "kernel_bench_base rc=$?"
fi
# CHECK_LIMIT (seconds): the rest ends there, so that the logs' archive below is made.
timeout "${CHECK_LIMIT:-3600}" tools/device/attention_check.sh ${QUICK---quick}
# The wide-range test's per-column errors (printed, not asserted).
grep -h "^f16 split" "$OUT/attention_test.log" 2>/dev/null | head -20
echo "==== kernels alone: shape | variant | ms | TFLOP/s | rel L2 (base: the older tree) ===="
for f in kernel_bench kernel_bench_base; do
  grep -hs "^KB" "$OUT/$f.log" | cut -d, -f2- | sed "s/^/${f#kernel_bench}|/" |
    awk -F'[|,]' '{printf "%-5s %-22s %-26s %9s %7s %9s\n", $1, $2, $3, $4, $5, $6}'
done
echo "==== the pre-pass alone (ms) ===="
grep -hs "f16 pre-pass," "$OUT/kernel_bench.log" "$OUT/kernel_bench_base.log" || true
# At most 8 files come back from a lent machine: the logs as one archive.
tar czf /tmp/attention_logs.tgz -C "$OUT" . && rm -f "$OUT"/* && mv /tmp/attention_logs.tgz "$OUT/"
