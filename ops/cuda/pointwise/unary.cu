// The unary ops of the pointwise family on CUDA (one instantiation of the generic
// kernels per functor of TT_POINTWISE_UNARY_OPS and element type it accepts).
#include "ops/cuda/pointwise/pointwise.cuh"
#include "ops/cuda/pointwise/pointwise.h"

namespace tt::ops::cuda {

void unary(pointwise::UnaryOp op, const pointwise::UnaryParams& params, const Tensor& x,
           const Tensor& out) {
  using namespace pointwise;
  using pointwise_kernels::FloatAndBool;
  using pointwise_kernels::Integers;
  switch (op) {
#define TT_UNARY_CASE(name, fn, text)                                                         \
  case UnaryOp::name:                                                                         \
    if (!pointwise_kernels::launch_typed<FloatAndBool, 1>(text, fn{params}, out, x, nullptr)) \
      pointwise_kernels::launch_typed<Integers, 1>(text, fn{params}, out, x, nullptr);        \
    return;
    TT_POINTWISE_UNARY_OPS(TT_UNARY_CASE)
#undef TT_UNARY_CASE
  }
}

}  // namespace tt::ops::cuda
