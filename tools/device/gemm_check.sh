#!/usr/bin/env bash
# One device call for the GEMM stage: builds tools/device/gemm_harness.cu with nvcc
# alone (not the CMake project, whose other files may be mid-edit), runs it, and leaves
# the full log in $OUT/gemm_harness.log; the summary table is printed last.
# Usage: tools/device/gemm_check.sh [quick]
# Models end to end are compiled in when every norm pass they call is defined.
# fmt is used header-only; FMT_INC points at its headers (carried where the machine has none).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/device-out}
export OUT
mkdir -p "$OUT"
BIN=${GEMM_BIN:-/tmp/gemm_harness}
FMT_INC=${FMT_INC:-build-gemm/devinc}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader || true

# The GEMM family's config code (gemm_config.cpp, gemm_space.cpp: the descriptor) and
# the autotuner's config code it needs; not gemm_choose.cpp (the tuning database).
srcs=(tools/device/gemm_harness.cu core/cuda/check.cpp core/cuda/device.cpp
      ops/cuda/gemm/gemm_config.cpp ops/cuda/gemm/gemm_space.cpp autotune/config.cpp
      autotune/name_values.cpp autotune/space.cpp autotune/descriptor.cpp autotune/problem_key.cpp)
for s in ops/cuda/gemm/*.cu; do
  [ "$s" = ops/cuda/gemm/linear.cu ] || srcs+=("$s")
done
models=0
if grep -qs "void launch_channel_affine(" ops/cuda/norm/*.cu &&
   grep -qs "void launch_batch_norm_finalize(" ops/cuda/norm/*.cu &&
   grep -qs "void launch_column_stats(" ops/cuda/norm/*.cu; then
  models=1
  srcs+=(ops/cuda/fused/plan.cu ops/cuda/fused/pattern.cpp ops/cuda/norm/norm_*.cu ops/cuda/norm/norm_space.cpp)
fi
flags=(-O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 -I. -I"$FMT_INC" -DFMT_HEADER_ONLY
       --expt-relaxed-constexpr -DGEMM_HARNESS_MODELS=$models)
# A binary built elsewhere (carried) is used when it runs here; otherwise build.
if [ -z "${GEMM_BIN:-}" ] || ! "$BIN" probe >/dev/null 2>&1; then
  BIN=/tmp/gemm_harness
  # Parallel compile of each source, then link.
  objdir=/tmp/gemm_objs; mkdir -p $objdir; pids=()
  for s in "${srcs[@]}"; do
    o=$objdir/$(echo "$s" | tr / _).o
    nvcc "${flags[@]}" -x cu -c "$s" -o "$o" >"$objdir/$(basename "$s").log" 2>&1 & pids+=($!)
  done
  rc=0; for p in "${pids[@]}"; do wait "$p" || rc=1; done
  if [ $rc -ne 0 ]; then cat $objdir/*.log | grep -v "^$" | tail -40; echo "BUILD FAILED"; exit 2; fi
  nvcc "${flags[@]}" $objdir/*.o -o "$BIN" -lcublas -lcublasLt || { echo "LINK FAILED"; exit 2; }
fi
echo "models end to end compiled in: $models"
[ -n "${GEMM_BUILD_ONLY:-}" ] && exit 0
"$BIN" "$@" >"$OUT/gemm_harness.log" 2>&1
rc=$?
# Instruction mix of the main own kernels (the FFMA share bounds their speed).
if command -v cuobjdump >/dev/null; then
  cuobjdump -sass "$BIN" >/tmp/gemm.sass 2>/dev/null
  python3 - <<'PY' >"$OUT/gemm_sass_mix.txt" 2>&1 || true
import re, collections
text = open('/tmp/gemm.sass').read()
for fn in re.split(r'\n\s*Function : ', text)[1:]:
    name = fn.split('\n', 1)[0]
    if 'EpilogueKindE0' not in name or 'Li4EEE' not in name:
        continue
    ops = re.findall(r'/\*[0-9a-f]{4,5}\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_]*)', fn)
    c = collections.Counter(ops)
    tot = sum(c.values())
    print(name[:160], 'total', tot, 'FFMA', c['FFMA'], '%.1f%%' % (100.0 * c['FFMA'] / max(tot, 1)))
    print('   ', ', '.join('%s %d' % kv for kv in c.most_common(14)))
    if 'TileILi128ELi128ELi8ELi8ELi8ELi4EEELi2E' in name:
        import os
        open(os.environ['OUT'] + '/gemm_sass_128x128x8.txt', 'w').write(fn)
PY
fi
grep -E "^(FAIL|INFO)" "$OUT/gemm_harness.log" | head -40
echo "PASS lines: $(grep -c '^PASS' "$OUT/gemm_harness.log")"
sed -n '/==== summary/,$p' "$OUT/gemm_harness.log"
exit $rc
