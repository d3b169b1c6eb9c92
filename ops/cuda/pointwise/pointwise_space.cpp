#include "ops/cuda/pointwise/pointwise_space.h"

#include <vector>

#include "autotune/problem_key.h"
#include "autotune/space_cache.h"
#include "core/error.h"
#include "ops/cuda/thread_limit.h"

namespace tt::ops::cuda::pointwise_tuning {

using autotune::Descriptor;

const Descriptor<PointwiseConfig>& descriptor() {
  static const auto d =
      Descriptor<PointwiseConfig>("pointwise config")
          .impl(&PointwiseConfig::layout, {{"flat", Layout::kFlat}, {"strided", Layout::kStrided}})
          .field("threads", &PointwiseConfig::threads, {128, 256, 512})
          .field("vec", &PointwiseConfig::vec, {1, 2, 4}, {"flat"})
          .field("items", &PointwiseConfig::items, {1, 2, 4});
  return d;
}

std::string problem_key(const PointwiseProblem& p) {
  autotune::ProblemKey key;
  key.add("numel", p.numel);
  if (p.dtype) key.add("dtype", p.dtype);
  if (p.flat) {
    key.add("layout", "flat").add_align_floats(p.align);
  } else {
    key.add("rank", p.rank).add("layout", "strided");
  }
  return key.add_precision().str();
}

autotune::ParamSpace space(const std::string& kernel, const PointwiseProblem& p,
                           const tt::cuda::DeviceLimits& limits) {
  using Constraint = Descriptor<PointwiseConfig>::Constraint;
  const Layout layout = p.flat ? Layout::kFlat : Layout::kStrided;
  std::vector<Constraint> extra;
  extra.push_back({fmt::format("the layout of this problem is {}", p.flat ? "flat" : "strided"),
                   [layout](const PointwiseConfig& c) { return c.layout == layout; }});
  if (p.flat) {
    const int align = p.align;
    extra.push_back({fmt::format("vec must not exceed the operands' alignment of {} floats", align),
                     [align](const PointwiseConfig& c) { return c.vec <= align; },
                     {"flat"}});
  }
  if (p.dtype) {
    // pointwise.cuh instantiates one items value for element types beyond float32.
    extra.push_back({fmt::format("items must be 1 for {} elements", p.dtype),
                     [](const PointwiseConfig& c) { return c.items == 1; }});
  }
  add_thread_limit<PointwiseConfig>(extra, limits);
  // The pre-family launcher's choice: 256 threads, the widest vector the alignment allows.
  PointwiseConfig def;
  def.layout = layout;
  def.vec = p.flat ? p.align : 1;
  return descriptor().space(kernel, std::move(extra), def);
}

PointwiseConfig choose(const std::string& kernel, const PointwiseProblem& p, int device) {
  const autotune::Config c = autotune::choose(
      device, kernel, problem_key(p), /*swept_first=*/false, [&](bool constrained) {
        return space(kernel, p,
                     constrained ? tt::cuda::device_limits(device) : tt::cuda::DeviceLimits{});
      });
  return descriptor().from_config(c);
}

}  // namespace tt::ops::cuda::pointwise_tuning
