// Deterministic uniform fill on the device for the harnesses' big shapes (a host RNG
// would take seconds to fill gigabytes): element i gets a hash of (i, seed) mapped to
// [lo, hi).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "core/cuda/check.h"

namespace tt::device_tools {

// static: each harness is its own program and includes this once.
static __global__ void hash_fill_kernel(float* p, size_t n, unsigned seed, float lo, float hi) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    uint32_t h = static_cast<uint32_t>(i) * 2654435761u ^ (seed * 0x9E3779B9u) ^
                 static_cast<uint32_t>(i >> 32) * 0x85EBCA6Bu;
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    p[i] = lo + (hi - lo) * ((h >> 8) * (1.0f / 16777216.0f));
  }
}

inline void hash_fill(float* p, size_t n, unsigned seed, float lo, float hi) {
  hash_fill_kernel<<<1024, 256>>>(p, n, seed, lo, hi);
  TT_CUDA_CHECK(cudaGetLastError());
}

}  // namespace tt::device_tools
