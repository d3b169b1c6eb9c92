// The segment-norm kernels (normalise contiguous runs of `length` floats by their own
// mean and biased variance) and the dispatch from a SegmentConfig to the matching
// template instantiation. A launcher .cu includes this with its own prologue and
// epilogue functors (norm_functors.cuh) and calls dispatch_segment_norm<Pro, Epi>.
//
// Four shapes of the same algorithm:
//  - subwarp: `kLanes` threads per segment, data in registers, shuffle reductions;
//  - block:   one block per segment, data in registers;
//  - cluster: `kCluster` CTAs per segment, each holding its part in registers; the
//             per-CTA (count, mean, M2) are exchanged through distributed shared
//             memory and merged (Chan, double) by every CTA in the same order;
//  - stream:  one block per segment of any length; statistics by Chan merges of
//             register tiles, then a second read to normalise;
//  - pipe:    persistent clusters, each CTA looping over segments with its part of
//             the next `kBuffers` segments in flight through the copy engine
//             (cp.async.bulk into shared memory, completing on an mbarrier), so that
//             loads and stores overlap across segments (the plain cluster kernel
//             serialises them: all of a cluster's loads, then a barrier, then stores).
//  - split:   a cluster of `kCluster` CTAs per segment, each streaming its
//             1/kCluster part twice (Chan-merged register tiles for the statistics,
//             merged across the cluster through distributed shared memory, then a
//             second read to normalise). Only the resident CTAs' parts are in flight
//             (a few tens of MB for 1 MiB slices), so the second read hits L2 and
//             HBM sees one read and one write, while many small CTAs per SM keep
//             loads and stores of different clusters overlapped.
// The on-chip kinds read the input once: statistics are exact two-pass (sum, then
// sum of squared deviations from the mean) over the registers.
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "core/cuda/check.h"
#include "core/error.h"
#include "ops/cuda/norm/norm_common.cuh"
#include "ops/cuda/norm/norm_passes.h"
#include "ops/cuda/norm/norm_variants.h"

namespace tt::ops::cuda::norm {

template <class Pro, class Epi>
struct SegmentLaunch {
  const float* x;
  int64_t segments;
  int64_t length;
  Pro pro;
  Epi epi;
  float eps;
  float* seg_mean;  // optional
  float* seg_m2;    // optional
  // RMS norm: no mean is subtracted; the epilogue gets center 0 and rsqrt(mean(v^2) + eps).
  bool rms = false;
};

namespace detail {

// A thread's share of a range of a segment: vector k of the thread sits at
// first + k * kLanes * kVec, and vectors k < count lie inside the segment. Keeping
// one base and compile-time strides lets every access use an immediate offset.
template <int kLanes, int kVec, int kItems>
struct Share {
  int64_t first;  // element index of vector 0
  int count;      // vectors inside the segment, 0..kItems
  __device__ __forceinline__ Share(int64_t begin, int64_t length, int t) {
    constexpr int64_t kStride = int64_t(kLanes) * kVec;
    first = begin + int64_t(t) * kVec;
    const int64_t left = length - first;
    count = left <= 0 ? 0
                      : static_cast<int>(left < kItems * kStride ? (left + kStride - 1) / kStride
                                                                 : kItems);
  }
  __device__ __forceinline__ int64_t at(int k) const { return first + int64_t(k) * kLanes * kVec; }
};

// Loads the share's vectors (zeros for those past the end), all issued together.
template <int kLanes, int kVec, int kItems>
__device__ __forceinline__ void load_raw(float (&v)[kItems][kVec], const float* xs,
                                         const Share<kLanes, kVec, kItems>& sh) {
  const float* p = xs + sh.first;
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    if (k < sh.count) {
      load_vec<kVec>(v[k], p + k * kLanes * kVec);
    } else {
#pragma unroll
      for (int e = 0; e < kVec; ++e) v[k][e] = 0.f;
    }
  }
}

template <int kLanes, int kVec, int kItems, class ProB>
__device__ __forceinline__ void apply_prologue(float (&v)[kItems][kVec],
                                               const Share<kLanes, kVec, kItems>& sh,
                                               const ProB& pro) {
#pragma unroll
  for (int k = 0; k < kItems; ++k)
    if (k < sh.count) pro(v[k], sh.at(k));
}

// Subtracts `shift`, the segment's first (prologued) value, from the share. Statistics
// of shifted data lose no digits to a large common offset (data of mean 1000 and std 1
// keeps float32 accuracy); the epilogue only needs v - mean, which the shift leaves as is.
template <int kLanes, int kVec, int kItems>
__device__ __forceinline__ void subtract_shift(float (&v)[kItems][kVec],
                                               const Share<kLanes, kVec, kItems>& sh, float shift) {
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    if (k < sh.count) {
#pragma unroll
      for (int e = 0; e < kVec; ++e) v[k][e] -= shift;
    }
  }
}

