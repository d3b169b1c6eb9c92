// Float64 host references of the norms, shared by the GPU tests and the device
// harnesses (tests/cuda_gemm_test.cpp, tools/device/gemm_harness.cu), which check
// raw kernels against them without the tensor front end.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace tt::test {

// GroupNorm of one row z [n] over `groups` contiguous groups (biased variance, eps
// inside the square root), in float64, into out [n].
inline void group_norm_row(const std::vector<double>& z, int64_t groups, const float* gamma,
                           const float* beta, double eps, double* out) {
  const int64_t n = static_cast<int64_t>(z.size()), gs = n / groups;
  for (int64_t g = 0; g < groups; ++g) {
    double mu = 0, var = 0;
    for (int64_t j = g * gs; j < (g + 1) * gs; ++j) mu += z[j];
    mu /= gs;
    for (int64_t j = g * gs; j < (g + 1) * gs; ++j) var += (z[j] - mu) * (z[j] - mu);
    var /= gs;
    for (int64_t j = g * gs; j < (g + 1) * gs; ++j)
      out[j] = (z[j] - mu) / std::sqrt(var + eps) * gamma[j] + beta[j];
  }
}

}  // namespace tt::test
