// relu, sigmoid and swish on a contiguous copy of the input (a no-op when it is
// already contiguous). Float arithmetic, as PyTorch's float32 kernels.
#include <cmath>
#include <cstdint>

#include "ops/cpu/cpu_ops.h"
#include "ops/cpu/parallel.h"

namespace tt::ops::cpu {
namespace {

template <typename Fn>
Tensor unary_op(const Tensor& x, Fn fn) {
  const Tensor in = x.contiguous();
  Tensor out = Tensor::empty(x.sizes(), DType::F32, Device::cpu());
  const int64_t n = in.numel();
  if (n == 0) return out;
  const float* pi = in.data<float>();
  float* po = out.data<float>();
#pragma omp parallel for simd schedule(static) if (n >= kParallelMinElements)
  for (int64_t i = 0; i < n; ++i) po[i] = fn(pi[i]);
  return out;
}

inline float sigmoid_of(float v) { return 1.0f / (1.0f + std::exp(-v)); }

}  // namespace

Tensor relu(const Tensor& x) {
  // Testing v < 0 (not v > 0) lets NaN through, as PyTorch does.
  return unary_op(x, [](float v) { return v < 0.0f ? 0.0f : v; });
}

Tensor sigmoid(const Tensor& x) { return unary_op(x, sigmoid_of); }

// Model 3 writes sigmoid(x) * x; the same product order here keeps CPU and the
// PyTorch fixture within one rounding.
Tensor swish(const Tensor& x) {
  return unary_op(x, [](float v) { return sigmoid_of(v) * v; });
}

}  // namespace tt::ops::cpu
