// The attention family's kernels (attention.h describes both). Included by the
// instantiation files only.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "core/cuda/check.h"
#include "ops/attention_problem.h"
#include "ops/cuda/attention/attention_order.cuh"

namespace tt::ops::cuda::attention {

// The problem as the kernels read it: int64 shapes and strides (views of any size).
struct KernelArgs {
  AttentionProblem p;
  const float* q;
  const float* k;
  const float* v;
  const void* mask;
  float* out;
  float scale;  // tf32 mma: scale * log2(e), the scores then live in base 2
};

__device__ __forceinline__ int64_t min_i64(int64_t a, int64_t b) { return a < b ? a : b; }

// The keys that query rows first_row .. first_row + rows - 1 attend: all S, or causal
// (top-left aligned) those up to the last row.
__device__ __forceinline__ int64_t attended_keys(const AttentionProblem& p, int64_t first_row,
                                                 int64_t rows) {
  return p.causal ? min_i64(p.S, first_row + rows) : p.S;
}

// Batch b's index along each batch dim (row-major). 32-bit: b and the batch counts fit a
// grid dimension, and a 64-bit division is a called routine of about 70 instructions
// (batch_base's ten of them were most of a wgmma CTA's microsecond before its barrier).
struct BatchIndex {
  uint32_t at[kAttnMaxBatch];
};
__device__ __forceinline__ BatchIndex batch_index(const AttentionProblem& p, int64_t b) {
  BatchIndex ix{};
  uint32_t rest = static_cast<uint32_t>(b);
#pragma unroll
  for (int d = kAttnMaxBatch - 1; d >= 0; --d) {
    if (d < p.batch_rank) {
      const uint32_t n = static_cast<uint32_t>(p.batch[d]);
      ix.at[d] = rest % n;
      rest /= n;
    }
  }
  return ix;
}
__device__ __forceinline__ int64_t batch_offset(const AttentionProblem& p, const AttnStrides& s,
                                                const BatchIndex& ix) {
  int64_t off = 0;
#pragma unroll
  for (int d = 0; d < kAttnMaxBatch; ++d) {
    if (d < p.batch_rank) off += int64_t{ix.at[d]} * s.batch[d];
  }
  return off;
}
__device__ __forceinline__ int64_t batch_offset(const AttentionProblem& p, const AttnStrides& s,
                                                int64_t b) {
  return batch_offset(p, s, batch_index(p, b));
}

// One batch's operands: base pointers (and the mask's element offset).
struct BatchBase {
  const float* q;
  const float* k;
  const float* v;
  int64_t mask;
  float* out;
};

__device__ __forceinline__ BatchBase batch_base(const KernelArgs& a, int64_t b) {
  const AttentionProblem& p = a.p;
  const BatchIndex ix = batch_index(p, b);
  return {a.q + batch_offset(p, p.q, ix), a.k + batch_offset(p, p.k, ix),
          a.v + batch_offset(p, p.v, ix), a.mask ? batch_offset(p, p.mask, ix) : 0,
          a.out + batch_offset(p, p.out, ix)};
}

// The mask's contribution to score (i, j): -inf where a boolean mask says no,
// the additive value times `mul` otherwise (0 without a mask).
__device__ __forceinline__ float mask_term(const AttentionProblem& p, const void* mask,
                                           int64_t row_off, int64_t j, float mul) {
  if (p.mask_kind == AttnMask::kBoolean) {
    return static_cast<const uint8_t*>(mask)[row_off + j * p.mask.col] ? 0.f : -INFINITY;
  }
  if (p.mask_kind == AttnMask::kAdditive) {
    return static_cast<const float*>(mask)[row_off + j * p.mask.col] * mul;
  }
  return 0.f;
}

// ---- generic: a warp per `ROWS` query rows, one key per lane ----

constexpr int kGenericKeys = 32;   // keys per tile: one per lane
constexpr int kGenericCols = 256;  // output columns per grid.z slice: 8 per lane

template <int ROWS>
__global__ void attention_generic_kernel(KernelArgs a) {
  const AttentionProblem& p = a.p;
  extern __shared__ float smem[];
  const int warps = blockDim.x / 32;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t E = p.E;
  const int64_t col0 = int64_t{blockIdx.z} * kGenericCols;
  const int evc = static_cast<int>(min_i64(kGenericCols, p.Ev - col0));
  float* qs = smem;                         // [warps * ROWS][E]
  float* ks = qs + warps * ROWS * E;        // [32][E + 1]: lane j reads row j
  float* vs = ks + kGenericKeys * (E + 1);  // [32][evc]
  const int64_t b = blockIdx.y;
  const int64_t row0 = int64_t{blockIdx.x} * warps * ROWS;
  const BatchBase base = batch_base(a, b);
  const float *qb = base.q, *kb = base.k, *vb = base.v;
  const int64_t mb = base.mask;
  float* ob = base.out;

  for (int64_t i = threadIdx.x; i < warps * ROWS * E; i += blockDim.x) {
    const int64_t r = row0 + i / E;
    qs[i] = r < p.L ? qb[r * p.q.row + (i % E) * p.q.col] : 0.f;
  }
  float m[ROWS], l[ROWS], o[ROWS][kGenericCols / 32];
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    m[r] = -INFINITY;
    l[r] = 0.f;
#pragma unroll
    for (int c = 0; c < kGenericCols / 32; ++c) o[r][c] = 0.f;
  }
  // Causal: keys past the block's last row are never attended.
  const int64_t keys = attended_keys(p, row0, warps * ROWS);
  for (int64_t n0 = 0; n0 < keys; n0 += kGenericKeys) {
    __syncthreads();
    for (int64_t i = threadIdx.x; i < kGenericKeys * E; i += blockDim.x) {
      const int64_t j = n0 + i / E;
      ks[(i / E) * (E + 1) + i % E] = j < p.S ? kb[j * p.k.row + (i % E) * p.k.col] : 0.f;
    }
    for (int64_t i = threadIdx.x; i < kGenericKeys * evc; i += blockDim.x) {
      const int64_t j = n0 + i / evc;
      vs[i] = j < p.S ? vb[j * p.v.row + (col0 + i % evc) * p.v.col] : 0.f;
    }
    __syncthreads();
    const int64_t j = n0 + lane;
    float s[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) s[r] = 0.f;
    const float* kr = ks + lane * (E + 1);
    const float* qw = qs + warp * ROWS * E;
    for (int64_t e = 0; e < E; ++e) {
      const float kv = kr[e];
#pragma unroll
      for (int r = 0; r < ROWS; ++r) s[r] = fmaf(qw[r * E + e], kv, s[r]);
    }
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const int64_t i = row0 + warp * ROWS + r;
      float x = s[r] * a.scale;
      if (j >= p.S || (p.causal && j > i)) x = -INFINITY;
      if (a.mask && j < p.S && i < p.L) x += mask_term(p, a.mask, mb + i * p.mask.row, j, 1.f);
      float mx = x;
#pragma unroll
      for (int off = 16; off > 0; off /= 2) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, off));
      const float m_new = fmaxf(m[r], mx);
      // A row that has seen only -inf keeps base 0: exp gives 0, never -inf - -inf.
      const float base = m_new == -INFINITY ? 0.f : m_new;
      const float alpha = expf(m[r] - base);
      const float pj = expf(x - base);
      float sum = pj;
