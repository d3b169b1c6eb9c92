// Memory overlap between tensor views, PyTorch's rules for writes (ATen's
// MemoryOverlap): a tensor that is written may not have two elements at one memory
// location (internal overlap: an expanded view), and may not share memory with a
// tensor it reads unless both are the same view (full overlap, allowed for pointwise
// ops: each element is read before it is written); anything between (a transpose,
// a shifted or broadcast view of the destination) is partial overlap and refused,
// since the result would depend on the order in which elements are written.
// The checks are exact (they compare the memory the elements occupy), so disjoint
// interleaved views of one storage (x[:, 0] and x[:, 1]) are accepted.
#pragma once

#include "core/tensor.h"

namespace tt {

enum class MemOverlap { kNone, kFull, kPartial };

// True when two elements of `t` lie at one memory location.
bool has_internal_overlap(const Tensor& t);
// How the memory of `a` and of `b` meet: kNone, kFull (the same elements in the same
// order: same storage, offset, dtype, sizes and strides where the size exceeds 1), or
// kPartial (anything else that shares a byte).
MemOverlap overlap_status(const Tensor& a, const Tensor& b);

// The checks of a write, each a tt::Error with PyTorch's sentence after "`op`: ":
// `out` has no internal overlap;
void assert_no_internal_overlap(const char* op, const Tensor& out);
// `out` and the input `in` are the same view or do not meet (pointwise ops);
void assert_no_partial_overlap(const char* op, const Tensor& out, const Tensor& in);
// `out` and the input `in` do not meet at all (ops that read an input after writing
// part of the output: the running statistics of batch_norm against its input).
void assert_no_overlap(const char* op, const Tensor& out, const Tensor& in);

}  // namespace tt
