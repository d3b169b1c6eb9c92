#include "ops/cuda/pointwise/chain.h"

#include <algorithm>

#include "core/cuda/check.h"
#include "core/error.h"
#include "ops/cuda/pointwise/chain_source.h"

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

// Operand o at output element i (and the Vec - 1 after it, on the same row).
template <int Vec>
__device__ __forceinline__ void load(const Chain& c, const Operand& o, int64_t i, float (&v)[Vec]) {
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
      const int64_t j = i % c.sizes[c.rank - 1];
#pragma unroll
      for (int k = 0; k < Vec; ++k) v[k] = __ldg(o.data + j + k);
      return;
    }
    case Layout::kStrided: {
      int64_t rest = i, off = 0;
      for (int d = c.rank - 1; d >= 0; --d) {
        const int64_t size = c.sizes[d];
        off += (rest % size) * o.strides[d];
        rest /= size;
      }
      const int64_t step = o.strides[c.rank - 1];
#pragma unroll
      for (int k = 0; k < Vec; ++k) v[k] = __ldg(o.data + off + k * step);
      return;
    }
  }
}

template <int Vec>
__global__ void chain_kernel(const __grid_constant__ Chain c, float* __restrict__ out, int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x * Vec;
  for (int64_t i = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * Vec; i < n;
       i += stride) {
    float v[Vec];
    load<Vec>(c, c.operands[c.first], i, v);
    for (int s = 0; s < c.step_count; ++s) {
      const Step& st = c.steps[s];
      if (!st.binary) {
#pragma unroll
        for (int k = 0; k < Vec; ++k) v[k] = unary_op(st.op, v[k], st.params);
        continue;
      }
      float w[Vec];
      load<Vec>(c, c.operands[st.operand], i, w);
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

// The prepared generated kernel, when the pointers suit its 16-byte accesses.
bool launch_generated(const Chain& c, float* out, const PreparedChain& p, cudaStream_t stream) {
  if (p.vec4) {
    if (!aligned16(out)) return false;
    for (int k = 0; k < c.operand_count; ++k)
      if (generated_vector_load(c, k) && !aligned16(c.operands[k].data)) return false;
  }
  const float* data[kMaxOperands];
  void* args[kMaxOperands + 1];
  for (int k = 0; k < c.operand_count; ++k) {
    data[k] = c.operands[k].data;
    args[k] = &data[k];
  }
  args[c.operand_count] = &out;
  TT_CUDA_CHECK(cudaLaunchKernel(p.generated, dim3(p.grid[0], p.grid[1], p.grid[2]),
                                 dim3(p.block[0], p.block[1], p.block[2]), args, 0, stream));
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
               cudaStream_t stream, const PreparedChain* prepared) {
  TT_CHECK(c.rank >= 1 && c.rank <= kMaxRank && c.step_count <= kMaxSteps &&
               c.operand_count <= kMaxOperands,
           "chain: rank {}, {} steps or {} operands are past the kernel's limits", c.rank,
           c.step_count, c.operand_count);
  if (numel == 0) return;
  if (prepared != nullptr && prepared->generated != nullptr &&
      launch_generated(c, out, *prepared, stream))
    return;
  int sms = 0;
  TT_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const int threads = cfg.threads;
  const bool vec4 = cfg.vec == 4 && can_vectorize(c, out, numel);
  const int64_t per_block = static_cast<int64_t>(threads) * (vec4 ? 4 : 1);
  const int64_t blocks =
      std::min<int64_t>((numel + per_block - 1) / per_block, static_cast<int64_t>(sms) * 16);
  if (vec4) {
    chain_kernel<4><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(c, out, numel);
  } else {
    chain_kernel<1><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(c, out, numel);
  }
  TT_CUDA_CHECK(cudaGetLastError());
}

}  // namespace tt::ops::cuda::chain
