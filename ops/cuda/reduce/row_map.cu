// Row maps over x [rows, cols] (reduce.h): softmax, log_softmax and rms_norm, each a
// row reduction followed by an elementwise map of the same row.
//
// impl=reg: a group of `lanes` threads loads its row into registers once (vec-wide
// loads, item j of lane l at floats (j * lanes + l) * vec, so a warp's loads are
// contiguous), reduces it and writes the map: one read and one write of memory, the
// floor of the op. impl=stream: rows longer than any register variant are read twice,
// the first pass keeping an online (max, sum of exp) pair (softmax) or a sum of
// squares (rms_norm) per thread.
//
// Numerics (strict float32, as PyTorch): softmax = exp(x - max) / sum, log_softmax =
// x - max - log(sum), with expf/logf (never the fast intrinsics); rms_norm = x *
// rsqrt(mean(x^2) + eps) * weight.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/cuda/check.h"
#include "core/error.h"
#include "ops/cuda/norm/norm_common.cuh"
#include "ops/cuda/reduce/reduce.h"
#include "ops/cuda/reduce/reduce_variants.h"

namespace tt::ops::cuda::reduce {
namespace {

using norm::load_vec;
using norm::store_vec;

constexpr int kSoftmax = static_cast<int>(RowMap::kSoftmax);
constexpr int kLogSoftmax = static_cast<int>(RowMap::kLogSoftmax);
constexpr int kRms = static_cast<int>(RowMap::kRmsNorm);
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// Max (kMax) or sum over a group of kLanes threads, broadcast to all of them. Blocks
// whose group is the whole block meet in `scratch` (kThreads / 32 floats); every
// thread then folds the warp results in the same order, so all agree bit for bit.
template <int kThreads, int kLanes, bool kMax>
__device__ __forceinline__ float group_all(float v, float* scratch) {
  constexpr int kWidth = kLanes < 32 ? kLanes : 32;
#pragma unroll
  for (int o = kWidth / 2; o > 0; o /= 2) {
    const float b = __shfl_xor_sync(0xffffffffu, v, o, kWidth);
    v = kMax ? fmaxf(v, b) : v + b;
  }
  if constexpr (kLanes > 32) {
    __syncthreads();  // the previous reduction's scratch has been read
    if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
    __syncthreads();
    v = scratch[0];
#pragma unroll
    for (int w = 1; w < kThreads / 32; ++w) v = kMax ? fmaxf(v, scratch[w]) : v + scratch[w];
  }
  return v;
}

// Writes the map of one vector of the row at column `pos`. kHeldExp: softmax's v
// already holds exp(x - max) (the register kernel keeps it from the sum).
template <int kMode, int kVec, bool kHeldExp = false>
__device__ __forceinline__ void write_vec(float* o, const float* w, int64_t pos,
                                          const float (&v)[kVec], float a, float b) {
  float r[kVec];
  if constexpr (kMode == kSoftmax) {
    // a = max, b = sum of exp
#pragma unroll
    for (int k = 0; k < kVec; ++k) r[k] = (kHeldExp ? v[k] : expf(v[k] - a)) / b;
  } else if constexpr (kMode == kLogSoftmax) {
    // a = max, b = log(sum of exp)
#pragma unroll
    for (int k = 0; k < kVec; ++k) r[k] = v[k] - a - b;
  } else {
    // a = rsqrt(mean(x^2) + eps)
    float ww[kVec];
#pragma unroll
    for (int k = 0; k < kVec; ++k) ww[k] = 1.f;
    if (w) load_vec<kVec>(ww, w + pos);
#pragma unroll
    for (int k = 0; k < kVec; ++k) r[k] = v[k] * a * ww[k];
  }
  store_vec<kVec>(o + pos, r);
}

// One row held in registers: one read, one write. Every lane of the group calls it
// (inactive ones, past the last row, load nothing and store nothing) so that the
// group's shuffles see all lanes.
template <int kMode, int kThreads, int kLanes, int kVec, int kItems>
__device__ __forceinline__ void row_in_registers(const float* __restrict__ xr,
                                                 float* __restrict__ orow,
                                                 const float* __restrict__ w, int64_t cols,
                                                 float eps, int lane, bool active, float* scratch) {
  constexpr int kStep = kLanes * kVec;
  float v[kItems][kVec];
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const int64_t pos = int64_t{j} * kStep + lane * kVec;
    if (active && pos < cols) {
      load_vec<kVec>(v[j], xr + pos);
    } else {
#pragma unroll
      for (int k = 0; k < kVec; ++k) v[j][k] = kMode == kRms ? 0.f : kNegInf;
    }
  }
  float a, b;
  if constexpr (kMode == kRms) {
    float ss = 0.f;
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
#pragma unroll
      for (int k = 0; k < kVec; ++k) ss = fmaf(v[j][k], v[j][k], ss);
    }
    ss = group_all<kThreads, kLanes, false>(ss, scratch);
    a = rsqrtf(ss / static_cast<float>(cols) + eps);
    b = 0.f;
  } else {
    float m = kNegInf;
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
#pragma unroll
      for (int k = 0; k < kVec; ++k) m = fmaxf(m, v[j][k]);
    }
    m = group_all<kThreads, kLanes, true>(m, scratch);
    float s = 0.f;
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const int64_t pos = int64_t{j} * kStep + lane * kVec;
      if (pos < cols) {
#pragma unroll
        for (int k = 0; k < kVec; ++k) {
          const float e = expf(v[j][k] - m);
          if constexpr (kMode == kSoftmax) v[j][k] = e;
          s += e;
        }
      }
    }
    s = group_all<kThreads, kLanes, false>(s, scratch);
    a = m;
    b = kMode == kSoftmax ? s : logf(s);
  }
  if (active) {
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const int64_t pos = int64_t{j} * kStep + lane * kVec;
      if (pos < cols) write_vec<kMode, kVec, true>(orow, w, pos, v[j], a, b);
    }
  }
}