// What the epilogue subtracts and multiplies by: (mean, rsqrt(var + eps)) of the shifted
// data, or for an RMS norm (whose data is not shifted) (0, rsqrt(mean(v^2) + eps)), the
// mean of squares as var + mean^2: two non-negative terms, so nothing cancels.
struct Normaliser {
  float center;
  float rstd;
};
__device__ __forceinline__ Normaliser normaliser(float mean, float m2, float n, float eps,
                                                 bool rms) {
  if (rms) return {0.f, rsqrtf(m2 / n + mean * mean + eps)};
  return {mean, rsqrtf(m2 / n + eps)};
}

// Loads the share, then applies the prologue (after all loads are issued, so that
// they are in flight together) and subtracts `shift`.
template <int kLanes, int kVec, int kItems, class ProB>
__device__ __forceinline__ void load_tile(float (&v)[kItems][kVec], const float* xs,
                                          const Share<kLanes, kVec, kItems>& sh, const ProB& pro,
                                          float shift) {
  load_raw(v, xs, sh);
  apply_prologue(v, sh, pro);
  subtract_shift(v, sh, shift);
}

// The segment's first value after the prologue.
template <class ProB>
__device__ __forceinline__ float segment_shift(const float* xs, const ProB& pro) {
  float s[1];
  load_vec<1>(s, xs);
  pro(s, 0);
  return s[0];
}

template <int kVec, int kItems>
__device__ __forceinline__ float thread_sum(const float (&v)[kItems][kVec]) {
  float s = 0.f;
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    float p = 0.f;
#pragma unroll
    for (int e = 0; e < kVec; ++e) p += v[k][e];
    s += p;
  }
  return s;
}

template <int kLanes, int kVec, int kItems>
__device__ __forceinline__ float thread_sqdev(const float (&v)[kItems][kVec], float mean,
                                              const Share<kLanes, kVec, kItems>& sh) {
  float q = 0.f;
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    float p = 0.f;
#pragma unroll
    for (int e = 0; e < kVec; ++e) {
      const float d = v[k][e] - mean;
      p = fmaf(d, d, p);
    }
    if (k < sh.count) q += p;
  }
  return q;
}

template <int kLanes, int kVec, int kItems, class EpiB>
__device__ __forceinline__ void store_tile(const float (&v)[kItems][kVec],
                                           const Share<kLanes, kVec, kItems>& sh, const EpiB& epi,
                                           float mean, float rstd) {
#pragma unroll
  for (int k = 0; k < kItems; ++k)
    if (k < sh.count) epi(v[k], sh.at(k), mean, rstd);
}

// Warp 0's part of merging a cluster's per-CTA (count, mean, M2) statistics: lane r
// fetches CTA r's `mine` through distributed shared memory and lane 0 merges them in
// rank order, in double, so that every CTA of the cluster gets bit-identical results,
// writing (mean, M2) to its `merged`. Call from threads t < 32 after a cluster barrier
// that made every CTA's `mine` visible.
template <int kCluster>
__device__ __forceinline__ void merge_cluster_stats(cooperative_groups::cluster_group& cluster,
                                                    float* mine, float* merged, int t) {
  float r[3] = {0.f, 0.f, 0.f};
  if (t < kCluster) {
    const float* theirs = cluster.map_shared_rank(mine, t);
    r[0] = theirs[0], r[1] = theirs[1], r[2] = theirs[2];
  }
  double n = 0, dm = 0, dm2 = 0;
#pragma unroll
  for (int k = 0; k < kCluster; ++k)
    chan_merge<double>(n, dm, dm2, __shfl_sync(0xffffffffu, r[0], k),
                       __shfl_sync(0xffffffffu, r[1], k), __shfl_sync(0xffffffffu, r[2], k));
  if (t == 0) merged[0] = static_cast<float>(dm), merged[1] = static_cast<float>(dm2);
}

}  // namespace detail

