// The sum and mean reductions' kernels: every compiled inner and outer variant.
#include "ops/cuda/reduce/reduce_kernels.cuh"

namespace tt::ops::cuda::reduce {
TT_REDUCE_INSTANTIATE(SumOp)
}  // namespace tt::ops::cuda::reduce
