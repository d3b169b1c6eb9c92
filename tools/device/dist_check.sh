#!/usr/bin/env bash
# Issue 23 on a host with 2+ GPUs (nvidia-h100-x2), in one call:
#   tools/device/dist_check.sh [STAGE...]   stages: build tests allreduce tp tune
#                                            (default: all of them, in that order)
# (a) tests:     the distributed suites (ctest -R distributed), then on the GPUs:
#                collectives over 2 ranks (tt launch) with exact results, the store and
#                NCCL rendezvous (env), the single-process form (init_local), and a rank
#                that never joins an all_reduce: the timeout sentence, not a hang
# (b) allreduce: 256 MB float32 all_reduce bus bandwidth, ours (tt launch) vs PyTorch's
#                torch.distributed (torchrun), same 2 processes, medians of 20
# (c) tp:        the tensor-parallel block (d 4096, 32 heads, 16 x 2048 tokens, MLP 4x)
#                on 1 GPU and on 2: median forward, speedup, output error vs 1 GPU;
#                tf32, then strict (TP_STRICT=0 skips strict)
# (d) tune:      `tt tune --all` on one GPU vs `--device all` (wall times), and the
#                database's entries per device identity (TUNE_ARGS, default
#                "--all --shape small")
# Logs land in $OUT (or ./device-out); the summary table is printed last.
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0): it can take a shared host's GPUs
# out of service.
set -uo pipefail
cd "$(dirname "$0")/../.."
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
build=${TT_BUILD_DIR:-build-dist}
tt="$build/tools/tt"
harness="$build/tools/dist_harness"
tpbench="$build/tools/dist_tp_bench"
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(build tests allreduce tp tune)
want() { [[ " ${stages[*]} " == *" $1 "* ]]; }
summary=()
note() { summary+=("$1"); }
step() {  # step NAME SECONDS LOG CMD...: bounded by timeout; records rc and seconds
  local name=$1 limit=$2 log=$3
  shift 3
  local t0=$SECONDS
  timeout --kill-after=10 "$limit" "$@" >"$OUT/$log" 2>&1
  local rc=$?
  note "$(printf '%-22s rc=%-3s %4ss  %s' "$name" "$rc" $((SECONDS - t0)) "$log")"
  # A failing step shows its last lines here: the call may bring back too few files.
  [ $rc -eq 0 ] || sed 's/^/    | /' "$OUT/$log" | tail -8
  return $rc
}

nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv >"$OUT/gpus.txt" 2>&1
nvidia-smi topo -m >>"$OUT/gpus.txt" 2>&1
cat "$OUT/gpus.txt"

if want build; then
  step configure 120 configure.log cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DTT_CUDA_ARCHITECTURES=90a -DTT_BUILD_TESTS=ON -DTT_BUILD_BENCHMARKS=OFF
  step build 540 build.log cmake --build "$build" -j32 --target tt dist_harness dist_tp_bench \
    distributed_store_test distributed_launch_test distributed_tp_test \
    distributed_device_all_test distributed_nccl_test || tail -40 "$OUT/build.log"
fi

if want tests; then
  step ctest-distributed 180 ctest.log ctest --test-dir "$build" -R "^(Launch|TCPStore|FileStore|LaunchEnvTest|Sharding|CpuGroup|Init|DefaultTimeout|TensorParallel|DeviceAll|Nccl)\." --output-on-failure -j 8
  tail -3 "$OUT/ctest.log"
  step collectives-2ranks 120 collectives.log "$tt" launch -n 2 "$harness" collectives
  grep -h "ok\|error\|failed" "$OUT/collectives.log" | head -5
  step env-nccl-2ranks 120 env.log "$tt" launch -n 2 "$harness" env
  grep -h "ok\|error\|failed" "$OUT/env.log" | head -5
  step local-1process 120 local.log "$harness" local
  tail -2 "$OUT/local.log"
  export TT_DIST_TIMEOUT_S=5
  step timeout-path 90 timeout.log "$tt" launch -n 2 "$harness" timeout
  unset TT_DIST_TIMEOUT_S
  grep -h "rank 0\|watchdog\|error" "$OUT/timeout.log" | head -5
fi

