#!/usr/bin/env bash
# Installs the Debian packages tensortune builds against, when any is missing.
# Needs root (or sudo) only when something is missing. The CUDA toolkit (nvcc) is
# not installed here: with it on PATH the CUDA backend is built, without it the CPU
# reference alone.
set -euo pipefail
packages=(cmake g++ make libeigen3-dev libyaml-cpp-dev libgtest-dev libgmock-dev
  libbenchmark-dev libcli11-dev libfmt-dev nlohmann-json3-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}"
fi
