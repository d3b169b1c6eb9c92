// PyTorch's type promotion for the op front end (torch.result_type): which dtype a
// mixed-dtype op computes in, and the checks of operands that may be any dtype with
// kernels. Private to ops/.
#pragma once

#include "core/convert.h"
#include "core/tensor.h"
#include "ops/front_end.h"

namespace tt::ops::detail {

// 0 bool, 1 integral, 2 floating.
inline int dtype_category(DType t) {
  if (t == DType::Bool) return 0;
  return dtype_is_floating(t) ? 2 : 1;
}

// torch.result_type(a, b): tensors with dims outrank 0-d tensors (the double forms'
// scalars are 0-d), unless the 0-d one is of a higher category (bool < integral <
// floating): int64 [n] + float32 [] -> float32, float32 [n] + float64 [] -> float32.
inline DType result_type(const Tensor& a, const Tensor& b) {
  const bool da = a.dim() > 0, db = b.dim() > 0;
  if (da == db) return promote_types(a.dtype(), b.dtype());
  const Tensor& dimensioned = da ? a : b;
  const Tensor& zero_dim = da ? b : a;
  if (dtype_category(zero_dim.dtype()) > dtype_category(dimensioned.dtype())) {
    return promote_types(a.dtype(), b.dtype());
  }
  return dimensioned.dtype();
}

// torch.can_cast: a result may be written into `to` unless that drops its category
// (floating into an integer, a number into bool).
inline bool can_cast(DType from, DType to) { return dtype_category(from) <= dtype_category(to); }

// An operand of an op that takes any dtype with kernels: defined; float64 as
// check_required (inside a Float64Scope, on the CPU); float32, int64, int32, uint8 and
// bool anywhere.
inline void check_any_dtype(const char* op, const char* name, const Tensor& t) {
  TT_CHECK(t.defined(), "{}: {} is undefined; expected a tensor", op, name);
  if (t.dtype() == DType::F64) return check_required(op, name, t);
  TT_CHECK(dtype_has_kernels(t.dtype()),
           "{}: {} has dtype {}, which has no kernels; expected float32, int64, int32, uint8 or "
           "bool",
           op, name, dtype_name(t.dtype()));
}

}  // namespace tt::ops::detail
