// Collectives as functions that return their result, for use inside a model's
// forward (torch.distributed's functional collectives). Under tt::compile each one
// is recorded as an op of its own (kind "other", with how to run it again), so a
// compiled tensor-parallel model replays its collectives in order; the graph fuses
// nothing across one. Without a recorder, all_reduce reuses its input's memory: pass
// a tensor nobody else reads afterwards (a layer's fresh output).
#pragma once

#include "distributed/process_group.h"

namespace tt::distributed::functional {

// The reduction over ranks of `x` (same shape). In eager mode `x` itself (reduced in
// place, made contiguous first when it is not); under capture a new tensor.
Tensor all_reduce(const Tensor& x, ReduceOp op, const std::shared_ptr<ProcessGroup>& group);

// Every rank's `x` concatenated along `dim` (rank order): [..., W * n, ...].
Tensor all_gather(const Tensor& x, int64_t dim, const std::shared_ptr<ProcessGroup>& group);

}  // namespace tt::distributed::functional
