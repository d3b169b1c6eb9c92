// Whether the attention family's TMA pipelines (wgmma pipe 2 and 3,
// sm90/attention_wgmma_kernels.cuh) can read a problem's K through a tensor map: head
// dim contiguous, every stride a positive multiple of 16 bytes, at most three batch
// dims (a map has five: E, S and the batch dims). A broadcast batch dim (stride 0) or
// a fourth batch dim keeps the cp.async pipeline (pipe 1). Plain C++: the config's
// space reads it as the kernels' host side does.
#pragma once

#include "ops/attention_problem.h"

namespace tt::ops::cuda::attention {

inline constexpr int kTmaMaxBatchRank = 3;

inline bool k_tma_mappable(const AttentionProblem& p) {
  if (p.batch_rank > kTmaMaxBatchRank || p.k.col != 1) return false;
  if (p.S > 1 && (p.k.row <= 0 || p.k.row % 4 != 0)) return false;
  for (int d = 0; d < p.batch_rank; ++d) {
    if (p.batch[d] > 1 && (p.k.batch[d] <= 0 || p.k.batch[d] % 4 != 0)) return false;
  }
  return true;
}

}  // namespace tt::ops::cuda::attention