#pragma unroll
      for (int off = 16; off > 0; off /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, off);
      l[r] = l[r] * alpha + sum;
      m[r] = m_new;
      s[r] = pj;
#pragma unroll
      for (int c = 0; c < kGenericCols / 32; ++c) o[r][c] *= alpha;
    }
    const int tile = static_cast<int>(min_i64(kGenericKeys, p.S - n0));
    for (int jj = 0; jj < tile; ++jj) {
      float pj[ROWS];
#pragma unroll
      for (int r = 0; r < ROWS; ++r) pj[r] = __shfl_sync(0xffffffffu, s[r], jj);
      const float* vr = vs + jj * evc;
#pragma unroll
      for (int c = 0; c < kGenericCols / 32; ++c) {
        const int col = lane + 32 * c;
        const float vv = col < evc ? vr[col] : 0.f;
#pragma unroll
        for (int r = 0; r < ROWS; ++r) o[r][c] = fmaf(pj[r], vv, o[r][c]);
      }
    }
  }
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    const int64_t i = row0 + warp * ROWS + r;
    if (i >= p.L) continue;
    // l == 0: every score was -inf; PyTorch's safe softmax gives zeros.
    const float inv = l[r] > 0.f ? 1.f / l[r] : 0.f;
#pragma unroll
    for (int c = 0; c < kGenericCols / 32; ++c) {
      const int col = lane + 32 * c;
      if (col < evc) ob[i * p.out.row + (col0 + col) * p.out.col] = o[r][c] * inv;
    }
  }
}

