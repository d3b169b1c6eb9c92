// The raw-pointer forwards of the fused GEMM ops: each builds the op's plan (plan.h;
// the stages built from the op's pattern, ops/cuda/fused/seed_patterns.cpp) for the config and runs it with
// the generic executor. The Tensor-level ops (ops/cuda/fused/gemm_*.cu) allocate and
// call these; the device harness calls them directly. All pointers are float32
// device pointers on `device`, all work is queued on `stream`. `scratch` is a
// caller-provided, 16-byte aligned buffer of at least *_scratch_floats() floats
// (nullptr when 0).
//
//   gemm_bias_relu:             one GEMM whose epilogue adds the bias and applies ReLU.
//   gemm_instance_norm_add_mul: GEMM + bias, then one row-norm/add/mul pass.
//   gemm_swish_bias_group_norm: one GEMM when the config's epilogue can hold whole
//            groups; otherwise GEMM + bias, then one swish/bias/GroupNorm pass (in row
//            chunks or a head/tail split when the config says so: GemmConfig::chunk_rows
//            and tail_rows).
//   gemm_scale_batch_norm, training: GEMM (+ column statistics in its epilogue when the
//            config can, else a statistics pass), finalize, one affine pass. Running
//            statistics are updated in place.
//   gemm_scale_batch_norm, eval: the per-column affine from the running statistics,
//            then the GEMM with the affine in its epilogue when the config can, else
//            GEMM + bias and one affine pass.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>

#include "ops/cuda/gemm/gemm_config.h"
#include "ops/cuda/norm/norm_passes.h"

namespace tt::ops::cuda::gemm {

// The configs of the memory passes after the GEMM stage, chosen per pass problem (a
// chunked forward asks per chunk). An unset chooser, or no PassConfigs at all, means
// the launcher's default_for(problem), which is what the device harness gets; the
// Tensor-level ops pass the tuning lookup (ops/cuda/fused/fused_stages.h: tuned_passes).
struct PassConfigs {
  std::function<norm::SegmentConfig(const norm::SegmentProblem&)> segment;
  std::function<norm::ColumnStatsConfig(const norm::ColumnProblem&)> column_stats;
  std::function<norm::AffineConfig(const norm::AffineProblem&)> affine;
};

struct GemmBiasReluArgs {
  const float* x = nullptr;     // [m, k]
  const float* w = nullptr;     // [n, k]
  const float* bias = nullptr;  // [n]
  float* out = nullptr;         // [m, n]
  int64_t m = 0, n = 0, k = 0;
};
void gemm_bias_relu_forward(const GemmConfig& cfg, const GemmBiasReluArgs& a, int device,
                            cudaStream_t stream);

struct GemmInstanceNormAddMulArgs {
  const float* x = nullptr;  // [m, k]
  const float* y = nullptr;  // [m, n]
  const float* w = nullptr;  // [n, k]
  const float* b = nullptr;  // [n]
  float* out = nullptr;      // [m, n]
  int64_t m = 0, n = 0, k = 0;
  float eps = 1e-5f;
  float* scratch = nullptr;
  const PassConfigs* passes = nullptr;
};
int64_t gemm_instance_norm_add_mul_scratch_floats(const GemmConfig& cfg, int64_t m, int64_t n);
void gemm_instance_norm_add_mul_forward(const GemmConfig& cfg, const GemmInstanceNormAddMulArgs& a,
                                        int device, cudaStream_t stream);

struct GemmSwishBiasGroupNormArgs {
  const float* x = nullptr;      // [m, k]
  const float* w = nullptr;      // [n, k]
  const float* b = nullptr;      // [n], the Linear's bias
  const float* bias = nullptr;   // [n], added after swish
  const float* gamma = nullptr;  // [n]
  const float* beta = nullptr;   // [n]
  float* out = nullptr;          // [m, n]
  int64_t m = 0, n = 0, k = 0;
  int64_t groups = 1;
  float eps = 1e-5f;
  float* scratch = nullptr;
  const PassConfigs* passes = nullptr;
};
// Whether cfg runs gemm_swish_bias_group_norm as one fused kernel.
bool gemm_swish_bias_group_norm_fuses(const GemmConfig& cfg, int64_t m, int64_t n, int64_t k,
                                      int64_t groups);
int64_t gemm_swish_bias_group_norm_scratch_floats(const GemmConfig& cfg, int64_t m, int64_t n,
                                                  int64_t k, int64_t groups);
void gemm_swish_bias_group_norm_forward(const GemmConfig& cfg, const GemmSwishBiasGroupNormArgs& a,
                                        int device, cudaStream_t stream);

struct GemmScaleBatchNormArgs {
  const float* x = nullptr;       // [m, k]
  const float* w = nullptr;       // [n, k]
  const float* b = nullptr;       // [n]
  const float* scale = nullptr;   // [n]
  float* running_mean = nullptr;  // [n], updated in place in training
  float* running_var = nullptr;   // [n], updated in place in training
  const float* gamma = nullptr;   // [n]
  const float* beta = nullptr;    // [n]
  float* out = nullptr;           // [m, n]
  int64_t m = 0, n = 0, k = 0;
  bool training = true;
  float momentum = 0.1f;
  float eps = 1e-5f;
  float* scratch = nullptr;
  const PassConfigs* passes = nullptr;  // must be what sized the scratch
};
int64_t gemm_scale_batch_norm_scratch_floats(const GemmConfig& cfg, int64_t m, int64_t n,
                                             bool training, const PassConfigs* passes = nullptr);
void gemm_scale_batch_norm_forward(const GemmConfig& cfg, const GemmScaleBatchNormArgs& a,
                                   int device, cudaStream_t stream);

}  // namespace tt::ops::cuda::gemm
