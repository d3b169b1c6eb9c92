// libtorch's tensor indexing vocabulary (torch::indexing): x.index({Slice(1, None, 2),
// None, Ellipsis, 0, idx}). Slice bounds follow Python (negative counts from the end,
// out-of-range bounds clamp; the step must be positive); None inserts a size-1 dim;
// Ellipsis (or "...") stands for every dimension not otherwise indexed; an integer
// selects (and removes) one entry; an int64/int32 tensor gathers entries, a bool or
// uint8 tensor selects where it is true. The indexing itself is Tensor::index
// (core/tensor.h, defined in ops/index_ops.cpp).
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>

#include "core/error.h"
#include "core/tensor.h"

namespace tt::indexing {

// Doubles as the "no bound" of a Slice, as libtorch's None.
constexpr std::nullopt_t None = std::nullopt;

struct EllipsisIndexType {};
constexpr EllipsisIndexType Ellipsis{};

class Slice {
 public:
  Slice(std::optional<int64_t> start = std::nullopt, std::optional<int64_t> stop = std::nullopt,
        std::optional<int64_t> step = std::nullopt)
      : start_(start), stop_(stop), step_(step.value_or(1)) {}
  std::optional<int64_t> start() const { return start_; }
  std::optional<int64_t> stop() const { return stop_; }
  int64_t step() const { return step_; }

 private:
  std::optional<int64_t> start_, stop_;
  int64_t step_;
};

class TensorIndex {
 public:
  enum class Kind { None, Ellipsis, Integer, Slice, Tensor };

  TensorIndex(std::nullopt_t) : kind_(Kind::None) {}         // NOLINT: implicit, as libtorch's
  TensorIndex(EllipsisIndexType) : kind_(Kind::Ellipsis) {}  // NOLINT
  TensorIndex(const char* text) : kind_(Kind::Ellipsis) {    // NOLINT
    TT_CHECK(std::strcmp(text, "...") == 0,
             "index: the string \"{}\" is not an index; expected \"...\" (Ellipsis)", text);
  }
  TensorIndex(int64_t i) : kind_(Kind::Integer), integer_(i) {}          // NOLINT
  TensorIndex(int i) : kind_(Kind::Integer), integer_(i) {}              // NOLINT
  TensorIndex(Slice s) : kind_(Kind::Slice), slice_(s) {}                // NOLINT
  TensorIndex(Tensor t) : kind_(Kind::Tensor), tensor_(std::move(t)) {}  // NOLINT

  Kind kind() const { return kind_; }
  int64_t integer() const { return integer_; }
  const Slice& slice() const { return slice_; }
  const Tensor& tensor() const { return tensor_; }

 private:
  Kind kind_;
  int64_t integer_ = 0;
  Slice slice_;
  Tensor tensor_;
};

}  // namespace tt::indexing
