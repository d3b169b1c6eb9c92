// Kernels of batch norm over columns: per-chunk column statistics of Y [rows, cols],
// the finalize step that merges them and writes the per-column affine, the eval
// affine from running statistics, and the elementwise channel-affine pass.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "ops/cuda/norm/norm_common.cuh"

namespace tt::ops::cuda::norm {

// Block (blockIdx.x = chunk of rows, blockIdx.y = block of kColThreads * kVec
// columns) of kColThreads x kRowThreads threads. Each thread walks its column(s) down
// the chunk in tiles of kItems rows held in registers (all loads in flight before the
// first use), Chan-merging each tile's exact two-pass statistics; the kRowThreads
// partial results per column are then merged through shared memory.
template <int kThreads, int kColThreads, int kVec, int kItems>
__global__ void __launch_bounds__(kThreads)
    column_stats_kernel(const float* __restrict__ Y, int64_t rows, int64_t cols, int64_t chunk_rows,
                        float* __restrict__ part_mean, float* __restrict__ part_m2) {
  constexpr int kRowThreads = kThreads / kColThreads;
  constexpr int kCols = kColThreads * kVec;
  __shared__ float sm_n[kRowThreads];
  __shared__ float sm_m[kRowThreads][kCols];
  __shared__ float sm_m2[kRowThreads][kCols];

  const int tx = threadIdx.x % kColThreads;
  const int ty = threadIdx.x / kColThreads;
  const int64_t chunk = blockIdx.x;
  const int64_t c0 = (int64_t(blockIdx.y) * kColThreads + tx) * kVec;
  const bool col_ok = c0 < cols;
  const int64_t r_begin = chunk * chunk_rows;
  const int64_t r_end = rows < r_begin + chunk_rows ? rows : r_begin + chunk_rows;

  float n = 0.f, m[kVec], m2[kVec];
#pragma unroll
  for (int e = 0; e < kVec; ++e) m[e] = 0.f, m2[e] = 0.f;

  for (int64_t r0 = r_begin + ty; r0 < r_end; r0 += int64_t(kRowThreads) * kItems) {
    const int64_t left = r_end - r0;  // > 0
    const int count = left >= int64_t(kItems - 1) * kRowThreads + 1
                          ? kItems
                          : static_cast<int>((left + kRowThreads - 1) / kRowThreads);
    float v[kItems][kVec];
    const float* p = Y + r0 * cols + c0;
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      if (col_ok && k < count) {
        load_vec<kVec>(v[k], p + int64_t(k) * kRowThreads * cols);
      } else {
#pragma unroll
        for (int e = 0; e < kVec; ++e) v[k][e] = 0.f;
      }
    }
    const float nt = static_cast<float>(count);
#pragma unroll
    for (int e = 0; e < kVec; ++e) {
      float s = 0.f;
#pragma unroll
      for (int k = 0; k < kItems; ++k) s += v[k][e];
      const float mt = s / nt;
      float q = 0.f;
#pragma unroll
      for (int k = 0; k < kItems; ++k) {
        const float d = v[k][e] - mt;
        if (k < count) q = fmaf(d, d, q);
      }
      float nn = n;  // the count is shared by the kVec columns: update it once below
      chan_merge(nn, m[e], m2[e], nt, mt, q);
    }
    n += nt;
  }

  sm_n[ty] = n;
#pragma unroll
  for (int e = 0; e < kVec; ++e) sm_m[ty][tx * kVec + e] = m[e], sm_m2[ty][tx * kVec + e] = m2[e];
  __syncthreads();
  if (ty != 0 || !col_ok) return;
#pragma unroll
  for (int e = 0; e < kVec; ++e) {
    float na = sm_n[0], ma = sm_m[0][tx * kVec + e], m2a = sm_m2[0][tx * kVec + e];
    for (int r = 1; r < kRowThreads; ++r)
      chan_merge(na, ma, m2a, sm_n[r], sm_m[r][tx * kVec + e], sm_m2[r][tx * kVec + e]);
    part_mean[chunk * cols + c0 + e] = ma;
    part_m2[chunk * cols + c0 + e] = m2a;
  }
}

