// Instance norm: every (n, c) slice of x [N, C, *spatial] is normalised by its own
// mean and biased variance, then by the optional per-channel affine; that is group
// norm with one channel per group.
#include "ops/cpu/cpu_ops.h"

namespace tt::ops::cpu {

Tensor instance_norm(const Tensor& x, double eps, const Tensor& weight, const Tensor& bias) {
  return group_norm(x, x.size(1), weight, bias, eps);
}

}  // namespace tt::ops::cpu
