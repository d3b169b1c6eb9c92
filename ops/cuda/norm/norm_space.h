// The norm family's tunables, in one place: the descriptors of SegmentConfig,
// ColumnStatsConfig and AffineConfig (text form, Config conversion, validation), the
// problem keys, the parameter spaces and the run-time choice of every norm launch. Every axis's
// candidates are the distinct values of the launcher's compiled table
// (ops/cuda/norm/norm_variants.h), so a new variant joins the space without an edit here;
// constraints then keep what is compiled and valid for the problem, and, for a known device, what
// it can launch.
//
// Segment norm (instance norm, group norm, batch norm's [N, C, L] statistics and the
// row-norm and group-norm passes after a GEMM): impl = the kind (subwarp | block | stream | cluster
// | pipe | split: every kind the table has); threads, vec, items for every kind; lanes (threads per
// segment) for the kinds whose table entries set it apart from threads (subwarp); cluster (CTAs per
// segment) for the kinds with clusters (cluster, pipe, split); buffers for the kinds with buffers
// (pipe: shared-memory stages; subwarp: segments per subgroup). Constraints: compiled; vec divides
// the segment and fits the alignment; the on-chip kinds hold the whole segment; valid for the
// problem (grid limits); one of SegmentConfig::candidates() (variants far larger than the segment
// are left out); device: threads per block, clusters (sm_90, at most 16 CTAs), the buffers' shared
// memory. Problem key "segments=S,length=L,align=16B,precision=strict".
//
// Column statistics (batch norm over [N, C]): threads, col_threads, vec, items,
// chunk_rows; key "rows=N,cols=C,align=16B,precision=strict".
// Channel affine (batch norm's elementwise pass): threads, vec, items; key
// "total=T,channels=C,inner=I,align=16B,precision=strict".
// Defaults are the launchers' default_for(problem). align is categorical, in bytes.
#pragma once

#include <string>
#include <vector>

#include "autotune/config.h"
#include "autotune/descriptor.h"
#include "autotune/space.h"
#include "core/cuda/device.h"
#include "ops/cuda/norm/norm_passes.h"

namespace tt::ops::cuda::norm {

// Launch-site names (the tuning database's kernel names) of the plain norm ops; a
// fused group's passes are "<structural name>.<pass>" (ops/cuda/fused/pattern.h).
inline constexpr const char* kInstanceNorm = "instance_norm";
inline constexpr const char* kGroupNorm = "group_norm";
inline constexpr const char* kBatchNormColumnStats = "batch_norm.column_stats";
inline constexpr const char* kBatchNormSegmentStats = "batch_norm.segment_stats";
inline constexpr const char* kBatchNormAffine = "batch_norm.affine";

// The descriptors: impl = the segment kind ("subwarp", "block", ...), then the fields.
const autotune::Descriptor<SegmentConfig>& segment_descriptor();
const autotune::Descriptor<ColumnStatsConfig>& column_stats_descriptor();
const autotune::Descriptor<AffineConfig>& affine_descriptor();

// "subwarp", "block", ...: the kind's spelling in the text form.
std::string segment_kind_name(SegmentKind kind);

std::string segment_problem_key(const SegmentProblem& p);
std::string column_problem_key(const ColumnProblem& p);
std::string affine_problem_key(const AffineProblem& p);

// `kernel` names the space in messages. limits.known == false: no device constraints.
autotune::ParamSpace segment_space(const std::string& kernel, const SegmentProblem& p,
                                   const tt::cuda::DeviceLimits& limits);
autotune::ParamSpace column_stats_space(const std::string& kernel, const ColumnProblem& p,
                                        const tt::cuda::DeviceLimits& limits);
autotune::ParamSpace affine_space(const std::string& kernel, const AffineProblem& p,
                                  const tt::cuda::DeviceLimits& limits);

// The config a launch named `kernel` uses on `device`: the tuning database's for this
// device and problem, validated against the space, else the launcher's default_for().
SegmentConfig choose_segment(const std::string& kernel, const SegmentProblem& p, int device);
ColumnStatsConfig choose_column_stats(const std::string& kernel, const ColumnProblem& p,
                                      int device);
AffineConfig choose_affine(const std::string& kernel, const AffineProblem& p, int device);

}  // namespace tt::ops::cuda::norm
