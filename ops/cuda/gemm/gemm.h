// One entry point for the GEMM stage, whichever implementation the config names, and
// the single place where a fused op asks which config to use (choose_config), so that
// the autotuner can hook its database lookup in here.
#pragma once

#include <cuda_runtime_api.h>

#include "ops/cuda/gemm/gemm_config.h"
#include "ops/cuda/gemm/gemm_epilogue.h"
#include "ops/cuda/gemm/tiled_gemm.h"

namespace tt::ops::cuda::gemm {

// The fused ops whose GEMM stage is tunable (the autotuner's kernel names).
enum class GemmKernel : int {
  kBiasRelu = 0,             // model 5
  kInstanceNormAddMul = 1,   // model 1
  kSwishBiasGroupNorm = 2,   // model 3
  kScaleBatchNormTrain = 3,  // model 4, training
  kScaleBatchNormEval = 4,   // model 4, eval
};
const char* kernel_name(GemmKernel kernel);  // "gemm_bias_relu", ...

// The config for a fused op's GEMM stage on `device`: the tuning database's config
// for this device and problem, else GemmConfig::default_for(p) (ops/cuda/tuning/
// choose.h). `groups`: model 3's GroupNorm groups (part of its problem key), else 0.
GemmConfig choose_config(GemmKernel kernel, const GemmProblem& p, int device, int64_t groups = 0);

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
