#!/usr/bin/env bash
# One device call: the tc GEMM without an epilogue, this tree against a base tree, each
# built with nvcc alone as a standalone harness (tools/device/tc_gemm_harness.cu), timed by
# the harness's `duel` (interleaved with cuBLASLt TF32, L2 flushed, median) in alternating
# processes, base first: the check that a change to the kernel leaves the plain GEMM's
# speed alone. The base tree comes from git on the host, into a folder of the carried
# copy:
#   git archive BASE ops/cuda/gemm/sm90 tools/device/tc_gemm_harness.cu core/cuda/check.cpp \
#     | tar -x -C ab-base
# Usage: tools/device/tc_ab_check.sh [BASE_DIR (ab-base)]; TC_FILTER (the rows, default the
# tf32 and accurate defaults), AB_SHAPES ("M N K;M N K"), AB_REPS (15). ~70 s to build.
set -uo pipefail
cd "$(dirname "$0")/../.."
base=${1:-ab-base}
flags=(-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -DFMT_HEADER_ONLY --expt-relaxed-constexpr)
mkdir -p /tmp/ab/new /tmp/ab/base
pids=()
for s in tools/device/tc_gemm_harness.cu ops/cuda/gemm/sm90/tc_gemm.cu core/cuda/check.cpp; do
  nvcc "${flags[@]}" -I. -x cu -c "$s" -o "/tmp/ab/new/$(basename "$s").o" \
    >"/tmp/ab/new/$(basename "$s").log" 2>&1 &
  pids+=($!)
  nvcc "${flags[@]}" -I"$base" -I. -x cu -c "$base/$s" -o "/tmp/ab/base/$(basename "$s").o" \
    >"/tmp/ab/base/$(basename "$s").log" 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || echo "a compile failed"; done
for v in new base; do
  nvcc "${flags[@]}" /tmp/ab/$v/*.o -o /tmp/ab/$v/h -lcublasLt -lcublas || tail -5 /tmp/ab/$v/*.log
done
echo "built after $SECONDS s"
export TC_FILTER=${TC_FILTER:-'tf32 bm=128 bn=256 bk=32 stages=4 consumers=2 cooperative cluster=1|accurate bm=128 bn=128 bk=32 stages=4'}
IFS=';' read -ra shapes <<<"${AB_SHAPES:-8192 4096 1024;8192 1024 1024}"
for shape in "${shapes[@]}"; do
  for v in base new base new; do
    # shellcheck disable=SC2086
    timeout 30 /tmp/ab/$v/h duel $shape "${AB_REPS:-15}" | grep DUEL | sed "s/^/$v /"
  done
done
