// The reduction kernels (see reduce.h for the shapes) and their launch templates.
// Each op is a small struct with a State and four device functions:
//   init()                      the state of an empty sample
//   tile(s, v[I][V], valid, first, step)
//                               folds the first `valid` rows of a register tile into s;
//                               element (j, k) has index first + j * step + k
//   merge(a, b)                 folds state b into a (order-insensitive up to rounding;
//                               exactly so for the arg ops, which break ties by index)
//   shfl(s, o, width)           s of lane (lane ^ o) within groups of `width` lanes
//   finish(s, fin)              the output value
// Included only by the per-op instantiation files (reduce_sum.cu, ...), so that the
// ops compile in parallel and a change to one recompiles only its file.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "core/cuda/check.h"
#include "core/cuda/runtime.h"
#include "core/error.h"
#include "ops/cuda/norm/norm_common.cuh"
#include "ops/cuda/reduce/reduce.h"
#include "ops/cuda/reduce/reduce_variants.h"

namespace tt::ops::cuda::reduce {

using norm::load_vec;

struct FinishDev {
  float divisor = 1.f;
  int root = 0;  // std: the square root of the variance
};

// ---------------------------------------------------------------------------
// Ops

// Sum (and mean: divided by N at the end). Each tile is summed on its own first, so a
// thread's running sum takes one addition per tile rather than per element.
struct SumOp {
  using State = float;
  using Out = float;
  static __device__ __forceinline__ State init() { return 0.f; }
  template <int I, int V>
  static __device__ __forceinline__ void tile(State& s, const float (&v)[I][V], int valid, int64_t,
                                              int64_t) {
    float t = 0.f;
#pragma unroll
    for (int j = 0; j < I; ++j) {
      if (j < valid) {
#pragma unroll
        for (int k = 0; k < V; ++k) t += v[j][k];
      }
    }
    s += t;
  }
  static __device__ __forceinline__ void merge(State& a, const State& b) { a += b; }
  static __device__ __forceinline__ State shfl(const State& s, int o, int w) {
    return __shfl_xor_sync(0xffffffffu, s, o, w);
  }
  static __device__ __forceinline__ Out finish(const State& s, FinishDev f) {
    return s / f.divisor;
  }
};

// Variance by exact two-pass statistics per register tile (mean, then the sum of
// squared deviations) merged with Chan's formula: no sum of squares is ever
// subtracted from another. Each state also carries a pivot (the first value it saw)
// and the mean of x - pivot, so the means that Chan's formula subtracts and squares
// are as small as the spread, not as large as the data's mean: with float means of
// ~1000, their difference lost its digits (uniform [999, 1001]: 3.0e-5 relative
// error against float64 before, float rounding after; docs/performance.md).
struct VarOp {
  struct State {
    float n, pivot, mean, m2;  // mean of (x - pivot)
  };
  using Out = float;
  static __device__ __forceinline__ State init() { return {0.f, 0.f, 0.f, 0.f}; }
  template <int I, int V>
  static __device__ __forceinline__ void tile(State& s, const float (&v)[I][V], int valid, int64_t,
                                              int64_t) {
    if (valid == 0) return;
    const float pivot = s.n > 0.f ? s.pivot : v[0][0];
    float sum = 0.f;
#pragma unroll
    for (int j = 0; j < I; ++j) {
      if (j < valid) {
#pragma unroll
        for (int k = 0; k < V; ++k) sum += v[j][k] - pivot;
      }
    }
    const float n = static_cast<float>(valid * V);
    const float mean = sum / n;
    float m2 = 0.f;
#pragma unroll
    for (int j = 0; j < I; ++j) {
      if (j < valid) {
#pragma unroll
        for (int k = 0; k < V; ++k) {
          const float d = (v[j][k] - pivot) - mean;
          m2 = fmaf(d, d, m2);
        }
      }
    }
    s.pivot = pivot;
    norm::chan_merge(s.n, s.mean, s.m2, n, mean, m2);
  }
  static __device__ __forceinline__ void merge(State& a, const State& b) {
    if (b.n == 0.f) return;
    if (a.n == 0.f) {
      a = b;
      return;
    }
    // b's mean in a's frame: close pivots subtract exactly (Sterbenz).
    const float mean_b = (b.pivot - a.pivot) + b.mean;
    norm::chan_merge(a.n, a.mean, a.m2, b.n, mean_b, b.m2);
  }
  static __device__ __forceinline__ State shfl(const State& s, int o, int w) {
    return {__shfl_xor_sync(0xffffffffu, s.n, o, w), __shfl_xor_sync(0xffffffffu, s.pivot, o, w),
            __shfl_xor_sync(0xffffffffu, s.mean, o, w), __shfl_xor_sync(0xffffffffu, s.m2, o, w)};
  }
  static __device__ __forceinline__ Out finish(const State& s, FinishDev f) {
    const float v = s.m2 / fmaxf(f.divisor, 0.f);  // N - correction <= 0: inf or nan, as PyTorch
    return f.root ? sqrtf(v) : v;
  }
};

// amax (kMax) / amin: NaN wins over every number, as in PyTorch.
template <bool kMax>
struct ExtremeOp {
  using State = float;
  using Out = float;
  static __device__ __forceinline__ State init() {
    return kMax ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  }
  static __device__ __forceinline__ void merge(State& a, const State& b) {
    if ((kMax ? b > a : b < a) || b != b) a = b;
  }
  template <int I, int V>
  static __device__ __forceinline__ void tile(State& s, const float (&v)[I][V], int valid, int64_t,
                                              int64_t) {
#pragma unroll
    for (int j = 0; j < I; ++j) {
      if (j < valid) {
#pragma unroll
        for (int k = 0; k < V; ++k) merge(s, v[j][k]);
      }
    }
  }
  static __device__ __forceinline__ State shfl(const State& s, int o, int w) {
    return __shfl_xor_sync(0xffffffffu, s, o, w);
  }
  static __device__ __forceinline__ Out finish(const State& s, FinishDev) { return s; }
};

// argmax (kMax) / argmin: the first index of the extreme value; a NaN is the extreme
// (its first index wins), as in PyTorch.
template <bool kMax>
struct ArgOp {
  struct State {
    float v;
    int64_t i;
  };
  using Out = int64_t;
  static __device__ __forceinline__ State init() {
    return {kMax ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity(),
            std::numeric_limits<int64_t>::max()};
  }
  // Whether b replaces a: a total order, so merges in any order agree.
  static __device__ __forceinline__ bool better(const State& a, float bv, int64_t bi) {
    if (a.v != a.v) return bv != bv && bi < a.i;
    if (bv != bv) return true;
    if (kMax ? bv > a.v : bv < a.v) return true;
    return bv == a.v && bi < a.i;
  }
  static __device__ __forceinline__ void merge(State& a, const State& b) {
    if (better(a, b.v, b.i)) a = b;
  }
  template <int I, int V>
  static __device__ __forceinline__ void tile(State& s, const float (&v)[I][V], int valid,
                                              int64_t first, int64_t step) {
#pragma unroll
    for (int j = 0; j < I; ++j) {
      if (j < valid) {
#pragma unroll
        for (int k = 0; k < V; ++k) {
          const int64_t idx = first + j * step + k;
          if (better(s, v[j][k], idx)) s = {v[j][k], idx};
        }
      }
    }
  }
  static __device__ __forceinline__ State shfl(const State& s, int o, int w) {
    return {__shfl_xor_sync(0xffffffffu, s.v, o, w),
            static_cast<int64_t>(__shfl_xor_sync(0xffffffffu, static_cast<long long>(s.i), o, w))};
  }
  static __device__ __forceinline__ Out finish(const State& s, FinishDev) { return s.i; }
};

// ---------------------------------------------------------------------------
// Group reduction: groups of kLanes threads (a power of two up to 32, or the whole
// block); the result is valid in the group's first lane only.
template <class OpT, int kThreads, int kLanes>
__device__ __forceinline__ typename OpT::State group_reduce(typename OpT::State s,
                                                            typename OpT::State* scratch) {
  constexpr int kWidth = kLanes < 32 ? kLanes : 32;
#pragma unroll
  for (int o = kWidth / 2; o > 0; o /= 2) OpT::merge(s, OpT::shfl(s, o, kWidth));
  if constexpr (kLanes > 32) {
    __syncthreads();  // the previous row's scratch has been read
    if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
#pragma unroll
      for (int w = 1; w < kThreads / 32; ++w) OpT::merge(s, scratch[w]);
    }
  }
  return s;
}

