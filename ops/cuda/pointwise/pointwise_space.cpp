#include "ops/cuda/pointwise/pointwise_space.h"

#include <vector>

#include "autotune/problem_key.h"
#include "core/error.h"

namespace tt::ops::cuda::pointwise_tuning {
namespace {

using autotune::Config;
using autotune::ParamSpace;

// The family's descriptor: every field, its candidates, whether the strided layout
// reads it (the flat layout reads all).
struct Field {
  const char* name;
  std::vector<int64_t> candidates;
  bool strided;
};
const std::vector<Field>& fields() {
  static const std::vector<Field> table = {
      {"threads", {128, 256, 512}, true},
      {"vec", {1, 2, 4}, false},
      {"items", {1, 2, 4}, true},
  };
  return table;
}

}  // namespace

std::string problem_key(const PointwiseProblem& p) {
  autotune::ProblemKey key;
  key.add("numel", p.numel);
  if (p.flat) {
    key.add("layout", "flat").add("align", fmt::format("{}B", 4 * p.align));
  } else {
    key.add("rank", p.rank).add("layout", "strided");
  }
  return key.add("precision", "strict").str();
}

ParamSpace space(const std::string& kernel, const PointwiseProblem& p,
                 const tuning::DeviceLimits& limits) {
  ParamSpace s(kernel);
  for (const Field& f : fields()) {
    if (p.flat || f.strided) s.axis(f.name, f.candidates);
  }
  if (p.flat) {
    const int align = p.align;
    s.constraint(fmt::format("vec must not exceed the operands' alignment of {} floats", align),
                 [align](const Config& c) { return c.get("vec") <= align; });
  }
  if (limits.known) {
    const int max_threads = limits.max_threads_per_block;
    s.constraint(fmt::format("threads must not exceed the device's {} per block", max_threads),
                 [max_threads](const Config& c) { return c.get("threads") <= max_threads; });
  }
  PointwiseConfig def;
  def.vec = p.flat ? p.align : 1;
  s.set_default(to_config(def, p.flat));
  return s;
}

Config to_config(const PointwiseConfig& c, bool flat) {
  Config out;
  out.set("threads", c.threads);
  if (flat) out.set("vec", c.vec);
  out.set("items", c.items);
  return out;
}

PointwiseConfig from_config(const Config& c) {
  PointwiseConfig out;
  out.threads = static_cast<int>(c.get("threads"));
  out.vec = static_cast<int>(c.get_or("vec", 1));
  out.items = static_cast<int>(c.get("items"));
  return out;
}

}  // namespace tt::ops::cuda::pointwise_tuning