__global__ void batch_norm_finalize_kernel(const float* __restrict__ part_mean,
                                           const float* __restrict__ part_m2, int64_t parts,
                                           int64_t part_count, int64_t total_count, int64_t cols,
                                           const float* scale, const float* gamma,
                                           const float* beta, float* running_mean,
                                           float* running_var, float momentum, float eps,
                                           float* affine) {
  const int64_t c = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  double n = 0, m = 0, m2 = 0;
  for (int64_t p = 0; p < parts; ++p) {
    const double np = p + 1 < parts ? part_count : total_count - (parts - 1) * part_count;
    chan_merge<double>(n, m, m2, np, part_mean[p * cols + c], part_m2[p * cols + c]);
  }
  const double s = scale ? scale[c] : 1.0;
  const double mean = s * m;
  const double var = s * s * m2 / n;
  const double rstd = 1.0 / sqrt(var + eps);
  affine[c] = static_cast<float>(s);
  affine[cols + c] = static_cast<float>(mean);
  affine[2 * cols + c] = static_cast<float>(rstd * (gamma ? gamma[c] : 1.f));
  affine[3 * cols + c] = beta ? beta[c] : 0.f;
  if (running_mean)
    running_mean[c] = static_cast<float>((1.0 - momentum) * running_mean[c] + momentum * mean);
  if (running_var) {
    // n == 1 gives inf/nan like PyTorch's unbiased estimate; the front end rejects it.
    const double unbiased = s * s * m2 / (n - 1);
    running_var[c] = static_cast<float>((1.0 - momentum) * running_var[c] + momentum * unbiased);
  }
}

__global__ void batch_norm_eval_affine_kernel(int64_t cols, const float* scale, const float* gamma,
                                              const float* beta, const float* running_mean,
                                              const float* running_var, float eps, float* affine) {
  const int64_t c = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  const double rstd = 1.0 / sqrt(double(running_var[c]) + eps);
  affine[c] = scale ? scale[c] : 1.f;
  affine[cols + c] = running_mean[c];
  affine[2 * cols + c] = static_cast<float>(rstd * (gamma ? gamma[c] : 1.f));
  affine[3 * cols + c] = beta ? beta[c] : 0.f;
}

// out = (x * pre[c] - shift[c]) * mul[c] + add[c], c = (i / inner) % channels. Each
// thread loads its kItems vectors before computing. Index is uint32_t when the
// tensor allows, as 64-bit division is several times slower.
template <int kThreads, int kVec, int kItems, typename Index>
__global__ void __launch_bounds__(kThreads)
    channel_affine_kernel(const float* __restrict__ x, float* __restrict__ out,
                          const float* __restrict__ affine, Index total, Index channels,
                          Index inner) {
  const Index base = (Index(blockIdx.x) * kItems * kThreads + threadIdx.x) * kVec;
  const float* pre = affine;
  const float* shift = affine + channels;
  const float* mul = affine + 2 * channels;
  const float* add = affine + 3 * channels;
  float v[kItems][kVec];
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const Index i = base + Index(k) * kThreads * kVec;
    if (i < total) load_vec<kVec>(v[k], x + i);
  }
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const Index i = base + Index(k) * kThreads * kVec;
    if (i >= total) continue;
    float r[kVec];
    if (inner == 1) {
      const Index c = i % channels;  // channels % kVec == 0: one row per vector
      float a[kVec], b[kVec], s[kVec], d[kVec];
      load_vec<kVec>(a, pre + c);
      load_vec<kVec>(b, shift + c);
      load_vec<kVec>(s, mul + c);
      load_vec<kVec>(d, add + c);
#pragma unroll
      for (int e = 0; e < kVec; ++e) r[e] = fmaf(fmaf(v[k][e], a[e], -b[e]), s[e], d[e]);
    } else {
      const Index c = (i / inner) % channels;  // inner % kVec == 0: one channel per vector
      const float a = __ldg(pre + c), b = __ldg(shift + c), s = __ldg(mul + c), d = __ldg(add + c);
#pragma unroll
      for (int e = 0; e < kVec; ++e) r[e] = fmaf(fmaf(v[k][e], a, -b), s, d);
    }
    store_vec<kVec>(out + i, r);
  }
}

}  // namespace tt::ops::cuda::norm