// A vector load, evict-first in the L2 (ld.global.cs) when `evict_first` (the
// configs' run-time load policy; uniform across the grid).
template <int V>
__device__ __forceinline__ void load_policy(float (&d)[V], const float* p, bool evict_first) {
  if (evict_first) {
    load_vec<V>(d, p, norm::EvictFirstLoad{});
  } else {
    load_vec<V>(d, p);
  }
}

// A partial state written by another block of the same launch, read from the L2
// (ld.global.cg: never a stale L1 line).
template <class T>
__device__ __forceinline__ T load_cg(const T* p) {
  static_assert(sizeof(T) % sizeof(unsigned) == 0, "states are whole words");
  T out;
  auto* d = reinterpret_cast<unsigned*>(&out);
  const auto* s = reinterpret_cast<const unsigned*>(p);
#pragma unroll
  for (size_t i = 0; i < sizeof(T) / sizeof(unsigned); ++i) d[i] = __ldcg(s + i);
  return out;
}

// Lane 0's flag, to every lane of its group (kLanes lanes of a warp, or the block).
template <int kLanes>
__device__ __forceinline__ bool group_flag(bool f, int* scratch) {
  if constexpr (kLanes <= 32) {
    return __shfl_sync(0xffffffffu, static_cast<int>(f), 0, kLanes) != 0;
  } else {
    __syncthreads();
    if (threadIdx.x == 0) *scratch = f;
    __syncthreads();
    return *scratch != 0;
  }
}

