// add/sub/mul with NumPy broadcasting over any rank <= 8 and any input strides. The
// inputs are read in place (no contiguous copies); the output is contiguous.
#include <cstdint>

#include "ops/cpu/broadcast.h"
#include "ops/cpu/cpu_ops.h"
#include "ops/cpu/parallel.h"

namespace tt::ops::cpu {
namespace {

template <typename Fn>
Tensor binary_op(const char* op, const Tensor& a, const Tensor& b, Fn fn) {
  const Shape out_shape = broadcast_shapes(op, a.sizes(), b.sizes());
  Tensor out = Tensor::empty(out_shape, DType::F32, Device::cpu());
  const int64_t numel = out.numel();
  if (numel == 0) return out;

  const BinaryLoopPlan plan = plan_binary_loop(out_shape, a, b);
  const int inner_dim = plan.rank - 1;
  const int64_t inner = plan.sizes[inner_dim];
  const int64_t outer = numel / inner;
  const int64_t sa = plan.a_strides[inner_dim];
  const int64_t sb = plan.b_strides[inner_dim];
  const float* pa = static_cast<const float*>(a.data_ptr());
  const float* pb = static_cast<const float*>(b.data_ptr());
  float* po = out.data<float>();

#pragma omp parallel for schedule(static) if (numel >= kParallelMinElements)
  for (int64_t row = 0; row < outer; ++row) {
    // Offsets of this row's first element, from its index over the outer dimensions.
    int64_t rest = row, off_a = 0, off_b = 0;
    for (int d = inner_dim - 1; d >= 0; --d) {
      const int64_t i = rest % plan.sizes[d];
      rest /= plan.sizes[d];
      off_a += i * plan.a_strides[d];
      off_b += i * plan.b_strides[d];
    }
    const float* ra = pa + off_a;
    const float* rb = pb + off_b;
    float* ro = po + row * inner;
    // The common stride patterns get their own loops so the compiler vectorises them.
    if (sa == 1 && sb == 1) {
      for (int64_t i = 0; i < inner; ++i) ro[i] = fn(ra[i], rb[i]);
    } else if (sa == 1 && sb == 0) {
      const float vb = rb[0];
      for (int64_t i = 0; i < inner; ++i) ro[i] = fn(ra[i], vb);
    } else if (sa == 0 && sb == 1) {
      const float va = ra[0];
      for (int64_t i = 0; i < inner; ++i) ro[i] = fn(va, rb[i]);
    } else {
      for (int64_t i = 0; i < inner; ++i) ro[i] = fn(ra[i * sa], rb[i * sb]);
    }
  }
  return out;
}

}  // namespace

Tensor add(const Tensor& a, const Tensor& b) {
  return binary_op("add", a, b, [](float x, float y) { return x + y; });
}

Tensor sub(const Tensor& a, const Tensor& b) {
  return binary_op("sub", a, b, [](float x, float y) { return x - y; });
}

Tensor mul(const Tensor& a, const Tensor& b) {
  return binary_op("mul", a, b, [](float x, float y) { return x * y; });
}

}  // namespace tt::ops::cpu