// Each subgroup of kLanes threads normalises kSegs segments (the block's segments
// `first + j * subgroups`, j < kSegs). All their loads are issued before the first
// reduction: a short segment gives a thread only kItems vectors, too few bytes in
// flight to cover memory latency on their own (model 3's 64-float groups ran
// at 2.9 TB/s with one segment per subgroup).
template <int kThreads, int kLanes, int kVec, int kItems, int kSegs, class Pro, class Epi>
__global__ void __launch_bounds__(kThreads)
    segment_norm_subwarp_kernel(const SegmentLaunch<Pro, Epi> a) {
  constexpr int kPerBlock = kThreads / kLanes;
  const int t = threadIdx.x % kLanes;
  const int64_t first = int64_t(blockIdx.x) * kPerBlock * kSegs + threadIdx.x / kLanes;
  const int64_t L = a.length;
  const detail::Share<kLanes, kVec, kItems> sh(0, L, t);
  float v[kSegs][kItems][kVec];
#pragma unroll
  for (int j = 0; j < kSegs; ++j) {
    // Subgroups past the end work on the last segment and store nothing, so that
    // every lane of every warp takes part in the full-mask shuffles.
    const int64_t seg = std::min(first + j * kPerBlock, a.segments - 1);
    detail::load_raw(v[j], a.x + seg * L, sh);
  }
#pragma unroll
  for (int j = 0; j < kSegs; ++j) {
    const int64_t want = first + j * kPerBlock;
    const bool live = want < a.segments;
    const int64_t seg = live ? want : a.segments - 1;
    detail::apply_prologue(v[j], sh, a.pro.bind(seg));
    // Lane 0 of the subgroup holds the segment's first value.
    const float first = __shfl_sync(0xffffffffu, v[j][0][0], 0, kLanes);
    const float shift = a.rms ? 0.f : first;
    detail::subtract_shift(v[j], sh, shift);
    const float n = static_cast<float>(L);
    const float mean = group_sum<kLanes>(detail::thread_sum(v[j]), 0xffffffffu) / n;
    const float m2 = group_sum<kLanes>(detail::thread_sqdev(v[j], mean, sh), 0xffffffffu);
    const detail::Normaliser nm = detail::normaliser(mean, m2, n, a.eps, a.rms);
    if (!live) continue;
    if (t == 0 && a.seg_mean) a.seg_mean[seg] = shift + mean;
    if (t == 0 && a.seg_m2) a.seg_m2[seg] = m2;
    if (a.epi.stores()) detail::store_tile(v[j], sh, a.epi.bind(seg), nm.center, nm.rstd);
  }
}

