// The binary ops (with broadcasting) and where of the pointwise family on CUDA, for
// float32 and bool operands; integer operands go to binary_int.cu.
#include "ops/cuda/pointwise/pointwise.cuh"
#include "ops/cuda/pointwise/pointwise.h"
#include "ops/cuda/pointwise/pointwise_typed.h"

namespace tt::ops::cuda {

void binary(pointwise::BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& out) {
  if (!dtype_is_floating(a.dtype()) && a.dtype() != DType::Bool) {
    return binary_integers(op, a, b, out);
  }
  pointwise_kernels::launch_binary<pointwise_kernels::FloatAndBool>(op, a, b, out);
}

void where(const Tensor& cond, const Tensor& a, const Tensor& b, const Tensor& out) {
  if (pointwise_kernels::launch_typed<pointwise_kernels::FloatAndBool, 3>(
          "where", pointwise::WhereFn{}, out, cond, &a, &b)) {
    return;
  }
  pointwise_kernels::launch_typed<pointwise_kernels::Integers, 3>("where", pointwise::WhereFn{},
                                                                  out, cond, &a, &b);
}

}  // namespace tt::ops::cuda
