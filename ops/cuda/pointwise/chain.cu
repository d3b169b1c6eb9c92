#include "ops/cuda/pointwise/chain.h"

#include <algorithm>

#include "core/cuda/check.h"
#include "core/error.h"

namespace tt::ops::cuda::chain {
namespace {

namespace pw = tt::ops::pointwise;

__device__ __forceinline__ float unary_op(uint8_t op, float v, const pw::UnaryParams& p) {
  switch (static_cast<pw::UnaryOp>(op)) {
#define TT_CHAIN_UNARY(name, fn, text) \
  case pw::UnaryOp::name:              \
    return pw::fn{p}(v);
    TT_POINTWISE_UNARY_OPS(TT_CHAIN_UNARY)
#undef TT_CHAIN_UNARY
  }
  return v;
}

__device__ __forceinline__ float binary_op(uint8_t op, float x, float y) {
  switch (static_cast<pw::BinaryOp>(op)) {
#define TT_CHAIN_BINARY(name, fn, text) \
  case pw::BinaryOp::name:              \
    return pw::fn{}(x, y);
    TT_POINTWISE_BINARY_OPS(TT_CHAIN_BINARY)
#undef TT_CHAIN_BINARY
  }
  return x;
}

// Operand o at output element i (and the Vec - 1 after it, on the same row). Index is
// int32_t when every offset fits (the divisions of the strided and row layouts are then
// 32-bit), else int64_t.
template <int Vec, typename Index>
__device__ __forceinline__ void load(const Chain& c, const Operand& o, Index i, float (&v)[Vec]) {
  switch (o.layout) {
    case Layout::kFlat:
      if constexpr (Vec == 4) {
        const float4 q = __ldg(reinterpret_cast<const float4*>(o.data + i));
        v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
      } else {
#pragma unroll
        for (int k = 0; k < Vec; ++k) v[k] = __ldg(o.data + i + k);
      }
      return;
    case Layout::kScalar: {
      const float s = __ldg(o.data);
#pragma unroll
      for (int k = 0; k < Vec; ++k) v[k] = s;
      return;
    }
    case Layout::kRow: {
      const Index j = i % static_cast<Index>(c.sizes[c.rank - 1]);
      if constexpr (Vec == 4) {  // rows are whole vectors (can_vectorize), the vector 16 B
        if ((reinterpret_cast<uintptr_t>(o.data) & 15) == 0) {
          const float4 q = __ldg(reinterpret_cast<const float4*>(o.data + j));
          v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
          return;
        }
      }
#pragma unroll
      for (int k = 0; k < Vec; ++k) v[k] = __ldg(o.data + j + k);
      return;
    }
    case Layout::kStrided: {
      Index rest = i, off = 0;
      for (int d = c.rank - 1; d >= 0; --d) {
        const Index size = static_cast<Index>(c.sizes[d]);
        off += (rest % size) * static_cast<Index>(o.strides[d]);
        rest /= size;
      }
      const Index step = static_cast<Index>(o.strides[c.rank - 1]);
#pragma unroll
      for (int k = 0; k < Vec; ++k) v[k] = __ldg(o.data + off + k * step);
      return;
    }
  }
}

// in[sel][item] for a run-time sel, with every index a constant (the array stays in
// registers).
template <int Vec, int Ops, int Items>
__device__ __forceinline__ void pick(const float (&in)[Ops][Items][Vec], int sel, int item,
                                     float (&v)[Vec]) {
#pragma unroll
  for (int k = 0; k < Ops; ++k)
#pragma unroll
    for (int j = 0; j < Items; ++j)
      if (k == sel && j == item) {
#pragma unroll
        for (int e = 0; e < Vec; ++e) v[e] = in[k][j][e];
      }
}

// Each pass covers Items tiles of blockDim * Vec elements: it loads every operand of
// every item first (all loads in flight at once), then runs the steps in registers. Ops
// is the operand count rounded up to an instantiated one.
template <int Vec, int Ops, int Items, typename Index>
__global__ void chain_kernel(const __grid_constant__ Chain c, float* __restrict__ out, Index n) {
  const Index row = static_cast<Index>(blockDim.x) * Vec;
  const Index tile = row * Items;
  const Index first = static_cast<Index>(threadIdx.x) * Vec;
  for (Index base = static_cast<Index>(blockIdx.x) * tile; base < n;
       base += static_cast<Index>(gridDim.x) * tile) {
    float in[Ops][Items][Vec];
#pragma unroll
    for (int j = 0; j < Items; ++j) {
      const Index i = base + j * row + first;
      if (i >= n) continue;
#pragma unroll
      for (int k = 0; k < Ops; ++k)
        if (k < c.operand_count) load<Vec, Index>(c, c.operands[k], i, in[k][j]);
    }
#pragma unroll
    for (int j = 0; j < Items; ++j) {
      const Index i = base + j * row + first;
      if (i >= n) continue;
      float v[Vec];
      pick<Vec, Ops, Items>(in, c.first, j, v);
      for (int s = 0; s < c.step_count; ++s) {
        const Step& st = c.steps[s];
        if (!st.binary) {
#pragma unroll
          for (int k = 0; k < Vec; ++k) v[k] = unary_op(st.op, v[k], st.params);
          continue;
        }
        float w[Vec];
        pick<Vec, Ops, Items>(in, st.operand, j, w);
#pragma unroll
        for (int k = 0; k < Vec; ++k)
          v[k] = st.operand_first ? binary_op(st.op, w[k], v[k]) : binary_op(st.op, v[k], w[k]);
      }
      if constexpr (Vec == 4) {
        *reinterpret_cast<float4*>(out + i) = make_float4(v[0], v[1], v[2], v[3]);
      } else {
#pragma unroll
        for (int k = 0; k < Vec; ++k) out[i + k] = v[k];
      }
    }
  }
}

// The largest element offset any operand reaches (for the index width).
int64_t largest_offset(const Chain& c, int64_t n) {
  int64_t largest = n;
  for (int k = 0; k < c.operand_count; ++k) {
    const Operand& o = c.operands[k];
    if (o.layout != Layout::kStrided) continue;
    int64_t reach = 0;
    for (int d = 0; d < c.rank; ++d) reach += (c.sizes[d] - 1) * o.strides[d];
    largest = std::max(largest, reach + 1);
  }
  return largest;
}

template <int Vec, int Ops, int Items>
void launch_items(const Chain& c, float* out, int64_t n, unsigned grid, int threads,
                  cudaStream_t stream) {
  chain_kernel<Vec, Ops, Items, int32_t>
      <<<grid, threads, 0, stream>>>(c, out, static_cast<int32_t>(n));
}

template <int Vec, int Ops>
void launch_ops(const Chain& c, float* out, int64_t n, unsigned grid, int threads, int items,
                cudaStream_t stream) {
  if (items == 2) return launch_items<Vec, Ops, 2>(c, out, n, grid, threads, stream);
  launch_items<Vec, Ops, 1>(c, out, n, grid, threads, stream);
}

// 32-bit offsets and as few operand slots as the chain needs where they suffice; one
// generic 64-bit kernel otherwise.
template <int Vec>
void launch(const Chain& c, float* out, int64_t n, const ChainConfig& cfg, int sms,
            cudaStream_t stream) {
  const int64_t tile = static_cast<int64_t>(cfg.threads) * Vec * cfg.items;
  const unsigned grid = static_cast<unsigned>(
      std::min<int64_t>((n + tile - 1) / tile, static_cast<int64_t>(sms) * 8));
  if (largest_offset(c, n) >= (int64_t{1} << 31) - tile) {
    chain_kernel<Vec, kMaxOperands, 1, int64_t><<<grid, cfg.threads, 0, stream>>>(c, out, n);
  } else if (c.operand_count <= 2) {
    launch_ops<Vec, 2>(c, out, n, grid, cfg.threads, cfg.items, stream);
  } else if (c.operand_count <= 4) {
    launch_ops<Vec, 4>(c, out, n, grid, cfg.threads, cfg.items, stream);
  } else {
    launch_ops<Vec, kMaxOperands>(c, out, n, grid, cfg.threads, cfg.items, stream);
  }
}

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

// Vec 4 needs whole vectors within each row of the last dim and 16-byte flat operands.
bool can_vectorize(const Chain& c, const float* out, int64_t n) {
  if (n % 4 != 0 || c.sizes[c.rank - 1] % 4 != 0 || !aligned16(out)) return false;
  for (int k = 0; k < c.operand_count; ++k) {
    const Operand& o = c.operands[k];
    if (o.layout == Layout::kFlat && !aligned16(o.data)) return false;
  }
  return true;
}

}  // namespace

std::string Chain::str() const {
  std::string s;
  for (int k = 0; k < step_count; ++k) {
    if (!s.empty()) s += ',';
    s += steps[k].binary ? pw::op_name(static_cast<pw::BinaryOp>(steps[k].op))
                         : pw::op_name(static_cast<pw::UnaryOp>(steps[k].op));
  }
  return s;
}

void run_chain(const Chain& c, float* out, int64_t numel, const ChainConfig& cfg, int device,
               cudaStream_t stream) {
  TT_CHECK(c.rank >= 1 && c.rank <= kMaxRank && c.step_count <= kMaxSteps &&
               c.operand_count <= kMaxOperands,
           "chain: rank {}, {} steps or {} operands are past the kernel's limits", c.rank,
           c.step_count, c.operand_count);
  if (numel == 0) return;
  int sms = 0;
  TT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  if (cfg.vec == 4 && can_vectorize(c, out, numel)) {
    launch<4>(c, out, numel, cfg, sms, stream);
  } else {
    launch<1>(c, out, numel, cfg, sms, stream);
  }
  TT_CUDA_CHECK(cudaGetLastError());
}

}  // namespace tt::ops::cuda::chain
