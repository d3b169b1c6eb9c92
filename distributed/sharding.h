// The arithmetic of tensor parallelism: which slice of a dimension each rank holds.
// Splits are even or refused: an uneven split would give ranks different GEMM shapes
// and, for attention, heads cut in half; Megatron refuses them too.
#pragma once

#include <cstdint>
#include <string>

#include "core/tensor.h"

namespace tt::distributed {

struct Shard {
  int64_t start = 0;
  int64_t length = 0;
};

// Rank `rank` of `world`'s equal part of `size` elements. `what` names the
// dimension in the error, e.g. "ColumnParallelLinear's out_features".
Shard even_shard(int64_t size, int rank, int world, const std::string& what);

// The rank's slice of `full` along `dim`, as a contiguous copy (so that a shard
// does not keep the whole tensor alive).
Tensor shard_tensor(const Tensor& full, int64_t dim, int rank, int world, const std::string& what);

// The rank's part of each of `parts` equal consecutive blocks of `dim`, concatenated:
// the rows of a fused qkv weight [3E, E] that hold this rank's heads of q, of k and of v.
Tensor shard_blocks(const Tensor& full, int64_t dim, int64_t parts, int rank, int world,
                    const std::string& what);

}  // namespace tt::distributed
