// Reductions, softmax and rms_norm on the CPU (layer_norm: ops/cpu/layer_norm.cpp). Every op moves
// the dims it works on to the end (a permuted view; one contiguous copy only when the layout needs
// it, none for the usual "last dims of a contiguous tensor"), so each output element is one
// contiguous row. Statistics accumulate in double and round once to float (two-pass mean/variance,
// as the other CPU norms: ops/cpu/norm_stats.h); softmax subtracts the row max before
// exponentiating.
#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>

#include "core/convert.h"
#include "ops/cpu/cpu_ops.h"
#include "ops/cpu/norm_rows.h"
#include "ops/cpu/norm_stats.h"
#include "ops/cpu/parallel.h"
#include "ops/cpu/scalar.h"
#include "ops/rows.h"

namespace tt::ops::cpu {
namespace {

// out[row] = fn(row pointer, len), over every row in parallel; In is x's element type,
// Out the result's.
template <typename Out, typename In, typename Fn>
Tensor reduce_rows(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim, Fn fn) {
  const Rows r = as_rows(x, dims, keepdim);
  Tensor out = Tensor::empty(r.out_shape, DTypeOf<Out>::value, Device::cpu());
  Out* po = out.data<Out>();
  const In* pi = r.data.data<In>();
#pragma omp parallel for schedule(static) if (r.rows * r.len >= kParallelMinElements)
  for (int64_t row = 0; row < r.rows; ++row) po[row] = fn(pi + row * r.len, r.len);
  return out;
}

template <typename T>
double variance_of(const T* p, int64_t n, int64_t correction) {
  const double mean =
      n > 0 ? sum_of(p, n) / static_cast<double>(n) : std::numeric_limits<double>::quiet_NaN();
  const double divisor = static_cast<double>(std::max<int64_t>(n - correction, 0));
  return squared_deviation_sum(p, n, mean) / divisor;
}

// Extreme value with NaN propagating (PyTorch's amax/amin).
template <bool Max, typename T>
T extreme_of(const T* p, int64_t n) {
  T best = p[0];
  for (int64_t i = 0; i < n; ++i) {
    const T v = p[i];
    if (v != v) return v;
    if (Max ? v > best : v < best) best = v;
  }
  return best;
}

// First index of the extreme; the first NaN wins (PyTorch).
template <bool Max, typename T>
int64_t arg_extreme_of(const T* p, int64_t n) {
  int64_t best = 0;
  for (int64_t i = 0; i < n; ++i) {
    const T v = p[i];
    if (v != v) return i;
    if (Max ? v > p[best] : v < p[best]) best = i;
  }
  return best;
}

// Runs fn(in_row, out_row, len) on every row of x with `dim` moved last, and puts the
// result back in x's layout (contiguous). T: x's element type.
template <typename T, typename Fn>
Tensor map_rows_along(const Tensor& x, int64_t dim, Fn fn) {
  const DimLast in = dim_last(x, dim);
  Tensor out = Tensor::empty(in.data.sizes(), DTypeOf<T>::value, Device::cpu());
  const T* pi = in.data.data<T>();
  T* po = out.data<T>();
  const int64_t len = in.len;
#pragma omp parallel for schedule(static) if (in.data.numel() >= kParallelMinElements)
  for (int64_t row = 0; row < in.rows; ++row) fn(pi + row * len, po + row * len, len);
  return out.permute(in.inverse).contiguous();
}

template <bool Log, typename T>
void softmax_row(const T* x, T* y, int64_t n) {
  const T max = extreme_of<true>(x, n);
  // An all -inf row would give -inf - -inf = nan, as PyTorch; a +inf max likewise.
  double sum = 0.0;
  for (int64_t i = 0; i < n; ++i) sum += std::exp(static_cast<double>(x[i]) - max);
  if (Log) {
    const double log_sum = std::log(sum);
    for (int64_t i = 0; i < n; ++i)
      y[i] = static_cast<T>(static_cast<double>(x[i]) - max - log_sum);
  } else {
    for (int64_t i = 0; i < n; ++i)
      y[i] = static_cast<T>(std::exp(static_cast<double>(x[i]) - max) / sum);
  }
}

}  // namespace

Tensor sum(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  if (!dtype_is_floating(x.dtype())) {
    // Integers and bool sum into int64 (PyTorch's result dtype), wrapping on overflow.
    return visit_dtype(x.dtype(), "sum", [&](auto t) {
      using T = decltype(t);
      return reduce_rows<int64_t, T>(x, dims, keepdim, [](const T* p, int64_t n) {
        uint64_t acc = 0;
        for (int64_t i = 0; i < n; ++i) acc += static_cast<uint64_t>(static_cast<int64_t>(p[i]));
        return static_cast<int64_t>(acc);
      });
    });
  }
  return with_scalar(x.dtype(), [&](auto t) {
    using T = decltype(t);
    return reduce_rows<T, T>(x, dims, keepdim,
                             [](const T* p, int64_t n) { return static_cast<T>(sum_of(p, n)); });
  });
}

Tensor mean(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  return with_scalar(x.dtype(), [&](auto t) {
    using T = decltype(t);
    return reduce_rows<T, T>(x, dims, keepdim, [](const T* p, int64_t n) {
      return static_cast<T>(sum_of(p, n) / static_cast<double>(n));  // n == 0: nan
    });
  });
}

Tensor var(const Tensor& x, const std::vector<int64_t>& dims, int64_t correction, bool keepdim) {
  return with_scalar(x.dtype(), [&](auto t) {
    using T = decltype(t);
    return reduce_rows<T, T>(x, dims, keepdim, [correction](const T* p, int64_t n) {
      return static_cast<T>(variance_of(p, n, correction));
    });
  });
}

Tensor std(const Tensor& x, const std::vector<int64_t>& dims, int64_t correction, bool keepdim) {
  return with_scalar(x.dtype(), [&](auto t) {
    using T = decltype(t);
    return reduce_rows<T, T>(x, dims, keepdim, [correction](const T* p, int64_t n) {
      return static_cast<T>(std::sqrt(variance_of(p, n, correction)));
    });
  });
}

Tensor amax(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  return visit_dtype(x.dtype(), "amax", [&](auto t) {
    using T = decltype(t);
    return reduce_rows<T, T>(x, dims, keepdim, extreme_of<true, T>);
  });
}

Tensor amin(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  return visit_dtype(x.dtype(), "amin", [&](auto t) {
    using T = decltype(t);
    return reduce_rows<T, T>(x, dims, keepdim, extreme_of<false, T>);
  });
}

Tensor argmax(const Tensor& x, int64_t dim, bool keepdim) {
  return visit_dtype(x.dtype(), "argmax", [&](auto t) {
    using T = decltype(t);
    return reduce_rows<int64_t, T>(x, {dim}, keepdim, arg_extreme_of<true, T>);
  });
}

Tensor argmin(const Tensor& x, int64_t dim, bool keepdim) {
  return visit_dtype(x.dtype(), "argmin", [&](auto t) {
    using T = decltype(t);
    return reduce_rows<int64_t, T>(x, {dim}, keepdim, arg_extreme_of<false, T>);
  });
}

Tensor any(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  return reduce_rows<bool, bool>(x.to(DType::Bool), dims, keepdim, [](const bool* p, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
      if (p[i]) return true;
    return false;
  });
}

Tensor all(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  return reduce_rows<bool, bool>(x.to(DType::Bool), dims, keepdim, [](const bool* p, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
      if (!p[i]) return false;
    return true;
  });
}

Tensor cumsum(const Tensor& x, int64_t dim) {
  return visit_dtype(x.dtype(), "cumsum", [&](auto t) {
    using T = decltype(t);
    return map_rows_along<T>(x, dim, [](const T* in, T* out, int64_t n) {
      if constexpr (std::is_floating_point_v<T>) {
        // The running sum in double, each prefix rounded once (PyTorch's CPU accumulates
        // float in double too).
        double acc = 0.0;
        for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(acc += in[i]);
      } else {
        uint64_t acc = 0;  // wraps, as PyTorch
        for (int64_t i = 0; i < n; ++i)
          out[i] = static_cast<T>(acc += static_cast<uint64_t>(in[i]));
      }
    });
  });
}

Tensor softmax(const Tensor& x, int64_t dim) {
  return with_scalar(x.dtype(), [&](auto t) {
    using T = decltype(t);
    return map_rows_along<T>(x, dim, softmax_row<false, T>);
  });
}

Tensor log_softmax(const Tensor& x, int64_t dim) {
  return with_scalar(x.dtype(), [&](auto t) {
    using T = decltype(t);
    return map_rows_along<T>(x, dim, softmax_row<true, T>);
  });
}

namespace {

template <typename T>
Tensor rms_norm_of(const Tensor& x, int64_t normalized_numel, const Tensor& weight, double eps) {
  const T* pw = data_or_null<T>(weight);
  return norm_rows<T>(x, normalized_numel, [=](const T* src, T* dst, int64_t n) {
    double squares = 0.0;
    for (int64_t i = 0; i < n; ++i) squares += static_cast<double>(src[i]) * src[i];
    const double scale = inv_std(squares / static_cast<double>(n), eps);
    for (int64_t i = 0; i < n; ++i)
      dst[i] = static_cast<T>(static_cast<double>(src[i]) * scale * (pw ? pw[i] : 1.0));
  });
}

// ---- bmm: Eigen GEMM on strided maps (no copies of transposed or broadcast views) ----

template <typename T>
Tensor bmm_of(const Tensor& a, const Tensor& b) {
  using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using Stride = Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>;
  using Strided = Eigen::Map<const Matrix, 0, Stride>;
  const int64_t batch = a.size(0), m = a.size(1), k = a.size(2), n = b.size(2);
  Tensor out = Tensor::empty({batch, m, n}, DTypeOf<T>::value, Device::cpu());
  if (out.numel() == 0) return out;
  T* po = out.data<T>();
  if (k == 0) {
    std::fill(po, po + out.numel(), T(0));
    return out;
  }
  const T* pa = static_cast<const T*>(a.data_ptr());
  const T* pb = static_cast<const T*>(b.data_ptr());
  // One large GEMM: Eigen shares it between threads (from kParallelMinGemm
  // multiply-adds, as linear). Many small ones: one per thread, Eigen serial inside.
  const int64_t per_matrix = m * n * k;
  const bool per_thread = batch > 1 && per_matrix < kParallelMinGemm;
  Eigen::setNbThreads(!per_thread && per_matrix >= kParallelMinGemm ? 0 : 1);
  auto one = [&](int64_t i) {
    const Stride sa(a.stride(1), a.stride(2)), sb(b.stride(1), b.stride(2));
    Strided am(pa + i * a.stride(0), m, k, sa);
    Strided bm(pb + i * b.stride(0), k, n, sb);
    Eigen::Map<Matrix> om(po + i * m * n, m, n);
    om.noalias() = am * bm;
  };
#pragma omp parallel for schedule(static) if (per_thread && batch * per_matrix >= kParallelMinGemm)
  for (int64_t i = 0; i < batch; ++i) one(i);
  return out;
}

}  // namespace

Tensor rms_norm(const Tensor& x, int64_t normalized_numel, const Tensor& weight, double eps) {
  return with_scalar(x.dtype(), [&](auto t) {
    return rms_norm_of<decltype(t)>(x, normalized_numel, weight, eps);
  });
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  return with_scalar(a.dtype(), [&](auto t) { return bmm_of<decltype(t)>(a, b); });
}

}  // namespace tt::ops::cpu