// ---- mma: FlashAttention-2 on mma.sync m16n8k8 tf32 ----

__device__ __forceinline__ uint32_t to_tf32(float x) {
  uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return r;
}

__device__ __forceinline__ void mma_tf32(float (&d)[4], const uint32_t (&a)[4],
                                         const uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// d += a * b in the mode's arithmetic: one tf32 product, or the 3xTF32 split (the
// small cross terms first, so they are not lost under the large one).
template <bool ACCURATE>
__device__ __forceinline__ void mma_mode(float (&d)[4], const float (&a)[4], const float (&b)[2]) {
  uint32_t ah[4], bh[2];
#pragma unroll
  for (int i = 0; i < 4; ++i) ah[i] = to_tf32(a[i]);
#pragma unroll
  for (int i = 0; i < 2; ++i) bh[i] = to_tf32(b[i]);
  if constexpr (ACCURATE) {
    uint32_t al[4], bl[2];
#pragma unroll
    for (int i = 0; i < 4; ++i) al[i] = to_tf32(a[i] - __uint_as_float(ah[i]));
#pragma unroll
    for (int i = 0; i < 2; ++i) bl[i] = to_tf32(b[i] - __uint_as_float(bh[i]));
    mma_tf32(d, al, bh);
    mma_tf32(d, ah, bl);
  }
  mma_tf32(d, ah, bh);
}

// big += hi*hi, small += lo*hi + hi*lo: the 3xTF32 split with the cross terms kept
// apart from the large sum until the caller adds them.
__device__ __forceinline__ void mma_split(float (&big)[4], float (&small)[4], const float (&a)[4],
                                          const float (&b)[2]) {
  uint32_t ah[4], bh[2], al[4], bl[2];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    ah[i] = to_tf32(a[i]);
    al[i] = to_tf32(a[i] - __uint_as_float(ah[i]));
  }
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    bh[i] = to_tf32(b[i]);
    bl[i] = to_tf32(b[i] - __uint_as_float(bh[i]));
  }
  mma_tf32(small, al, bh);
  mma_tf32(small, ah, bl);
  mma_tf32(big, ah, bh);
}

__device__ __forceinline__ void cp_async16(float* dst, const float* src, bool valid) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(s), "l"(src),
               "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N));
}

// Accurate-mode schemes, bits of FLAGS (tools/device/attention_kernel_bench.cu checks and
// times them side by side):
//   kSplitS   S's small cross terms (lo*hi + hi*lo) in accumulators of their own, added
//             to hi*hi once per tile, so they are not truncated against the large sum.
//             The library's accurate mode: on an H100 it halved the error (E128:
//             1.39e-6 -> 6.6e-7, E64: 8.1e-7 -> 4.8e-7 vs float64) and ran 5-10% faster.
//   kScaleS   Q enters unscaled and each score is scaled once afterwards (as strict),
//             instead of rounding q * scale per element: no measurable change; kept
//             for the bench.
constexpr int kSplitS = 1;
constexpr int kScaleS = 2;