// kCluster == 1: one block per segment. kCluster > 1: launched with a cluster of
// kCluster CTAs along x; CTA `rank` of a cluster holds elements
// [rank * kCap, (rank + 1) * kCap) of segment blockIdx.x / kCluster.
template <int kCluster, int kThreads, int kVec, int kItems, class Pro, class Epi>
__global__ void __launch_bounds__(kThreads)
    segment_norm_block_kernel(const SegmentLaunch<Pro, Epi> a) {
  namespace cg = cooperative_groups;
  constexpr int kWarps = kThreads / 32;
  constexpr int64_t kCap = int64_t(kThreads) * kVec * kItems;
  __shared__ float scratch[2 * kWarps];
  const int t = threadIdx.x;
  int rank = 0;
  if constexpr (kCluster > 1) rank = static_cast<int>(cg::this_cluster().block_rank());
  const int64_t seg = blockIdx.x / kCluster;
  const int64_t L = a.length;
  const int64_t begin = rank * kCap;

  const detail::Share<kThreads, kVec, kItems> sh(begin, L, t);
  const float* xs = a.x + seg * L;
  const auto pro = a.pro.bind(seg);
  const float shift = a.rms ? 0.f : detail::segment_shift(xs, pro);
  float v[kItems][kVec];
  detail::load_tile(v, xs, sh, pro, shift);
  const int64_t n_cta = L - begin < 0 ? 0 : (L - begin < kCap ? L - begin : kCap);
  const float s = block_sum<kThreads>(detail::thread_sum(v), scratch);
  const float cta_mean = n_cta > 0 ? s / static_cast<float>(n_cta) : 0.f;
  const float cta_m2 = block_sum<kThreads>(detail::thread_sqdev(v, cta_mean, sh), scratch + kWarps);

  float mean = cta_mean, m2 = cta_m2;
  if constexpr (kCluster > 1) {
    cg::cluster_group cluster = cg::this_cluster();
    __shared__ float mine[3];
    __shared__ float merged[2];
    if (t == 0) mine[0] = static_cast<float>(n_cta), mine[1] = cta_mean, mine[2] = cta_m2;
    cluster.sync();  // every CTA's `mine` is written and visible
    if (t < 32) detail::merge_cluster_stats<kCluster>(cluster, mine, merged, t);
    // Done reading the other CTAs' shared memory: they may exit once all arrived.
    cluster.barrier_arrive();
    __syncthreads();
    mean = merged[0];
    m2 = merged[1];
  }
  const detail::Normaliser nm = detail::normaliser(mean, m2, static_cast<float>(L), a.eps, a.rms);
  if (rank == 0 && t == 0) {
    if (a.seg_mean) a.seg_mean[seg] = shift + mean;
    if (a.seg_m2) a.seg_m2[seg] = m2;
  }
  if (a.epi.stores()) detail::store_tile(v, sh, a.epi.bind(seg), nm.center, nm.rstd);
  if constexpr (kCluster > 1) cg::this_cluster().barrier_wait();
}

namespace detail {

// Statistics of [begin, end) of a segment, streamed in register tiles of
// kThreads * kVec * kItems floats: exact two-pass statistics of each tile, merged
// with Chan's formula in double across the block (every thread gets the result).
template <int kThreads, int kVec, int kItems, class ProB>
__device__ __forceinline__ void stream_block_stats(const float* xs, int64_t begin, int64_t end,
                                                   const ProB& pro, float shift, double& dn,
                                                   double& dm, double& dm2, double* scratch) {
  constexpr int64_t kTile = int64_t(kThreads) * kVec * kItems;
  float n = 0.f, m = 0.f, m2 = 0.f;
  for (int64_t base = begin; base < end; base += kTile) {
    const Share<kThreads, kVec, kItems> sh(base, end, threadIdx.x);
    float v[kItems][kVec];
    load_tile(v, xs, sh, pro, shift);
    if (sh.count > 0) {
      const float nt = static_cast<float>(sh.count * kVec);
      const float mt = thread_sum(v) / nt;
      chan_merge(n, m, m2, nt, mt, thread_sqdev(v, mt, sh));
    }
  }
  dn = n, dm = m, dm2 = m2;
  block_chan<kThreads>(dn, dm, dm2, scratch);
}

// Reads [begin, end) of a segment again and stores it normalised.
template <int kThreads, int kVec, int kItems, class ProB, class EpiB>
__device__ __forceinline__ void stream_normalize(const float* xs, int64_t begin, int64_t end,
                                                 const ProB& pro, float shift, const EpiB& epi,
                                                 float mean, float rstd) {
  constexpr int64_t kTile = int64_t(kThreads) * kVec * kItems;
  for (int64_t base = begin; base < end; base += kTile) {
    const Share<kThreads, kVec, kItems> sh(base, end, threadIdx.x);
    float v[kItems][kVec];
    load_tile(v, xs, sh, pro, shift);
    store_tile(v, sh, epi, mean, rstd);
  }
}

}  // namespace detail

