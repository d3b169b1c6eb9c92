// Device helpers shared by the normalisation kernels: vector loads and stores of 1,
// 2 or 4 floats, Chan's merge of (count, mean, M2) statistics, and warp/block sums
// whose result every participating thread receives.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace tt::ops::cuda::norm {

// The cache policies of the loads below: through the read-only path (ld.global.nc),
// or evict-first in the L2 (ld.global.cs).
struct ReadOnlyLoad {
  template <typename T>
  __device__ __forceinline__ T operator()(const T* p) const {
    return __ldg(p);
  }
};
struct EvictFirstLoad {
  template <typename T>
  __device__ __forceinline__ T operator()(const T* p) const {
    return __ldcs(p);
  }
};

// V floats at p (aligned to V floats) by one load of the given policy.
template <int V, typename Load = ReadOnlyLoad>
__device__ __forceinline__ void load_vec(float (&d)[V], const float* p, Load load = {}) {
  static_assert(V == 1 || V == 2 || V == 4, "vector width must be 1, 2 or 4");
  if constexpr (V == 4) {
    const float4 t = load(reinterpret_cast<const float4*>(p));
    d[0] = t.x, d[1] = t.y, d[2] = t.z, d[3] = t.w;
  } else if constexpr (V == 2) {
    const float2 t = load(reinterpret_cast<const float2*>(p));
    d[0] = t.x, d[1] = t.y;
  } else {
    d[0] = load(p);
  }
}

template <int V>
__device__ __forceinline__ void store_vec(float* p, const float (&d)[V]) {
  if constexpr (V == 4) {
    *reinterpret_cast<float4*>(p) = make_float4(d[0], d[1], d[2], d[3]);
  } else if constexpr (V == 2) {
    *reinterpret_cast<float2*>(p) = make_float2(d[0], d[1]);
  } else {
    *p = d[0];
  }
}

// Merges the statistics (nb, mb, m2b) of a disjoint sample into (na, ma, m2a):
// Chan, Golub and LeVeque's pairwise update, exact in exact arithmetic and stable
// in floating point because it never subtracts large sums of squares.
template <typename T>
__device__ __forceinline__ void chan_merge(T& na, T& ma, T& m2a, T nb, T mb, T m2b) {
  const T n = na + nb;
  if (nb == T(0)) return;
  if (na == T(0)) {
    na = nb, ma = mb, m2a = m2b;
    return;
  }
  const T delta = mb - ma;
  const T fb = nb / n;
  ma = ma + delta * fb;
  m2a = m2a + m2b + delta * delta * na * fb;
  na = n;
}

// Sum over groups of `kWidth` consecutive lanes (a power of two <= 32); every lane
// of the group receives the total. `mask` names the lanes taking part.
template <int kWidth>
__device__ __forceinline__ float group_sum(float v, unsigned mask) {
#pragma unroll
  for (int o = kWidth / 2; o > 0; o /= 2) v += __shfl_xor_sync(mask, v, o, kWidth);
  return v;
}

template <int kWidth, typename T>
__device__ __forceinline__ void group_chan(T& n, T& m, T& m2, unsigned mask) {
#pragma unroll
  for (int o = kWidth / 2; o > 0; o /= 2) {
    const T nb = __shfl_xor_sync(mask, n, o, kWidth);
    const T mb = __shfl_xor_sync(mask, m, o, kWidth);
    const T m2b = __shfl_xor_sync(mask, m2, o, kWidth);
    chan_merge(n, m, m2, nb, mb, m2b);
  }
}

// Block-wide sum, broadcast to every thread. `scratch` holds kThreads / 32 floats
// and must not be reused before the next __syncthreads() after this returns.
template <int kThreads>
__device__ __forceinline__ float block_sum(float v, float* scratch) {
  constexpr int kWarps = kThreads / 32;
  v = group_sum<32>(v, 0xffffffffu);
  if constexpr (kWarps == 1) {
    return v;
  } else {
    if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
    __syncthreads();
    // Every thread adds the warp totals in the same order: identical results.
    float total = 0.f;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) total += scratch[w];
    return total;
  }
}

// Block-wide Chan merge, broadcast to every thread; scratch holds 3 * kThreads / 32.
template <int kThreads, typename T>
__device__ __forceinline__ void block_chan(T& n, T& m, T& m2, T* scratch) {
  constexpr int kWarps = kThreads / 32;
  group_chan<32>(n, m, m2, 0xffffffffu);
  if constexpr (kWarps > 1) {
    if (threadIdx.x % 32 == 0) {
      scratch[threadIdx.x / 32] = n;
      scratch[kWarps + threadIdx.x / 32] = m;
      scratch[2 * kWarps + threadIdx.x / 32] = m2;
    }
    __syncthreads();
    n = scratch[0], m = scratch[kWarps], m2 = scratch[2 * kWarps];
#pragma unroll
    for (int w = 1; w < kWarps; ++w)
      chan_merge(n, m, m2, scratch[w], scratch[kWarps + w], scratch[2 * kWarps + w]);
  }
}

}  // namespace tt::ops::cuda::norm
