// relu, sigmoid and swish on CUDA: flat float4-vectorised maps over a contiguous
// copy of the input (a no-op when it is already contiguous). The formulas are the
// CPU reference's (ops/cpu/activation.cpp) in the same order of operations; expf is
// CUDA's accurate one (within 2 ulp; the build never uses --use_fast_math), so GPU
// and CPU agree to a few ulp.
#include "core/cuda/elementwise.cuh"
#include "core/cuda/stream.h"
#include "ops/cuda/cuda_ops.h"

namespace tt::ops::cuda {
namespace {

struct ReluFn {
  // Testing v < 0 (not v > 0) lets NaN through, as PyTorch does.
  __device__ float operator()(float v) const { return v < 0.0f ? 0.0f : v; }
};

__device__ __forceinline__ float sigmoid_of(float v) { return 1.0f / (1.0f + expf(-v)); }

struct SigmoidFn {
  __device__ float operator()(float v) const { return sigmoid_of(v); }
};

struct SwishFn {
  // sigmoid(v) * v, the product order of model 3 and the CPU reference.
  __device__ float operator()(float v) const { return sigmoid_of(v) * v; }
};

template <typename Fn>
Tensor unary_op(const Tensor& x, Fn fn) {
  const Tensor in = x.contiguous();
  const int device = x.device().index;
  Tensor out = Tensor::empty(x.sizes(), DType::F32, x.device());
  if (out.numel() == 0) return out;
  tt::cuda::DeviceGuard guard(device);
  tt::cuda::launch_map_unary(in.data<float>(), out.data<float>(), out.numel(), fn,
                             tt::cuda::stream(device));
  return out;
}

}  // namespace

Tensor relu(const Tensor& x) { return unary_op(x, ReluFn{}); }
Tensor sigmoid(const Tensor& x) { return unary_op(x, SigmoidFn{}); }
Tensor swish(const Tensor& x) { return unary_op(x, SwishFn{}); }

}  // namespace tt::ops::cuda
