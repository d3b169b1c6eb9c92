// launch_swish_bias_group_norm: the pass after gemm_swish_bias_group_norm's GEMM,
// out = GroupNorm(swish(Y) + bias), one read of Y and one write.
#include "ops/cuda/norm/norm_passes.h"
#include "ops/cuda/norm/norm_functors.cuh"
#include "ops/cuda/norm/segment_kernels.cuh"

namespace tt::ops::cuda::norm {

void launch_swish_bias_group_norm(const SegmentConfig& cfg, const float* Y, const float* bias,
                                  const float* gamma, const float* beta, float* out, int64_t rows,
                                  int64_t channels, int64_t groups, float eps,
                                  cudaStream_t stream) {
  TT_CHECK(groups >= 1 && channels % groups == 0,
           "swish bias group norm: {} channels do not split into {} groups", channels, groups);
  TT_CHECK(Y && bias && out, "swish bias group norm: Y, bias and out must all be given");
  const int64_t cpg = channels / groups;
  const SegmentProblem p{rows * groups, cpg, vec_align({Y, out, bias, gamma, beta})};
  check_segment_launch("swish bias group norm", cfg, p, {Y, out, bias, gamma, beta});
  const ChannelMap map{groups, cpg, 1};
  const SegmentLaunch<SwishBiasPro, AffineEpi> launch{
      Y,   rows * groups, cpg,    SwishBiasPro{bias, map}, AffineEpi{out, cpg, gamma, beta, map},
      eps, nullptr,       nullptr};
  dispatch_segment_norm(cfg, launch, stream);
}

}  // namespace tt::ops::cuda::norm
