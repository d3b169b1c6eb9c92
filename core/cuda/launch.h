// Launch geometry shared by the element-wise kernels of core/cuda and ops/cuda.
// Kernels use grid-stride loops over 64-bit indices (the full seed-model shapes have
// 7.5e9-element tensors), so the grid can be capped without losing elements.
#pragma once

#include <algorithm>
#include <cstdint>

namespace tt::cuda {

constexpr int kElementwiseThreads = 256;
// Enough blocks to fill any current GPU many times over; past this, each thread loops.
constexpr int64_t kMaxElementwiseBlocks = int64_t{1} << 20;

// Blocks for `work_items` items (elements, or vectors of elements) at `threads` per
// block; at least 1, so never call it with 0 items (skip the launch instead).
inline unsigned int grid_size(int64_t work_items, int threads = kElementwiseThreads) {
  int64_t blocks = (work_items + threads - 1) / threads;
  return static_cast<unsigned int>(std::clamp<int64_t>(blocks, 1, kMaxElementwiseBlocks));
}

}  // namespace tt::cuda
