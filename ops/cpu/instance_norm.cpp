// Instance norm: every (n, c) slice of x [N, C, *spatial] is normalised by its own
// mean and biased variance, then by the optional per-channel affine.
#include <cstdint>

#include "ops/cpu/cpu_ops.h"
#include "ops/cpu/norm_stats.h"

namespace tt::ops::cpu {

Tensor instance_norm(const Tensor& x, double eps, const Tensor& weight, const Tensor& bias) {
  const Tensor in = x.contiguous();
  Tensor out = Tensor::empty(x.sizes(), DType::F32, Device::cpu());
  const int64_t channels = x.size(1);
  const int64_t slices = x.size(0) * channels;
  if (out.numel() == 0) return out;
  const int64_t slice_len = out.numel() / slices;

  const Tensor w = weight.defined() ? weight.contiguous() : Tensor();
  const Tensor b = bias.defined() ? bias.contiguous() : Tensor();
  const float* pw = w.defined() ? w.data<float>() : nullptr;
  const float* pb = b.defined() ? b.data<float>() : nullptr;
  const float* pi = in.data<float>();
  float* po = out.data<float>();

#pragma omp parallel for schedule(static)
  for (int64_t s = 0; s < slices; ++s) {
    const int64_t c = s % channels;
    const float* src = pi + s * slice_len;
    const MeanVar mv = mean_var_of(src, slice_len);
    const double scale = inv_std(mv.var, eps) * (pw ? pw[c] : 1.0);
    scale_shift(src, po + s * slice_len, slice_len, mv.mean, scale, pb ? pb[c] : 0.0);
  }
  return out;
}

}  // namespace tt::ops::cpu
