// The fused ops on the CPU: each is the composition of the reference ops, in
// PyTorch's order of operations, so it is the reference for the CUDA plans.
#include "ops/cpu/cpu_ops.h"

namespace tt::ops::cpu {

Tensor gemm_bias_relu(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  return relu(add(linear(x, weight, Tensor()), bias));
}

Tensor gemm_swish_bias_group_norm(const Tensor& x, const Tensor& weight, const Tensor& b,
                                  const Tensor& bias, int64_t groups, const Tensor& gn_weight,
                                  const Tensor& gn_bias, double eps) {
  const Tensor activated = add(swish(linear(x, weight, b)), bias);
  return group_norm(activated, groups, gn_weight, gn_bias, eps);
}

Tensor gemm_scale_batch_norm(const Tensor& x, const Tensor& weight, const Tensor& b,
                             const Tensor& scale, const Tensor& running_mean,
                             const Tensor& running_var, const Tensor& bn_weight,
                             const Tensor& bn_bias, bool training, double momentum, double eps) {
  const Tensor scaled = mul(linear(x, weight, b), scale);
  return batch_norm(scaled, running_mean, running_var, bn_weight, bn_bias, training, momentum, eps);
}

Tensor gemm_instance_norm_add_mul(const Tensor& x, const Tensor& y, const Tensor& weight,
                                  const Tensor& b, double eps) {
  // Each row is one instance: view [B, F] as [B, 1, F] (one channel, F "pixels").
  const Tensor projected = linear(x, weight, b);
  const Shape rows_as_instances{projected.size(0), 1, projected.size(1)};
  const Tensor normalised =
      instance_norm(projected.view(rows_as_instances), eps, Tensor(), Tensor())
          .view(projected.sizes());
  return mul(add(normalised, y), y);
}

}  // namespace tt::ops::cpu
