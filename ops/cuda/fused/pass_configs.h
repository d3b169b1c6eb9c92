// The configs of a plan's memory passes after its GEMM stage (ops/cuda/fused/plan.h),
// chosen per pass problem: a chunked schedule asks per chunk. An unset chooser, or no
// PassConfigs at all, means the launcher's default_for(problem), which is what the
// device harness gets; a compiled group passes the tuning lookups of its structural
// pass names (ops/graph/lower.cpp).
#pragma once

#include <functional>

#include "ops/cuda/norm/norm_passes.h"

namespace tt::ops::cuda::gemm {

struct PassConfigs {
  std::function<norm::SegmentConfig(const norm::SegmentProblem&)> segment;
  std::function<norm::ColumnStatsConfig(const norm::ColumnProblem&)> column_stats;
  std::function<norm::AffineConfig(const norm::AffineProblem&)> affine;
};

}  // namespace tt::ops::cuda::gemm