template <int kThreads, int kVec, int kItems, class Pro, class Epi>
__global__ void __launch_bounds__(kThreads)
    segment_norm_stream_kernel(const SegmentLaunch<Pro, Epi> a) {
  constexpr int kWarps = kThreads / 32;
  __shared__ double scratch[3 * kWarps];
  const int t = threadIdx.x;
  const int64_t seg = blockIdx.x;
  const int64_t L = a.length;
  const float* xs = a.x + seg * L;
  const auto pro = a.pro.bind(seg);
  const float shift = a.rms ? 0.f : detail::segment_shift(xs, pro);

  // Pass 1: the whole segment's statistics.
  double dn, dm, dm2;
  detail::stream_block_stats<kThreads, kVec, kItems>(xs, 0, L, pro, shift, dn, dm, dm2, scratch);
  const float mean = static_cast<float>(dm);
  const float rstd = rsqrtf(static_cast<float>(a.rms ? dm2 / dn + dm * dm : dm2 / dn) + a.eps);
  const float center = a.rms ? 0.f : mean;
  if (t == 0) {
    if (a.seg_mean) a.seg_mean[seg] = shift + mean;
    if (a.seg_m2) a.seg_m2[seg] = static_cast<float>(dm2);
  }
  if (!a.epi.stores()) return;

  // Pass 2: read again, normalise, store.
  detail::stream_normalize<kThreads, kVec, kItems>(xs, 0, L, pro, shift, a.epi.bind(seg), center,
                                                   rstd);
}

template <int kCluster, int kThreads, int kVec, int kItems, class Pro, class Epi>
__global__ void __launch_bounds__(kThreads)
    segment_norm_split_kernel(const SegmentLaunch<Pro, Epi> a) {
  namespace cg = cooperative_groups;
  constexpr int kWarps = kThreads / 32;
  __shared__ double scratch[3 * kWarps];
  __shared__ double mine[3];
  __shared__ float merged[2];
  cg::cluster_group cluster = cg::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank());
  const int t = threadIdx.x;
  const int64_t seg = blockIdx.x / kCluster;
  const int64_t L = a.length;
  // CTA `rank` owns [begin, end): parts are whole vectors, so every access stays
  // aligned; the last CTAs may own nothing for short segments.
  const int64_t part = (L + int64_t(kCluster) * kVec - 1) / (int64_t(kCluster) * kVec) * kVec;
  const int64_t begin = std::min<int64_t>(L, rank * part);
  const int64_t end = std::min<int64_t>(L, begin + part);
  const float* xs = a.x + seg * L;
  const auto pro = a.pro.bind(seg);
  const float shift = a.rms ? 0.f : detail::segment_shift(xs, pro);

  // Pass 1 (HBM): this CTA's part's statistics.
  double dn, dm, dm2;
  detail::stream_block_stats<kThreads, kVec, kItems>(xs, begin, end, pro, shift, dn, dm, dm2,
                                                     scratch);
  if (t == 0) mine[0] = dn, mine[1] = dm, mine[2] = dm2;
  cluster.sync();  // every CTA's `mine` is written and visible
  if (t == 0) {
    // Merged in rank order by every CTA: bit-identical statistics cluster-wide.
    double cn = 0, cm = 0, cm2 = 0;
    for (int r = 0; r < kCluster; ++r) {
      const double* theirs = cluster.map_shared_rank(mine, r);
      chan_merge<double>(cn, cm, cm2, theirs[0], theirs[1], theirs[2]);
    }
    merged[0] = static_cast<float>(cm);
    merged[1] = static_cast<float>(cm2);
  }
  // Done reading the other CTAs' shared memory: they may exit once all arrived.
  cluster.barrier_arrive();
  __syncthreads();
  const float mean = merged[0];
  const detail::Normaliser nm =
      detail::normaliser(mean, merged[1], static_cast<float>(L), a.eps, a.rms);
  if (rank == 0 && t == 0) {
    if (a.seg_mean) a.seg_mean[seg] = shift + mean;
    if (a.seg_m2) a.seg_m2[seg] = merged[1];
  }
  if (a.epi.stores()) {
    // Pass 2 (L2): read the part again, normalise, store.
    detail::stream_normalize<kThreads, kVec, kItems>(xs, begin, end, pro, shift, a.epi.bind(seg),
                                                     nm.center, nm.rstd);
  }
  cluster.barrier_wait();
}

