// The chain segment norm's instantiation for model 3's pass: silu then a column bias
// before the statistics, the affine (mul_column(gamma), add_column(beta)) after them (see
// norm_chain.cuh).
#include "ops/cuda/norm/norm_chain.cuh"

namespace tt::ops::cuda::norm {

template void launch_chain<SiluBiasSteps, AffineSteps>(const SegmentConfig&,
                                                       const SegmentChainArgs&, cudaStream_t);

}  // namespace tt::ops::cuda::norm
