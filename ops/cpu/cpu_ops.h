// CPU reference kernels (Eigen, OpenMP over both cores). Called by the front end
// (ops/ops.cpp) after it has checked shapes, dtypes and devices and normalised dims
// (non-negative, sorted, unique), so these assume valid CPU inputs; they accept any
// strided view and return new contiguous tensors. Every kernel takes float32, or
// float64 on the float64 path (ops/ops.h Float64Scope): templates over the scalar,
// instantiated for both (ops/cpu/scalar.h); the result has the inputs' dtype. The
// reduction/softmax/norm/bmm signatures are the contract the CUDA backend
// (ops/cuda/cuda_ops.h, ops/cuda/cuda_ops_reduce.h) shares.
#pragma once

#include <vector>

#include "ops/attention_problem.h"
#include "ops/ops.h"
#include "ops/pointwise_functors.h"

namespace tt::ops::cpu {

Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias);
Tensor instance_norm(const Tensor& x, double eps, const Tensor& weight, const Tensor& bias);
Tensor group_norm(const Tensor& x, int64_t groups, const Tensor& weight, const Tensor& bias,
                  double eps);
Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight, const Tensor& bias, bool training, double momentum,
                  double eps);
// Over the trailing normalized_numel elements of each row; weight/bias contiguous
// [normalized_numel] or undefined; biased variance, eps inside the sqrt.
Tensor layer_norm(const Tensor& x, int64_t normalized_numel, const Tensor& weight,
                  const Tensor& bias, double eps);

// ---- the pointwise family (ops/cpu/pointwise.cpp) ----
// out = op(inputs), inputs broadcast to out's shape; out may be any non-overlapping
// strided view (in-place ops pass self) and may alias an input element for element.
void unary(pointwise::UnaryOp op, const pointwise::UnaryParams& params, const Tensor& x,
           const Tensor& out);
void binary(pointwise::BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& out);
void where(const Tensor& cond, const Tensor& a, const Tensor& b, const Tensor& out);

// ---- reductions, softmax, rms_norm, bmm (the contract with the CUDA backend) ----
// dims: sorted, unique, non-negative, non-empty.
Tensor sum(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim);
Tensor mean(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim);
// correction: 1 = unbiased (Bessel), 0 = biased; N - correction <= 0 gives nan/inf.
Tensor var(const Tensor& x, const std::vector<int64_t>& dims, int64_t correction, bool keepdim);
Tensor std(const Tensor& x, const std::vector<int64_t>& dims, int64_t correction, bool keepdim);
Tensor amax(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim);
Tensor amin(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim);
// int64 result; ties: the first index; NaN counts as the max/min.
Tensor argmax(const Tensor& x, int64_t dim, bool keepdim);
Tensor argmin(const Tensor& x, int64_t dim, bool keepdim);
// bool results; x any dtype (nonzero = true).
Tensor any(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim);
Tensor all(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim);
// Along dim (non-negative; x of rank >= 1): float32/float64/int64 (the front end
// converts smaller integers to int64).
Tensor cumsum(const Tensor& x, int64_t dim);
Tensor softmax(const Tensor& x, int64_t dim);
Tensor log_softmax(const Tensor& x, int64_t dim);
// Over the trailing normalized_numel elements of each row (as layer_norm); weight
// contiguous [normalized_numel] or undefined.
Tensor rms_norm(const Tensor& x, int64_t normalized_numel, const Tensor& weight, double eps);
// a [B, m, k], b [B, k, n], any strides (batch stride 0 for a broadcast batch);
// out contiguous [B, m, n]; strict float32.
Tensor bmm(const Tensor& a, const Tensor& b);

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
