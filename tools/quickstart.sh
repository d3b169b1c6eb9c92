#!/usr/bin/env bash
# The main job: installs what is missing, builds the `tt` tool and the libraries it
# needs (no tests, no benchmarks: tools/test.sh builds those), checks every shipped
# PyTorch fixture on the CPU reference and runs each seed model once. Where a GPU is
# present it also tunes the kernels (small shapes) and compares GPU with CPU; it ends by
# saying which steps it skipped and why.
#
# What it builds fits the machine: without a GPU (nvidia-smi absent or listing none) the
# CPU reference alone (compiling the sm_90 kernels for a GPU that is not there took 20 of
# the 26 minutes of a first run on 2 cores); with GPUs, the CUDA backend for the GPUs
# present (-DTT_CUDA_ARCHITECTURES=native). Either can be overridden:
#   TT_CUDA=ON bash tools/quickstart.sh                 # the CUDA backend without a GPU
#   bash tools/quickstart.sh -DTT_CUDA_ARCHITECTURES=90 # name the architectures
# Extra arguments go to cmake's configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install_deps.sh
build_dir=${TT_BUILD_DIR:-build}

gpus=0
if command -v nvidia-smi >/dev/null 2>&1; then
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
fi
user_sets() { [[ " $* " == *" -D$1="* || " $* " == *" -D$1:"* ]]; }
args=()
cuda=ON
if [ -n "${TT_CUDA:-}" ]; then
  cuda=$TT_CUDA
  args+=("-DTT_CUDA=$TT_CUDA")
elif user_sets TT_CUDA "$@"; then
  for a in "$@"; do [[ $a == -DTT_CUDA=* || $a == -DTT_CUDA:*=* ]] && cuda=${a##*=}; done
elif [ "$gpus" -eq 0 ]; then
  cuda=OFF
  args+=(-DTT_CUDA=OFF)
  echo "note: no GPU found (nvidia-smi is absent or lists none): building the CPU reference only."
  echo "      To build the CUDA backend anyway: TT_CUDA=ON bash tools/quickstart.sh"
  echo "      (or pass -DTT_CUDA=ON)."
elif command -v nvcc >/dev/null 2>&1; then
  args+=(-DTT_CUDA=ON)
else
  cuda=OFF
  args+=(-DTT_CUDA=OFF)
  echo "note: $gpus GPU(s) found but nvcc is not on PATH: building the CPU reference only."
fi
if [[ $cuda =~ ^(ON|on|1|TRUE|true|YES|yes)$ ]] && [ "$gpus" -gt 0 ] &&
  ! user_sets TT_CUDA_ARCHITECTURES "$@" && [ -z "${TT_CUDA_ARCHITECTURES:-}" ]; then
  args+=(-DTT_CUDA_ARCHITECTURES=native)  # the GPUs present, as CMake detects them
elif [ -n "${TT_CUDA_ARCHITECTURES:-}" ]; then
  args+=("-DTT_CUDA_ARCHITECTURES=$TT_CUDA_ARCHITECTURES")
fi

cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DTT_BUILD_TESTS=OFF \
  -DTT_BUILD_BENCHMARKS=OFF "${args[@]}" "$@"
cmake --build "$build_dir" -j "$(nproc)" --target tt
tt=$build_dir/tools/tt
echo "== tt check (CPU reference against PyTorch's float64 goldens)"
"$tt" check tests/data/*.safetensors
for model in $("$tt" models --names); do
  echo "== tt run $model"
  "$tt" run "$model" --shape small
done
skipped=""
if [ "$gpus" -eq 0 ]; then
  skipped="no GPU on this machine (nvidia-smi is absent or lists none)"
elif ! grep -q '^TT_CUDA:BOOL=ON' "$build_dir/CMakeCache.txt"; then
  skipped="tt was built without CUDA (TT_CUDA=OFF)"
else
  echo "== tt tune --all --shape small"
  "$tt" tune --all --shape small
  echo "== tt compare --all"
  "$tt" compare --all
fi
echo "== done: the fixtures checked and every seed model run on the CPU reference"
if [ -n "$skipped" ]; then
  echo "skipped: tt tune --all --shape small and tt compare --all, because $skipped"
fi