if want allreduce; then
  step allreduce-tensortune 180 allreduce_tt.log "$tt" launch -n 2 "$harness" allreduce 256 20
  step allreduce-pytorch 180 allreduce_torch.log torchrun --standalone --nproc_per_node 2 \
    tools/device/dist_allreduce_torch.py 256 20
  ours=$(grep -ho "allreduce tensortune.*busbw_GBps=[0-9.]*" "$OUT/allreduce_tt.log" | grep -o "busbw_GBps=[0-9.]*" | cut -d= -f2)
  theirs=$(grep -ho "allreduce pytorch.*busbw_GBps=[0-9.]*" "$OUT/allreduce_torch.log" | grep -o "busbw_GBps=[0-9.]*" | cut -d= -f2)
  grep -h "allreduce " "$OUT/allreduce_tt.log" "$OUT/allreduce_torch.log"
  if [ -n "$ours" ] && [ -n "$theirs" ]; then
    note "$(python3 -c "print(f'allreduce 256MB busbw: tensortune $ours GB/s, pytorch $theirs GB/s, ratio {$ours/$theirs:.3f} (>= 0.85 wanted)')")"
  fi
fi

if want tp; then
  precisions=(tf32)
  [ "${TP_STRICT:-1}" = 1 ] && precisions+=(strict)
  for p in "${precisions[@]}"; do
    iters=5
    [ "$p" = strict ] && iters=3
    ref=/tmp/tt_tp_ref_$p.bin
    step "tp-$p-1gpu" 240 "tp_${p}_1.log" "$tt" launch -n 1 "$tpbench" --precision "$p" \
      --iters $iters --write "$ref"
    for chunks in 1 2; do
      [ "$p" = strict ] && [ $chunks = 2 ] && continue
      log="tp_${p}_2_c$chunks.log"
      step "tp-$p-2gpu-chunks$chunks" 240 "$log" "$tt" launch -n 2 "$tpbench" --precision "$p" \
        --iters $iters --chunks $chunks --ref "$ref"
      grep -h "tp " "$OUT/tp_${p}_1.log" "$OUT/$log"
      one=$(grep -ho "tp ranks=1 rank=0 .*median_ms=[0-9.]*" "$OUT/tp_${p}_1.log" | grep -o "median_ms=[0-9.]*" | cut -d= -f2)
      two=$(grep -ho "tp ranks=2 rank=0 .*median_ms=[0-9.]*" "$OUT/$log" | grep -o "median_ms=[0-9.]*" | cut -d= -f2)
      err=$(grep -ho "tp compare.*" "$OUT/$log" | cut -d' ' -f6-)
      if [ -n "$one" ] && [ -n "$two" ]; then
        note "$(python3 -c "print(f'tp block $p chunks=$chunks: 1 GPU $one ms, 2 GPUs $two ms, speedup {$one/$two:.2f}x (>= 1.7 wanted); $err')")"
      fi
    done
    rm -f "$ref"
  done
fi

if want tune; then
  args=${TUNE_ARGS:---all --shape small}
  rm -f "$OUT/tune_one.yaml" "$OUT/tune_all.yaml"
  t0=$SECONDS
  step tune-1gpu 300 tune_one.log "$tt" tune $args --device cuda:0 --db "$OUT/tune_one.yaml"
  one=$((SECONDS - t0))
  t0=$SECONDS
  step tune-device-all 300 tune_all.log "$tt" tune $args --device all --db "$OUT/tune_all.yaml"
  all=$((SECONDS - t0))
  grep -h "workers\|saved" "$OUT/tune_all.log" | head -6
  note "$(python3 -c "print(f'tune wall: 1 GPU ${one} s, --device all ${all} s, ratio {${all}/max(${one},1):.2f} (<= 1.15 wanted)')")"
  for db in tune_one tune_all; do
    note "$(python3 - "$OUT/$db.yaml" "$db" <<'PY'
import sys, yaml
try:
    d = yaml.safe_load(open(sys.argv[1]))
except Exception as e:
    print(f"{sys.argv[2]}: unreadable ({e})"); sys.exit()
devs = (d or {}).get("devices", {}) or {}
print(f"{sys.argv[2]}: " + ("; ".join(
    f"{k}: {sum(len(p or {}) for p in (v.get('kernels') or {}).values())} entries"
    for k, v in devs.items()) or "no entries"))
PY
)"
  done
fi

echo
echo "==== summary (logs in $OUT)"
printf '%s\n' "${summary[@]}"
