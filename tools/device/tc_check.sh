#!/usr/bin/env bash
# One device call for the sm90 tensor-core GEMM family: builds
# tools/device/tc_gemm_harness.cu with nvcc alone (sm_90a; not the CMake project) unless
# TC_BIN names a binary that runs here, runs it, and with TC_SANITIZE=1 also runs the
# small checks under compute-sanitizer's memcheck, racecheck and synccheck. Leaves the
# logs in $OUT (tc_gemm_harness.log, sanitize_*.log, the SASS instruction mix in
# tc_sass_mix.txt); the summary table is printed last.
# Usage: tools/device/tc_check.sh [quick|awkward]
# fmt is used header-only; FMT_INC points at its headers (carried where the machine has none).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
FMT_INC=${FMT_INC:-devinc}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader || true
BIN=${TC_BIN:-/tmp/tc_gemm_harness}
if [ -z "${TC_BIN:-}" ] || ! "$BIN" probe >/dev/null 2>&1; then
  BIN=/tmp/tc_gemm_harness
  flags=(-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I. -I"$FMT_INC" -DFMT_HEADER_ONLY
         --expt-relaxed-constexpr)
  objdir=/tmp/tc_objs; mkdir -p $objdir; pids=()
  for s in tools/device/tc_gemm_harness.cu ops/cuda/gemm/sm90/tc_gemm.cu core/cuda/check.cpp; do
    nvcc "${flags[@]}" -x cu -c "$s" -o "$objdir/$(basename "$s").o" >"$objdir/$(basename "$s").log" 2>&1 & pids+=($!)
  done
  rc=0; for p in "${pids[@]}"; do wait "$p" || rc=1; done
  if [ $rc -ne 0 ]; then cat $objdir/*.log | grep -v "^$" | tail -40; echo "BUILD FAILED"; exit 2; fi
  nvcc "${flags[@]}" $objdir/*.o -o "$BIN" -lcublasLt -lcublas || { echo "LINK FAILED"; exit 2; }
fi
san_summary=()
if [ "${TC_SANITIZE:-0}" = 1 ]; then
  for tool in memcheck racecheck synccheck; do
    t0=$SECONDS
    timeout "${TC_SAN_TIMEOUT:-150}" compute-sanitizer --tool $tool --error-exitcode 9 "$BIN" sanitize \
      >"$OUT/sanitize_$tool.log" 2>&1
    src=$?
    san_summary+=("sanitize $tool rc=$src $((SECONDS - t0))s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitize_$tool.log" | tail -1) passes=$(grep -c '^PASS' "$OUT/sanitize_$tool.log")")
  done
fi
timeout "${TC_TIMEOUT:-300}" "$BIN" "$@" >"$OUT/tc_gemm_harness.log" 2>&1
rc=$?
if command -v cuobjdump >/dev/null; then
  cuobjdump -sass "$BIN" 2>/dev/null | python3 -c '
import re, sys, collections
text = sys.stdin.read()
for fn in re.split(r"\n\s*Function : ", text)[1:]:
    name = fn.split("\n", 1)[0]
    if "tc_gemm_kernel" not in name: continue
    ops = collections.Counter(re.findall(r"/\*[0-9a-f]{4,5}\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_.]*)", fn))
    print(name[:110], " ".join("%s %d" % kv for kv in ops.most_common(10)))
' >"$OUT/tc_sass_mix.txt" 2>&1 || true
fi
grep -E "^(FAIL|INFO)" "$OUT/tc_gemm_harness.log" | head -40
echo "PASS lines: $(grep -c '^PASS' "$OUT/tc_gemm_harness.log")"
printf '%s\n' "${san_summary[@]}"
sed -n '/==== summary/,$p' "$OUT/tc_gemm_harness.log"
exit $rc
