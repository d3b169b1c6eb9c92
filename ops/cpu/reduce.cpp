// Reductions, softmax and the row norms on the CPU. Every op moves the dims it works
// on to the end (a permuted view; one contiguous copy only when the layout needs it,
// none for the usual "last dims of a contiguous tensor"), so each output element is
// one contiguous row. Statistics accumulate in double and round once to float
// (two-pass mean/variance, as the other CPU norms: ops/cpu/norm_stats.h); softmax
// subtracts the row max before exponentiating.
#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>

#include "ops/cpu/cpu_ops.h"
#include "ops/cpu/norm_stats.h"
#include "ops/cpu/parallel.h"

namespace tt::ops::cpu {
namespace {

// x viewed as [rows, len]: the kept dims (in order) then the reduced dims.
struct Rows {
  Tensor data;  // contiguous, rows * len elements
  int64_t rows = 1;
  int64_t len = 1;
  Shape out_shape;
};

Rows as_rows(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  std::vector<bool> reduced(static_cast<size_t>(x.dim()), false);
  for (int64_t d : dims) reduced[static_cast<size_t>(d)] = true;
  std::vector<int64_t> perm;
  Rows r;
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (!reduced[d]) {
      perm.push_back(d);
      r.rows *= x.size(d);
      r.out_shape.push_back(x.size(d));
    } else if (keepdim) {
      r.out_shape.push_back(1);
    }
  }
  for (int64_t d : dims) {
    perm.push_back(d);
    r.len *= x.size(d);
  }
  r.data = x.permute(perm).contiguous();
  return r;
}

// out[row] = fn(row pointer, len), over every row in parallel.
template <typename T, typename Fn>
Tensor reduce_rows(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim, DType dtype,
                   Fn fn) {
  const Rows r = as_rows(x, dims, keepdim);
  Tensor out = Tensor::empty(r.out_shape, dtype, Device::cpu());
  T* po = out.data<T>();
  const float* pi = r.data.data<float>();
#pragma omp parallel for schedule(static) if (r.rows * r.len >= kParallelMinElements)
  for (int64_t row = 0; row < r.rows; ++row) po[row] = fn(pi + row * r.len, r.len);
  return out;
}

double variance_of(const float* p, int64_t n, int64_t correction) {
  const double mean =
      n > 0 ? sum_of(p, n) / static_cast<double>(n) : std::numeric_limits<double>::quiet_NaN();
  const double divisor = static_cast<double>(std::max<int64_t>(n - correction, 0));
  return squared_deviation_sum(p, n, mean) / divisor;
}

// Extreme value with NaN propagating (PyTorch's amax/amin).
template <bool Max>
float extreme_of(const float* p, int64_t n) {
  float best = p[0];
  for (int64_t i = 0; i < n; ++i) {
    const float v = p[i];
    if (v != v) return v;
    if (Max ? v > best : v < best) best = v;
  }
  return best;
}

// First index of the extreme; the first NaN wins (PyTorch).
template <bool Max>
int64_t arg_extreme_of(const float* p, int64_t n) {
  int64_t best = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float v = p[i];
    if (v != v) return i;
    if (Max ? v > p[best] : v < p[best]) best = i;
  }
  return best;
}

// Runs fn(in_row, out_row, len) on every row of x with `dim` moved last, and puts the
// result back in x's layout (contiguous).
template <typename Fn>
Tensor map_rows_along(const Tensor& x, int64_t dim, Fn fn) {
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < x.dim(); ++d)
    if (d != dim) perm.push_back(d);
  if (x.dim() > 0) perm.push_back(dim);
  const Tensor in = x.permute(perm).contiguous();
  Tensor out = Tensor::empty(in.sizes(), DType::F32, Device::cpu());
  const int64_t len = x.dim() > 0 ? x.size(dim) : 1;
  const int64_t rows = len > 0 ? in.numel() / len : 0;
  const float* pi = in.data<float>();
  float* po = out.data<float>();
#pragma omp parallel for schedule(static) if (in.numel() >= kParallelMinElements)
  for (int64_t row = 0; row < rows; ++row) fn(pi + row * len, po + row * len, len);
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inverse[static_cast<size_t>(perm[i])] = i;
  return out.permute(inverse).contiguous();
}

template <bool Log>
void softmax_row(const float* x, float* y, int64_t n) {
  const float max = extreme_of<true>(x, n);
  // An all -inf row would give -inf - -inf = nan, as PyTorch; a +inf max likewise.
  double sum = 0.0;
  for (int64_t i = 0; i < n; ++i) sum += std::exp(static_cast<double>(x[i]) - max);
  if (Log) {
    const double log_sum = std::log(sum);
    for (int64_t i = 0; i < n; ++i)
      y[i] = static_cast<float>(static_cast<double>(x[i]) - max - log_sum);
  } else {
    for (int64_t i = 0; i < n; ++i)
      y[i] = static_cast<float>(std::exp(static_cast<double>(x[i]) - max) / sum);
  }
}

}  // namespace

