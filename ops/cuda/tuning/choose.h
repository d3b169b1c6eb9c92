// Which config each tunable kernel launch uses: the one place where the CUDA ops ask
// the tuning database (autotune/lookup.h), and where gemm::choose_config() is defined. Every launch
// site names its kernel, builds its problem key (gemm_space.h, norm_spaces.h) and gets the config
// that autotune::lookup() returns for this device, validated against the kernel's space for the
// problem, so a stale stored config falls back to the default. Every lookup is recorded
// (autotune::configs_used), which is how the tuner discovers the (kernel, problem) pairs a model
// launches, and how `tt run`/`tt bench` show them.
//
// Kernel names of the norm launch sites (the GEMM stages are named in gemm_space.h):
//   instance_norm, group_norm                                      segment norm
//   batch_norm.column_stats / .segment_stats / .affine             batch_norm on [N,C] / [N,C,L]
//   gemm_instance_norm_add_mul.row_norm_add_mul                    model 1's pass
//   gemm_swish_bias_group_norm.swish_bias_group_norm               model 3's pass
//   gemm_scale_batch_norm_train.column_stats / .affine             model 4, training
//   gemm_scale_batch_norm_eval.affine                              model 4, eval
//   pointwise.<op> (pointwise.add, pointwise.gelu, ...)            the pointwise family
// The spaces are built once per (device, kernel, problem) and kept for the process.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "autotune/database.h"
#include "autotune/space.h"
#include "ops/cuda/fused/norm_passes.h"
#include "ops/cuda/gemm/gemm.h"
#include "ops/cuda/gemm/gemm_config.h"
#include "ops/cuda/gemm/gemm_models.h"
#include "ops/cuda/pointwise/pointwise_config.h"

namespace tt::ops::cuda::tuning {

inline constexpr const char* kInstanceNorm = "instance_norm";
inline constexpr const char* kGroupNorm = "group_norm";
inline constexpr const char* kBatchNormColumnStats = "batch_norm.column_stats";
inline constexpr const char* kBatchNormSegmentStats = "batch_norm.segment_stats";
inline constexpr const char* kBatchNormAffine = "batch_norm.affine";
inline constexpr const char* kRowNormAddMul = "gemm_instance_norm_add_mul.row_norm_add_mul";
inline constexpr const char* kSwishBiasGroupNorm =
    "gemm_swish_bias_group_norm.swish_bias_group_norm";
inline constexpr const char* kScaleBatchNormTrainColumnStats =
    "gemm_scale_batch_norm_train.column_stats";
inline constexpr const char* kScaleBatchNormTrainAffine = "gemm_scale_batch_norm_train.affine";
inline constexpr const char* kScaleBatchNormEvalAffine = "gemm_scale_batch_norm_eval.affine";

// groups: model 3's GroupNorm groups (part of its problem key), else 0. This is what
// gemm::choose_config() returns.
gemm::GemmConfig choose_gemm(gemm::GemmKernel kernel, const gemm::GemmProblem& p, int device,
                             int64_t groups = 0);
// The lookups of the memory passes that follow the GEMM stage of `kernel`'s op, for
// the raw forwards (gemm_models.h): model 1's row_norm_add_mul, model 3's
// swish_bias_group_norm, model 4's column_stats and affine (train) or affine (eval).
gemm::PassConfigs pass_configs(gemm::GemmKernel kernel, int device);
norm::SegmentConfig choose_segment(const char* kernel, const norm::SegmentProblem& p, int device);
norm::ColumnStatsConfig choose_column_stats(const char* kernel, const norm::ColumnProblem& p,
                                            int device);
norm::AffineConfig choose_affine(const char* kernel, const norm::AffineProblem& p, int device);
pointwise_tuning::PointwiseConfig choose_pointwise(const std::string& kernel,
                                                   const pointwise_tuning::PointwiseProblem& p,
                                                   int device);

// What the sweep needs about a (kernel, problem) that a launch in this process looked
// up on `device`: its space (with the device's constraints), the configs of the
// portable space that the device constraints reject (with the reason), and whether it
// is a GEMM stage (swept first: its choice decides which passes run). Throws tt::Error
// when no launch looked that pair up.
struct TunableSpace {
  const autotune::ParamSpace* space = nullptr;
  std::vector<autotune::RejectedVariant> unsupported;
  bool gemm_stage = false;
};
TunableSpace space_for(const std::string& kernel, const std::string& problem, int device);

// The lookup of a tunable launch whose space is built elsewhere (the reduce family,
// rms_norm, bmm): the config autotune::lookup() returns for (kernel, problem) on
// `device`, validated against the space `build(limits)` makes (built once and kept, so
// that space_for() and with it `tt tune` see the launch like every launch above).
struct DeviceLimits;  // ops/cuda/tuning/device_limits.h
using SpaceBuilder = std::function<autotune::ParamSpace(const DeviceLimits&)>;
autotune::Config choose_config(const std::string& kernel, const std::string& problem, int device,
                               const SpaceBuilder& build, bool gemm_stage = false);

}  // namespace tt::ops::cuda::tuning
