// Small helpers of element-wise CUDA code: the 16-byte alignment test of float4
// paths and grid-stride indices (64-bit, so any n works with a capped grid). The
// element-wise ops themselves are the pointwise family (ops/cuda/pointwise/).
// Include only from .cu files.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "core/cuda/check.h"
#include "core/cuda/launch.h"

namespace tt::cuda {

inline bool is_aligned_16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

__device__ __forceinline__ int64_t global_thread_index() {
  return blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
}
__device__ __forceinline__ int64_t global_thread_count() {
  return static_cast<int64_t>(gridDim.x) * blockDim.x;
}

}  // namespace tt::cuda