template <int E, int WARPS, int BN, bool ACCURATE, int FLAGS = 0>
__global__ void __launch_bounds__(WARPS * 32) attention_mma_kernel(KernelArgs a) {
  constexpr bool kSplit = ACCURATE && (FLAGS & kSplitS) != 0;
  constexpr bool kLateScale = ACCURATE && (FLAGS & kScaleS) != 0;
  const float q_scale = kLateScale ? 1.f : a.scale;
  constexpr int BM = 16 * WARPS;
  constexpr int LD = E + 4;   // padded row: fragment reads hit 32 distinct banks
  constexpr int KT = E / 8;   // k-steps of q k^T
  constexpr int NT = BN / 8;  // key blocks of 8 per tile
  const AttentionProblem& p = a.p;
  extern __shared__ float smem[];
  float* ks = smem;                // [2][BN][LD]
  float* vs = smem + 2 * BN * LD;  // [2][BN][LD]
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = lane / 4, t = lane % 4;
  const QueryTile qt = query_tile_reversed(p);
  const int64_t m0 = qt.mt * BM;
  const BatchBase base = batch_base(a, qt.b);
  const int64_t rA = m0 + warp * 16 + g, rB = rA + 8;

  // Q fragments, scaled, in float32 (split per use in accurate mode).
  float qf[KT][4];
#pragma unroll
  for (int kk = 0; kk < KT; ++kk) {
    const int c0 = kk * 8 + t, c1 = c0 + 4;
    qf[kk][0] = rA < p.L ? base.q[rA * p.q.row + c0] * q_scale : 0.f;
    qf[kk][1] = rB < p.L ? base.q[rB * p.q.row + c0] * q_scale : 0.f;
    qf[kk][2] = rA < p.L ? base.q[rA * p.q.row + c1] * q_scale : 0.f;
    qf[kk][3] = rB < p.L ? base.q[rB * p.q.row + c1] * q_scale : 0.f;
  }
  float o[KT][4];
#pragma unroll
  for (int n = 0; n < KT; ++n) {
#pragma unroll
    for (int i = 0; i < 4; ++i) o[n][i] = 0.f;
  }
  float mA = -INFINITY, mB = -INFINITY, lA = 0.f, lB = 0.f;
  const float mask_mul = ACCURATE ? 1.f : 1.4426950408889634f;

  const int64_t keys = attended_keys(p, m0, BM);
  const int tiles = static_cast<int>((keys + BN - 1) / BN);
  const auto load = [&](int tile, int stage) {
    const int64_t n0 = int64_t{tile} * BN;
    constexpr int chunks = BN * E / 4;
    for (int c = threadIdx.x; c < chunks; c += WARPS * 32) {
      const int r = c / (E / 4), col = (c % (E / 4)) * 4;
      const int64_t j = n0 + r;
      const bool ok = j < p.S;
      const int64_t jj = ok ? j : 0;
      cp_async16(ks + (stage * BN + r) * LD + col, base.k + jj * p.k.row + col, ok);
      cp_async16(vs + (stage * BN + r) * LD + col, base.v + jj * p.v.row + col, ok);
    }
    cp_async_commit();
  };
  if (tiles > 0) load(0, 0);
  for (int tile = 0; tile < tiles; ++tile) {
    const int stage = tile & 1;
    if (tile + 1 < tiles) {
      load(tile + 1, stage ^ 1);
      cp_async_wait<1>();
    } else {
      cp_async_wait<0>();
    }
    __syncthreads();
    const float* kt = ks + stage * BN * LD;
    const float* vt = vs + stage * BN * LD;
    const int64_t n0 = int64_t{tile} * BN;
    float s[NT][4], ss[NT][4];  // ss: kSplit's small products, apart until the tile ends
#pragma unroll
    for (int j = 0; j < NT; ++j) {
#pragma unroll
      for (int i = 0; i < 4; ++i) s[j][i] = ss[j][i] = 0.f;
    }
#pragma unroll
    for (int kk = 0; kk < KT; ++kk) {
#pragma unroll
      for (int j = 0; j < NT; ++j) {
        const float bf[2] = {kt[(j * 8 + g) * LD + kk * 8 + t],
                             kt[(j * 8 + g) * LD + kk * 8 + t + 4]};
        if constexpr (kSplit) {
          mma_split(s[j], ss[j], qf[kk], bf);
        } else {
          mma_mode<ACCURATE>(s[j], qf[kk], bf);
        }
      }
    }
    if constexpr (kSplit) {
#pragma unroll
      for (int j = 0; j < NT; ++j) {
#pragma unroll
        for (int i = 0; i < 4; ++i) s[j][i] += ss[j][i];
      }
    }
    if constexpr (kLateScale) {
#pragma unroll
      for (int j = 0; j < NT; ++j) {
#pragma unroll
        for (int i = 0; i < 4; ++i) s[j][i] *= a.scale;
      }
    }
    // Keys past S, above the causal diagonal or masked out.
    const bool edge = n0 + BN > p.S || (p.causal && n0 + BN - 1 > m0) || a.mask;
    if (edge) {
#pragma unroll
      for (int j = 0; j < NT; ++j) {
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          const int64_t row = i < 2 ? rA : rB;
          const int64_t col = n0 + j * 8 + 2 * t + (i & 1);
          if (col >= p.S || (p.causal && col > row)) {
            s[j][i] = -INFINITY;
          } else if (a.mask && row < p.L) {
            s[j][i] += mask_term(p, a.mask, base.mask + row * p.mask.row, col, mask_mul);
          }
        }
      }
    }
    float tA = -INFINITY, tB = -INFINITY;
#pragma unroll
    for (int j = 0; j < NT; ++j) {
      tA = fmaxf(tA, fmaxf(s[j][0], s[j][1]));
      tB = fmaxf(tB, fmaxf(s[j][2], s[j][3]));
    }
#pragma unroll
    for (int off = 1; off < 4; off *= 2) {
      tA = fmaxf(tA, __shfl_xor_sync(0xffffffffu, tA, off));
      tB = fmaxf(tB, __shfl_xor_sync(0xffffffffu, tB, off));
    }
    const float nA = fmaxf(mA, tA), nB = fmaxf(mB, tB);
    const float baseA = nA == -INFINITY ? 0.f : nA, baseB = nB == -INFINITY ? 0.f : nB;
    float alphaA, alphaB;
    if constexpr (ACCURATE) {
      alphaA = expf(mA - baseA);
      alphaB = expf(mB - baseB);
    } else {
      alphaA = exp2f(mA - baseA);
      alphaB = exp2f(mB - baseB);
    }
    mA = nA;
    mB = nB;
    float sumA = 0.f, sumB = 0.f;
#pragma unroll
    for (int j = 0; j < NT; ++j) {
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const float base = i < 2 ? baseA : baseB;
        s[j][i] = ACCURATE ? expf(s[j][i] - base) : exp2f(s[j][i] - base);
      }
      sumA += s[j][0] + s[j][1];
      sumB += s[j][2] + s[j][3];
    }
    lA = lA * alphaA + sumA;
    lB = lB * alphaB + sumB;
    // O += P V. P's accumulator layout is an A fragment once the 8 keys of a block
    // are taken in the order 0,2,4,6,1,3,5,7: k-index t is key 2t, t+4 is key 2t+1.
    // accurate: the tile's P V in fresh accumulators, promoted into O by IEEE FMA
    // (the tensor cores' accumulation over thousands of keys drifted to 3e-5 on an
    // H100; per 64-key tile it stays at float32's level).
    float pv[ACCURATE ? KT : 1][4];
    if constexpr (ACCURATE) {
#pragma unroll
      for (int n = 0; n < KT; ++n) {
#pragma unroll
        for (int i = 0; i < 4; ++i) pv[n][i] = 0.f;
      }
    } else {
#pragma unroll
      for (int n = 0; n < KT; ++n) {
        o[n][0] *= alphaA;
        o[n][1] *= alphaA;
        o[n][2] *= alphaB;
        o[n][3] *= alphaB;
      }
    }
