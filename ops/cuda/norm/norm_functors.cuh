// Prologues (applied to each loaded vector before the statistics) and epilogues
// (turn a normalised vector into the output and store it) of the segment-norm
// kernels: the plain per-channel affine of the norm ops (instance, group, layer and the
// batch-norm statistics), and the chains of the fused plans' norm stages. Each functor is passed by
// value to the kernel and bound to one segment with bind(seg), which hoists everything that is
// constant over the segment; the bound object then works on vectors of V floats starting at element
// i of the segment (i is a multiple of V).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "ops/cuda/gemm/epilogue.h"
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

// ---- chains: the GEMM epilogue's step vocabulary (gemm/epilogue.h) as a norm's
// prologue (on each loaded value, before the statistics) and epilogue (on each
// normalised value, before the store). Element i of segment seg is the element
// (row0 + seg / groups, (seg % groups) * length + i) of the [M, N] matrix the segments
// tile, so column vectors, row vectors and [M, N] residuals index as in a GEMM's epilogue.

// A chain's steps as kernel data (no tile stage: only the steps of an Epilogue).
struct NormChain {
  gemm::EpilogueStep steps[gemm::Epilogue::kMaxSteps];
  int count = 0;
  int64_t row0 = 0;  // the matrix row of the launch's segment 0's row
};

// The shape of a chain as a type, for the kernels' instantiation: Ops<kSilu, kAddColumn>
// runs exactly those steps in that order, straight-line, each operand loaded as one
// vector; AnyOps runs any chain, switching once per step and vector. The common shapes
// get an Ops<> instantiation (norm_chain.cu lists them) so that they cost what a
// hand-written functor cost; every other chain takes AnyOps.
template <gemm::EpilogueOp... kOps>
struct Ops {
  static constexpr int kCount = sizeof...(kOps);
};
struct AnyOps {};

// Where a segment lies in the [M, N] matrix.
struct SegmentPlace {
  int64_t groups = 1;  // segments per row
  int64_t length = 1;  // elements per segment
  __device__ __forceinline__ int64_t row(int64_t seg) const { return seg / groups; }
  __device__ __forceinline__ int64_t col(int64_t seg) const { return (seg % groups) * length; }
};

namespace detail {

// Step OP on the V values at (row, col .. col + V): column and element operands are
// loaded as one vector (the segment's start and every pointer are aligned to V floats:
// check_segment_launch), a row operand once.
template <int V, gemm::EpilogueOp OP>
__device__ __forceinline__ void chain_step(const gemm::EpilogueStep& s, float (&v)[V], int64_t row0,
                                           int64_t row, int64_t col) {
  using gemm::EpilogueOp;
  gemm::EpilogueOperand o;
  if constexpr (OP == EpilogueOp::kColumnAffine) {
#pragma unroll
    for (int k = 0; k < V; ++k) v[k] = gemm::apply_step_at<OP>(s, row0, v[k], row, col + k);
  } else if constexpr (gemm::reads_column(OP) || OP == EpilogueOp::kAddResidual ||
                       OP == EpilogueOp::kMulResidual) {
    float d[V];
    if constexpr (gemm::reads_column(OP))
      load_vec<V>(d, s.data + col);
    else
      load_vec<V>(d, s.data + (row0 + row) * s.ld + col);
#pragma unroll
    for (int k = 0; k < V; ++k) {
      o.a = d[k];
      v[k] = gemm::apply_op<OP>(v[k], o, s.scalar);
    }
  } else {
    if constexpr (gemm::reads_element(OP)) o.a = gemm::element_operand<OP>(s, row0, row, col);
#pragma unroll
    for (int k = 0; k < V; ++k) v[k] = gemm::apply_op<OP>(v[k], o, s.scalar);
  }
}

template <int V>
__device__ __forceinline__ void chain_step_any(const gemm::EpilogueStep& s, float (&v)[V],
                                               int64_t row0, int64_t row, int64_t col) {
  switch (s.op) {
#define TT_NORM_CHAIN_CASE(name, text)                           \
  case gemm::EpilogueOp::name:                                   \
    chain_step<V, gemm::EpilogueOp::name>(s, v, row0, row, col); \
    return;
    TT_EPILOGUE_OPS(TT_NORM_CHAIN_CASE)
#undef TT_NORM_CHAIN_CASE
  }
}

template <class Steps>
struct RunChain;

template <gemm::EpilogueOp... kOps>
struct RunChain<Ops<kOps...>> {
  template <int V>
  __device__ __forceinline__ static void run(const NormChain& c, float (&v)[V], int64_t row,
                                             int64_t col) {
    int k = 0;
    (chain_step<V, kOps>(c.steps[k++], v, c.row0, row, col), ...);
  }
};

template <>
struct RunChain<AnyOps> {
  template <int V>
  __device__ __forceinline__ static void run(const NormChain& c, float (&v)[V], int64_t row,
                                             int64_t col) {
    for (int k = 0; k < c.count; ++k) chain_step_any<V>(c.steps[k], v, c.row0, row, col);
  }
};

}  // namespace detail

// The prologue: the chain on each loaded vector; with `pre`, the result is stored there
// too (the norm's input, when the graph reads it elsewhere: the residual stream).
template <class Steps>
struct ChainPro {
  NormChain chain;
  SegmentPlace place;
  float* pre;  // [segments * length] or nullptr

  struct Bound {
    const NormChain& chain;
    int64_t row, col;
    float* pre;  // the segment's start, or nullptr
    template <int V>
    __device__ __forceinline__ void operator()(float (&v)[V], int64_t i) const {
      detail::RunChain<Steps>::template run<V>(chain, v, row, col + i);
      if (pre) store_vec<V>(pre + i, v);
    }
  };
  __device__ __forceinline__ Bound bind(int64_t seg) const {
    return {chain, place.row(seg), place.col(seg), pre ? pre + seg * place.length : nullptr};
  }
};

// The epilogue: out = chain((v - center) * rstd), stored at the segment's place in out.
template <class Steps>
struct ChainEpi {
  NormChain chain;
  SegmentPlace place;
  float* out;

  struct Bound {
    const NormChain& chain;
    int64_t row, col;
    float* o;
    template <int V>
    __device__ __forceinline__ void operator()(const float (&v)[V], int64_t i, float center,
                                               float rstd) const {
      float r[V];
#pragma unroll
      for (int k = 0; k < V; ++k) r[k] = (v[k] - center) * rstd;
      detail::RunChain<Steps>::template run<V>(chain, r, row, col + i);
      store_vec<V>(o + i, r);
    }
  };
  __device__ __forceinline__ Bound bind(int64_t seg) const {
    return {chain, place.row(seg), place.col(seg), out + seg * place.length};
  }
  __device__ __forceinline__ bool stores() const { return true; }
};

}  // namespace tt::ops::cuda::norm
