// Our own strict-float32 SIMT GEMM, C[M,N] = X[M,K] W[N,K]^T with an epilogue applied
// to the accumulators in registers. Included only by the .cu files that instantiate
// it (tiled_gemm_*.cu); callers use tiled_gemm.h.
//
// Shape of the kernel (the classic outer-product SGEMM, tuned for Hopper's FFMA path):
//  - a CTA computes a BM x BN tile; each thread a TM x TN tile made of 4 x 4 blocks
//    spread BM / (TM/4) rows and BN / (TN/4) columns apart, so that a thread's four
//    consecutive rows (columns) are one 16-byte shared-memory load (LDS.128) and a
//    warp's stores of a row are contiguous;
//  - lanes are 8 along N x 4 along M, so a warp's LDS.128 touch 4 (A) and 8 (B)
//    distinct vectors per k: one shared-memory wavefront each, the rest broadcast;
//  - X and W tiles are read from global memory with `VEC`-wide loads along K and
//    stored transposed (k-major, rows padded by 4 floats so that the transposing
//    stores do not collide in a bank and rows stay 16-byte aligned);
//  - two shared-memory buffers: the next K step's global loads are issued into
//    registers before the current step's FFMAs and stored after them, so one
//    __syncthreads per K step and the load latency hides behind BK * TM * TN FFMAs;
//  - every load and store is predicated, so any M, N, K works (K tails read zeros).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "ops/cuda/gemm/epilogue.h"

namespace tt::ops::cuda::gemm::detail {

template <int BM_, int BN_, int BK_, int TM_, int TN_, int VEC_>
struct Tile {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, TM = TM_, TN = TN_, VEC = VEC_;
  static constexpr int kThreadsM = BM / TM;
  static constexpr int kThreadsN = BN / TN;
  static constexpr int kThreads = kThreadsM * kThreadsN;
  static constexpr int kWarpsN = kThreadsN / 8;
  static constexpr int kSubM = TM / 4;  // 4x4 blocks per thread along M
  static constexpr int kSubN = TN / 4;
  static constexpr int kStrideM = BM / kSubM;  // rows between a thread's blocks
  static constexpr int kStrideN = BN / kSubN;
  static constexpr int kLdA = BM + 4;  // padded k-major rows of the shared tiles
  static constexpr int kLdB = BN + 4;
  static constexpr int kVecsPerRow = BK / VEC;
  static constexpr int kLoadsA = BM * BK / VEC / kThreads;
  static constexpr int kLoadsB = BN * BK / VEC / kThreads;
  static constexpr int kRowsPerLoad = kThreads / kVecsPerRow;  // rows between a thread's loads
  static constexpr int kSmemFloats = 2 * BK * (kLdA + kLdB);

  static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tiles are made of 4x4 blocks");
  static_assert(kThreadsN % 8 == 0 && kThreadsM % 4 == 0, "lanes are 8 (N) x 4 (M)");
  static_assert(VEC == 1 || VEC == 2 || VEC == 4, "vector width 1, 2 or 4");
  static_assert(BK % VEC == 0 && kThreads % kVecsPerRow == 0, "loads must tile a K step");
  static_assert(kLoadsA >= 1 && kLoadsA * VEC * kThreads == BM * BK, "A loads must tile");
  static_assert(kLoadsB >= 1 && kLoadsB * VEC * kThreads == BN * BK, "B loads must tile");
};

template <int VEC>
struct VecOf;
template <>
struct VecOf<1> {
  using T = float;
};
template <>
struct VecOf<2> {
  using T = float2;
};
template <>
struct VecOf<4> {
  using T = float4;
};

template <int VEC>
__device__ __forceinline__ void load_vec(float (&r)[VEC], const float* p, bool ok) {
  using V = typename VecOf<VEC>::T;
  V v;
  if (ok) {
    v = __ldg(reinterpret_cast<const V*>(p));
  } else {
    if constexpr (VEC == 1) {
      v = 0.f;
    } else if constexpr (VEC == 2) {
      v = make_float2(0.f, 0.f);
    } else {
      v = make_float4(0.f, 0.f, 0.f, 0.f);
    }
  }
  if constexpr (VEC == 1) {
    r[0] = v;
  } else if constexpr (VEC == 2) {
    r[0] = v.x, r[1] = v.y;
  } else {
    r[0] = v.x, r[1] = v.y, r[2] = v.z, r[3] = v.w;
  }
}

// The operand loader of one K step: `LOADS` vectors of one matrix (X or W, both
// [rows, K] row-major) per thread, kept in registers between the global load and the
// transposing shared-memory store.
template <class T, int LOADS>
struct OperandLoader {
  const float* ptr[LOADS];  // this thread's vectors at k = 0
  bool row_ok[LOADS];
  int smem_row[LOADS];
  int k_in_step;  // first k of this thread's vectors inside a step
  float reg[LOADS][T::VEC];

