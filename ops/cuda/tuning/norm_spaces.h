// The parameter spaces of the normalisation launchers (ops/cuda/fused/norm_passes.h),
// in one place: how the autotuner and the run-time lookup see SegmentConfig,
// ColumnStatsConfig and AffineConfig. Every axis's candidates are the distinct values
// of the launcher's compiled table (ops/cuda/norm/norm_variants.h), so a new variant
// joins the space without an edit here; constraints then keep what is compiled and
// valid for the problem, and, for a known device, what it can launch.
//
// Segment norm (instance norm, group norm, batch norm's [N, C, L] statistics and the
// passes of models 1 and 3): impl = the kind (subwarp | block | stream | cluster |
// pipe | split: every kind the table has); threads, vec, items for every kind; lanes
// (threads per segment) for the kinds whose table entries set it apart from threads
// (subwarp); cluster (CTAs per segment) for the kinds with clusters (cluster, pipe,
// split); buffers for the kinds with buffers (pipe: shared-memory stages; subwarp: segments
// per subgroup). Constraints: compiled;
// vec divides the segment and fits the alignment; the on-chip kinds hold the whole segment; valid
// for the problem (grid limits); one of SegmentConfig::candidates() (variants far larger than the
// segment are left out); device: threads per block, clusters (sm_90, at most 16 CTAs), the buffers'
// shared memory. Problem key "segments=S,length=L,align=16B,precision=strict".
//
// Column statistics (batch norm over [N, C]): threads, col_threads, vec, items,
// chunk_rows; key "rows=N,cols=C,align=16B,precision=strict".
// Channel affine (batch norm's elementwise pass): threads, vec, items; key
// "total=T,channels=C,inner=I,align=16B,precision=strict".
// Defaults are the launchers' default_for(problem). align is categorical, in bytes.
#pragma once

#include <string>

#include "autotune/config.h"
#include "autotune/space.h"
#include "ops/cuda/fused/norm_passes.h"
#include "ops/cuda/tuning/device_limits.h"

namespace tt::ops::cuda::tuning {

// "subwarp", "block", ...: the spelling of SegmentConfig::str().
std::string segment_kind_name(norm::SegmentKind kind);

std::string segment_problem_key(const norm::SegmentProblem& p);
std::string column_problem_key(const norm::ColumnProblem& p);
std::string affine_problem_key(const norm::AffineProblem& p);

// `kernel` names the space in messages. limits.known == false: no device constraints.
autotune::ParamSpace segment_space(const std::string& kernel, const norm::SegmentProblem& p,
                                   const DeviceLimits& limits);
autotune::ParamSpace column_stats_space(const std::string& kernel, const norm::ColumnProblem& p,
                                        const DeviceLimits& limits);
autotune::ParamSpace affine_space(const std::string& kernel, const norm::AffineProblem& p,
                                  const DeviceLimits& limits);

// Config <-> launcher config. The *_from_config functions throw tt::Error for a
// config that lacks a parameter or names an unknown kind.
autotune::Config segment_to_config(const norm::SegmentConfig& c);
norm::SegmentConfig segment_from_config(const autotune::Config& c);
autotune::Config column_stats_to_config(const norm::ColumnStatsConfig& c);
norm::ColumnStatsConfig column_stats_from_config(const autotune::Config& c);
autotune::Config affine_to_config(const norm::AffineConfig& c);
norm::AffineConfig affine_from_config(const autotune::Config& c);

}  // namespace tt::ops::cuda::tuning
