// layer_norm on CUDA: each row of normalized_numel trailing floats is one segment of
// the tuned segment-norm launcher (ops/cuda/norm/norm_passes.h) with one group whose
// channels are the row's elements (groups 1, channels_per_group = normalized_numel,
// inner 1), so the launcher's per-channel affine is layer_norm's per-element
// weight and bias. Statistics are the launcher's exact two-pass mean and biased
// variance, eps inside the square root, as PyTorch. Tuned under the kernel name
// "layer_norm" (problem key "segments=rows,length=normalized_numel,...").
#include "core/cuda/stream.h"
#include "ops/cuda/cuda_ops.h"
#include "ops/cuda/norm/norm_passes.h"
#include "ops/cuda/norm/norm_space.h"

namespace tt::ops::cuda {

Tensor layer_norm(const Tensor& x, int64_t normalized_numel, const Tensor& weight,
                  const Tensor& bias, double eps) {
  const Tensor in = x.contiguous();
  const Tensor w = weight.defined() ? weight.contiguous() : Tensor();
  const Tensor b = bias.defined() ? bias.contiguous() : Tensor();
  Tensor out = Tensor::empty(x.sizes(), DType::F32, x.device());
  if (out.numel() == 0) return out;

  norm::SegmentNormArgs a;
  a.x = in.data<float>();
  a.out = out.data<float>();
  a.segments = out.numel() / normalized_numel;
  a.length = normalized_numel;
  a.groups = 1;
  a.channels_per_group = normalized_numel;
  a.inner = 1;
  a.gamma = w.defined() ? w.data<float>() : nullptr;
  a.beta = b.defined() ? b.data<float>() : nullptr;
  a.eps = static_cast<float>(eps);
  // The launcher reads weight and bias as vectors alongside x when the row has more
  // than one channel, so their addresses limit the vector width too.
  const int align = normalized_numel > 1 ? norm::vec_align({a.x, a.out, a.gamma, a.beta})
                                         : norm::vec_align({a.x, a.out});
  const norm::SegmentProblem p{a.segments, a.length, align};

  const int device = x.device().index;
  tt::cuda::DeviceGuard guard(device);
  norm::launch_segment_norm(norm::choose_segment("layer_norm", p, device), a,
                            tt::cuda::stream(device));
  return out;
}

}  // namespace tt::ops::cuda
