// The tunable stages of the fused GEMM ops, as data: each op's GEMM stage (its
// database name and the schedule options its plan offers: row chunks, a tail split)
// and the database names of the memory passes after it. The names are the keys of
// the shipped tuning databases (autotune/db/*.yaml), so they stay as they are.
#pragma once

#include "core/cuda/stream.h"
#include "core/device.h"
#include "core/tensor.h"
#include "ops/cuda/fused/plan.h"
#include "ops/cuda/fused/plans.h"
#include "ops/cuda/gemm/gemm_space.h"

namespace tt::ops::cuda::fused {

struct FusedStages {
  gemm::GemmStage gemm;
  // Database names of the passes after the GEMM; nullptr: the plan has no such pass.
  const char* segment = nullptr;       // a segment-norm pass
  const char* column_stats = nullptr;  // a column-statistics pass
  const char* affine = nullptr;        // a channel-affine pass
};

// GEMM + bias + ReLU: the op is its GEMM stage.
inline constexpr FusedStages kGemmBiasRelu{
    {"gemm_bias_relu", false, false, true, false}, nullptr, nullptr, nullptr};
// GEMM + bias, then a row norm with (x + y) * y.
inline constexpr FusedStages kGemmInstanceNormAddMul{
    {"gemm_instance_norm_add_mul.gemm", false, false, false, false},
    "gemm_instance_norm_add_mul.row_norm_add_mul",
    nullptr,
    nullptr};
// GEMM + bias, then swish, bias and group norm (or all of it in an own tile's epilogue).
inline constexpr FusedStages kGemmSwishBiasGroupNorm{
    {"gemm_swish_bias_group_norm.gemm", true, true, false, true},
    "gemm_swish_bias_group_norm.swish_bias_group_norm",
    nullptr,
    nullptr};
// GEMM + bias, scale and batch norm with batch statistics.
inline constexpr FusedStages kGemmScaleBatchNormTrain{
    {"gemm_scale_batch_norm_train.gemm", true, true, false, false},
    nullptr,
    "gemm_scale_batch_norm_train.column_stats",
    "gemm_scale_batch_norm_train.affine"};
// GEMM + bias, scale and batch norm with running statistics.
inline constexpr FusedStages kGemmScaleBatchNormEval{
    {"gemm_scale_batch_norm_eval.gemm", true, false, false, false},
    nullptr,
    nullptr,
    "gemm_scale_batch_norm_eval.affine"};

// The passes' configs from the tuning database (norm_space.h: choose_*), per pass
// problem; a pass the stages do not name keeps its launcher's default.
gemm::PassConfigs tuned_passes(const FusedStages& stages, int device);

// What every Tensor-level fused op does first: the device guard, X and W dense and
// aligned, the [m, n] output, the GEMM stage's config and the passes' tuning lookups.
// args<A>() fills an op's argument struct with those (the op adds its own operands).
struct FusedCall {
  FusedCall(const FusedStages& stages, const Tensor& x, const Tensor& weight, int64_t groups = 0);
  tt::cuda::DeviceGuard guard;
  Tensor x, w, out;
  gemm::GemmProblem problem;
  gemm::GemmConfig cfg;
  gemm::PassConfigs passes;

  template <class Args>
  Args args() const {
    Args a;
    a.x = x.data<float>(), a.w = w.data<float>(), a.out = out.data<float>();
    a.m = problem.m, a.n = problem.n, a.k = problem.k;
    return a;
  }
};

// Runs a Tensor-level fused op's plan on `device`'s stream with a scratch tensor of the
// size the plan asks for (freed by the caching allocator after the queued work).
void run_planned(const Plan& plan, Device device);

}  // namespace tt::ops::cuda::fused
