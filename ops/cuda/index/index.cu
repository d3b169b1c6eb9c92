// Gather and dropout kernels (ops/cuda/index/index.h): grid-stride loops over the
// output, 64-bit indices.
#include "core/convert.h"
#include "core/cuda/check.h"
#include "core/cuda/elementwise.cuh"
#include "core/cuda/stream.h"
#include "core/philox.h"
#include "ops/cuda/index/index.h"

namespace tt::ops::cuda {
namespace {

using tt::cuda::global_thread_count;
using tt::cuda::global_thread_index;
using tt::cuda::grid_size;
using tt::cuda::kElementwiseThreads;

struct GatherGeometry {
  int rank;
  int dim;
  int64_t sizes[kMaxRank];
  int64_t x_strides[kMaxRank];
  int64_t index_strides[kMaxRank];
};

template <typename Word>
__global__ void gather_kernel(const Word* __restrict__ src, const int64_t* __restrict__ index,
                              Word* __restrict__ dst, int64_t n, GatherGeometry g) {
  for (int64_t i = global_thread_index(); i < n; i += global_thread_count()) {
    int64_t rest = i, x_off = 0, idx_off = 0;
    for (int d = g.rank - 1; d >= 0; --d) {
      const int64_t c = rest % g.sizes[d];
      rest /= g.sizes[d];
      idx_off += c * g.index_strides[d];
      if (d != g.dim) x_off += c * g.x_strides[d];
    }
    dst[i] = src[x_off + index[idx_off] * g.x_strides[g.dim]];
  }
}

template <typename Word>
void launch_gather(const Tensor& x, const Tensor& index, const Tensor& out,
                   const GatherGeometry& g) {
  const int64_t n = out.numel();
  const int device = out.device().index;
  tt::cuda::DeviceGuard guard(device);
  gather_kernel<Word><<<grid_size(n), kElementwiseThreads, 0, tt::cuda::stream(device)>>>(
      static_cast<const Word*>(x.data_ptr()), index.data<int64_t>(),
      static_cast<Word*>(out.data_ptr()), n, g);
  TT_CUDA_CHECK_LAUNCH();
}

__global__ void dropout_kernel(const float* __restrict__ src, float* __restrict__ dst, int64_t n,
                               uint64_t seed, float threshold, float scale) {
  for (int64_t i = global_thread_index(); i < n; i += global_thread_count()) {
    const bool keep = philox::uniform(seed, static_cast<uint64_t>(i)) >= threshold;
    dst[i] = keep ? src[i] * scale : 0.0f;
  }
}

}  // namespace

void gather(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& out) {
  if (out.numel() == 0) return;
  GatherGeometry g{};
  g.rank = static_cast<int>(out.dim());
  g.dim = static_cast<int>(dim);
  for (int d = 0; d < g.rank; ++d) {
    g.sizes[d] = out.size(d);
    g.x_strides[d] = x.stride(d);
    g.index_strides[d] = index.stride(d);
  }
  visit_word(dtype_size(x.dtype()), "gather",
             [&](auto word) { launch_gather<decltype(word)>(x, index, out, g); });
}

Tensor dropout(const Tensor& x, double p, uint64_t seed) {
  const Tensor in = x.contiguous();
  Tensor out = Tensor::empty(x.sizes(), x.dtype(), x.device());
  const int64_t n = x.numel();
  if (n == 0) return out;
  const int device = x.device().index;
  tt::cuda::DeviceGuard guard(device);
  dropout_kernel<<<grid_size(n), kElementwiseThreads, 0, tt::cuda::stream(device)>>>(
      in.data<float>(), out.data<float>(), n, seed, static_cast<float>(p),
      static_cast<float>(1.0 / (1.0 - p)));
  TT_CUDA_CHECK_LAUNCH();
  return out;
}

}  // namespace tt::ops::cuda
