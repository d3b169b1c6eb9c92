// Flat element-wise map kernels over contiguous float32 buffers, for the ops in
// ops/cuda (relu, sigmoid, swish, same-shape add/sub/mul) and anyone else who needs
// y[i] = f(x[i]) or z[i] = f(x[i], y[i]).
//
// When every pointer is 16-byte aligned the kernel moves float4 vectors (one 16-byte
// load or store per four elements, the widest a thread can issue) and finishes the
// n % 4 leftover elements one by one; a narrowed view whose first element is not
// 16-byte aligned takes the scalar kernel. Indices are 64-bit and the loops
// grid-stride, so any n works with a capped grid. Include only from .cu files.
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

template <typename Fn>
__global__ void map_unary_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n,
                                 Fn fn) {
  for (int64_t i = global_thread_index(); i < n; i += global_thread_count()) y[i] = fn(x[i]);
}

template <typename Fn>
__global__ void map_unary_vec4_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n,
                                      Fn fn) {
  const int64_t n4 = n / 4;
  const float4* x4 = reinterpret_cast<const float4*>(x);
  float4* y4 = reinterpret_cast<float4*>(y);
  for (int64_t i = global_thread_index(); i < n4; i += global_thread_count()) {
    float4 v = x4[i];
    y4[i] = make_float4(fn(v.x), fn(v.y), fn(v.z), fn(v.w));
  }
  for (int64_t i = n4 * 4 + global_thread_index(); i < n; i += global_thread_count()) {
    y[i] = fn(x[i]);
  }
}

template <typename Fn>
__global__ void map_binary_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                  float* __restrict__ out, int64_t n, Fn fn) {
  for (int64_t i = global_thread_index(); i < n; i += global_thread_count()) {
    out[i] = fn(a[i], b[i]);
  }
}

template <typename Fn>
__global__ void map_binary_vec4_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                       float* __restrict__ out, int64_t n, Fn fn) {
  const int64_t n4 = n / 4;
  const float4* a4 = reinterpret_cast<const float4*>(a);
  const float4* b4 = reinterpret_cast<const float4*>(b);
  float4* out4 = reinterpret_cast<float4*>(out);
  for (int64_t i = global_thread_index(); i < n4; i += global_thread_count()) {
    float4 u = a4[i], v = b4[i];
    out4[i] = make_float4(fn(u.x, v.x), fn(u.y, v.y), fn(u.z, v.z), fn(u.w, v.w));
  }
  for (int64_t i = n4 * 4 + global_thread_index(); i < n; i += global_thread_count()) {
    out[i] = fn(a[i], b[i]);
  }
}

// y[i] = fn(x[i]) for i < n, on stream s; x and y must not overlap.
template <typename Fn>
void launch_map_unary(const float* x, float* y, int64_t n, Fn fn, cudaStream_t s) {
  if (n == 0) return;
  if (is_aligned_16(x) && is_aligned_16(y)) {
    map_unary_vec4_kernel<<<grid_size(n / 4 > 0 ? n / 4 : n), kElementwiseThreads, 0, s>>>(x, y, n,
                                                                                           fn);
  } else {
    map_unary_kernel<<<grid_size(n), kElementwiseThreads, 0, s>>>(x, y, n, fn);
  }
  TT_CUDA_CHECK_LAUNCH();
}

// out[i] = fn(a[i], b[i]) for i < n, on stream s.
template <typename Fn>
void launch_map_binary(const float* a, const float* b, float* out, int64_t n, Fn fn,
                       cudaStream_t s) {
  if (n == 0) return;
  if (is_aligned_16(a) && is_aligned_16(b) && is_aligned_16(out)) {
    map_binary_vec4_kernel<<<grid_size(n / 4 > 0 ? n / 4 : n), kElementwiseThreads, 0, s>>>(
        a, b, out, n, fn);
  } else {
    map_binary_kernel<<<grid_size(n), kElementwiseThreads, 0, s>>>(a, b, out, n, fn);
  }
  TT_CUDA_CHECK_LAUNCH();
}

}  // namespace tt::cuda
