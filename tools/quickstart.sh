#!/usr/bin/env bash
# The main job: installs what is missing, builds the `tt` tool and the libraries it
# needs (no tests, no benchmarks: tools/test.sh builds those), checks every shipped
# PyTorch fixture on the CPU reference and runs each seed model once. Where a GPU is
# present it also tunes the kernels (small shapes) and compares GPU with CPU.
# Extra arguments go to cmake's configure step (e.g. -DTT_CUDA_ARCHITECTURES=90).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install_deps.sh
build_dir=${TT_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DTT_BUILD_TESTS=OFF \
  -DTT_BUILD_BENCHMARKS=OFF "$@"
cmake --build "$build_dir" -j "$(nproc)" --target tt
tt=$build_dir/tools/tt
echo "== tt check (CPU reference against PyTorch's float64 goldens)"
"$tt" check tests/data/*.safetensors
for model in $("$tt" models --names); do
  echo "== tt run $model"
  "$tt" run "$model" --shape small
done
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo "== tt tune --all --shape small"
  "$tt" tune --all --shape small
  echo "== tt compare --all"
  "$tt" compare --all
fi