#pragma unroll
    for (int j = 0; j < NT; ++j) {
      const float pf[4] = {s[j][0], s[j][2], s[j][1], s[j][3]};
      const float* v0 = vt + (j * 8 + 2 * t) * LD;
#pragma unroll
      for (int n = 0; n < KT; ++n) {
        const float bf[2] = {v0[n * 8 + g], v0[LD + n * 8 + g]};
        if constexpr (ACCURATE) {
          mma_mode<true>(pv[n], pf, bf);
        } else {
          mma_mode<false>(o[n], pf, bf);
        }
      }
    }
    if constexpr (ACCURATE) {
#pragma unroll
      for (int n = 0; n < KT; ++n) {
        o[n][0] = fmaf(o[n][0], alphaA, pv[n][0]);
        o[n][1] = fmaf(o[n][1], alphaA, pv[n][1]);
        o[n][2] = fmaf(o[n][2], alphaB, pv[n][2]);
        o[n][3] = fmaf(o[n][3], alphaB, pv[n][3]);
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int off = 1; off < 4; off *= 2) {
    lA += __shfl_xor_sync(0xffffffffu, lA, off);
    lB += __shfl_xor_sync(0xffffffffu, lB, off);
  }
  // l == 0: every score was -inf; PyTorch's safe softmax gives zeros.
  const float invA = lA > 0.f ? 1.f / lA : 0.f, invB = lB > 0.f ? 1.f / lB : 0.f;
#pragma unroll
  for (int n = 0; n < KT; ++n) {
    const int col = n * 8 + 2 * t;
    if (rA < p.L) {
      *reinterpret_cast<float2*>(base.out + rA * p.out.row + col) =
          make_float2(o[n][0] * invA, o[n][1] * invA);
    }
    if (rB < p.L) {
      *reinterpret_cast<float2*>(base.out + rB * p.out.row + col) =
          make_float2(o[n][2] * invB, o[n][3] * invB);
    }
  }
}

}  // namespace tt::ops::cuda::attention

