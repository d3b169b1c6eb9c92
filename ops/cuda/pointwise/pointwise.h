// The pointwise family on CUDA: every unary, binary (broadcasting) and where op of
// ops/pointwise_functors.h through one set of generic kernels (pointwise.cuh).
// Same contract as the CPU backend (ops/backend_ops.h): inputs broadcast to out's
// shape; out is any non-overlapping view and may alias an input element for element.
//
// Two kernel shapes, each tunable (ops/cuda/pointwise/pointwise_space.h):
//   flat    every operand unit-stride over the same elements (the usual case):
//           threads per block, vector width (float1/2/4 loads and stores, allowed by
//           the pointers' alignment) and vectors per thread;
//   strided anything else (broadcasts, transposed views, strided outputs): the output
//           index is unravelled over the folded dims; threads and items per thread.
// Kernel names in the tuning database: "pointwise.<op>" (pointwise.add,
// pointwise.gelu, pointwise.where, ...); problem keys
// "numel=N,layout=flat,align=16B,precision=strict" or
// "numel=N,rank=R,layout=strided,precision=strict".
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "ops/pointwise_functors.h"

namespace tt::ops::cuda {

// unary, binary and where, with the other ops both backends declare alike.
#include "ops/backend_ops.h"

}  // namespace tt::ops::cuda
