// prepare_chain: the generated kernel for a chain (chain_source.h, chain_nvrtc.h), or
// the reason the interpreter runs it instead.
#include <fmt/format.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>

#include "ops/cuda/pointwise/chain.h"
#include "ops/cuda/pointwise/chain_nvrtc.h"
#include "ops/cuda/pointwise/chain_source.h"

namespace tt::ops::cuda::chain {
namespace {

std::atomic<ChainKernel>& choice() {
  static std::atomic<ChainKernel> k{[] {
    const char* e = std::getenv("TT_CHAIN_KERNEL");
    return e != nullptr && std::strcmp(e, "interpreter") == 0 ? ChainKernel::kInterpreter
                                                              : ChainKernel::kGenerated;
  }()};
  return k;
}

}  // namespace

void set_chain_kernel(ChainKernel k) { choice() = k; }
ChainKernel chain_kernel() { return choice(); }

namespace {

PreparedChain prepare_generated(const Chain& c, const ChainConfig& cfg, int device) {
  PreparedChain p;
  if (chain_kernel() == ChainKernel::kInterpreter) {
    p.how = "interpreter (chosen)";
    return p;
  }
  ChainConfig g = cfg;
  int64_t numel = 1;
  for (int d = 0; d < c.rank; ++d) numel *= c.sizes[d];
  // vec 4 needs whole vectors in every row; the pointers' alignment is checked per launch.
  if (numel % 4 != 0 || c.sizes[c.rank - 1] % 4 != 0) g.vec = 1;
  if (const std::string why = generated_unsupported(c, g); !why.empty()) {
    p.how = "interpreter: the generated kernel cannot run it (" + why + ")";
    return p;
  }
  const LoadedKernel k = load_generated(generated_source(c, g), device);
  if (k.fn == nullptr) {
    p.how = "interpreter: " + k.why;
    return p;
  }
  const GeneratedLaunch l = generated_launch(c, g);
  p.generated = k.fn;
  p.vec4 = !generated_tiled(c) && g.vec == 4;
  for (int i = 0; i < 3; ++i) p.grid[i] = l.grid[i], p.block[i] = l.block[i];
  p.how = fmt::format("nvrtc {}{}", generated_tiled(c) ? "tiled, " : "", k.how);
  return p;
}

}  // namespace

PreparedChain prepare_chain(const Chain& c, const ChainConfig& cfg, int device) {
  PreparedChain p = prepare_generated(c, cfg, device);
  // The interpreter runs a DAG whole too (no split into chains, no intermediate in
  // memory), slower: its values live in local memory, indexed at run time.
  if (p.generated == nullptr && c.dag())
    p.how += "; it runs the DAG as one kernel, its values in local memory";
  return p;
}

}  // namespace tt::ops::cuda::chain
