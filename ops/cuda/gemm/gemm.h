// One entry point for the GEMM stage, whichever implementation the config names. The
// config comes from the family's run-time choice (gemm_space.h: choose_gemm).
#pragma once

#include <cuda_runtime_api.h>

#include "ops/cuda/gemm/gemm_config.h"
#include "ops/cuda/gemm/gemm_epilogue.h"
#include "ops/cuda/gemm/tiled_gemm.h"

namespace tt::ops::cuda::gemm {

// Whether cuBLASLt can apply the epilogue itself (pointwise: no bias, bias, or
// bias + ReLU; nothing after the activation, no affine).
bool cublaslt_supports(const EpilogueParams& e);

// Runs C = X W^T + epilogue with the config on `stream` (device `device` current).
// A cuBLASLt config with an epilogue cuBLASLt cannot apply, or K == 0, runs on our own
// kernel instead (own_default_for), since that changes speed only. Throws tt::Error
// for an invalid config.
void run_gemm(const GemmConfig& cfg, const GemmArgs& a, const EpilogueParams& e, int device,
              cudaStream_t stream);

}  // namespace tt::ops::cuda::gemm
