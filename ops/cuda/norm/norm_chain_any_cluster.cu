// The AnyOps chain pair's launchers for the streaming and cluster rows of norm_variants.h (see
// norm_chain.cuh): a translation unit of their own, so that they compile beside the
// other kinds'.
#include "ops/cuda/norm/norm_chain.cuh"

namespace tt::ops::cuda::norm {

TT_NORM_STREAM_CLUSTER_VARIANTS(TT_NORM_ANY_INSTANCE)

}  // namespace tt::ops::cuda::norm
