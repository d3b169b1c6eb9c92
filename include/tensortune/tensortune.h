// tensortune's public API in one include, as <torch/torch.h> is libtorch's: link the
// CMake target tensortune::tensortune and write
//
//   #include <tensortune/tensortune.h>
//
//   tt::Tensor x = tt::Tensor::rand({32, 64}, /*seed=*/1);
//   tt::nn::Linear fc(64, 128);
//   tt::Tensor y = tt::ops::relu(fc.forward({x})[0]);
//   if (tt::cuda::is_available()) y = y.to(tt::Device::cuda(0));
//
// It brings tensors, dtypes and devices (tt::Tensor, tt::Device, tt::cuda::is_available),
// errors (tt::Error), modules and state dicts (tt::Module), safetensors
// (tt::safetensors::load/save), the ops (tt::ops), the layers (tt::nn), the seed models
// and the model registry (tt::models). The headers are installed under
// <prefix>/include/tensortune/; the lines below name them relative to this file.
#pragma once

// ---- core: tensors, devices, modules, files ----
#include "core/device.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/indexing.h"
#include "core/module.h"
#include "core/safetensors.h"
#include "core/tensor.h"
#include "core/version.h"

// ---- ops (tt::ops): one line per public op header ----
#include "ops/graph/compile.h"
#include "ops/ops.h"

// ---- layers (tt::nn), models and the registry (tt::models) ----
#include "models/layers.h"
#include "models/models.h"

// ---- several GPUs (issue 23): process groups, collectives, tensor-parallel layers ----
#include "distributed/distributed.h"
#include "models/tp_layers.h"
#include "models/tp_transformer_block.h"

// ---- CUDA availability, in every build ----
#include "core/cuda/available.h"
