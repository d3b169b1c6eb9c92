#!/usr/bin/env bash
# Nsight Compute profiles of attention kernels alone, one launch each, from the kernel
# bench (tools/device/attention_kernel_bench.cu, built beforehand: BENCH, default
# prof/attention_kernel_bench). PROFILES lists "shape|variant" pairs separated by ';'
# (the bench's KB_SHAPES and KB_FILTER: "B2 H16 T4096 E64$|wg p5 wg2 bn64 alone");
# KERNEL, a regex of the kernel's name (default attention_wgmma: the kernel, not its
# pre-pass). Writes $OUT/details.txt (every section of ncu's full set, each profile
# under a '#### shape | variant' line) and $OUT/raw.txt (every metric); SOURCE=1 adds
# $OUT/sass_N.csv.gz, the kernel's SASS with each instruction's counts and stall samples.
# The clocks are left as they are (--clock-control none).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/profile-out}
mkdir -p "$OUT"
bench=${BENCH:-prof/attention_kernel_bench}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv
IFS=';' read -ra items <<<"${PROFILES:?PROFILES: \"shape|variant;...\"}"
n=0
for item in "${items[@]}"; do
  shape=${item%%|*}
  variant=${item#*|}
  n=$((n + 1))
  rep=/tmp/attention_profile_$n
  t0=$SECONDS
  KB_SHAPES="$shape" KB_FILTER="$variant" timeout "${PROFILE_LIMIT:-240}" \
    ncu --clock-control none -k "regex:${KERNEL:-attention_wgmma}" -c 1 --set full \
    --import-source yes -f -o "$rep" "$bench" >"$OUT/bench_$n.log" 2>&1
  echo "profile $n ($shape | $variant): exit $?, $((SECONDS - t0)) s"
  grep -E "^KB," "$OUT/bench_$n.log"
  {
    echo "#### $shape | $variant"
    ncu --import "$rep.ncu-rep" --page details --print-details all
  } >>"$OUT/details.txt" 2>&1
  {
    echo "#### $shape | $variant"
    ncu --import "$rep.ncu-rep" --page raw
  } >>"$OUT/raw.txt" 2>&1
  if [ "${SOURCE:-0}" = 1 ]; then
    ncu --import "$rep.ncu-rep" --page source --print-source sass --csv 2>&1 |
      gzip >"$OUT/sass_$n.csv.gz"
  fi
  rm -f "$OUT/bench_$n.log"
done