namespace tt::ops::cuda::attention {

// Rows [r0, r0 + ROWS) of a [*, E] matrix (row stride `stride`, zeros from row `limit`)
// into shared memory transposed, dst[c * ROWS + r], by a block of 256 threads. Rows
// fastest: the transposed stores of a warp hit 32 consecutive words.
template <int ROWS, int E>
__device__ __forceinline__ void load_rows_transposed(float* dst, const float* src, int64_t r0,
                                                     int64_t limit, int64_t stride) {
  for (int i = threadIdx.x; i < ROWS * E / 4; i += 256) {
    const int r = i % ROWS, c = (i / ROWS) * 4;
    float4 x = make_float4(0.f, 0.f, 0.f, 0.f);
    if (r0 + r < limit) x = *reinterpret_cast<const float4*>(src + (r0 + r) * stride + c);
    dst[(c + 0) * ROWS + r] = x.x;
    dst[(c + 1) * ROWS + r] = x.y;
    dst[(c + 2) * ROWS + r] = x.z;
    dst[(c + 3) * ROWS + r] = x.w;
  }
}

// ---- simt: the strict flash kernel, FMA units only ----
// 256 threads as 16 x 16: thread (ty, tx) holds query rows ty*TM .. +TM-1 and keys
// tx*4 .. +3 of a 64-key tile (S = Q K^T in registers, 16 FMA per two 16-byte shared
// loads), then the same rows and output columns tx*4 (+64) of O += P V, with P passed
// through shared memory. The rows never change hands, so the running max and sum stay
// in the thread. Q^T and K^T are staged transposed ([E][rows]) for 16-byte reads.
constexpr int kSimtKeys = 64;

// N consecutive floats of a transposed tile row (16-byte loads where N allows).
template <int N>
__device__ __forceinline__ void load_run(const float* src, float (&out)[N]) {
  if constexpr (N % 4 == 0) {
#pragma unroll
    for (int u = 0; u < N / 4; ++u) {
      const float4 x = *reinterpret_cast<const float4*>(src + 4 * u);
      out[4 * u] = x.x, out[4 * u + 1] = x.y, out[4 * u + 2] = x.z, out[4 * u + 3] = x.w;
    }
  } else {
#pragma unroll
    for (int i = 0; i < N; ++i) out[i] = src[i];
  }
}

template <int E, int TM>
__global__ void __launch_bounds__(256) attention_simt_kernel(KernelArgs a) {
  constexpr int BM = 16 * TM, BN = kSimtKeys;
  constexpr int CW = E / 64 > 0 ? E / 64 : 1;  // 4-column groups of O per thread
  constexpr int OC = E >= 64 ? 4 : E / 16;     // columns per group (E = 32: 2)
  const AttentionProblem& p = a.p;
  extern __shared__ float smem[];
  float* qs = smem;         // [E][BM]
  float* ks = qs + E * BM;  // [E][BN]
  float* vs = ks + E * BN;  // [BN][E]
  float* ps = vs + BN * E;  // [BN][BM]
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const QueryTile qt = query_tile_reversed(p);
  const int64_t m0 = qt.mt * BM;
  const BatchBase base = batch_base(a, qt.b);
  load_rows_transposed<BM, E>(qs, base.q, m0, p.L, p.q.row);
  float m[TM], l[TM], o[TM][CW][OC];
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    m[i] = -INFINITY;
    l[i] = 0.f;
#pragma unroll
    for (int w = 0; w < CW; ++w) {
#pragma unroll
      for (int c = 0; c < OC; ++c) o[i][w][c] = 0.f;
    }
  }
  const int64_t keys = attended_keys(p, m0, BM);
  for (int64_t n0 = 0; n0 < keys; n0 += BN) {
    __syncthreads();
    load_rows_transposed<BN, E>(ks, base.k, n0, p.S, p.k.row);
    for (int i = threadIdx.x; i < BN * E / 4; i += 256) {
      const int r = i / (E / 4), c = (i % (E / 4)) * 4;
      float4 y = make_float4(0.f, 0.f, 0.f, 0.f);
      if (n0 + r < p.S) y = *reinterpret_cast<const float4*>(base.v + (n0 + r) * p.v.row + c);
      *reinterpret_cast<float4*>(vs + r * E + c) = y;
    }
    __syncthreads();
    float s[TM][4];
#pragma unroll
    for (int i = 0; i < TM; ++i) {
#pragma unroll
      for (int j = 0; j < 4; ++j) s[i][j] = 0.f;
    }
#pragma unroll 8
    for (int e = 0; e < E; ++e) {
      const float4 kv = *reinterpret_cast<const float4*>(ks + e * BN + tx * 4);
      float qv[TM];
      load_run<TM>(qs + e * BM + ty * TM, qv);
#pragma unroll
      for (int i = 0; i < TM; ++i) {
        s[i][0] = fmaf(qv[i], kv.x, s[i][0]);
        s[i][1] = fmaf(qv[i], kv.y, s[i][1]);
        s[i][2] = fmaf(qv[i], kv.z, s[i][2]);
        s[i][3] = fmaf(qv[i], kv.w, s[i][3]);
      }
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const int64_t row = m0 + ty * TM + i;
      float mx = -INFINITY;
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int64_t col = n0 + tx * 4 + j;
        float x = s[i][j] * a.scale;
        if (col >= p.S || (p.causal && col > row)) {
          x = -INFINITY;
        } else if (a.mask && row < p.L) {
          x += mask_term(p, a.mask, base.mask + row * p.mask.row, col, 1.f);
        }
        s[i][j] = x;
        mx = fmaxf(mx, x);
      }
#pragma unroll
      for (int off = 1; off < 16; off *= 2) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, off));
      const float nm = fmaxf(m[i], mx);
      const float base = nm == -INFINITY ? 0.f : nm;
      const float alpha = expf(m[i] - base);
      m[i] = nm;
      float sum = 0.f;
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        s[i][j] = expf(s[i][j] - base);
        sum += s[i][j];
        ps[(tx * 4 + j) * BM + ty * TM + i] = s[i][j];
      }
      l[i] = l[i] * alpha + sum;  // this thread's share; summed over tx at the end
