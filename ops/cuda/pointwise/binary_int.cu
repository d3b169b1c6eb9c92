// The binary ops of the pointwise family on CUDA for int64, int32 and uint8 operands
// (a translation unit of its own, so it compiles beside binary.cu).
#include "ops/cuda/pointwise/pointwise.cuh"
#include "ops/cuda/pointwise/pointwise_typed.h"

namespace tt::ops::cuda {

void binary_integers(pointwise::BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& out) {
  pointwise_kernels::launch_binary<pointwise_kernels::Integers>(op, a, b, out);
}

}  // namespace tt::ops::cuda
