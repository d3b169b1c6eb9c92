// The chain segment norm's affine instantiations: a row or group norm with its affine
// (mul_column(gamma), add_column(beta)), and model 3's pass, silu then a column bias
// before the statistics (see norm_chain.cuh).
#include "ops/cuda/norm/norm_chain.cuh"

namespace tt::ops::cuda::norm {

template void launch_chain<NoSteps, AffineSteps>(const SegmentConfig&, const SegmentChainArgs&,
                                                 cudaStream_t);
template void launch_chain<SiluBiasSteps, AffineSteps>(const SegmentConfig&,
                                                       const SegmentChainArgs&, cudaStream_t);

}  // namespace tt::ops::cuda::norm
