// instance_norm on CUDA: group norm with one channel per group, so each (n, c) slice
// of x [N, C, *spatial] is one segment of the segment-norm launcher, tuned under its
// own kernel name.
#include "ops/cuda/norm/channel_group_norm.h"
#include "ops/cuda/cuda_ops.h"
#include "ops/cuda/norm/norm_space.h"

namespace tt::ops::cuda {

Tensor instance_norm(const Tensor& x, double eps, const Tensor& weight, const Tensor& bias) {
  return channel_group_norm(x, x.size(1), weight, bias, eps, norm::kInstanceNorm);
}

}  // namespace tt::ops::cuda