Tensor sum(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  return reduce_rows<float>(x, dims, keepdim, DType::F32, [](const float* p, int64_t n) {
    return static_cast<float>(sum_of(p, n));
  });
}

Tensor mean(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  return reduce_rows<float>(x, dims, keepdim, DType::F32, [](const float* p, int64_t n) {
    return static_cast<float>(sum_of(p, n) / static_cast<double>(n));  // n == 0: nan
  });
}

Tensor var(const Tensor& x, const std::vector<int64_t>& dims, int64_t correction, bool keepdim) {
  return reduce_rows<float>(x, dims, keepdim, DType::F32, [correction](const float* p, int64_t n) {
    return static_cast<float>(variance_of(p, n, correction));
  });
}

Tensor std(const Tensor& x, const std::vector<int64_t>& dims, int64_t correction, bool keepdim) {
  return reduce_rows<float>(x, dims, keepdim, DType::F32, [correction](const float* p, int64_t n) {
    return static_cast<float>(std::sqrt(variance_of(p, n, correction)));
  });
}

Tensor amax(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  return reduce_rows<float>(x, dims, keepdim, DType::F32, extreme_of<true>);
}

Tensor amin(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  return reduce_rows<float>(x, dims, keepdim, DType::F32, extreme_of<false>);
}

Tensor argmax(const Tensor& x, int64_t dim, bool keepdim) {
  return reduce_rows<int64_t>(x, {dim}, keepdim, DType::I64, arg_extreme_of<true>);
}

Tensor argmin(const Tensor& x, int64_t dim, bool keepdim) {
  return reduce_rows<int64_t>(x, {dim}, keepdim, DType::I64, arg_extreme_of<false>);
}

Tensor softmax(const Tensor& x, int64_t dim) { return map_rows_along(x, dim, softmax_row<false>); }

Tensor log_softmax(const Tensor& x, int64_t dim) {
  return map_rows_along(x, dim, softmax_row<true>);
}

namespace {

// out row r = fn(x row r, out row r, n) over the rows of n contiguous elements.
template <typename Fn>
Tensor norm_rows(const Tensor& x, int64_t n, Fn fn) {
  const Tensor in = x.contiguous();
  Tensor out = Tensor::empty(x.sizes(), DType::F32, Device::cpu());
  if (out.numel() == 0 || n == 0) return out;
  const int64_t rows = out.numel() / n;
  const float* pi = in.data<float>();
  float* po = out.data<float>();
#pragma omp parallel for schedule(static) if (out.numel() >= kParallelMinElements)
  for (int64_t r = 0; r < rows; ++r) fn(pi + r * n, po + r * n, n);
  return out;
}

const float* data_or_null(const Tensor& t) { return t.defined() ? t.data<float>() : nullptr; }

}  // namespace

Tensor layer_norm(const Tensor& x, int64_t normalized_numel, const Tensor& weight,
                  const Tensor& bias, double eps) {
  const float* pw = data_or_null(weight);
  const float* pb = data_or_null(bias);
  return norm_rows(x, normalized_numel, [=](const float* src, float* dst, int64_t n) {
    const MeanVar mv = mean_var_of(src, n);
    const double rstd = inv_std(mv.var, eps);
    for (int64_t i = 0; i < n; ++i) {
      dst[i] = static_cast<float>(
          normalize_affine(src[i], mv.mean, rstd * (pw ? pw[i] : 1.0), pb ? pb[i] : 0.0));
    }
  });
}

Tensor rms_norm(const Tensor& x, int64_t normalized_numel, const Tensor& weight, double eps) {
  const float* pw = data_or_null(weight);
  return norm_rows(x, normalized_numel, [=](const float* src, float* dst, int64_t n) {
    double squares = 0.0;
    for (int64_t i = 0; i < n; ++i) squares += static_cast<double>(src[i]) * src[i];
    const double scale = inv_std(squares / static_cast<double>(n), eps);
    for (int64_t i = 0; i < n; ++i)
      dst[i] = static_cast<float>(static_cast<double>(src[i]) * scale * (pw ? pw[i] : 1.0));
  });
}

// ---- bmm: Eigen GEMM on strided maps (no copies of transposed or broadcast views) ----

Tensor bmm(const Tensor& a, const Tensor& b) {
  using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using Stride = Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>;
  using Strided = Eigen::Map<const Matrix, 0, Stride>;
  const int64_t batch = a.size(0), m = a.size(1), k = a.size(2), n = b.size(2);
  Tensor out = Tensor::empty({batch, m, n}, DType::F32, Device::cpu());
  if (out.numel() == 0) return out;
  float* po = out.data<float>();
  if (k == 0) {
    std::fill(po, po + out.numel(), 0.0f);
    return out;
  }
  const float* pa = static_cast<const float*>(a.data_ptr());
  const float* pb = static_cast<const float*>(b.data_ptr());
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

}  // namespace tt::ops::cpu
