// Layer norm: each row of the trailing normalized_numel elements is normalised by its
// own mean and biased variance (two passes in double, ops/cpu/norm_stats.h), eps
// inside the square root, then by the optional per-element affine.
#include <cstdint>

#include "ops/cpu/cpu_ops.h"
#include "ops/cpu/norm_rows.h"
#include "ops/cpu/norm_stats.h"
#include "ops/cpu/scalar.h"

namespace tt::ops::cpu {
namespace {

template <typename T>
Tensor layer_norm_of(const Tensor& x, int64_t normalized_numel, const Tensor& weight,
                     const Tensor& bias, double eps) {
  const T* pw = data_or_null<T>(weight);
  const T* pb = data_or_null<T>(bias);
  return norm_rows<T>(x, normalized_numel, [=](const T* src, T* dst, int64_t n) {
    const MeanVar mv = mean_var_of(src, n);
    const double rstd = inv_std(mv.var, eps);
    for (int64_t i = 0; i < n; ++i) {
      dst[i] = static_cast<T>(
          normalize_affine(src[i], mv.mean, rstd * (pw ? pw[i] : 1.0), pb ? pb[i] : 0.0));
    }
  });
}

}  // namespace

Tensor layer_norm(const Tensor& x, int64_t normalized_numel, const Tensor& weight,
                  const Tensor& bias, double eps) {
  return with_scalar(x.dtype(), [&](auto t) {
    return layer_norm_of<decltype(t)>(x, normalized_numel, weight, bias, eps);
  });
}

}  // namespace tt::ops::cpu