template <int I, int V>
__device__ __forceinline__ void zero_tile(float (&v)[I][V], int j) {
#pragma unroll
  for (int k = 0; k < V; ++k) v[j][k] = 0.f;
}

// Inner: work unit u = sp * rows + row reduces columns [sp * span, (sp + 1) * span)
// of `row`; with one split it writes the output, otherwise its state to
// partial[u] ([splits][rows]). Groups loop over units in block-uniform steps so that
// every lane of a warp reaches the shuffles.
//
// With `arrivals` (one zeroed counter per row, see arrival_counters), the group that
// writes a row's last partial merges the row there and then (a fence, then an atomic
// count of the row's arrivals) and sets the counter back to 0: no second kernel,
// whose launch and lone tail are a visible share of a full reduction. Without it
// (nullptr), merge_kernel runs after.
template <class OpT, int kThreads, int kLanes, int kVec, int kItems>
__global__ void __launch_bounds__(kThreads)
    inner_kernel(const float* __restrict__ x, int64_t rows, int64_t cols, int64_t splits,
                 int64_t span, typename OpT::Out* __restrict__ out,
                 typename OpT::State* __restrict__ partial, unsigned* __restrict__ arrivals,
                 FinishDev fin, bool evict_first) {
  using State = typename OpT::State;
  constexpr int kGroups = kThreads / kLanes;
  constexpr int kStep = kLanes * kVec;
  __shared__ State scratch[kThreads / 32];
  __shared__ int flag;
  const int lane = static_cast<int>(threadIdx.x) % kLanes;
  const int group = static_cast<int>(threadIdx.x) / kLanes;
  const int64_t units = rows * splits;
  for (int64_t ub = int64_t{blockIdx.x} * kGroups; ub < units; ub += int64_t{gridDim.x} * kGroups) {
    const int64_t unit = ub + group;
    State s = OpT::init();
    if (unit < units) {
      const int64_t row = unit % rows;
      const int64_t c0 = unit / rows * span;
      const int64_t c1 = c0 + span < cols ? c0 + span : cols;
      const float* xr = x + row * cols;
      for (int64_t base = c0 + lane * kVec; base < c1; base += int64_t{kStep} * kItems) {
        float v[kItems][kVec];
        int valid = 0;
#pragma unroll
        for (int j = 0; j < kItems; ++j) {
          const int64_t pos = base + int64_t{j} * kStep;
          if (pos < c1) {
            load_policy<kVec>(v[j], xr + pos, evict_first);
            valid = j + 1;
          } else {
            zero_tile(v, j);
          }
        }
        OpT::tile(s, v, valid, base, kStep);
      }
    }
    s = group_reduce<OpT, kThreads, kLanes>(s, scratch);
    if (splits == 1) {  // (uniform, as are `arrivals` and the loop: every lane goes on)
      if (lane == 0 && unit < units) out[unit] = OpT::finish(s, fin);
      continue;
    }
    const int64_t row = unit % rows;
    bool last = false;
    if (lane == 0 && unit < units) {
      partial[unit] = s;
      if (arrivals) {
        __threadfence();  // the partial is visible before the count that reveals it
        last = atomicAdd(arrivals + row, 1u) == static_cast<unsigned>(splits - 1);
      }
    }
    if (!arrivals) continue;
    // Every group reduces (nothing, unless it arrived last): the shuffles need all lanes.
    last = group_flag<kLanes>(last, &flag);
    State m = OpT::init();
    if (last) {
      for (int64_t sp = lane; sp < splits; sp += kLanes)
        OpT::merge(m, load_cg(partial + sp * rows + row));
    }
    m = group_reduce<OpT, kThreads, kLanes>(m, scratch);
    if (last && lane == 0) {
      out[row] = OpT::finish(m, fin);
      arrivals[row] = 0;  // ready for the next launch on this stream
    }
  }
}