namespace detail {

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbar_init(uint64_t* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count));
}
// Arrives once and tells the barrier to also wait for `bytes` of copy-engine data.
__device__ __forceinline__ void mbar_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)),
               "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
  uint32_t done = 0;
  do {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        " selp.u32 %0, 1, 0, p;\n}"
        : "=r"(done)
        : "r"(smem_addr(bar)), "r"(parity)
        : "memory");
  } while (!done);
}
// Bulk copy global -> this CTA's shared memory, completing on `bar`.
__device__ __forceinline__ void bulk_load(void* dst, const void* src, uint32_t bytes,
                                          uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::
          "r"(smem_addr(dst)),
      "l"(src), "r"(bytes), "r"(smem_addr(bar))
      : "memory");
}
// Orders this thread's earlier ordinary shared-memory accesses (of all threads, after
// a __syncthreads) before later copy-engine accesses.
__device__ __forceinline__ void fence_proxy_async() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
__device__ __forceinline__ void fence_mbar_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

}  // namespace detail

// Persistent: gridDim.x / kCluster clusters; cluster q handles segments q, q + Q, ...
// CTA `rank` owns elements [rank * kCap, (rank + 1) * kCap) of each segment. Its
// part of segment i sits in stage i % kBuffers of the dynamic shared memory; the
// stage is refilled with segment i + kBuffers * Q as soon as every thread has copied
// it into registers, so up to kBuffers segments load while one is normalised.
template <int kCluster, int kThreads, int kItems, int kBuffers, class Pro, class Epi>
__global__ void __launch_bounds__(kThreads, 1)
    segment_norm_pipe_kernel(const SegmentLaunch<Pro, Epi> a) {
  namespace cg = cooperative_groups;
  constexpr int kVec = 4;  // the copy engine moves 16-byte multiples
  constexpr int kWarps = kThreads / 32;
  constexpr int64_t kCap = int64_t(kThreads) * kVec * kItems;
  extern __shared__ __align__(128) float stage[];  // kBuffers * kCap floats
  __shared__ __align__(8) uint64_t bars[kBuffers];
  __shared__ float scratch[2 * kWarps];
  __shared__ float mine[2][3];
  __shared__ float merged[2][2];

  cg::cluster_group cluster = cg::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank());
  const int t = threadIdx.x;
  const int64_t first = blockIdx.x / kCluster;
  const int64_t step = gridDim.x / kCluster;
  const int64_t L = a.length;
  const int64_t begin = rank * kCap;
  const int64_t n_cta = L - begin < 0 ? 0 : (L - begin < kCap ? L - begin : kCap);
  const uint32_t bytes = static_cast<uint32_t>(n_cta * sizeof(float));
  const detail::Share<kThreads, kVec, kItems> sh(begin, L, t);

  if (t == 0) {
#pragma unroll
    for (int b = 0; b < kBuffers; ++b) detail::mbar_init(&bars[b], 1);
    detail::fence_mbar_init();
    detail::fence_proxy_async();
  }
  __syncthreads();
  auto fetch = [&](int b, int64_t seg) {
    if (bytes == 0 || seg >= a.segments) return;
    detail::mbar_expect_tx(&bars[b], bytes);
    detail::bulk_load(stage + b * kCap, a.x + seg * L + begin, bytes, &bars[b]);
  };
  if (t == 0) {
#pragma unroll
    for (int b = 0; b < kBuffers; ++b) fetch(b, first + b * step);
  }

  uint32_t parity = 0;  // bit b: the phase of bars[b] to wait for
  int it = 0;
  for (int64_t seg = first; seg < a.segments; seg += step, ++it) {
    const int b = it % kBuffers;
    const float* xs = a.x + seg * L;
    const auto pro = a.pro.bind(seg);
    const float shift = a.rms ? 0.f : detail::segment_shift(xs, pro);
    if (bytes) detail::mbar_wait(&bars[b], (parity >> b) & 1u);
    parity ^= 1u << b;

    float v[kItems][kVec];
    const float* my = stage + b * kCap + t * kVec;
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      if (k < sh.count) {
        const float4 q = *reinterpret_cast<const float4*>(my + k * kThreads * kVec);
        v[k][0] = q.x, v[k][1] = q.y, v[k][2] = q.z, v[k][3] = q.w;
        pro(v[k], sh.at(k));
#pragma unroll
        for (int e = 0; e < kVec; ++e) v[k][e] -= shift;
      } else {
#pragma unroll
        for (int e = 0; e < kVec; ++e) v[k][e] = 0.f;
      }
    }
    __syncthreads();  // every thread has its copy of stage b: refill it
    if (t == 0) {
      detail::fence_proxy_async();
      fetch(b, seg + kBuffers * step);
    }

    const float s = block_sum<kThreads>(detail::thread_sum(v), scratch);
    const float cta_mean = n_cta > 0 ? s / static_cast<float>(n_cta) : 0.f;
    const float cta_m2 =
        block_sum<kThreads>(detail::thread_sqdev(v, cta_mean, sh), scratch + kWarps);
    // Two slots: a CTA may write slot it & 1 for segment i + 2 only after every
    // CTA passed the cluster barrier of segment i + 1, i.e. finished reading it.
    const int slot = it & 1;
    if (t == 0)
      mine[slot][0] = static_cast<float>(n_cta), mine[slot][1] = cta_mean, mine[slot][2] = cta_m2;
    cluster.sync();
    if (t < 32) detail::merge_cluster_stats<kCluster>(cluster, mine[slot], merged[slot], t);
    __syncthreads();
    const float mean = merged[slot][0];
    const float m2 = merged[slot][1];
    const detail::Normaliser nm = detail::normaliser(mean, m2, static_cast<float>(L), a.eps, a.rms);
    if (rank == 0 && t == 0) {
      if (a.seg_mean) a.seg_mean[seg] = shift + mean;
      if (a.seg_m2) a.seg_m2[seg] = m2;
    }
    if (a.epi.stores()) detail::store_tile(v, sh, a.epi.bind(seg), nm.center, nm.rstd);
  }
  cluster.sync();  // no CTA leaves while another may still read its `mine`
}

