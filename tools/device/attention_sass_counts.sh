#!/usr/bin/env bash
# Whether the tf32 wgmma kernels' key loops stay on the uniform datapath: compiles pipe 5
# (64-key tiles, ping-pong) and the persistent pipes 8 and 9 for sm_90a alone, each in a
# translation unit of its own, and counts in each one's SASS (cuobjdump, so on the GPU
# machine: the toolkit here has none) the HGMMA, the R2UR (a wgmma descriptor built in
# vector registers costs two before each HGMMA: docs/performance.md, issue 19, eighteenth
# step), the LDC and the uniform adds. Writes $OUT/<kernel>.sass; the table last.
# Usage: tools/device/attention_sass_counts.sh   (about 5 s on 16 cores)
set -uo pipefail
cd "$(dirname "$0")/../.."
command -v cuobjdump >/dev/null ||
  { echo "cuobjdump not found: run this where the CUDA toolkit has its binary utilities"; exit 1; }
OUT=${OUT:-$PWD/sass-out}
mkdir -p "$OUT"
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
launch() {  # NAME HEADER CALL: a TU whose host function instantiates the launcher
  cat >"$src/$1.cu" <<EOF
#include "$2"
using namespace tt::ops::cuda::attention;
void instantiate(KernelArgs a, AttnTmaMaps m) {
  [[maybe_unused]] bool mapped = false;
  (void)$3;
}
EOF
}
launch pipe5 ops/cuda/attention/sm90/attention_wgmma_kernels.cuh \
  "launch_ws_kernel<64, 64, 2, 4, 1, 1, false, true>(a, nullptr, 0, m, nullptr)"
launch pipe8 ops/cuda/attention/sm90/attention_wgmma_persistent.cuh \
  "launch_persistent_kernel<64, 64, 4>(a, m, 132, nullptr, false, mapped)"
launch pipe9 ops/cuda/attention/sm90/attention_wgmma_persistent.cuh \
  "launch_persistent_kernel<64, 64, 3, 0, true>(a, m, 132, nullptr, false, mapped)"
for f in "$src"/*.cu; do
  n=$(basename "$f" .cu)
  (nvcc -gencode=arch=compute_90a,code=sm_90a --expt-relaxed-constexpr -std=c++17 -O3 \
    -DTT_CUDA=1 -DTT_SM90_GEMM=1 -I. -Iinclude -cubin -o "$src/$n.cubin" "$f" \
    2>"$OUT/$n.err" && cuobjdump -sass "$src/$n.cubin" >"$OUT/$n.sass") &
done
wait
printf "%-8s %6s %6s %6s %6s\n" kernel HGMMA R2UR LDC UIADD
for n in pipe5 pipe8 pipe9; do
  f="$OUT/$n.sass"
  if [ ! -s "$f" ]; then
    echo "$n: no SASS ($(head -c 300 "$OUT/$n.err"))"
    continue
  fi
  printf "%-8s %6d %6d %6d %6d\n" "$n" "$(grep -c HGMMA "$f")" "$(grep -c R2UR "$f")" \
    "$(grep -c LDC "$f")" "$(grep -c UIADD "$f")"
done
