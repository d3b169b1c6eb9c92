// Glue between tt::Tensor and the GEMM family's raw-pointer problems, for the compiled
// groups' steps (ops/graph/lower.cpp): dense aligned operands and the problem they make.
#pragma once

#include <cstdint>

#include "core/tensor.h"
#include "ops/cuda/gemm/gemm_config.h"

namespace tt::ops::cuda::gemm {

// A contiguous view of t whose data is 16-byte aligned: t itself when it already is,
// else a copy (so that vector loads and cuBLASLt's aligned algorithms always apply).
inline Tensor dense(const Tensor& t) {
  Tensor c = t.contiguous();
  if (reinterpret_cast<uintptr_t>(c.data_ptr()) % 16 != 0) c = c.clone();
  return c;
}

// X [m, k] and W [n, k], both dense.
inline GemmProblem problem_of(const Tensor& x, const Tensor& w) {
  return GemmProblem{x.size(0), w.size(0), x.size(1), pointer_align({x.data_ptr(), w.data_ptr()})};
}

}  // namespace tt::ops::cuda::gemm