// A launch with clusters of `cluster` CTAs along x. Checks up front that such a
// cluster can be co-scheduled on this device (otherwise the launch would fail with an
// obscure error; the autotuner skips such variants) and keeps the launch attribute
// alive beside the config that points to it.
struct ClusterLaunch {
  cudaLaunchConfig_t config = {};
  cudaLaunchAttribute attr[1] = {};
  int max_active_clusters = 0;

  ClusterLaunch(const ClusterLaunch&) = delete;
  ClusterLaunch& operator=(const ClusterLaunch&) = delete;
  template <class Kernel>
  ClusterLaunch(Kernel kernel, int cluster, int threads, int smem, int64_t grid,
                cudaStream_t stream) {
    // Clusters above 8 CTAs are "non-portable" and must be allowed explicitly.
    if (cluster > 8)
      TT_CUDA_CHECK(
          cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    config.gridDim = dim3(static_cast<unsigned>(grid));
    config.blockDim = dim3(threads);
    config.dynamicSmemBytes = smem;
    config.stream = stream;
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = cluster;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    config.attrs = attr;
    config.numAttrs = 1;
    TT_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&max_active_clusters, kernel, &config));
    if (smem > 0) {
      TT_CHECK(max_active_clusters > 0,
               "segment norm: a cluster of {} CTAs of {} threads and {} bytes of shared memory "
               "cannot be scheduled on this device",
               cluster, threads, smem);
    } else {
      TT_CHECK(max_active_clusters > 0,
               "segment norm: a cluster of {} CTAs of {} threads cannot be scheduled on this "
               "device",
               cluster, threads);
    }
  }
};

