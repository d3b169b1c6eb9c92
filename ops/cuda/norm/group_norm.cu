// group_norm on CUDA: each (n, group) run of (C / groups) * spatial floats of
// x [N, C, *] is one segment of the segment-norm launcher
// (ops/cuda/norm/norm_passes.h), the per-channel affine in its epilogue.
#include "core/cuda/stream.h"
#include "ops/cuda/norm/channel_group_norm.h"
#include "ops/cuda/cuda_ops.h"
#include "ops/cuda/norm/norm_passes.h"
#include "ops/cuda/norm/norm_space.h"

namespace tt::ops::cuda {

Tensor channel_group_norm(const Tensor& x, int64_t groups, const Tensor& weight, const Tensor& bias,
                          double eps, const char* kernel) {
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
  a.segments = n * groups;
  a.length = c / groups * spatial;
  a.groups = groups;
  a.channels_per_group = c / groups;
  a.inner = spatial;
  a.gamma = w.defined() ? w.data<float>() : nullptr;
  a.beta = b.defined() ? b.data<float>() : nullptr;
  a.eps = static_cast<float>(eps);
  // gamma/beta are read as vectors when channels run along the segment (spatial 1).
  const bool vec_affine = spatial == 1 && a.channels_per_group > 1;
  const int align =
      vec_affine ? norm::vec_align({a.x, a.out, a.gamma, a.beta}) : norm::vec_align({a.x, a.out});
  const norm::SegmentProblem p{a.segments, a.length, align};

  const int device = x.device().index;
  tt::cuda::DeviceGuard guard(device);
  norm::launch_segment_norm(norm::choose_segment(kernel, p, device), a, tt::cuda::stream(device));
  return out;
}

Tensor group_norm(const Tensor& x, int64_t groups, const Tensor& weight, const Tensor& bias,
                  double eps) {
  return channel_group_norm(x, groups, weight, bias, eps, norm::kGroupNorm);
}

}  // namespace tt::ops::cuda
