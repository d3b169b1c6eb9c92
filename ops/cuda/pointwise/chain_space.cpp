// The chain kernel's launch config as an autotune::Descriptor (threads {128, 256, 512},
// vec {1, 4}: elements per thread per pass, 4 only where every row is whole vectors;
// items {1, 2, 4}: vectors per thread, the generated kernel's loads in flight)
// and its choice: the database's entry for kernel "pointwise.chain" and the chain's
// problem key, else the default (256 threads, vec 4 where allowed). The key
// names the chain ("chain=mul.add.gelu,numel=N,rank=R,row=C,operands=flat.scalar.row"; a
// DAG with its refs, "chain=add(a0-a1).sigmoid(a2).mul(v0-v1)"), so two models with the
// same chain share an entry.
#include <string>
#include <vector>

#include "autotune/descriptor.h"
#include "autotune/problem_key.h"
#include "autotune/space_cache.h"
#include "core/cuda/device.h"
#include "ops/cuda/pointwise/chain.h"
#include "ops/cuda/thread_limit.h"

namespace tt::ops::cuda::chain {
namespace {

using autotune::Descriptor;

const Descriptor<ChainConfig>& descriptor() {
  static const auto d = Descriptor<ChainConfig>("chain config")
                            .field("threads", &ChainConfig::threads, {128, 256, 512})
                            .field("vec", &ChainConfig::vec, {1, 4})
                            .field("items", &ChainConfig::items, {1, 2, 4});
  return d;
}

const char* layout_name(Layout l) {
  switch (l) {
    case Layout::kFlat:
      return "flat";
    case Layout::kScalar:
      return "scalar";
    case Layout::kRow:
      return "row";
    case Layout::kStrided:
      return "strided";
  }
  return "?";
}

std::string problem_key(const Chain& c, int64_t numel) {
  std::string ops = c.str(), layouts;
  for (char& ch : ops) {  // a key's values hold no ',' nor ' '
    if (ch == ',') ch = '.';
    if (ch == ' ') ch = '-';
  }
  for (int k = 0; k < c.operand_count; ++k)
    layouts += (k ? "." : "") + std::string(layout_name(c.operands[k].layout));
  autotune::ProblemKey key;
  key.add("chain", ops).add("numel", numel).add("rank", c.rank);
  key.add("row", c.sizes[c.rank - 1]).add("operands", layouts);
  return key.add_precision().str();
}

autotune::ParamSpace space(const std::string& kernel, bool vec4, const tt::cuda::DeviceLimits& l) {
  using Constraint = Descriptor<ChainConfig>::Constraint;
  std::vector<Constraint> extra;
  if (!vec4) {
    extra.push_back({"vec 4 needs every row to be whole vectors of 4",
                     [](const ChainConfig& c) { return c.vec == 1; }});
  }
  add_thread_limit<ChainConfig>(extra, l);
  ChainConfig def;
  def.vec = vec4 ? 4 : 1;
  return descriptor().space(kernel, std::move(extra), def);
}

}  // namespace

ChainConfig choose_config(const Chain& c, int64_t numel, int device) {
  const bool vec4 = numel % 4 == 0 && c.sizes[c.rank - 1] % 4 == 0;
  const std::string kernel = "pointwise.chain";
  const autotune::Config cfg = autotune::choose(
      device, kernel, problem_key(c, numel), /*swept_first=*/false, [&](bool constrained) {
        return space(kernel, vec4,
                     constrained ? tt::cuda::device_limits(device) : tt::cuda::DeviceLimits{});
      });
  return descriptor().from_config(cfg);
}

}  // namespace tt::ops::cuda::chain