// Launches the instantiation of one variant.
template <SegmentKind kKind, int kThreads, int kLanes, int kVec, int kItems, int kCluster,
          int kBuffers, class Pro, class Epi>
void launch_segment_variant(const SegmentLaunch<Pro, Epi>& a, cudaStream_t stream) {
  if constexpr (kKind == SegmentKind::kSubwarp) {
    constexpr int kSegs = kBuffers > 1 ? kBuffers : 1;
    constexpr int kPerBlock = kThreads / kLanes * kSegs;
    const int64_t blocks = (a.segments + kPerBlock - 1) / kPerBlock;
    segment_norm_subwarp_kernel<kThreads, kLanes, kVec, kItems, kSegs, Pro, Epi>
        <<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(a);
    TT_CUDA_CHECK_LAUNCH();
  } else if constexpr (kKind == SegmentKind::kBlock) {
    segment_norm_block_kernel<1, kThreads, kVec, kItems, Pro, Epi>
        <<<static_cast<unsigned>(a.segments), kThreads, 0, stream>>>(a);
    TT_CUDA_CHECK_LAUNCH();
  } else if constexpr (kKind == SegmentKind::kStream) {
    segment_norm_stream_kernel<kThreads, kVec, kItems, Pro, Epi>
        <<<static_cast<unsigned>(a.segments), kThreads, 0, stream>>>(a);
    TT_CUDA_CHECK_LAUNCH();
  } else if constexpr (kKind == SegmentKind::kPipe) {
    static_assert(kVec == 4 && kBuffers >= 1, "pipe variants move float4s through >= 1 stage");
    auto* kernel = segment_norm_pipe_kernel<kCluster, kThreads, kItems, kBuffers, Pro, Epi>;
    const int smem = static_cast<int>(kBuffers * int64_t(kThreads) * kVec * kItems * 4);
    TT_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    ClusterLaunch launch(kernel, kCluster, kThreads, smem, kCluster, stream);
    // Persistent: as many clusters as fit at once, never more than segments.
    const int64_t grid = std::min<int64_t>(launch.max_active_clusters, a.segments) * kCluster;
    launch.config.gridDim = dim3(static_cast<unsigned>(grid));
    TT_CUDA_CHECK(cudaLaunchKernelEx(&launch.config, kernel, a));
  } else {
    auto* kernel = [] {
      if constexpr (kKind == SegmentKind::kSplit)
        return segment_norm_split_kernel<kCluster, kThreads, kVec, kItems, Pro, Epi>;
      else
        return segment_norm_block_kernel<kCluster, kThreads, kVec, kItems, Pro, Epi>;
    }();
    ClusterLaunch launch(kernel, kCluster, kThreads, 0, a.segments * kCluster, stream);
    TT_CUDA_CHECK(cudaLaunchKernelEx(&launch.config, kernel, a));
  }
}

// Runs the variant that `cfg` names; throws tt::Error when it is not compiled.
template <class Pro, class Epi>
void dispatch_segment_norm(const SegmentConfig& cfg, const SegmentLaunch<Pro, Epi>& a,
                           cudaStream_t stream) {
  if (a.segments == 0 || a.length == 0) return;
#define TT_NORM_X(kind, threads, lanes, vec, items, cluster, buffers)                        \
  if (cfg == SegmentConfig{SegmentKind::kind, threads, lanes, vec, items, cluster, buffers}) \
    return launch_segment_variant<SegmentKind::kind, threads, lanes, vec, items, cluster,    \
                                  buffers>(a, stream);
  TT_NORM_SEGMENT_VARIANTS(TT_NORM_X)
#undef TT_NORM_X
  TT_FAIL("segment norm: config {} is not a compiled variant", cfg.str());
}

// Throws tt::Error unless `cfg` is valid for p and every pointer is aligned to
// cfg.vec floats.
void check_segment_launch(const char* what, const SegmentConfig& cfg, const SegmentProblem& p,
                          std::initializer_list<const void*> ptrs);

}  // namespace tt::ops::cuda::norm
