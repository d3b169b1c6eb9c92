// Group norm: x [N, C, *] with C split into `groups` contiguous groups; each
// (sample, group) block of (C / groups) * prod(*) values is normalised by its own
// mean and biased variance, then by the optional per-channel affine.
#include <cstdint>

#include "ops/cpu/cpu_ops.h"
#include "ops/cpu/norm_stats.h"
#include "ops/cpu/parallel.h"
#include "ops/cpu/scalar.h"

namespace tt::ops::cpu {
namespace {

template <typename T>
Tensor group_norm_of(const Tensor& x, int64_t groups, const Tensor& weight, const Tensor& bias,
                     double eps) {
  const Tensor in = x.contiguous();
  Tensor out = Tensor::empty(x.sizes(), DTypeOf<T>::value, Device::cpu());
  if (out.numel() == 0) return out;
  const int64_t batch = x.size(0);
  const int64_t channels = x.size(1);
  const int64_t channels_per_group = channels / groups;
  const int64_t spatial = out.numel() / (batch * channels);
  const int64_t group_len = channels_per_group * spatial;

  const Tensor w = weight.defined() ? weight.contiguous() : Tensor();
  const Tensor b = bias.defined() ? bias.contiguous() : Tensor();
  const T* pw = w.defined() ? w.data<T>() : nullptr;
  const T* pb = b.defined() ? b.data<T>() : nullptr;
  const T* pi = in.data<T>();
  T* po = out.data<T>();

#pragma omp parallel for schedule(static) if (parallel_worth(batch * groups * group_len))
  for (int64_t block = 0; block < batch * groups; ++block) {
    const int64_t first_channel = (block % groups) * channels_per_group;
    const T* src = pi + block * group_len;
    T* dst = po + block * group_len;
    const MeanVar mv = mean_var_of(src, group_len);
    const double group_inv_std = inv_std(mv.var, eps);
    if (spatial == 1) {
      // [N, C]: one value per channel, so one vectorisable loop over the group's channels.
#pragma omp simd
      for (int64_t k = 0; k < channels_per_group; ++k) {
        const int64_t c = first_channel + k;
        const double scale = group_inv_std * (pw ? pw[c] : 1.0);
        dst[k] = static_cast<T>(normalize_affine(src[k], mv.mean, scale, pb ? pb[c] : 0.0));
      }
      continue;
    }
    for (int64_t k = 0; k < channels_per_group; ++k) {
      const int64_t c = first_channel + k;
      const double scale = group_inv_std * (pw ? pw[c] : 1.0);
      scale_shift(src + k * spatial, dst + k * spatial, spatial, mv.mean, scale, pb ? pb[c] : 0.0);
    }
  }
  return out;
}

}  // namespace

Tensor group_norm(const Tensor& x, int64_t groups, const Tensor& weight, const Tensor& bias,
                  double eps) {
  return with_scalar(
      x.dtype(), [&](auto t) { return group_norm_of<decltype(t)>(x, groups, weight, bias, eps); });
}

}  // namespace tt::ops::cpu