#pragma unroll
      for (int w = 0; w < CW; ++w) {
#pragma unroll
        for (int c = 0; c < OC; ++c) o[i][w][c] *= alpha;
      }
    }
    __syncthreads();
    const int tile = static_cast<int>(min_i64(BN, p.S - n0));
#pragma unroll 4
    for (int j = 0; j < tile; ++j) {
      float pv[TM];
      load_run<TM>(ps + j * BM + ty * TM, pv);
#pragma unroll
      for (int w = 0; w < CW; ++w) {
        float vv[OC];
        if constexpr (OC == 4) {
          const float4 v4 = *reinterpret_cast<const float4*>(vs + j * E + w * 64 + tx * 4);
          vv[0] = v4.x, vv[1] = v4.y, vv[2] = v4.z, vv[3] = v4.w;
        } else {
#pragma unroll
          for (int c = 0; c < OC; ++c) vv[c] = vs[j * E + w * 64 + tx * OC + c];
        }
#pragma unroll
        for (int i = 0; i < TM; ++i) {
#pragma unroll
          for (int c = 0; c < OC; ++c) o[i][w][c] = fmaf(pv[i], vv[c], o[i][w][c]);
        }
      }
    }
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    float l_row = l[i];
#pragma unroll
    for (int off = 1; off < 16; off *= 2) l_row += __shfl_xor_sync(0xffffffffu, l_row, off);
    const int64_t row = m0 + ty * TM + i;
    if (row >= p.L) continue;
    // l == 0: every score was -inf; PyTorch's safe softmax gives zeros.
    const float inv = l_row > 0.f ? 1.f / l_row : 0.f;
