// The one public op front end. Each op checks shapes, dtypes and devices (a clear
// tt::Error otherwise), then dispatches to the CPU reference (ops/cpu, Eigen) or to
// CUDA (ops/cuda). All tensors are float32 today. Outputs are new contiguous
// tensors on the inputs' device; inputs may be any strided view.
#pragma once

#include <cstdint>

#include "core/tensor.h"

namespace tt::ops {

// ---- building blocks ----
// y = x W^T + b. x [..., in], weight [out, in], bias [out] or undefined.
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor());
// Elementwise with NumPy/PyTorch broadcasting.
Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor relu(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor swish(const Tensor& x);  // x * sigmoid(x)

// Instance norm over every (n, c) slice of x [N, C, *spatial] (rank >= 3); biased
// variance; optional per-channel affine (weight/bias [C] or undefined).
Tensor instance_norm(const Tensor& x, double eps = 1e-5, const Tensor& weight = Tensor(),
                     const Tensor& bias = Tensor());
// Group norm of x [N, C, *] (rank >= 2): C split into `groups` contiguous groups.
Tensor group_norm(const Tensor& x, int64_t groups, const Tensor& weight, const Tensor& bias,
                  double eps = 1e-5);
// Batch norm over x [N, C] or [N, C, L]. training: batch mean and biased variance
// normalise; running_mean/var (if defined) are updated in place with momentum and the
// unbiased variance. eval: running statistics normalise, nothing is updated.
Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight, const Tensor& bias, bool training, double momentum = 0.1,
                  double eps = 1e-5);

// ---- fused ops (CPU: the composition of the ops above; CUDA: a plan of stages) ----
// relu(x W^T + bias)            (KernelBench GemmBiasReLU; the Linear has no bias)
Tensor gemm_bias_relu(const Tensor& x, const Tensor& weight, const Tensor& bias);
// group_norm(swish(x W^T + b) + bias)          (KernelBench GemmSwishBiasGroupNorm)
Tensor gemm_swish_bias_group_norm(const Tensor& x, const Tensor& weight, const Tensor& b,
                                  const Tensor& bias, int64_t groups, const Tensor& gn_weight,
                                  const Tensor& gn_bias, double eps = 1e-5);
// batch_norm((x W^T + b) * scale)              (KernelBench GemmScaleBatchNorm)
Tensor gemm_scale_batch_norm(const Tensor& x, const Tensor& weight, const Tensor& b,
                             const Tensor& scale, const Tensor& running_mean,
                             const Tensor& running_var, const Tensor& bn_weight,
                             const Tensor& bn_bias, bool training, double momentum = 0.1,
                             double eps = 1e-5);
// (row_norm(x W^T + b) + y) * y, each row normalised by its own mean and biased
// variance                                     (KernelBench GemmInstanceNormAddMul)
Tensor gemm_instance_norm_add_mul(const Tensor& x, const Tensor& y, const Tensor& weight,
                                  const Tensor& b, double eps = 1e-5);

}  // namespace tt::ops
