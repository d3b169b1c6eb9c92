// tt::IntArrayRef: the dims argument of the reductions, as libtorch's at::IntArrayRef
// is used: one int (sum(x, 1)), a braced list (sum(x, {0, 2})), {} (every dim) or a
// std::vector<int64_t>. Unlike libtorch's it owns its (few) values, so a temporary
// list outlives nothing. With overloads on int64_t and std::vector instead, `{}`
// would pick the int64_t one and mean dim 0.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

namespace tt {

class IntArrayRef {
 public:
  IntArrayRef() = default;
  IntArrayRef(int64_t value) : values_{value} {}  // NOLINT: implicit, as libtorch's
  IntArrayRef(std::initializer_list<int64_t> values) : values_(values) {}
  IntArrayRef(std::vector<int64_t> values) : values_(std::move(values)) {}  // NOLINT
  operator const std::vector<int64_t>&() const { return values_; }          // NOLINT
  const std::vector<int64_t>& vec() const { return values_; }
  bool empty() const { return values_.empty(); }
  size_t size() const { return values_.size(); }

 private:
  std::vector<int64_t> values_;
};

}  // namespace tt
