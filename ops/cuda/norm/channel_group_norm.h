// The one CUDA path behind group_norm and instance_norm: x [N, C, *] normalised
// over each (n, group) run of (C / groups) * spatial floats, with the per-channel
// affine in the segment-norm epilogue (ops/cuda/norm/norm_passes.h). Instance norm
// is the case groups == C; `kernel` names the tuning entry the config comes from.
#pragma once

#include "core/tensor.h"

namespace tt::ops::cuda {

Tensor channel_group_norm(const Tensor& x, int64_t groups, const Tensor& weight, const Tensor& bias,
                          double eps, const char* kernel);

}  // namespace tt::ops::cuda