// One row of any length, read twice (as row_in_registers for the calling convention).
template <int kMode, int kThreads, int kLanes, int kVec, int kItems>
__device__ __forceinline__ void row_streamed(const float* __restrict__ xr, float* __restrict__ orow,
                                             const float* __restrict__ w, int64_t cols, float eps,
                                             int lane, bool active, float* scratch) {
  constexpr int kStep = kLanes * kVec;
  // Pass 1: per thread, (m, s) = (running max, sum of exp(x - m)) or s = sum of squares.
  float m = kNegInf, s = 0.f;
  for (int64_t base = lane * kVec; active && base < cols; base += int64_t{kStep} * kItems) {
    float v[kItems][kVec];
    bool ok[kItems];
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const int64_t pos = base + int64_t{j} * kStep;
      ok[j] = pos < cols;
      if (ok[j]) {
        load_vec<kVec>(v[j], xr + pos);
      } else {
#pragma unroll
        for (int k = 0; k < kVec; ++k) v[j][k] = kMode == kRms ? 0.f : kNegInf;
      }
    }
    if constexpr (kMode == kRms) {
#pragma unroll
      for (int j = 0; j < kItems; ++j) {
#pragma unroll
        for (int k = 0; k < kVec; ++k) s = fmaf(v[j][k], v[j][k], s);
      }
    } else {
      float mt = m;
#pragma unroll
      for (int j = 0; j < kItems; ++j) {
#pragma unroll
        for (int k = 0; k < kVec; ++k) mt = fmaxf(mt, v[j][k]);
      }
      // Rescale the sum to the new max; -inf values add nothing (even while the
      // running max is still -inf, where x - max would be NaN).
      if (mt > m) s *= expf(m - mt);
      m = mt;
#pragma unroll
      for (int j = 0; j < kItems; ++j) {
#pragma unroll
        for (int k = 0; k < kVec; ++k) s += v[j][k] == kNegInf ? 0.f : expf(v[j][k] - m);
      }
    }
  }
  float a, b;
  if constexpr (kMode == kRms) {
    s = group_all<kThreads, kLanes, false>(s, scratch);
    a = rsqrtf(s / static_cast<float>(cols) + eps);
    b = 0.f;
  } else {
    const float gm = group_all<kThreads, kLanes, true>(m, scratch);
    s = m == kNegInf ? 0.f : s * expf(m - gm);
    s = group_all<kThreads, kLanes, false>(s, scratch);
    a = gm;
    b = kMode == kSoftmax ? s : logf(s);
  }
  // Pass 2: read again (mostly from L2 for rows of a few MB) and write the map.
  for (int64_t base = lane * kVec; active && base < cols; base += int64_t{kStep} * kItems) {
    float v[kItems][kVec];
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const int64_t pos = base + int64_t{j} * kStep;
      if (pos < cols) load_vec<kVec>(v[j], xr + pos);
    }
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const int64_t pos = base + int64_t{j} * kStep;
      if (pos < cols) write_vec<kMode, kVec>(orow, w, pos, v[j], a, b);
    }
  }
}

