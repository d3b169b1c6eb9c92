// The var and std reductions' kernels: every compiled inner and outer variant.
#include "ops/cuda/reduce/reduce_kernels.cuh"

namespace tt::ops::cuda::reduce {
TT_REDUCE_INSTANTIATE(VarOp)
}  // namespace tt::ops::cuda::reduce
