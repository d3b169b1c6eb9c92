// The group norm epilogue instantiations of every own GEMM variant.
#include "ops/cuda/gemm/tiled_gemm_launch.cuh"

namespace tt::ops::cuda::gemm::detail {

void launch_group_norm_variant(int index, const GemmArgs& a, const Epilogue& e,
                               cudaStream_t stream) {
  launch_variant<EpilogueKind::kGroupNorm>(index, a, e, stream);
}

}  // namespace tt::ops::cuda::gemm::detail
