// The pointwise family's share for integer operands on CUDA (binary_int.cu), called
// by binary.cu: the same contract as cuda::binary (ops/cuda/pointwise/pointwise.h).
#pragma once

#include "core/tensor.h"
#include "ops/pointwise_functors.h"

namespace tt::ops::cuda {

void binary_integers(pointwise::BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& out);

}  // namespace tt::ops::cuda
