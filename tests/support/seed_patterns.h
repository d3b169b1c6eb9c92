// The four seed models' fused GEMM groups as the patterns tt::compile finds in their
// plain-op forwards (support/seed_forwards.h; ops/graph/fusion.h and lower.cpp), built
// by hand: for the tests of the plans (build_plan, plan_launches, run_plan under a given
// config) and the GEMM device harness, which run plans without recording a graph.
// Operands are device pointers; kAnyOperand where only the structure matters (the
// names, support queries, the stages a config gets). Nothing under ops/ names a pattern.
// CUDA builds only.
#pragma once

#include <cstdint>

#include "ops/cuda/fused/pattern.h"

namespace tt::test::seed {

namespace fused = ops::cuda::fused;
using fused::kAnyOperand;

// relu(x W^T + bias): "gemm[add_column,relu]".
inline fused::FusedPattern bias_relu_pattern(const float* bias = kAnyOperand) {
  fused::FusedPattern f;
  f.steps.add_column(bias).relu();
  return f;
}

// (row_norm(x W^T + b) + y) * y with y [m, n]: "gemm[add_column]>segment_norm[add_mul]"
// (n matters only when the plan runs: y's row stride).
inline fused::FusedPattern instance_norm_add_mul_pattern(const float* b = kAnyOperand,
                                                         const float* y = kAnyOperand,
                                                         float eps = 1e-5f, int64_t n = 0) {
  fused::FusedPattern f;
  f.steps.add_column(b);
  f.norm = fused::NormKind::kSegment;
  f.epilogue.add_residual(y, n).mul_residual(y, n);
  f.eps = eps;
  return f;
}

// group_norm(silu(x W^T + b) + bias, groups, gamma, beta):
// "gemm[add_column,silu,add_column]>segment_norm[affine]".
inline fused::FusedPattern swish_bias_group_norm_pattern(
    int64_t groups, const float* b = kAnyOperand, const float* bias = kAnyOperand,
    const float* gamma = nullptr, const float* beta = nullptr, float eps = 1e-5f) {
  fused::FusedPattern f;
  f.steps.add_column(b).silu().add_column(bias);
  f.norm = fused::NormKind::kSegment;
  f.epilogue.mul_column(gamma).add_column(beta);
  f.groups = groups, f.eps = eps;
  return f;
}

// batch_norm((x W^T + b) * bn.scale, ...): "gemm[add_column,mul_column]>batch_norm[train]"
// or "[eval]" (a null scale: any).
inline fused::FusedPattern scale_batch_norm_pattern(bool training, const float* b = kAnyOperand,
                                                    const fused::BatchNormParams& bn = {}) {
  fused::FusedPattern f;
  f.steps.add_column(b).mul_column(bn.scale ? bn.scale : kAnyOperand);
  f.norm = training ? fused::NormKind::kBatchTrain : fused::NormKind::kBatchEval;
  f.bn_gamma = bn.gamma, f.bn_beta = bn.beta;
  f.running_mean = bn.running_mean, f.running_var = bn.running_var;
  f.momentum = bn.momentum, f.eps = bn.eps;
  return f;
}

// The plan of `f` under config `cfg`, named as the compiled group's (its structural
// name): x [m, k], w [n, k], out [m, n].
inline fused::Plan plan_of(const fused::FusedPattern& f, const ops::cuda::gemm::GemmConfig& cfg,
                           const float* x, const float* w, float* out, int64_t m, int64_t n,
                           int64_t k, const ops::cuda::gemm::PassConfigs* passes = nullptr) {
  return fused::build_plan(f, f.stages().gemm.name, cfg, x, w, out, m, n, k, passes);
}

}  // namespace tt::test::seed
