// CUDA implementations behind the op front end (ops/ops.cpp), which has already
// checked shapes, dtypes and that every tensor is on the same CUDA device.
// Building blocks live in ops/cuda/*.cu and one folder per kernel family (gemm/, norm/,
// pointwise/, ...); fused groups of a compiled graph run as plans of ops/cuda/fused
// (ops/graph/lower.cpp), not through here. Only compiled when TT_CUDA is on.
#pragma once

#include <optional>

#include "ops/cuda/cuda_ops_reduce.h"
#include "ops/cuda/gemm/epilogue.h"
#include "ops/cuda/gemm/gemm_config.h"
#include "ops/cuda/pointwise/pointwise.h"
#include "ops/ops.h"

namespace tt::ops::cuda {

// linear, the norms (layer_norm on the segment-norm launcher: ops/cuda/norm/layer_norm.cu,
// kernel "layer_norm"), the pointwise family, the reductions: ops/backend_ops.h, declared
// as the CPU reference declares them, through cuda_ops_reduce.h.

// y = x W^T with the epilogue chain `e` (its data pointers set; `bias`: its first step is
// the bias, which picks the tuned kernel "linear" rather than "linear_nobias"), on
// `config` or the tuned config of the problem. tt::compile's GEMM + epilogue groups run
// here (ops/graph/lower.cpp).
Tensor linear_epilogue(const Tensor& x, const Tensor& weight, const gemm::Epilogue& e, bool bias,
                       std::optional<gemm::GemmConfig> config = std::nullopt);
// The config linear_epilogue should run for these shapes so that the GEMM applies the
// whole chain `e` itself (gemm::epilogue_supported): the tuned one when it can, else the
// tc family's default for the mode when that can; nullopt when neither can (the caller
// then fuses fewer steps, never lets run_gemm swap in a slower kernel).
std::optional<gemm::GemmConfig> linear_epilogue_config(const Shape& x, const Shape& weight,
                                                       const gemm::Epilogue& e, bool bias,
                                                       int device);

}  // namespace tt::ops::cuda
