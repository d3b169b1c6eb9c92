// The tunable stages of the fused GEMM ops, as data: each op's GEMM stage (its
// database name and the schedule options its plan offers: row chunks, a tail split)
// and the database names of the memory passes after it. The names are the keys of
// the shipped tuning databases (autotune/db/*.yaml), so they stay as they are.
#pragma once

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

}  // namespace tt::ops::cuda::fused
