#include "distributed/sharding.h"

#include <vector>

#include "core/error.h"
#include "ops/ops.h"

namespace tt::distributed {

Shard even_shard(int64_t size, int rank, int world, const std::string& what) {
  TT_CHECK(world >= 1, "{}: the world size must be at least 1, but it is {}.", what, world);
  TT_CHECK(rank >= 0 && rank < world, "{}: the rank must be in 0..{}, but it is {}.", what,
           world - 1, rank);
  TT_CHECK(size >= 0, "{}: the size must not be negative, but it is {}.", what, size);
  TT_CHECK(size % world == 0,
           "{} ({}) does not split evenly over {} ranks ({} % {} = {}); tensor parallelism "
           "needs a multiple of the world size.",
           what, size, world, size, world, size % world);
  const int64_t part = size / world;
  return {part * rank, part};
}

Tensor shard_tensor(const Tensor& full, int64_t dim, int rank, int world, const std::string& what) {
  TT_CHECK(full.defined(), "{}: expected a tensor to shard, but got an undefined one.", what);
  const int64_t d = dim < 0 ? dim + full.dim() : dim;
  TT_CHECK(d >= 0 && d < full.dim(), "{}: dimension {} is out of range for a {}-d tensor.", what,
           dim, full.dim());
  const Shard s = even_shard(full.size(d), rank, world, what);
  return full.narrow(d, s.start, s.length).contiguous();
}

Tensor shard_blocks(const Tensor& full, int64_t dim, int64_t parts, int rank, int world,
                    const std::string& what) {
  TT_CHECK(full.defined(), "{}: expected a tensor to shard, but got an undefined one.", what);
  const int64_t d = dim < 0 ? dim + full.dim() : dim;
  TT_CHECK(d >= 0 && d < full.dim(), "{}: dimension {} is out of range for a {}-d tensor.", what,
           dim, full.dim());
  TT_CHECK(parts >= 1 && full.size(d) % parts == 0, "{}: size {} does not hold {} equal blocks.",
           what, full.size(d), parts);
  const int64_t block = full.size(d) / parts;
  std::vector<Tensor> pieces;
  for (int64_t p = 0; p < parts; ++p) {
    const Shard s = even_shard(block, rank, world, what);
    pieces.push_back(full.narrow(d, p * block + s.start, s.length));
  }
  return parts == 1 ? pieces[0].contiguous() : ops::cat(pieces, d);
}

}  // namespace tt::distributed
