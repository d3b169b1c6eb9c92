// The argmax and argmin reductions' kernels: every compiled inner and outer variant.
#include "ops/cuda/reduce/reduce_kernels.cuh"

namespace tt::ops::cuda::reduce {
TT_REDUCE_INSTANTIATE(ArgOp<true>)
TT_REDUCE_INSTANTIATE(ArgOp<false>)
}  // namespace tt::ops::cuda::reduce
