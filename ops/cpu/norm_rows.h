// The row walk of the CPU row norms (layer_norm, rms_norm): each output row is a
// function of the same input row of n contiguous elements, rows shared between the
// threads when the tensor is large enough to be worth it.
#pragma once

#include <cstdint>

#include "core/tensor.h"
#include "ops/cpu/parallel.h"
#include "ops/cpu/scalar.h"

namespace tt::ops::cpu {

// out row r = fn(x row r, out row r, n) over the rows of n contiguous elements.
template <typename T, typename Fn>
Tensor norm_rows(const Tensor& x, int64_t n, Fn fn) {
  const Tensor in = x.contiguous();
  Tensor out = Tensor::empty(x.sizes(), DTypeOf<T>::value, Device::cpu());
  if (out.numel() == 0 || n == 0) return out;
  const int64_t rows = out.numel() / n;
  const T* pi = in.data<T>();
  T* po = out.data<T>();
#pragma omp parallel for schedule(static) if (out.numel() >= kParallelMinElements)
  for (int64_t r = 0; r < rows; ++r) fn(pi + r * n, po + r * n, n);
  return out;
}

// A contiguous weight or bias, or null where it is undefined.
template <typename T>
const T* data_or_null(const Tensor& t) {
  return t.defined() ? t.data<T>() : nullptr;
}

}  // namespace tt::ops::cpu
