// The norm launches' run-time choice (norm_space.h): the database lookup through the
// space cache, each launch site by its kernel name.
#include "autotune/space_cache.h"
#include "ops/cuda/norm/norm_space.h"

namespace tt::ops::cuda::norm {

using autotune::Config;
using tt::cuda::DeviceLimits;

namespace {

template <class Space>
Config choose_config(const std::string& kernel, const std::string& problem, int device,
                     Space space) {
  return autotune::choose(device, kernel, problem, /*swept_first=*/false, [&](bool constrained) {
    return space(constrained ? tt::cuda::device_limits(device) : DeviceLimits{});
  });
}

}  // namespace

SegmentConfig choose_segment(const std::string& kernel, const SegmentProblem& p, int device) {
  return segment_descriptor().from_config(
      choose_config(kernel, segment_problem_key(p), device,
                    [&](const DeviceLimits& l) { return segment_space(kernel, p, l); }));
}

ColumnStatsConfig choose_column_stats(const std::string& kernel, const ColumnProblem& p,
                                      int device) {
  return column_stats_descriptor().from_config(
      choose_config(kernel, column_problem_key(p), device,
                    [&](const DeviceLimits& l) { return column_stats_space(kernel, p, l); }));
}

AffineConfig choose_affine(const std::string& kernel, const AffineProblem& p, int device) {
  return affine_descriptor().from_config(
      choose_config(kernel, affine_problem_key(p), device,
                    [&](const DeviceLimits& l) { return affine_space(kernel, p, l); }));
}

}  // namespace tt::ops::cuda::norm
