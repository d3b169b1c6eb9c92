// The order in which the flash kernels' blocks take their query tiles (simt2 and the
// warp-specialized wgmma kernels). Causal tiles differ in weight (the last query tile of
// a head attends every key, the first one tile), so the heaviest should start first and
// the light ones fill the last wave: blocks run in groups of kCausalHeadGroup (batch,
// head)s, each group's query tiles heaviest first across its heads. One head at a time
// (a 2-D grid, the query tile reversed) started the heaviest tiles of the last heads in
// the last wave; all heads at once would stream every head's K and V (64 MB at B8 H16
// T1024 E64) through the 50 MB L2, while 32 heads hold 16 MB.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "ops/attention_problem.h"

namespace tt::ops::cuda::attention {

inline constexpr int64_t kCausalHeadGroup = 32;

// The grid of BM-row query tiles by (batch, head): (tiles, batches), or for causal one
// dimension in query_tile's order.
inline dim3 query_tile_grid(const AttentionProblem& p, int64_t bm) {
  const int64_t m_tiles = (p.L + bm - 1) / bm, batches = p.batch_count();
  return p.causal ? dim3(static_cast<unsigned>(m_tiles * batches))
                  : dim3(static_cast<unsigned>(m_tiles), static_cast<unsigned>(batches));
}

struct QueryTile {
  int64_t mt;       // the query tile (rows mt * BM ...)
  int64_t b;        // the (batch, head)
  int64_t batches;  // of the launch
};

// This block's query tile and (batch, head) in query_tile_grid's order.
__device__ __forceinline__ QueryTile query_tile(const AttentionProblem& p, int64_t bm) {
  if (!p.causal) return {blockIdx.x, blockIdx.y, gridDim.y};
  const int64_t m_tiles = (p.L + bm - 1) / bm, batches = gridDim.x / m_tiles;
  const int64_t idx = blockIdx.x, per_group = kCausalHeadGroup * m_tiles;
  const int64_t g = idx / per_group, r = idx % per_group;
  const int64_t left = batches - g * kCausalHeadGroup;
  const int64_t heads = left < kCausalHeadGroup ? left : kCausalHeadGroup;
  return {m_tiles - 1 - r / heads, g * kCausalHeadGroup + r % heads, batches};
}

// The 2-D grid (query tiles, batches) with each head's tiles reversed when causal, so
// that a head's heaviest tiles start first: the kernels that the head-group order above
// does not serve (the mma and simt kernels, the wgmma cluster pairs).
__device__ __forceinline__ QueryTile query_tile_reversed(const AttentionProblem& p) {
  return {p.causal ? gridDim.x - 1 - blockIdx.x : blockIdx.x, blockIdx.y, gridDim.y};
}

}  // namespace tt::ops::cuda::attention