// Groups of kLanes threads take rows in block-uniform steps.
template <int kMode, bool kReg, int kThreads, int kLanes, int kVec, int kItems>
__global__ void __launch_bounds__(kThreads)
    row_map_kernel(const float* __restrict__ x, float* __restrict__ out,
                   const float* __restrict__ w, int64_t rows, int64_t cols, float eps) {
  constexpr int kGroups = kThreads / kLanes;
  __shared__ float scratch[kThreads / 32];
  const int lane = static_cast<int>(threadIdx.x) % kLanes;
  const int group = static_cast<int>(threadIdx.x) / kLanes;
  for (int64_t rb = int64_t{blockIdx.x} * kGroups; rb < rows; rb += int64_t{gridDim.x} * kGroups) {
    const int64_t row = rb + group;
    const bool active = row < rows;
    if constexpr (kReg) {
      row_in_registers<kMode, kThreads, kLanes, kVec, kItems>(x + row * cols, out + row * cols, w,
                                                              cols, eps, lane, active, scratch);
    } else {
      row_streamed<kMode, kThreads, kLanes, kVec, kItems>(x + row * cols, out + row * cols, w, cols,
                                                          eps, lane, active, scratch);
    }
  }
}

template <int kMode, bool kReg, int kThreads, int kLanes, int kVec, int kItems>
void run_row(const RowProblem& p, const float* x, float* out, const float* w, float eps,
             cudaStream_t stream) {
  constexpr int64_t kGroups = kThreads / kLanes;
  const int64_t blocks = std::min<int64_t>((p.rows + kGroups - 1) / kGroups, int64_t{1} << 30);
  row_map_kernel<kMode, kReg, kThreads, kLanes, kVec, kItems>
      <<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(x, out, w, p.rows, p.cols, eps);
  TT_CUDA_CHECK_LAUNCH();
}

template <int kMode>
void launch_mode(const RowConfig& cfg, const RowProblem& p, const float* x, float* out,
                 const float* w, float eps, cudaStream_t stream) {
#define TT_ROW_CASE(R, T, L, V, I)                                                 \
  if (cfg.reg == (R != 0) && cfg.threads == T && cfg.lanes == L && cfg.vec == V && \
      cfg.items == I) {                                                            \
    run_row<kMode, R != 0, T, L, V, I>(p, x, out, w, eps, stream);                 \
    return;                                                                        \
  }
  TT_ROW_MAP_VARIANTS(TT_ROW_CASE)
#undef TT_ROW_CASE
}

}  // namespace

void launch_row_map(RowMap m, const RowConfig& cfg, const RowProblem& p, const float* x, float* out,
                    const float* weight, float eps, cudaStream_t stream) {
  if (p.rows == 0) return;
  TT_CHECK(cfg.valid(p),
           "{}: config {} is not valid for {} rows of {} floats with {}-float alignment",
           row_map_name(m), cfg.to_config().str(), p.rows, p.cols, p.align);
  switch (m) {
    case RowMap::kSoftmax:
      return launch_mode<kSoftmax>(cfg, p, x, out, weight, eps, stream);
    case RowMap::kLogSoftmax:
      return launch_mode<kLogSoftmax>(cfg, p, x, out, weight, eps, stream);
    case RowMap::kRmsNorm:
      return launch_mode<kRms>(cfg, p, x, out, weight, eps, stream);
  }
}

}  // namespace tt::ops::cuda::reduce
