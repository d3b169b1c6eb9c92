// The chain kernel written out as CUDA source for one chain (NVRTC compiles it,
// chain_nvrtc.h): the steps, their parameters, the operand layouts and the shape become
// constants, so the per-element work is the ops' own arithmetic and nothing else (no
// switch over the op, no run-time division for the broadcasts). The ops are the functors
// of ops/pointwise_functors.h, compiled from that header's text, so the generated kernel
// and the CPU reference evaluate the same formulas; only the std headers it includes are
// replaced by the few definitions it needs (NVRTC has no standard library).
//
// Two forms: a linear one (each thread `items` vectors of `vec` elements, every load
// issued before the first op) and, when an operand reads the output's last two dims
// transposed (x^T), a tiled one that reads that operand through a shared-memory tile so
// both its reads and the output's writes are coalesced.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ops/cuda/pointwise/chain.h"

namespace tt::ops::cuda::chain {

constexpr const char* kGeneratedKernelName = "tt_chain";

// The generated kernel's grid and block for this chain and config.
struct GeneratedLaunch {
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
};

// Whether the chain takes the tiled form (an operand transposed in the last two dims).
bool generated_tiled(const Chain& c);

// Whether operand k is read 16 bytes at a time by the vec-4 linear form (its pointer must
// then be 16-byte aligned).
bool generated_vector_load(const Chain& c, int k);

// Why the chain cannot be generated ("" when it can): a grid past CUDA's limits.
std::string generated_unsupported(const Chain& c, const ChainConfig& cfg);

// The kernel's source: `extern "C" __global__ void tt_chain(const float* a0, ...,
// float* out, float* out1, ...)` (one pointer per operand, then the last step's output,
// then the extra outputs). The body is straight-line SSA: each operand loaded once per
// element (x0, x1, ...), each step's value computed once (v0, v1, ...) in step order, so
// a DAG's shared values are never recomputed. vec is 1 or 4 (4 only where can_vectorize
// holds); data pointers in `c` are not read. The source spells the whole structure (ops,
// refs, layouts, shape), so its hash, the cache key, does too.
std::string generated_source(const Chain& c, const ChainConfig& cfg);
GeneratedLaunch generated_launch(const Chain& c, const ChainConfig& cfg);

// The headers the source includes, by the names it includes them under: the functors'
// text and the stand-ins for the std headers and core/convert.h.
struct SourceHeader {
  const char* name;
  const std::string* text;
};
const std::vector<SourceHeader>& generated_headers();

// The text of ops/pointwise_functors.h, embedded at build time (chain_functors_text.cpp).
const std::string& functors_text();

}  // namespace tt::ops::cuda::chain
