#!/usr/bin/env bash
# Runs the normalisation harness (tools/device/norm_harness.cu) on a GPU machine:
# uses the binary carried in build-norm/device/ when it starts there, else builds it
# with nvcc (fmt is header-only, carried in build-norm/device/include). Logs go to
# $OUT (default /tmp/norm_out). Usage: tools/device/norm_check.sh [--build] [--quick]
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/norm_out}
mkdir -p "$OUT" build-norm/device
BIN=build-norm/device/norm_harness
build=0
[[ "${1:-}" == "--build" ]] && { build=1; shift; }
if [[ $build == 1 ]] || ! "$BIN" --noop >/dev/null 2>&1; then
  echo "building $BIN"
  flags=(-O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 -I. -Ibuild-norm/device/include
         -DFMT_HEADER_ONLY --expt-relaxed-constexpr -Xcompiler=-fopenmp)
  objs=()
  # The norm family's descriptors (norm_space.cpp) need the autotuner's config code.
  for src in tools/device/norm_harness.cu ops/cuda/norm/norm_*.cu ops/cuda/norm/norm_space.cpp \
             core/cuda/check.cpp autotune/config.cpp autotune/name_values.cpp autotune/space.cpp \
             autotune/descriptor.cpp autotune/problem_key.cpp; do
    obj=build-norm/device/$(basename "$src").o
    objs+=("$obj")
    nvcc "${flags[@]}" -c "$src" -o "$obj" 2>"$obj.log" &
  done
  wait
  nvcc "${flags[@]}" "${objs[@]}" -lcublas -lgomp -o "$BIN" || { cat build-norm/device/*.log; exit 1; }
fi
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,memory.total --format=csv | tee "$OUT/gpu.txt"
"$BIN" "$@" 2>&1 | tee "$OUT/norm_harness.log"
exit "${PIPESTATUS[0]}"
