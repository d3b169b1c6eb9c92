// launch_segment_norm: the generic segment norm with a per-channel affine behind
// instance norm, group norm and the per-(n, c) statistics of batch norm on [N, C, L].
#include "ops/cuda/norm/norm_passes.h"
#include "ops/cuda/norm/norm_functors.cuh"
#include "ops/cuda/norm/segment_kernels.cuh"

namespace tt::ops::cuda::norm {

void launch_segment_norm(const SegmentConfig& cfg, const SegmentNormArgs& a, cudaStream_t stream) {
  const SegmentProblem p{a.segments, a.length, vec_align({a.x, a.out})};
  check_segment_launch("segment norm", cfg, p, {a.x, a.out});
  TT_CHECK(a.groups >= 1 && a.channels_per_group >= 1 && a.inner >= 1 &&
               a.channels_per_group * a.inner == a.length,
           "segment norm: a segment of length {} must hold channels_per_group ({}) x inner ({}) "
           "elements",
           a.length, a.channels_per_group, a.inner);
  // gamma/beta are read as vectors only when the channel runs along the segment.
  if (a.inner == 1 && a.channels_per_group > 1)
    TT_CHECK(vec_align({a.gamma, a.beta}) >= cfg.vec,
             "segment norm: config {} needs gamma and beta aligned to {} floats", cfg.str(),
             cfg.vec);
  const ChannelMap map{a.groups, a.channels_per_group, a.inner};
  const SegmentLaunch<IdentityPro, AffineEpi> launch{
      a.x,   a.segments, a.length, IdentityPro{}, AffineEpi{a.out, a.length, a.gamma, a.beta, map},
      a.eps, a.seg_mean, a.seg_m2};
  dispatch_segment_norm(cfg, launch, stream);
}

}  // namespace tt::ops::cuda::norm
