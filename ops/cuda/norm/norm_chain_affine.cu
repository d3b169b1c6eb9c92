// The chain segment norm's affine instantiation: a row or group norm with its affine
// (mul_column(gamma), add_column(beta)) (see norm_chain.cuh; model 3's pass with the same
// affine is norm_chain_silu_affine.cu, so that the two compile in parallel).
#include "ops/cuda/norm/norm_chain.cuh"

namespace tt::ops::cuda::norm {

template void launch_chain<NoSteps, AffineSteps>(const SegmentConfig&, const SegmentChainArgs&,
                                                 cudaStream_t);

}  // namespace tt::ops::cuda::norm
