#include "ops/cuda/pointwise/chain.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/cuda/check.h"
#include "core/cuda/device.h"
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

// The DAG form (chain.h): every step's value kept, in local memory (the steps index it
// at run time); the generated kernel, which names each value, is the fast path.
template <int Vec>
__global__ void dag_kernel(const __grid_constant__ Chain c, float* __restrict__ out, int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x * Vec;
  for (int64_t i = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * Vec; i < n;
       i += stride) {
    float v[kMaxSteps][Vec];
    const auto read = [&](int ref, float(&w)[Vec]) {
      if (ref >= kStepRef) {
#pragma unroll
        for (int k = 0; k < Vec; ++k) w[k] = v[ref - kStepRef][k];
      } else {
        load<Vec>(c, c.operands[ref], i, w);
      }
    };
    for (int s = 0; s < c.step_count; ++s) {
      const Step& st = c.steps[s];
      const int in = st.input != kPrevious ? st.input : s == 0 ? c.first : kStepRef + s - 1;
      float a[Vec];
      read(in, a);
      if (!st.binary) {
#pragma unroll
        for (int k = 0; k < Vec; ++k) v[s][k] = unary_op(st.op, a[k], st.params);
        continue;
      }
      float w[Vec];
      read(st.operand, w);
#pragma unroll
      for (int k = 0; k < Vec; ++k)
        v[s][k] = st.operand_first ? binary_op(st.op, w[k], a[k]) : binary_op(st.op, a[k], w[k]);
    }
    for (int x = -1; x < c.extra_count; ++x) {
      float* dst = x < 0 ? out : c.extra_data[x];
      const float* val = v[x < 0 ? c.step_count - 1 : c.extra_steps[x]];
      if constexpr (Vec == 4) {
        *reinterpret_cast<float4*>(dst + i) = make_float4(val[0], val[1], val[2], val[3]);
      } else {
#pragma unroll
        for (int k = 0; k < Vec; ++k) dst[i + k] = val[k];
      }
    }
  }
}

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

// Vec 4 needs whole vectors within each row of the last dim and 16-byte flat operands.
bool can_vectorize(const Chain& c, const float* out, int64_t n) {
  if (n % 4 != 0 || c.sizes[c.rank - 1] % 4 != 0 || !aligned16(out)) return false;
  for (int x = 0; x < c.extra_count; ++x)
    if (!aligned16(c.extra_data[x])) return false;
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
    for (int x = 0; x < c.extra_count; ++x)
      if (!aligned16(c.extra_data[x])) return false;
    for (int k = 0; k < c.operand_count; ++k)
      if (generated_vector_load(c, k) && !aligned16(c.operands[k].data)) return false;
  }
  const float* data[kMaxOperands];
  float* outs[1 + kMaxExtraOutputs] = {out};
  void* args[kMaxOperands + 1 + kMaxExtraOutputs];
  for (int k = 0; k < c.operand_count; ++k) {
    data[k] = c.operands[k].data;
    args[k] = &data[k];
  }
  for (int x = 0; x < c.extra_count; ++x) outs[1 + x] = c.extra_data[x];
  for (int x = 0; x <= c.extra_count; ++x) args[c.operand_count + x] = &outs[x];
  TT_CUDA_CHECK(cudaLaunchKernel(p.generated, dim3(p.grid[0], p.grid[1], p.grid[2]),
                                 dim3(p.block[0], p.block[1], p.block[2]), args, 0, stream));
  return true;
}

}  // namespace

bool Chain::dag() const {
  if (extra_count > 0) return true;
  for (int k = 0; k < step_count; ++k)
    if (steps[k].input != kPrevious || (steps[k].binary && steps[k].operand >= kStepRef))
      return true;
  return false;
}

std::string Chain::str() const {
  const bool refs = dag();
  const auto ref = [](int r) {
    return r >= kStepRef ? fmt::format("v{}", r - kStepRef) : fmt::format("a{}", r);
  };
  std::string s;
  for (int k = 0; k < step_count; ++k) {
    if (!s.empty()) s += ',';
    s += steps[k].binary ? pw::op_name(static_cast<pw::BinaryOp>(steps[k].op))
                         : pw::op_name(static_cast<pw::UnaryOp>(steps[k].op));
    if (!refs) continue;
    const std::string a = ref(input_of(k));
    if (!steps[k].binary) {
      s += "(" + a + ")";
    } else {
      const std::string b = ref(steps[k].operand);
      s += steps[k].operand_first ? "(" + b + " " + a + ")" : "(" + a + " " + b + ")";
    }
  }
  for (int x = 0; x < extra_count; ++x) s += fmt::format(",out(v{})", extra_steps[x]);
  return s;
}

void run_chain(const Chain& c, float* out, int64_t numel, const ChainConfig& cfg, int device,
               cudaStream_t stream, const PreparedChain* prepared) {
  TT_CHECK(c.rank >= 1 && c.rank <= kMaxRank && c.step_count <= kMaxSteps &&
               c.operand_count <= kMaxOperands && c.extra_count <= kMaxExtraOutputs,
           "chain: rank {}, {} steps, {} operands or {} extra outputs are past the kernel's "
           "limits",
           c.rank, c.step_count, c.operand_count, c.extra_count);
  if (numel == 0) return;
  if (prepared != nullptr && prepared->generated != nullptr &&
      launch_generated(c, out, *prepared, stream))
    return;
  const int sms = tt::cuda::device_limits(device).sm_count;
  const int threads = cfg.threads;
  const bool vec4 = cfg.vec == 4 && can_vectorize(c, out, numel);
  const int64_t per_block = static_cast<int64_t>(threads) * (vec4 ? 4 : 1);
  const int64_t blocks =
      std::min<int64_t>((numel + per_block - 1) / per_block, static_cast<int64_t>(sms) * 16);
  const dim3 grid(static_cast<unsigned>(blocks));
  if (c.dag()) {
    if (vec4) {
      dag_kernel<4><<<grid, threads, 0, stream>>>(c, out, numel);
    } else {
      dag_kernel<1><<<grid, threads, 0, stream>>>(c, out, numel);
    }
  } else if (vec4) {
    chain_kernel<4><<<grid, threads, 0, stream>>>(c, out, numel);
  } else {
    chain_kernel<1><<<grid, threads, 0, stream>>>(c, out, numel);
  }
  TT_CUDA_CHECK(cudaGetLastError());
}

}  // namespace tt::ops::cuda::chain