// Outer: block (blockIdx.x = o * itiles + tile, blockIdx.y = split) reduces rows
// [split * rows_per_split, ...) of kCols = col_threads * vec columns of slice o; its
// row threads' states meet in shared memory.
// With `arrivals` (one zeroed counter per column block), the block that writes a
// column block's last partial merges it (as inner_kernel's rows).
template <class OpT, int kThreads, int kColThreads, int kVec, int kItems>
__global__ void __launch_bounds__(kThreads)
    outer_kernel(const float* __restrict__ x, int64_t rows, int64_t inner, int64_t itiles,
                 int64_t rows_per_split, int64_t ncols, typename OpT::Out* __restrict__ out,
                 typename OpT::State* __restrict__ partial, unsigned* __restrict__ arrivals,
                 FinishDev fin, bool evict_first) {
  using State = typename OpT::State;
  constexpr int kRowThreads = kThreads / kColThreads;
  constexpr int kCols = kColThreads * kVec;
  static_assert(kThreads % kCols == 0, "the merge lays the block out as columns x splits");
  __shared__ State sm[kRowThreads][kCols];
  const int tx = static_cast<int>(threadIdx.x) % kColThreads;
  const int ty = static_cast<int>(threadIdx.x) / kColThreads;
  const int64_t o = blockIdx.x / itiles;
  const int64_t i0 = (blockIdx.x % itiles) * kCols + tx * kVec;
  const bool col_ok = i0 < inner;
  const int64_t r0 = blockIdx.y * rows_per_split;
  const int64_t r1 = r0 + rows_per_split < rows ? r0 + rows_per_split : rows;
  State s[kVec];
#pragma unroll
  for (int k = 0; k < kVec; ++k) s[k] = OpT::init();
  const float* xo = x + o * rows * inner + i0;
  for (int64_t r = r0 + ty; r < r1; r += int64_t{kRowThreads} * kItems) {
    float v[kItems][kVec];
    int valid = 0;
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const int64_t rr = r + int64_t{j} * kRowThreads;
      if (col_ok && rr < r1) {
        load_policy<kVec>(v[j], xo + rr * inner, evict_first);
        valid = j + 1;
      } else {
        zero_tile(v, j);
      }
    }
#pragma unroll
    for (int k = 0; k < kVec; ++k) {
      float w[kItems][1];
#pragma unroll
      for (int j = 0; j < kItems; ++j) w[j][0] = v[j][k];
      OpT::tile(s[k], w, valid, r, kRowThreads);
    }
  }
