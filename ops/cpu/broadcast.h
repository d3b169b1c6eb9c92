// NumPy/PyTorch broadcasting for the binary elementwise ops: the result shape (with
// the error the front end reports) and an iteration plan that folds the two inputs'
// strides (any strides, size-1 and missing dimensions as stride 0) into as few
// dimensions as possible, so the inner loop is long and usually unit-stride.
// Private to ops/: the front end uses broadcast_shapes, ops/cpu/elementwise.cpp both.
#pragma once

#include <cstdint>

#include "core/tensor.h"

namespace tt::ops::cpu {

// The shape of a op b under broadcasting; throws tt::Error starting with `op` when a
// dimension differs and neither side is 1.
Shape broadcast_shapes(const char* op, const Shape& a, const Shape& b);

// Element (i_0, ..., i_{rank-1}) of the contiguous output reads a at
// sum(i_d * a_strides[d]) and b at sum(i_d * b_strides[d]) (in elements, from each
// tensor's data_ptr()).
struct BinaryLoopPlan {
  int rank = 1;  // >= 1 even for scalars
  int64_t sizes[kMaxRank] = {1};
  int64_t a_strides[kMaxRank] = {0};
  int64_t b_strides[kMaxRank] = {0};
};

BinaryLoopPlan plan_binary_loop(const Shape& out_shape, const Tensor& a, const Tensor& b);

}  // namespace tt::ops::cpu
