// The scalar type of a CPU kernel: float for float32 tensors, double on the float64
// path (ops/ops.h Float64Scope, the float64 reference of `tt compare --reference
// float64`). Each kernel is written once as a template over the scalar and
// with_scalar() picks the instantiation from a tensor's dtype, so the float64 path
// is the same code as the float32 reference, not a second copy of it.
#pragma once

#include "core/dtype.h"

namespace tt::ops::cpu {

// fn(T{}) with T = double for DType::F64, float otherwise (the front end has checked
// the dtype); fn's result is returned.
template <typename Fn>
decltype(auto) with_scalar(DType dtype, Fn&& fn) {
  if (dtype == DType::F64) return fn(double{});
  return fn(float{});
}

}  // namespace tt::ops::cpu
