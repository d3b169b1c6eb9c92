// The binary ops (with broadcasting) and where of the pointwise family on CUDA.
#include "ops/cuda/pointwise/pointwise.cuh"
#include "ops/cuda/pointwise/pointwise.h"

namespace tt::ops::cuda {

void binary(pointwise::BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& out) {
  using namespace pointwise;
  switch (op) {
#define TT_BINARY_CASE(name, fn, text)                                    \
  case BinaryOp::name:                                                    \
    pointwise_kernels::launch<2, float>(text, fn{}, out, a, &b, nullptr); \
    return;
    TT_POINTWISE_BINARY_OPS(TT_BINARY_CASE)
#undef TT_BINARY_CASE
  }
}

void where(const Tensor& cond, const Tensor& a, const Tensor& b, const Tensor& out) {
  pointwise_kernels::launch<3, uint8_t>("where", pointwise::WhereFn{}, out, cond, &a, &b);
}

}  // namespace tt::ops::cuda
