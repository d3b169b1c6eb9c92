// The amax and amin reductions' kernels: every compiled inner and outer variant.
#include "ops/cuda/reduce/reduce_kernels.cuh"

namespace tt::ops::cuda::reduce {
TT_REDUCE_INSTANTIATE(ExtremeOp<true>)
TT_REDUCE_INSTANTIATE(ExtremeOp<false>)
}  // namespace tt::ops::cuda::reduce