#pragma unroll
  for (int k = 0; k < kVec; ++k) sm[ty][tx * kVec + k] = s[k];
  __syncthreads();
  if (ty == 0 && col_ok) {
#pragma unroll
    for (int k = 0; k < kVec; ++k) {
      State a = sm[0][tx * kVec + k];
      for (int t = 1; t < kRowThreads; ++t) OpT::merge(a, sm[t][tx * kVec + k]);
      const int64_t c = o * inner + i0 + k;
      if (gridDim.y == 1) {
        out[c] = OpT::finish(a, fin);
      } else {
        partial[blockIdx.y * ncols + c] = a;
      }
    }
  }
  if (gridDim.y == 1 || !arrivals) return;
  __shared__ int last;
  __threadfence();  // this thread's partials are visible before the block's count
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(arrivals + blockIdx.x, 1u) == gridDim.y - 1;
  __syncthreads();
  if (!last) return;
  // The last block of the column block: kCols columns x kLanes split lanes.
  constexpr int kLanes = kThreads / kCols;
  const int col = static_cast<int>(threadIdx.x) % kCols;
  const int sl = static_cast<int>(threadIdx.x) / kCols;
  const int64_t i = (blockIdx.x % itiles) * kCols + col;
  const int64_t c = o * inner + i;
  State a = OpT::init();
  if (i < inner) {
    for (int64_t sp = sl; sp < gridDim.y; sp += kLanes)
      OpT::merge(a, load_cg(partial + sp * ncols + c));
  }
  State* flat =
      &sm[0][0];  // kRowThreads * kCols >= kThreads states; read above before the barriers
  flat[threadIdx.x] = a;
#pragma unroll
  for (int half = kLanes / 2; half > 0; half /= 2) {
    __syncthreads();
    if (sl < half) {
      OpT::merge(a, flat[threadIdx.x + half * kCols]);
      flat[threadIdx.x] = a;
    }
  }
  if (sl == 0 && i < inner) out[c] = OpT::finish(a, fin);
  if (threadIdx.x == 0) arrivals[blockIdx.x] = 0;  // ready for the next launch on this stream
}

// Merges partial [splits][n] into out [n]. A block of kMergeThreads is laid out as
// bx outputs (consecutive: coalesced) x by split lanes; each thread folds splits y,
// y + by, ... of its output (independent loads, unrolled so several are in flight),
// then the split lanes meet in shared memory, halving each step: one memory round trip
// per 4-8 partials, where one thread per output merging a thousand partials in a row
// was a large share of a full sum.
constexpr int kMergeThreads = 256;

template <class OpT>
__global__ void __launch_bounds__(kMergeThreads)
    merge_kernel(const typename OpT::State* __restrict__ partial, int64_t n, int64_t splits, int bx,
                 typename OpT::Out* __restrict__ out, FinishDev fin) {
  using State = typename OpT::State;
  __shared__ State sm[kMergeThreads];
  const int by = kMergeThreads / bx;
  const int x = static_cast<int>(threadIdx.x) % bx;
  const int y = static_cast<int>(threadIdx.x) / bx;
  const int64_t c = int64_t{blockIdx.x} * bx + x;
  State a = OpT::init();
  if (c < n) {
#pragma unroll 4
    for (int64_t s = y; s < splits; s += by) OpT::merge(a, partial[s * n + c]);
  }
  sm[threadIdx.x] = a;
  for (int half = by / 2; half > 0; half /= 2) {
    __syncthreads();
    if (y < half) {
      State b = sm[threadIdx.x + half * bx];
      OpT::merge(a, b);
      sm[threadIdx.x] = a;
    }
  }
  if (y == 0 && c < n) out[c] = OpT::finish(a, fin);
}

// ---------------------------------------------------------------------------
// Host side

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Device memory for the partial states, back in the caching allocator when the
// launch is enqueued (every op runs on the device's one stream, so a later user of
// the block is ordered after the merge).
class Scratch {
 public:
  Scratch(size_t bytes, int device) : bytes_(bytes), device_(device) {
    if (bytes_) ptr_ = tt::cuda::allocate(bytes_, device_);
  }
  ~Scratch() {
    if (ptr_) tt::cuda::release(ptr_, bytes_, device_);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }

 private:
  void* ptr_ = nullptr;
  size_t bytes_;
  int device_;
};

