// The index family on CUDA: the gather behind index_select, gather, embedding and
// advanced indexing, and dropout's Philox mask. Same contract as the CPU reference
// (ops/cpu/cpu_ops.h): the front end (ops/index_ops.cpp) has checked the index
// values, so the kernels read without bounds checks. Nothing to tune: one element
// per thread, memory-bound, with no choice a config could make.
#pragma once

#include <cstdint>

#include "core/tensor.h"

namespace tt::ops::cuda {

// out[c] = x[c with c[dim] replaced by index[c]]; index int64 of out's shape (any
// strides), x any strided view of out's rank, out contiguous; any element size.
void gather(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& out);
// float32: x * (u >= p) / (1 - p), u = philox::uniform(seed, row-major index), the
// CPU reference's mask bit for bit.
Tensor dropout(const Tensor& x, double p, uint64_t seed);

}  // namespace tt::ops::cuda
