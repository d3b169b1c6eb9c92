#include "ops/broadcast.h"

#include <algorithm>

namespace tt::ops {

Shape broadcast_shapes(const char* op, const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {  // i counts dimensions from the end
    const int64_t sa = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int64_t sb = i < b.size() ? b[b.size() - 1 - i] : 1;
    TT_CHECK(sa == sb || sa == 1 || sb == 1,
             "{}: shapes {} and {} cannot be broadcast: dimension -{} has size {} in the first "
             "and {} in the second, and neither is 1",
             op, shape_str(a), shape_str(b), i + 1, sa, sb);
    out[rank - 1 - i] = sa == 1 ? sb : sa;
  }
  return out;
}

namespace {

// Stride of `t` along output dimension d (right-aligned); 0 where t is broadcast.
int64_t broadcast_stride(const Tensor& t, size_t out_rank, size_t d) {
  const size_t lead = out_rank - static_cast<size_t>(t.dim());
  if (d < lead) return 0;
  const int64_t td = static_cast<int64_t>(d - lead);
  return t.size(td) == 1 ? 0 : t.stride(td);
}

}  // namespace

LoopPlan plan_loop(const Shape& shape, const std::vector<const Tensor*>& operands) {
  LoopPlan plan;
  plan.operands = static_cast<int>(operands.size());
  const int n_ops = plan.operands;
  int rank = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    const int64_t size = shape[d];
    if (size == 1) continue;  // contributes no offset
    int64_t st[kMaxLoopOperands];
    for (int k = 0; k < n_ops; ++k) st[k] = broadcast_stride(*operands[k], shape.size(), d);
    // Fold into the previous (outer) dimension when stepping the outer one is the
    // same as stepping the inner one `size` times, for every operand.
    bool fold = rank > 0;
    for (int k = 0; fold && k < n_ops; ++k) fold = plan.strides[k][rank - 1] == st[k] * size;
    if (fold) {
      plan.sizes[rank - 1] *= size;
      for (int k = 0; k < n_ops; ++k) plan.strides[k][rank - 1] = st[k];
      continue;
    }
    plan.sizes[rank] = size;
    for (int k = 0; k < n_ops; ++k) plan.strides[k][rank] = st[k];
    ++rank;
  }
  if (rank == 0) {
    plan.sizes[0] = 1;
    for (int k = 0; k < n_ops; ++k) plan.strides[k][0] = 0;
    rank = 1;
  }
  plan.rank = rank;
  return plan;
}

}  // namespace tt::ops
