#!/usr/bin/env bash
# The main job: installs what is missing, builds, checks every shipped PyTorch
# fixture on the CPU reference and runs each seed model once. Where a GPU is
# present it also tunes the kernels (small shapes) and compares GPU with CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install_deps.sh
bash tools/build.sh
tt=${TT_BUILD_DIR:-build}/tools/tt
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