// bx: outputs per merge block, a power of two; the rest of the block (at least as
// many lanes as splits allow) goes across the splits.
// kArrivalCounters zeroed counters private to (device, stream), allocated once: a
// launch that merges in-kernel counts arrivals in them and leaves them zeroed, and
// launches on one stream never overlap. nullptr when n exceeds them (the launch
// then merges in merge_kernel). reduce_launch.cu.
constexpr int64_t kArrivalCounters = int64_t{1} << 16;
unsigned* arrival_counters(int device, cudaStream_t stream, int64_t n);

template <class OpT>
void launch_merge(const typename OpT::State* partial, int64_t n, int64_t splits, void* out,
                  FinishDev fin, cudaStream_t stream) {
  int by = 1;
  while (by < kMergeThreads && by * 2 <= splits) by *= 2;
  int bx = kMergeThreads / by;
  if (bx < 32 && n >= 32) bx = 32;  // a warp's loads along the outputs stay coalesced
  while (bx > 1 && bx / 2 >= n) bx /= 2;
  const int64_t blocks = ceil_div(n, bx);
  TT_CHECK(blocks < (int64_t{1} << 31), "reduce: {} outputs exceed the merge grid", n);
  merge_kernel<OpT><<<static_cast<unsigned>(blocks), kMergeThreads, 0, stream>>>(
      partial, n, splits, bx, static_cast<typename OpT::Out*>(out), fin);
  TT_CUDA_CHECK_LAUNCH();
}

template <class OpT, int kThreads, int kLanes, int kVec, int kItems>
void run_inner(const InnerProblem& p, const float* x, void* out, FinishDev fin, bool evict_first,
               int device, cudaStream_t stream) {
  using State = typename OpT::State;
  constexpr int64_t kGroups = kThreads / kLanes;
  constexpr int64_t kTile = int64_t{kLanes} * kVec * kItems;
  const int64_t resident = int64_t{sm_count(device)} * (2048 / kThreads) * kGroups;
  // Rows too few to keep every SM busy: split each row over several groups.
  int64_t splits = 1;
  if (p.rows * 2 <= resident)
    splits = std::min({ceil_div(resident, p.rows), ceil_div(p.cols, kTile), int64_t{4096}});
  const int64_t span = ceil_div(ceil_div(p.cols, splits), kTile) * kTile;
  splits = ceil_div(p.cols, span);
  const int64_t units = p.rows * splits;
  const int64_t blocks = std::min<int64_t>(ceil_div(units, kGroups), int64_t{1} << 30);
  Scratch scratch(splits > 1 ? sizeof(State) * static_cast<size_t>(units) : 0, device);
  unsigned* arrivals = splits > 1 ? arrival_counters(device, stream, p.rows) : nullptr;
  inner_kernel<OpT, kThreads, kLanes, kVec, kItems>
      <<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
          x, p.rows, p.cols, splits, span, static_cast<typename OpT::Out*>(out),
          scratch.as<State>(), arrivals, fin, evict_first);
  TT_CUDA_CHECK_LAUNCH();
  if (splits > 1 && !arrivals)
    launch_merge<OpT>(scratch.as<State>(), p.rows, splits, out, fin, stream);
}

template <class OpT, int kThreads, int kColThreads, int kVec, int kItems>
void run_outer(const OuterProblem& p, const float* x, void* out, FinishDev fin, bool evict_first,
               int device, cudaStream_t stream) {
  using State = typename OpT::State;
  constexpr int64_t kRowThreads = kThreads / kColThreads;
  const int64_t itiles = ceil_div(p.inner, int64_t{kColThreads} * kVec);
  const int64_t ctas = p.outer * itiles;
  TT_CHECK(ctas < (int64_t{1} << 31),
           "reduce: {} column blocks exceed the grid limit; the reduction is too wide", ctas);
  const int64_t resident = int64_t{sm_count(device)} * (2048 / kThreads);
  // Columns too few to keep every SM busy: split the rows over several blocks.
  int64_t splits = 1;
  if (ctas * 2 <= resident)
    splits = std::min(
        {ceil_div(2 * resident, ctas), ceil_div(p.rows, kRowThreads * kItems), int64_t{65535}});
  const int64_t rows_per_split = ceil_div(p.rows, splits);
  splits = ceil_div(p.rows, rows_per_split);
  const int64_t ncols = p.outer * p.inner;
  Scratch scratch(splits > 1 ? sizeof(State) * static_cast<size_t>(ncols * splits) : 0, device);
  unsigned* arrivals = splits > 1 ? arrival_counters(device, stream, ctas) : nullptr;
  const dim3 grid(static_cast<unsigned>(ctas), static_cast<unsigned>(splits));
  outer_kernel<OpT, kThreads, kColThreads, kVec, kItems><<<grid, kThreads, 0, stream>>>(
      x, p.rows, p.inner, itiles, rows_per_split, ncols, static_cast<typename OpT::Out*>(out),
      scratch.as<State>(), arrivals, fin, evict_first);
  TT_CUDA_CHECK_LAUNCH();
  if (splits > 1 && !arrivals)
    launch_merge<OpT>(scratch.as<State>(), ncols, splits, out, fin, stream);
}

