#!/usr/bin/env bash
# The kernels one seeds path launches, traced by CUPTI (tools/device/kernel_trace.cpp,
# preloaded; no nsys needed): for each MODEL in $MODELS and PATH in $PATHS (compiled
# eager), one seeds_compiled_bench run of that path alone (--rounds 1) with the tracer,
# then its per-kernel summary (count x mean = total GPU time) and the GPU's idle time
# between consecutive launches (any stream), so two paths that should run the same kernels
# can be compared. Needs a build of seeds_compiled_bench and tt_kernel_trace.
# Usage: MODELS="GemmScaleBatchNorm" PATHS="eager compiled" tools/device/kernel_trace.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${TT_BUILD_DIR:-build-device}
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
lib="$PWD/$build/tools/libtt_kernel_trace.so"
[ -f "$lib" ] || { echo "kernel_trace: $lib is not built"; exit 1; }
for model in ${MODELS:-GemmScaleBatchNorm}; do
  for path in ${PATHS:-eager compiled}; do
    csv=/tmp/trace_${model}_$path.csv
    echo "== $model, path $path"
    # The preload goes to the bench alone (env execs it): a tracer in `timeout` would
    # overwrite the trace at its own exit.
    timeout 240 env TT_KERNEL_TRACE="$csv" LD_PRELOAD="$lib" "$build/tools/seeds_compiled_bench" \
      --shape full --reps "${REPS:-5}" --rounds 1 --model "$model" --path "$path" ${BENCH_ARGS:-} 2>&1 |
      grep -E "^trace|^$model"
    python3 - "$csv" <<'PY'
import csv, sys
rows = sorted((int(r["start_ns"]), int(r["end_ns"])) for r in csv.DictReader(open(sys.argv[1])))
busy_end, idle, gaps = 0, 0.0, 0
for s, e in rows:
    if busy_end and s > busy_end:
        g = (s - busy_end) / 1e3
        if g < 1000:  # idle inside a burst of work, not the host's pauses between timings
            idle += g
            gaps += 1
    busy_end = max(busy_end, e)
print(f"idle between launches (gaps < 1 ms): {idle:.1f} us over {gaps} gaps, {len(rows)} launches")
PY
    cp "$csv" "$OUT/" 2>/dev/null
  done
done
