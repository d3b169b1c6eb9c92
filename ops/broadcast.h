// NumPy/PyTorch broadcasting for the pointwise family, shared by the CPU and CUDA
// backends: the result shape (with the error the front end reports) and an
// iteration plan that folds the operands' strides (any strides; size-1 and missing
// dimensions as stride 0) into as few dimensions as possible, so the inner loop is
// long and usually unit-stride. Private to ops/.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace tt::ops {

// The shape of a op b under broadcasting; throws tt::Error starting with `op` when a
// dimension differs and neither side is 1.
Shape broadcast_shapes(const char* op, const Shape& a, const Shape& b);

// At most an output and three inputs (where(cond, a, b)).
constexpr int kMaxLoopOperands = 4;

// Element (i_0, ..., i_{rank-1}) of the loop reads/writes operand k at
// sum(i_d * strides[k][d]) (in elements, from that tensor's data_ptr()).
struct LoopPlan {
  int rank = 1;  // >= 1 even for scalars
  int operands = 0;
  int64_t sizes[kMaxRank] = {1};
  int64_t strides[kMaxLoopOperands][kMaxRank] = {};
};

// Operands broadcast to `shape` (each one's shape must broadcast to it; the output,
// usually operands[0], has exactly that shape).
LoopPlan plan_loop(const Shape& shape, const std::vector<const Tensor*>& operands);

// True when the plan is one dimension with unit stride for every operand: a flat map
// over numel elements.
inline bool is_flat(const LoopPlan& plan) {
  if (plan.rank != 1) return false;
  for (int k = 0; k < plan.operands; ++k) {
    if (plan.strides[k][0] != 1 && plan.sizes[0] != 1) return false;
  }
  return true;
}

}  // namespace tt::ops