#pragma unroll
    for (int w = 0; w < CW; ++w) {
#pragma unroll
      for (int c = 0; c < OC; ++c)
        base.out[row * p.out.row + w * 64 + tx * OC + c] = o[i][w][c] * inv;
    }
  }
}

// The mma launchers of one head dim each (attention_mma_e*.cu: one file per head dim,
// so the variants compile in parallel); false when no variant matches.
bool launch_mma_e32(int warps, int block_n, bool accurate, const KernelArgs& a, dim3 grid,
                    size_t smem, cudaStream_t stream);
bool launch_mma_e64(int warps, int block_n, bool accurate, const KernelArgs& a, dim3 grid,
                    size_t smem, cudaStream_t stream);
bool launch_mma_e128(int warps, int block_n, bool accurate, const KernelArgs& a, dim3 grid,
                     size_t smem, cudaStream_t stream);

// Launches `kernel` with `smem` bytes of dynamic shared memory, past the 48 KB a launch
// gets without asking; every attention launcher's last step.
template <class... Params, class... Args>
void launch_with_smem(void (*kernel)(Params...), dim3 grid, unsigned threads, size_t smem,
                      cudaStream_t stream, const Args&... args) {
  TT_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(smem)));
  kernel<<<grid, threads, smem, stream>>>(args...);
  TT_CUDA_CHECK_LAUNCH();
}

// The body of those launchers: the variant (E, warps, block_n) in the mode asked.
#define TT_ATTN_LAUNCH_MMA_CASE(E_, W, BN)                                        \
  if (E_ == E && warps == W && block_n == BN) {                                   \
    const auto kernel = accurate ? attention_mma_kernel<E_, W, BN, true, kSplitS> \
                                 : attention_mma_kernel<E_, W, BN, false>;        \
    launch_with_smem(kernel, grid, W * 32, smem, stream, a);                      \
    return true;                                                                  \
  }

}  // namespace tt::ops::cuda::attention
