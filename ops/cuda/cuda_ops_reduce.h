// CUDA implementations of the reductions, softmax, rms_norm and bmm behind the op front
// end (ops/ops.cpp), with the signatures the CPU reference shares (ops/backend_ops.h,
// which declares linear, the norms and the pointwise family too): the front end has validated the
// arguments and normalised the dims (non-negative, sorted, unique, non-empty); inputs may be any
// strided float32 view on one CUDA device; results are new contiguous tensors on that device (int64
// for argmax/argmin).
//
// Kernels: the reduction family ops/cuda/reduce/ (reduce.h: kernel names and problem
// keys; rms_norm too), bmm on cuBLASLt (ops/cuda/gemm/bmm.cu, kernel "bmm"). The
// other norms, layer_norm among them, are in ops/cuda/cuda_ops.h.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "ops/pointwise_functors.h"

namespace tt::ops::cuda {

#include "ops/backend_ops.h"

// Integer and bool reductions (ops/cuda/reduce/int_reduce.cu): sum (int64 result,
// wrapping), max, min (x's dtype), argmax, argmin (int64; ties: the first index),
// any, all (x bool). Exact, so not tuned: one block per output element.
#define TT_INT_REDUCTIONS(X) X(Sum) X(Max) X(Min) X(ArgMax) X(ArgMin) X(Any) X(All)
#define TT_INT_REDUCE_ENUM(name) name,
enum class IntReduce { TT_INT_REDUCTIONS(TT_INT_REDUCE_ENUM) };
#undef TT_INT_REDUCE_ENUM
Tensor reduce_integers(IntReduce kind, const Tensor& x, const std::vector<int64_t>& dims,
                       bool keepdim);
// Running sum along dim of float32/int64 x (double accumulation for floats, as the
// CPU): one thread per row in order, so CPU and CUDA agree bit for bit.
Tensor cumsum(const Tensor& x, int64_t dim);

}  // namespace tt::ops::cuda