  __device__ __forceinline__ void init(const float* base, int64_t rows, int64_t row0, int64_t k,
                                       int tid) {
    k_in_step = (tid % T::kVecsPerRow) * T::VEC;
#pragma unroll
    for (int i = 0; i < LOADS; ++i) {
      const int r = tid / T::kVecsPerRow + i * T::kRowsPerLoad;
      const int64_t g = row0 + r;
      smem_row[i] = r;
      row_ok[i] = g < rows;
      // Rows past the end point at row 0 so that no address is ever out of bounds.
      ptr[i] = base + (row_ok[i] ? g : 0) * k + k_in_step;
    }
  }

  __device__ __forceinline__ void load(int64_t k0, int64_t k) {
    const bool k_ok = k0 + k_in_step < k;  // K % VEC == 0, so a vector is all in or all out
#pragma unroll
    for (int i = 0; i < LOADS; ++i) load_vec<T::VEC>(reg[i], ptr[i] + k0, row_ok[i] && k_ok);
  }

  __device__ __forceinline__ void store(float* s, int ld) const {
#pragma unroll
    for (int i = 0; i < LOADS; ++i) {
#pragma unroll
      for (int j = 0; j < T::VEC; ++j) s[(k_in_step + j) * ld + smem_row[i]] = reg[i][j];
    }
  }
};

template <class T>
struct ThreadPos {
  int tx, ty;  // position in the kThreadsM x kThreadsN grid
  int lane, warp;
  __device__ __forceinline__ ThreadPos() {
    const int tid = threadIdx.x;
    lane = tid & 31;
    warp = tid >> 5;
    tx = (warp % T::kWarpsN) * 8 + (lane & 7);
    ty = (warp / T::kWarpsN) * 4 + (lane >> 3);
  }
  // Tile-local row of accumulator row i, column of accumulator column j.
  __device__ __forceinline__ int row(int i) const {
    return (i / 4) * T::kStrideM + ty * 4 + (i % 4);
  }
  __device__ __forceinline__ int col(int j) const {
    return (j / 4) * T::kStrideN + tx * 4 + (j % 4);
  }
};

// The main loop: acc = X[m0:m0+BM, :] W[n0:n0+BN, :]^T for this thread's elements.
template <class T>
__device__ __forceinline__ void mainloop(float (&acc)[T::TM][T::TN], float* smem,
                                         const float* __restrict__ x, const float* __restrict__ w,
                                         int64_t m, int64_t n, int64_t k, int64_t m0, int64_t n0,
                                         const ThreadPos<T>& pos) {
  // Buffer b of A at smem + b * kStepA, of B at bs + b * kStepB (offsets, not a
  // pointer array: a run-time index into an array would go to local memory).
  constexpr int kStepA = T::BK * T::kLdA, kStepB = T::BK * T::kLdB;
  float* const as = smem;
  float* const bs = smem + 2 * kStepA;

#pragma unroll
  for (int i = 0; i < T::TM; ++i) {
#pragma unroll
    for (int j = 0; j < T::TN; ++j) acc[i][j] = 0.f;
  }

  OperandLoader<T, T::kLoadsA> la;
  OperandLoader<T, T::kLoadsB> lb;
  la.init(x, m, m0, k, threadIdx.x);
  lb.init(w, n, n0, k, threadIdx.x);

  const int64_t steps = (k + T::BK - 1) / T::BK;
  if (steps == 0) return;
  la.load(0, k);
  lb.load(0, k);
  la.store(as, T::kLdA);
  lb.store(bs, T::kLdB);
  __syncthreads();

  int cur = 0;
  for (int64_t s = 0; s < steps; ++s) {
    const bool more = s + 1 < steps;
    if (more) {
      la.load((s + 1) * T::BK, k);
      lb.load((s + 1) * T::BK, k);
    }
    const float* a_s = as + cur * kStepA + pos.ty * 4;
    const float* b_s = bs + cur * kStepB + pos.tx * 4;
#pragma unroll
    for (int kk = 0; kk < T::BK; ++kk) {
      float a[T::TM], b[T::TN];
#pragma unroll
      for (int sb = 0; sb < T::kSubM; ++sb) {
        const float4 v = *reinterpret_cast<const float4*>(a_s + kk * T::kLdA + sb * T::kStrideM);
        a[sb * 4 + 0] = v.x, a[sb * 4 + 1] = v.y, a[sb * 4 + 2] = v.z, a[sb * 4 + 3] = v.w;
      }
#pragma unroll
      for (int sb = 0; sb < T::kSubN; ++sb) {
        const float4 v = *reinterpret_cast<const float4*>(b_s + kk * T::kLdB + sb * T::kStrideN);
        b[sb * 4 + 0] = v.x, b[sb * 4 + 1] = v.y, b[sb * 4 + 2] = v.z, b[sb * 4 + 3] = v.w;
      }
#pragma unroll
      for (int i = 0; i < T::TM; ++i) {
#pragma unroll
        for (int j = 0; j < T::TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
      }
    }
    if (more) {
      la.store(as + (cur ^ 1) * kStepA, T::kLdA);
      lb.store(bs + (cur ^ 1) * kStepB, T::kLdB);
    }
    // Orders this step's reads of `cur` before the next step's stores into it, and
    // the stores into `cur ^ 1` before the next step's reads; after the last step it
    // frees the shared memory for the epilogue.
    __syncthreads();
    cur ^= 1;
  }
}

// Step OP of the epilogue on column j of a thread's accumulators (its TM rows),
// unrolled for that op. Elements past M or N read no operand (they are never stored
// or counted).
template <class T, EpilogueOp OP>
__device__ __forceinline__ void column_step(float (&v)[T::TM][T::TN], int j, const EpilogueStep& st,
                                            int64_t row0, int64_t m, int64_t n, int64_t m0,
                                            int64_t col, const ThreadPos<T>& pos) {
  if constexpr (reads_column(OP)) {
    EpilogueOperand o;
    if (col < n) o = column_operand(st, col);
#pragma unroll
    for (int i = 0; i < T::TM; ++i) v[i][j] = apply_op<OP>(v[i][j], o, st.scalar);
  } else if constexpr (reads_element(OP)) {
#pragma unroll
    for (int i = 0; i < T::TM; ++i) {
      const int64_t row = m0 + pos.row(i);
      EpilogueOperand o;
      if (row < m && col < n) o.a = element_operand<OP>(st, row0, row, col);
      v[i][j] = apply_op<OP>(v[i][j], o, st.scalar);
    }
  } else {
#pragma unroll
    for (int i = 0; i < T::TM; ++i) v[i][j] = apply_op<OP>(v[i][j], {}, st.scalar);
  }
}

// The epilogue's steps on a thread's accumulators, one accumulator column at a time
// (so that an op's temporaries span TM values, not the whole TM x TN tile: the
// 128-register variants keep everything in registers). The loop over the steps runs at
// run time (the chain is data, read from the constant bank) with one uniform branch
// per step and column.
template <class T>
__device__ __forceinline__ void apply_steps(float (&v)[T::TM][T::TN], const Epilogue& e, int64_t m,
                                            int64_t n, int64_t m0, int64_t n0,
                                            const ThreadPos<T>& pos) {
#pragma unroll
  for (int j = 0; j < T::TN; ++j) {
    const int64_t col = n0 + pos.col(j);
    for (int s = 0; s < e.count; ++s) {
      const EpilogueStep& st = e.steps[s];
      switch (st.op) {
#define TT_COLUMN_STEP(name, text)                                          \
  case EpilogueOp::name:                                                    \
    column_step<T, EpilogueOp::name>(v, j, st, e.row0, m, n, m0, col, pos); \
    break;
        TT_EPILOGUE_OPS(TT_COLUMN_STEP)
#undef TT_COLUMN_STEP
      }
    }
  }
}

// Stores a thread's accumulator tile: 4 consecutive columns as one float4 where the
// row is in range, all 4 columns are, and C rows are 16-byte aligned (vec4_ok).
template <class T>
__device__ __forceinline__ void store_tile(const float (&v)[T::TM][T::TN], float* __restrict__ c,
                                           int64_t m, int64_t n, int64_t m0, int64_t n0,
                                           const ThreadPos<T>& pos, bool vec4_ok) {
#pragma unroll
  for (int i = 0; i < T::TM; ++i) {
    const int64_t row = m0 + pos.row(i);
    if (row >= m) continue;
    float* crow = c + row * n;
#pragma unroll
    for (int jb = 0; jb < T::kSubN; ++jb) {
      const int64_t col = n0 + pos.col(jb * 4);
      if (vec4_ok && col + 3 < n) {
        *reinterpret_cast<float4*>(crow + col) =
            make_float4(v[i][jb * 4], v[i][jb * 4 + 1], v[i][jb * 4 + 2], v[i][jb * 4 + 3]);
      } else {
#pragma unroll
        for (int jj = 0; jj < 4; ++jj) {
          if (col + jj < n) crow[col + jj] = v[i][jb * 4 + jj];
        }
      }
    }
  }
}

// Groups per tile handled by the fused group norm (BN / group_size <= this).
constexpr int kMaxGroupsPerTile = 4;

// Sum over the 8 lanes of a warp that share a row (lane bits 0..2).
__device__ __forceinline__ float sum_over_row_lanes(float v) {
  v += __shfl_xor_sync(0xffffffffu, v, 1);
  v += __shfl_xor_sync(0xffffffffu, v, 2);
  v += __shfl_xor_sync(0xffffffffu, v, 4);
  return v;
}

// Sum over the 4 lanes of a warp that share a column (lane bits 3..4).
__device__ __forceinline__ float sum_over_col_lanes(float v) {
  v += __shfl_xor_sync(0xffffffffu, v, 8);
  v += __shfl_xor_sync(0xffffffffu, v, 16);
  return v;
}

// Adds, for every row of this thread, f(v) summed over each group's columns into
// red[row][group] (shared, zeroed by the caller). `group_of[jb]` is the tile-local
// group of the thread's column block jb.
template <class T, class F>
__device__ __forceinline__ void group_row_sums(const float (&v)[T::TM][T::TN],
                                               const int (&group_of)[T::kSubN], float* red,
                                               const ThreadPos<T>& pos, F f) {
#pragma unroll
  for (int i = 0; i < T::TM; ++i) {
    float part[kMaxGroupsPerTile];
#pragma unroll
    for (int g = 0; g < kMaxGroupsPerTile; ++g) part[g] = 0.f;
#pragma unroll
    for (int jb = 0; jb < T::kSubN; ++jb) {
      float s = 0.f;
#pragma unroll
      for (int jj = 0; jj < 4; ++jj) s += f(v[i][jb * 4 + jj]);
        // Compile-time indices only (a run-time index would put `part` in local memory).
#pragma unroll
      for (int g = 0; g < kMaxGroupsPerTile; ++g) part[g] += group_of[jb] == g ? s : 0.f;
    }
#pragma unroll
    for (int g = 0; g < kMaxGroupsPerTile; ++g) part[g] = sum_over_row_lanes(part[g]);
    if ((pos.lane & 7) == 0) {
#pragma unroll
      for (int g = 0; g < kMaxGroupsPerTile; ++g) {
        if (part[g] != 0.f) atomicAdd(&red[pos.row(i) * kMaxGroupsPerTile + g], part[g]);
      }
    }
  }
}

// Adds, for every column of this thread, f(v) summed over the tile's valid rows into
// red[col] (shared, zeroed by the caller).
template <class T, class F>
__device__ __forceinline__ void column_sums(const float (&v)[T::TM][T::TN], float* red, int64_t m,
                                            int64_t m0, const ThreadPos<T>& pos, F f) {
#pragma unroll
  for (int j = 0; j < T::TN; ++j) {
    float s = 0.f;
#pragma unroll
    for (int i = 0; i < T::TM; ++i) s += m0 + pos.row(i) < m ? f(v[i][j], j) : 0.f;
    s = sum_over_col_lanes(s);
    if ((pos.lane >> 3) == 0) atomicAdd(&red[pos.col(j)], s);
  }
}

// Maps the linear CTA index to a tile so that consecutive CTAs sweep a band of
// kGroupM tile rows column by column: the W tiles they read are shared in L2 by the
// band's CTAs in flight together.
constexpr int kGroupM = 8;
__device__ __forceinline__ void tile_of_block(int64_t tiles_m, int64_t tiles_n, int64_t& tm,
                                              int64_t& tn) {
  const int64_t id = blockIdx.x;
  const int64_t per_band = kGroupM * tiles_n;
  const int64_t band = id / per_band;
  const int64_t first_m = band * kGroupM;
  const int64_t rows = tiles_m - first_m < kGroupM ? tiles_m - first_m : kGroupM;
  const int64_t in_band = id % per_band;
  tm = first_m + in_band % rows;
  tn = in_band / rows;
}

template <class T, int MIN_BLOCKS, EpilogueKind KIND>
__global__ void __launch_bounds__(T::kThreads, MIN_BLOCKS)
    tiled_gemm_kernel(const float* __restrict__ x, const float* __restrict__ w,
                      float* __restrict__ c, int64_t m, int64_t n, int64_t k,
                      const __grid_constant__ Epilogue e, bool vec4_ok) {
  __shared__ __align__(16) float smem[T::kSmemFloats];
  const ThreadPos<T> pos;
  int64_t tile_m, tile_n;
  tile_of_block((m + T::BM - 1) / T::BM, (n + T::BN - 1) / T::BN, tile_m, tile_n);
  const int64_t m0 = tile_m * T::BM, n0 = tile_n * T::BN;

  float v[T::TM][T::TN];
  mainloop<T>(v, smem, x, w, m, n, k, m0, n0, pos);

  apply_steps<T>(v, e, m, n, m0, n0, pos);

  if constexpr (KIND == EpilogueKind::kGroupNorm) {
    // Two-pass statistics of each (row, group) over the group's columns, all inside
    // this tile: mean first, then the sum of squared deviations from it.
    const int gs = static_cast<int>(e.group_size);
    float* sum = smem;
    float* ssd = smem + T::BM * kMaxGroupsPerTile;
    for (int i = threadIdx.x; i < 2 * T::BM * kMaxGroupsPerTile; i += T::kThreads) smem[i] = 0.f;
    int group_of[T::kSubN];
#pragma unroll
    for (int jb = 0; jb < T::kSubN; ++jb) group_of[jb] = pos.col(jb * 4) / gs;
    __syncthreads();
    group_row_sums<T>(v, group_of, sum, pos, [](float x) { return x; });
    __syncthreads();
    const float inv = 1.f / static_cast<float>(gs);
    // Centre in place (no per-row mean kept in registers), then sum the squares.
#pragma unroll
    for (int i = 0; i < T::TM; ++i) {
#pragma unroll
      for (int jb = 0; jb < T::kSubN; ++jb) {
        const float mu = sum[pos.row(i) * kMaxGroupsPerTile + group_of[jb]] * inv;
#pragma unroll
        for (int jj = 0; jj < 4; ++jj) v[i][jb * 4 + jj] -= mu;
      }
    }
    group_row_sums<T>(v, group_of, ssd, pos, [](float x) { return x * x; });
    __syncthreads();
#pragma unroll
    for (int jb = 0; jb < T::kSubN; ++jb) {
      float g[4], b[4];
#pragma unroll
      for (int jj = 0; jj < 4; ++jj) {
        const int64_t col = n0 + pos.col(jb * 4 + jj);
        g[jj] = col < n && e.gamma ? __ldg(e.gamma + col) : 1.f;
        b[jj] = col < n && e.beta ? __ldg(e.beta + col) : 0.f;
      }
#pragma unroll
      for (int i = 0; i < T::TM; ++i) {
        const float var = ssd[pos.row(i) * kMaxGroupsPerTile + group_of[jb]] * inv;
        const float rstd = 1.f / sqrtf(var + e.eps);
#pragma unroll
        for (int jj = 0; jj < 4; ++jj) v[i][jb * 4 + jj] = v[i][jb * 4 + jj] * rstd * g[jj] + b[jj];
      }
    }
  }

  store_tile<T>(v, c, m, n, m0, n0, pos, vec4_ok);

  if constexpr (KIND == EpilogueKind::kColumnStats) {
    // Mean and M2 of each column over this tile's valid rows, two-pass, written as
    // band row0 / BM + tile_m of the [bands][N] buffers (the launcher checks that
    // row0 is a multiple of BM).
    float* sum = smem;
    float* ssd = smem + T::BN;
    for (int i = threadIdx.x; i < 2 * T::BN; i += T::kThreads) smem[i] = 0.f;
    __syncthreads();
    column_sums<T>(v, sum, m, m0, pos, [](float x, int) { return x; });
    __syncthreads();
    const int64_t rows = m - m0 < T::BM ? m - m0 : T::BM;
    const float inv = 1.f / static_cast<float>(rows);
    float mean[T::TN];
#pragma unroll
    for (int j = 0; j < T::TN; ++j) mean[j] = sum[pos.col(j)] * inv;
    column_sums<T>(v, ssd, m, m0, pos, [&](float x, int j) {
      const float d = x - mean[j];
      return d * d;
    });
    __syncthreads();
    const int64_t band = e.row0 / T::BM + tile_m;
    for (int j = threadIdx.x; j < T::BN; j += T::kThreads) {
      if (n0 + j < n) {
        e.part_mean[band * n + n0 + j] = sum[j] * inv;
        e.part_m2[band * n + n0 + j] = ssd[j];
      }
    }
  }
}

}  // namespace tt::ops::cuda::gemm::detail
