#!/usr/bin/env bash
# The 2 x fp16 split of accurate attention (wgmma pipe 6 and 7, issue 19) on a GPU machine
# in one call: tools/device/attention_check.sh --quick with the kernels-alone bench
# narrowed to the split's variants beside accurate pipe 5 and tf32 pipe 5, the
# sanitizers side by side, no op table. PREBUILT=DIR (attention_test,
# attention_harness, attention_kernel_bench built here for sm_90a) skips the builds.
# Logs in $OUT; the tables come last.
set -uo pipefail
cd "$(dirname "$0")/../.."
export STEP_LIMIT=${STEP_LIMIT:-200} SANITIZE_PARALLEL=1 SANITIZE_LIMIT=${SANITIZE_LIMIT:-200}
export KERNEL_BENCH=1 OP_TABLE_TEST=""
export KB_FILTER=${KB_FILTER:-"f16,acc p5,wg p5 wg2 bn64 st4"}
if [ -n "${PREBUILT:-}" ] && [ -x "$PREBUILT/attention_kernel_bench" ]; then
  export KERNEL_BENCH_BIN=$PREBUILT/attention_kernel_bench
fi
tools/device/attention_check.sh --quick
# The wide-range test's per-column errors (printed, not asserted).
grep -h "^f16 split" "${OUT:-attention-out}/attention_test.log" 2>/dev/null | head -16
# At most 8 files come back from a lent machine: the logs as one archive.
o=${OUT:-attention-out}
tar czf /tmp/attention_logs.tgz -C "$o" . && rm -f "$o"/* && mv /tmp/attention_logs.tgz "$o/"
