// Numerically careful building blocks shared by the CPU norms: two-pass mean and
// biased variance accumulated in double (so long rows of float32 lose nothing to
// cancellation or summation error), and the final y = x * scale + shift evaluated
// in double with one rounding to float. T, the element type, is float, or double on
// the float64 path (ops/cpu/scalar.h), where the same code rounds to nothing.
#pragma once

#include <cmath>
#include <cstdint>

namespace tt::ops::cpu {

struct MeanVar {
  double mean = 0.0;
  double var = 0.0;  // biased: divided by the count
};

template <typename T>
inline double sum_of(const T* x, int64_t n) {
  double sum = 0.0;
#pragma omp simd reduction(+ : sum)
  for (int64_t i = 0; i < n; ++i) sum += static_cast<double>(x[i]);
  return sum;
}

template <typename T>
inline double squared_deviation_sum(const T* x, int64_t n, double mean) {
  double sum = 0.0;
#pragma omp simd reduction(+ : sum)
  for (int64_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(x[i]) - mean;
    sum += d * d;
  }
  return sum;
}

// Mean and biased variance of n > 0 contiguous values.
template <typename T>
inline MeanVar mean_var_of(const T* x, int64_t n) {
  MeanVar mv;
  mv.mean = sum_of(x, n) / static_cast<double>(n);
  mv.var = squared_deviation_sum(x, n, mv.mean) / static_cast<double>(n);
  return mv;
}

inline double inv_std(double var, double eps) { return 1.0 / std::sqrt(var + eps); }

// out[i] = (x[i] - mean) * scale + beta, where scale = gamma / std. Subtracting the
// mean first (rather than folding it into a shift) keeps x == mean exactly 0 whether
// or not the compiler contracts the multiply-add into an FMA.
template <typename T>
inline double normalize_affine(T x, double mean, double scale, double beta) {
  return (static_cast<double>(x) - mean) * scale + beta;
}
template <typename T>
inline void scale_shift(const T* x, T* out, int64_t n, double mean, double scale, double beta) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i)
    out[i] = static_cast<T>(normalize_affine(x[i], mean, scale, beta));
}

}  // namespace tt::ops::cpu
