// Batch norm over x [N, C] or [N, C, L] (viewed here as [N, C, L] with L = 1 for 2-D).
// Training normalises each channel with its batch mean and biased variance and
// updates the running statistics in place (they are module buffers, shared by
// handle) with the unbiased variance; eval normalises with the running statistics.
#include <omp.h>

#include <cstdint>
#include <vector>

#include "ops/cpu/cpu_ops.h"
#include "ops/cpu/norm_stats.h"
#include "ops/cpu/parallel.h"
#include "ops/cpu/scalar.h"

namespace tt::ops::cpu {
namespace {

struct Dims {
  int64_t batch, channels, length;
};

// Per-channel sum of (x - centre[c])^2, or of x when centre is null, in double.
// [N, C] (length 1) is read row by row with one accumulator row per thread, so both
// cores stream memory in order; [N, C, L] is split by channel, each channel reading
// N contiguous runs of L.
template <typename T>
std::vector<double> channel_sums(const T* x, const Dims& d, const double* centre) {
  std::vector<double> sums(d.channels, 0.0);
  if (d.length == 1) {
    const int threads = threads_for(d.batch * d.channels);
    std::vector<double> partial(static_cast<size_t>(threads) * d.channels, 0.0);
#pragma omp parallel num_threads(threads)
    {
      double* acc = partial.data() + static_cast<size_t>(omp_get_thread_num()) * d.channels;
#pragma omp for schedule(static)
      for (int64_t n = 0; n < d.batch; ++n) {
        const T* row = x + n * d.channels;
        if (centre) {
#pragma omp simd
          for (int64_t c = 0; c < d.channels; ++c) {
            const double dev = static_cast<double>(row[c]) - centre[c];
            acc[c] += dev * dev;
          }
        } else {
#pragma omp simd
          for (int64_t c = 0; c < d.channels; ++c) acc[c] += static_cast<double>(row[c]);
        }
      }
    }
    for (int t = 0; t < threads; ++t) {
      for (int64_t c = 0; c < d.channels; ++c) sums[c] += partial[t * d.channels + c];
    }
    return sums;
  }
#pragma omp parallel for schedule(static) if (parallel_worth(d.batch * d.channels * d.length))
  for (int64_t c = 0; c < d.channels; ++c) {
    double sum = 0.0;
    for (int64_t n = 0; n < d.batch; ++n) {
      const T* run = x + (n * d.channels + c) * d.length;
      sum += centre ? squared_deviation_sum(run, d.length, centre[c]) : sum_of(run, d.length);
    }
    sums[c] = sum;
  }
  return sums;
}

// Element c of a 1-D tensor of any stride (running stats are updated in place, so
// they are not copied to contiguous form).
template <typename T>
T& element(const Tensor& t, int64_t c) {
  return static_cast<T*>(t.data_ptr())[c * t.stride(0)];
}

template <typename T>
Tensor batch_norm_of(const Tensor& x, const Tensor& running_mean, const Tensor& running_var,
                     const Tensor& weight, const Tensor& bias, bool training, double momentum,
                     double eps) {
  const Tensor in = x.contiguous();
  Tensor out = Tensor::empty(x.sizes(), DTypeOf<T>::value, Device::cpu());
  const Dims d{x.size(0), x.size(1), x.dim() == 3 ? x.size(2) : 1};
  const T* pi = in.data<T>();
  T* po = out.data<T>();

  std::vector<double> mean(d.channels), var(d.channels);
  if (training) {
    const double count = static_cast<double>(d.batch * d.length);
    mean = channel_sums(pi, d, nullptr);
    for (double& m : mean) m /= count;
    var = channel_sums(pi, d, mean.data());
    for (double& v : var) v /= count;
    if (running_mean.defined()) {
      for (int64_t c = 0; c < d.channels; ++c) {
        T& rm = element<T>(running_mean, c);
        T& rv = element<T>(running_var, c);
        const double unbiased = var[c] * count / (count - 1.0);
        rm = static_cast<T>((1.0 - momentum) * rm + momentum * mean[c]);
        rv = static_cast<T>((1.0 - momentum) * rv + momentum * unbiased);
      }
    }
  } else {
    for (int64_t c = 0; c < d.channels; ++c) {
      mean[c] = element<T>(running_mean, c);
      var[c] = element<T>(running_var, c);
    }
  }

  std::vector<double> scale(d.channels), shift(d.channels);  // shift: beta
  for (int64_t c = 0; c < d.channels; ++c) {
    const double gamma = weight.defined() ? element<T>(weight, c) : 1.0;
    const double beta = bias.defined() ? element<T>(bias, c) : 0.0;
    scale[c] = inv_std(var[c], eps) * gamma;
    shift[c] = beta;
  }

  const double* ps = scale.data();
  const double* pt = shift.data();
  const double* pm = mean.data();
#pragma omp parallel for schedule(static) if (parallel_worth(d.batch * d.channels * d.length))
  for (int64_t n = 0; n < d.batch; ++n) {
    if (d.length == 1) {
      const T* row = pi + n * d.channels;
      T* dst = po + n * d.channels;
#pragma omp simd
      for (int64_t c = 0; c < d.channels; ++c) {
        dst[c] = static_cast<T>(normalize_affine(row[c], pm[c], ps[c], pt[c]));
      }
    } else {
      for (int64_t c = 0; c < d.channels; ++c) {
        const int64_t at = (n * d.channels + c) * d.length;
        scale_shift(pi + at, po + at, d.length, pm[c], ps[c], pt[c]);
      }
    }
  }
  return out;
}

}  // namespace

Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight, const Tensor& bias, bool training, double momentum,
                  double eps) {
  return with_scalar(x.dtype(), [&](auto t) {
    return batch_norm_of<decltype(t)>(x, running_mean, running_var, weight, bias, training,
                                      momentum, eps);
  });
}

}  // namespace tt::ops::cpu
