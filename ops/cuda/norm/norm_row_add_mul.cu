// launch_row_norm_add_mul: the pass after gemm_instance_norm_add_mul's GEMM,
// out = ((Y - mean_row) * rstd_row + y) * y, one read of Y and y and one write.
#include "ops/cuda/norm/norm_passes.h"
#include "ops/cuda/norm/norm_functors.cuh"
#include "ops/cuda/norm/segment_kernels.cuh"

namespace tt::ops::cuda::norm {

void launch_row_norm_add_mul(const SegmentConfig& cfg, const float* Y, const float* y, float* out,
                             int64_t rows, int64_t cols, float eps, cudaStream_t stream) {
  const SegmentProblem p{rows, cols, vec_align({Y, y, out})};
  check_segment_launch("row norm add mul", cfg, p, {Y, y, out});
  TT_CHECK(Y && y && out, "row norm add mul: Y, y and out must all be given");
  const SegmentLaunch<IdentityPro, AddMulEpi> launch{
      Y, rows, cols, IdentityPro{}, AddMulEpi{out, y, cols}, eps, nullptr, nullptr};
  dispatch_segment_norm(cfg, launch, stream);
}

}  // namespace tt::ops::cuda::norm
