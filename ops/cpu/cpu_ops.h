// CPU reference kernels (Eigen, OpenMP over both cores). Called by the front end
// (ops/ops.cpp) after it has checked shapes, dtypes and devices, so these assume
// valid float32 CPU inputs. Signatures mirror ops/ops.h.
#pragma once

#include "ops/ops.h"

namespace tt::ops::cpu {

Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias);
Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor relu(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor swish(const Tensor& x);
Tensor instance_norm(const Tensor& x, double eps, const Tensor& weight, const Tensor& bias);
Tensor group_norm(const Tensor& x, int64_t groups, const Tensor& weight, const Tensor& bias,
                  double eps);
Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight, const Tensor& bias, bool training, double momentum,
                  double eps);

// Fused ops: the compositions of the ops above (ops/cpu/fused.cpp), the reference
// that the CUDA plans (ops/cuda/fused) are checked against.
Tensor gemm_bias_relu(const Tensor& x, const Tensor& weight, const Tensor& bias);
Tensor gemm_swish_bias_group_norm(const Tensor& x, const Tensor& weight, const Tensor& b,
                                  const Tensor& bias, int64_t groups, const Tensor& gn_weight,
                                  const Tensor& gn_bias, double eps);
Tensor gemm_scale_batch_norm(const Tensor& x, const Tensor& weight, const Tensor& b,
                             const Tensor& scale, const Tensor& running_mean,
                             const Tensor& running_var, const Tensor& bn_weight,
                             const Tensor& bn_bias, bool training, double momentum, double eps);
Tensor gemm_instance_norm_add_mul(const Tensor& x, const Tensor& y, const Tensor& weight,
                                  const Tensor& b, double eps);

}  // namespace tt::ops::cpu
