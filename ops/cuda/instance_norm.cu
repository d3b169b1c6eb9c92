// instance_norm on CUDA: each (n, c) slice of x [N, C, *spatial] is one segment of
// the segment-norm launcher (ops/cuda/fused/norm_passes.h), with the per-channel
// affine folded into its epilogue. One read and one write of x for slices that fit a
// cluster's registers (up to 1M floats), else two reads.
#include "core/cuda/stream.h"
#include "ops/cuda/cuda_ops.h"
#include "ops/cuda/fused/norm_passes.h"
#include "ops/cuda/tuning/choose.h"

namespace tt::ops::cuda {

Tensor instance_norm(const Tensor& x, double eps, const Tensor& weight, const Tensor& bias) {
  const Tensor in = x.contiguous();
  const Tensor w = weight.defined() ? weight.contiguous() : Tensor();
  const Tensor b = bias.defined() ? bias.contiguous() : Tensor();
  Tensor out = Tensor::empty(x.sizes(), DType::F32, x.device());
  const int64_t n = x.size(0), c = x.size(1);
  if (out.numel() == 0) return out;
  const int64_t spatial = out.numel() / (n * c);

  norm::SegmentNormArgs a;
  a.x = in.data<float>();
  a.out = out.data<float>();
  a.segments = n * c;
  a.length = spatial;
  a.groups = c;
  a.channels_per_group = 1;
  a.inner = spatial;
  a.gamma = w.defined() ? w.data<float>() : nullptr;
  a.beta = b.defined() ? b.data<float>() : nullptr;
  a.eps = static_cast<float>(eps);
  const norm::SegmentProblem p{a.segments, a.length, norm::vec_align({a.x, a.out})};

  const int device = x.device().index;
  tt::cuda::DeviceGuard guard(device);
  norm::launch_segment_norm(tuning::choose_segment(tuning::kInstanceNorm, p, device), a,
                            tt::cuda::stream(device));
  return out;
}

}  // namespace tt::ops::cuda