template <class OpT>
void launch_inner_t(const InnerConfig& cfg, const InnerProblem& p, const float* x, void* out,
                    FinishDev fin, int device, cudaStream_t stream) {
  TT_CHECK(cfg.valid(p),
           "reduce.inner: config {} is not valid for {} rows of {} floats with {}-float "
           "alignment",
           cfg.to_config().str(), p.rows, p.cols, p.align);
#define TT_REDUCE_INNER_CASE(T, L, V, I)                                              \
  if (cfg.threads == T && cfg.lanes == L && cfg.vec == V && cfg.items == I) {         \
    run_inner<OpT, T, L, V, I>(p, x, out, fin, cfg.evict_first != 0, device, stream); \
    return;                                                                           \
  }
  TT_REDUCE_INNER_VARIANTS(TT_REDUCE_INNER_CASE)
#undef TT_REDUCE_INNER_CASE
}

template <class OpT>
void launch_outer_t(const OuterConfig& cfg, const OuterProblem& p, const float* x, void* out,
                    FinishDev fin, int device, cudaStream_t stream) {
  TT_CHECK(cfg.valid(p),
           "reduce.outer: config {} is not valid for [{}, {}, {}] with {}-float alignment",
           cfg.to_config().str(), p.outer, p.rows, p.inner, p.align);
#define TT_REDUCE_OUTER_CASE(T, C, V, I)                                              \
  if (cfg.threads == T && cfg.col_threads == C && cfg.vec == V && cfg.items == I) {   \
    run_outer<OpT, T, C, V, I>(p, x, out, fin, cfg.evict_first != 0, device, stream); \
    return;                                                                           \
  }
  TT_REDUCE_OUTER_VARIANTS(TT_REDUCE_OUTER_CASE)
#undef TT_REDUCE_OUTER_CASE
}

// Each op's launchers are instantiated in a file of their own (reduce_sum.cu,
// reduce_var.cu, reduce_extreme.cu, reduce_arg.cu); the dispatch (reduce_launch.cu)
// only refers to them.
#define TT_REDUCE_EXTERN(OP)                                                                     \
  extern template void launch_inner_t<OP>(const InnerConfig&, const InnerProblem&, const float*, \
                                          void*, FinishDev, int, cudaStream_t);                  \
  extern template void launch_outer_t<OP>(const OuterConfig&, const OuterProblem&, const float*, \
                                          void*, FinishDev, int, cudaStream_t);
TT_REDUCE_EXTERN(SumOp)
TT_REDUCE_EXTERN(VarOp)
TT_REDUCE_EXTERN(ExtremeOp<true>)
TT_REDUCE_EXTERN(ExtremeOp<false>)
TT_REDUCE_EXTERN(ArgOp<true>)
TT_REDUCE_EXTERN(ArgOp<false>)
#undef TT_REDUCE_EXTERN

#define TT_REDUCE_INSTANTIATE(OP)                                                                \
  template void launch_inner_t<OP>(const InnerConfig&, const InnerProblem&, const float*, void*, \
                                   FinishDev, int, cudaStream_t);                                \
  template void launch_outer_t<OP>(const OuterConfig&, const OuterProblem&, const float*, void*, \
                                   FinishDev, int, cudaStream_t);

}  // namespace tt::ops::cuda::reduce
