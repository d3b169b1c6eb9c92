// Row views shared by the CPU reductions (ops/cpu/reduce.cpp) and the CUDA integer
// reductions (ops/cuda/reduce/int_reduce.cu): a tensor rearranged so that each output
// element, or each scanned line, is one contiguous row. Host code; private to ops/.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace tt::ops {

// x viewed as [rows, len]: the kept dims (in order) then the reduced dims (sorted,
// unique, non-negative), one contiguous copy only when the layout needs it.
struct Rows {
  Tensor data;  // contiguous, rows * len elements
  int64_t rows = 1;
  int64_t len = 1;
  Shape out_shape;  // the reduction's result shape (keepdim: reduced dims as 1)
};

inline Rows as_rows(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  std::vector<bool> reduced(static_cast<size_t>(x.dim()), false);
  for (int64_t d : dims) reduced[static_cast<size_t>(d)] = true;
  std::vector<int64_t> perm;
  Rows r;
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (!reduced[static_cast<size_t>(d)]) {
      perm.push_back(d);
      r.rows *= x.size(d);
      r.out_shape.push_back(x.size(d));
    } else if (keepdim) {
      r.out_shape.push_back(1);
    }
  }
  for (int64_t d : dims) {
    perm.push_back(d);
    r.len *= x.size(d);
  }
  r.data = x.permute(perm).contiguous();
  return r;
}

// x (rank >= 1) with `dim` moved last, contiguous, and the permutation that moves it
// back (out.permute(inverse) has x's layout).
struct DimLast {
  Tensor data;
  int64_t rows = 0;  // lines along dim
  int64_t len = 0;   // x.size(dim)
  std::vector<int64_t> inverse;
};

inline DimLast dim_last(const Tensor& x, int64_t dim) {
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < x.dim(); ++d)
    if (d != dim) perm.push_back(d);
  if (x.dim() > 0) perm.push_back(dim);
  DimLast r;
  r.data = x.permute(perm).contiguous();
  r.len = x.dim() > 0 ? x.size(dim) : 1;
  r.rows = r.len > 0 ? r.data.numel() / r.len : 0;
  r.inverse.resize(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) r.inverse[static_cast<size_t>(perm[i])] = i;
  return r;
}

}  // namespace tt::ops
