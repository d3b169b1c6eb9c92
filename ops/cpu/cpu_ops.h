// CPU reference kernels (Eigen, OpenMP over both cores). Called by the front end
// (ops/ops.cpp) after it has checked shapes, dtypes and devices and normalised dims
// (non-negative, sorted, unique), so these assume valid CPU inputs; they accept any
// strided view and return new contiguous tensors. Every kernel takes float32, or
// float64 on the float64 path (ops/ops.h Float64Scope): templates over the scalar,
// instantiated for both (ops/cpu/scalar.h); the result has the inputs' dtype. The
// linear, norm, reduction, softmax and bmm signatures are the contract the CUDA backend
// (ops/cuda/cuda_ops.h, ops/cuda/cuda_ops_reduce.h) shares: ops/backend_ops.h, included
// in both.
#pragma once

#include <cstdint>
#include <vector>

#include "ops/attention_problem.h"
#include "ops/ops.h"
#include "ops/pointwise_functors.h"

namespace tt::ops::cpu {

// linear, the norms, the pointwise family (ops/cpu/pointwise.cpp), the reductions,
// softmax, rms_norm and bmm: the contract with the CUDA backend, declared once for both.
#include "ops/backend_ops.h"

// ---- the reductions of the CPU alone (dims as in ops/backend_ops.h) ----
// bool results; x any dtype (nonzero = true).
Tensor any(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim);
Tensor all(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim);
// Along dim (non-negative; x of rank >= 1): float32/float64/int64 (the front end
// converts smaller integers to int64).
Tensor cumsum(const Tensor& x, int64_t dim);

// ---- attention (ops/cpu/attention.cpp) ----
// The reference of scaled_dot_product_attention: out (contiguous, described by p.out)
// written from q/k/v/mask read through p's strides; scores and sums in double.
void scaled_dot_product_attention(const AttentionProblem& p, const Tensor& q, const Tensor& k,
                                  const Tensor& v, const Tensor& mask, const Tensor& out);

// ---- indexing and dropout (ops/cpu/index.cpp) ----
// out[c] = x[c with c[dim] replaced by index[c]]: index int64 of out's shape (any
// strides, values checked), x any strided view of rank out.dim(), out contiguous.
void gather(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& out);
// x * (u >= p) / (1 - p), u = philox::uniform(seed, i) for the row-major index i;
// 0 < p < 1.
Tensor dropout(const Tensor& x, double p, uint64_t seed);

}  // namespace tt::ops::cpu
