// Prologues (applied to each loaded vector before the statistics) and epilogues
// (turn a normalised vector into the output and store it) of the segment-norm
// kernels. Each functor is passed by value to the kernel and bound to one segment
// with bind(seg), which hoists everything that is constant over the segment; the
// bound object then works on vectors of V floats starting at element i of the
// segment (i is a multiple of V).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "ops/cuda/norm/norm_common.cuh"

namespace tt::ops::cuda::norm {

// Channel of element i of segment s: (s % groups) * cpg + i / inner.
struct ChannelMap {
  int64_t groups = 1;
  int64_t cpg = 1;
  int64_t inner = 1;
  __device__ __forceinline__ int64_t first(int64_t seg) const { return (seg % groups) * cpg; }
};

struct IdentityPro {
  struct Bound {
    template <int V>
    __device__ __forceinline__ void operator()(float (&)[V], int64_t) const {}
  };
  __device__ __forceinline__ Bound bind(int64_t) const { return {}; }
};

// z = swish(Y) + bias[c] with channels contiguous in the segment (inner == 1).
struct SwishBiasPro {
  const float* bias;
  ChannelMap map;
  struct Bound {
    const float* b;  // bias of the segment's first channel
    template <int V>
    __device__ __forceinline__ void operator()(float (&v)[V], int64_t i) const {
      float bb[V];
      load_vec<V>(bb, b + i);
#pragma unroll
      for (int k = 0; k < V; ++k) {
        // expf, not __expf: the strict path keeps float32 accuracy. Written as
        // x * (1 / (1 + e^-x)) to round like PyTorch's sigmoid(x) * x.
        const float s = 1.f / (1.f + expf(-v[k]));
        v[k] = v[k] * s + bb[k];
      }
    }
  };
  __device__ __forceinline__ Bound bind(int64_t seg) const { return {bias + map.first(seg)}; }
};

// out = (v - mean) * rstd * gamma[c] + beta[c]; gamma/beta may be null (1 / 0);
// out may be null (statistics only: nothing is stored).
struct AffineEpi {
  float* out;
  int64_t length;
  const float* gamma;
  const float* beta;
  ChannelMap map;

  struct Bound {
    float* o;        // out of the segment, or null
    const float* g;  // gamma/beta from the segment's first channel, or null
    const float* b;
    int64_t inner;
    int mode;  // 0: one channel per segment, 1: inner == 1, 2: general
    float g0, b0;
    template <int V>
    __device__ __forceinline__ void operator()(const float (&v)[V], int64_t i, float mean,
                                               float rstd) const {
      float r[V];
      if (mode == 0) {
        const float s = rstd * g0;
#pragma unroll
        for (int k = 0; k < V; ++k) r[k] = fmaf(v[k] - mean, s, b0);
      } else if (mode == 1) {
        float gg[V], bb[V];
#pragma unroll
        for (int k = 0; k < V; ++k) gg[k] = 1.f, bb[k] = 0.f;
        if (g) load_vec<V>(gg, g + i);
        if (b) load_vec<V>(bb, b + i);
#pragma unroll
        for (int k = 0; k < V; ++k) r[k] = fmaf(v[k] - mean, rstd * gg[k], bb[k]);
      } else {
#pragma unroll
        for (int k = 0; k < V; ++k) {
          const int64_t c = (i + k) / inner;
          const float gg = g ? __ldg(g + c) : 1.f;
          const float bb = b ? __ldg(b + c) : 0.f;
          r[k] = fmaf(v[k] - mean, rstd * gg, bb);
        }
      }
      store_vec<V>(o + i, r);
    }
  };
  __device__ __forceinline__ Bound bind(int64_t seg) const {
    Bound bd;
    bd.o = out ? out + seg * length : nullptr;
    const int64_t c0 = map.first(seg);
    bd.g = gamma ? gamma + c0 : nullptr;
    bd.b = beta ? beta + c0 : nullptr;
    bd.inner = map.inner;
    bd.mode = map.cpg == 1 ? 0 : (map.inner == 1 ? 1 : 2);
    // Only the one-channel mode reads these; the others load gamma/beta per vector.
    bd.g0 = gamma && bd.mode == 0 ? __ldg(gamma + c0) : 1.f;
    bd.b0 = beta && bd.mode == 0 ? __ldg(beta + c0) : 0.f;
    return bd;
  }
  __device__ __forceinline__ bool stores() const { return out != nullptr; }
};

// Row norm, add, mul: out = ((v - mean) * rstd + y) * y.
struct AddMulEpi {
  float* out;
  const float* y;
  int64_t length;
  struct Bound {
    float* o;
    const float* y;
    template <int V>
    __device__ __forceinline__ void operator()(const float (&v)[V], int64_t i, float mean,
                                               float rstd) const {
      float yy[V], r[V];
      load_vec<V>(yy, y + i);
#pragma unroll
      for (int k = 0; k < V; ++k) r[k] = ((v[k] - mean) * rstd + yy[k]) * yy[k];
      store_vec<V>(o + i, r);
    }
  };
  __device__ __forceinline__ Bound bind(int64_t seg) const {
    return {out + seg * length, y + seg * length};
  }
  __device__ __forceinline__ bool stores() const { return true; }
};

}  // namespace tt::ops::cuda::norm
