// The column stats epilogue instantiations of every own GEMM variant.
#include "ops/cuda/gemm/tiled_gemm_launch.cuh"

namespace tt::ops::cuda::gemm::detail {

void launch_column_stats_variant(int index, const GemmArgs& a, const Epilogue& e,
                                 cudaStream_t stream) {
  launch_variant<EpilogueKind::kColumnStats>(index, a, e, stream);
}

}  // namespace tt::ops::cuda::gemm::detail
