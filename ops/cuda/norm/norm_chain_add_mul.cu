// The chain segment norm's instantiation for model 1's pass: a row norm, then
// ((v + y) * y), i.e. add_residual(y), mul_residual(y) (see norm_chain.cuh).
#include "ops/cuda/norm/norm_chain.cuh"

namespace tt::ops::cuda::norm {

template void launch_chain<NoSteps, AddMulSteps>(const SegmentConfig&, const SegmentChainArgs&,
                                                 cudaStream_t);

}  // namespace tt::ops::cuda::norm
