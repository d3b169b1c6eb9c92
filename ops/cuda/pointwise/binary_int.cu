// The binary ops of the pointwise family on CUDA for int64, int32 and uint8 operands
// (a translation unit of its own, so it compiles beside binary.cu).
#include "ops/cuda/pointwise/pointwise.cuh"
#include "ops/cuda/pointwise/pointwise_typed.h"

namespace tt::ops::cuda {

void binary_integers(pointwise::BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& out) {
  using namespace pointwise;
  using pointwise_kernels::Integers;
  switch (op) {
#define TT_BINARY_CASE(name, fn, text)                                    \
  case BinaryOp::name:                                                    \
    pointwise_kernels::launch_typed<Integers, 2>(text, fn{}, out, a, &b); \
    return;
    TT_POINTWISE_BINARY_OPS(TT_BINARY_CASE)
#undef TT_BINARY_CASE
  }
}

}  // namespace tt::ops::cuda
