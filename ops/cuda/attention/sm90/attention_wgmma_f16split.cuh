// accurate attention on fp16 tensor cores (wgmma pipe 6): the 2 x fp16 split of
// Ootomo and Yokota on the TMA ping-pong pipeline of attention_wgmma_kernels.cuh, whose
// helpers (online softmax, masking, barriers, the row store) it shares. fp16 wgmma runs
// at twice tf32's rate with the same 11-bit significand, so three fp16 products cost
// what 1.5 tf32 products do.
//
// Each operand x is 2^-s (hi + lo 2^-11) with hi = fp16(x 2^s), lo = fp16((x 2^s - hi)
// 2^11); a product is hi hi + (hi lo + lo hi) 2^-11, the small products in an
// accumulator of their own, combined by IEEE FMA (the tensor cores' accumulation rounds
// toward zero). fp16's range needs the power-of-two scale s: per query row for Q (it
// joins the per-row factor that takes S back to float32), per 64-key tile for K and V (a
// factor on the tile's scores and on its P V), each from the max |x| so that the largest
// element lands in [2^14, 2^15). P in [0, 1] needs none. Where this differs from float32:
// an element more than about 2^29 below its row's (Q) or key tile's (K, V) largest loses
// relative accuracy (lo becomes subnormal near 2^-14 of fp16, hi and lo flush to zero
// below 2^-24); docs/performance.md gives the figures.
//
// A pre-pass reads K and V once: per (batch, head) and 64-key tile, the split (K as
// [2][batches][S'][E], hi then lo; V transposed, [2][batches][E][S'], keys contiguous, so
// both products read K-major B operands; S' = S rounded up to 64, zeros past S) and the
// tile's two factors. The consumer's S accumulator packs into fp16 A fragments as it
// stands (FlashAttention 2/3's trick): no key permutation. Head dim 128 (two stages) runs
// P V in halves of 64 output columns and one tile at a time, where the registers do not
// hold head dim 64's overlap of the next S with this P V.
#pragma once

#include <cuda_fp16.h>

#include <algorithm>

#include "ops/cuda/attention/sm90/attention_wgmma_kernels.cuh"

namespace tt::ops::cuda::attention {
namespace {

// wgmma m64n64k16, fp16 operands (K-major), float32 accumulator (TT_WGMMA_N64_MMA,
// sm90/wgmma_tf32.cuh). mma_rs's A: the m16n8k16 A fragment per warp, rows 16 warp + lane
// / 4 (+8), columns 2 (lane % 4) (+1) (+8).
struct WgmmaF16N64 {
  TT_WGMMA_N64_MMA("m64n64k16.f32.f16.f16", "1, 1, 0, 0", "1, 1, 0")
};
// The same with B N-major (imm-trans-b): B's rows of N contiguous, as V's rows lie in memory.
struct WgmmaF16N64BNMajor {
  TT_WGMMA_N64_MMA("m64n64k16.f32.f16.f16", "1, 1, 0, 1", "1, 1, 1")
};

inline constexpr float kF16LoScale = 2048.f;          // 2^11
inline constexpr float kF16LoUnscale = 1.f / 2048.f;  // 2^-11

// The shift s for a max |x| of m: m 2^s in [2^14, 2^15) (0 for m == 0, inf or NaN, whose
// elements pass as they are), kept within float's normal exponents.
__device__ __forceinline__ int f16_shift(float m) {
  // m's biased exponent e: m < 2^(e - 126) (frexpf's exponent; subnormals clamp alike).
  const int e = (__float_as_int(m) >> 23) & 0xff;
  if (!(m > 0.f) || e == 0xff) return 0;
  return max(-120, min(120, 141 - e));
}

__device__ __forceinline__ float exp2_int(int s) { return __int_as_float((127 + s) << 23); }

// max(m, the largest |x| of v's four).
__device__ __forceinline__ float abs_max4(float m, float4 v) {
  return fmaxf(m, fmaxf(fmaxf(fabsf(v.x), fabsf(v.y)), fmaxf(fabsf(v.z), fabsf(v.w))));
}

// The largest m of the warp's lanes, in every lane.
__device__ __forceinline__ float warp_max(float m) {
#pragma unroll
  for (int off = 16; off > 0; off /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
  return m;
}

// hi and lo of x (already scaled by 2^s), two at a time: (x.x, x.y) into one register each.
__device__ __forceinline__ void f16_split2(float x, float y, uint32_t& hi, uint32_t& lo) {
  const __half2 h = __floats2half2_rn(x, y);
  const float2 hf = __half22float2(h);
  const __half2 l = __floats2half2_rn((x - hf.x) * kF16LoScale, (y - hf.y) * kF16LoScale);
  hi = *reinterpret_cast<const uint32_t*>(&h);
  lo = *reinterpret_cast<const uint32_t*>(&l);
}

// The pre-pass: one block per (batch, head) and 64-key tile reads the tile of K and of V
// once, takes each one's max |x| on chip (no pass over the head before it, no atomics)
// and writes K's halves (rows as they are), V's transposed (keys contiguous, so both
// products read K-major B operands; through shared memory) and the tile's two factors
// back to float32, tmul[b * tiles + t] = (2^-s_k, 2^-s_v) (V_HI at head dim 128: V's two,
// one per 32 keys). Halves: hi then lo,
// `half_elems` apart; zeros past S. Each thread owns 8 consecutive floats of a row:
// two 16-byte loads, 16-byte stores of hi and lo, 8 threads a whole 128-byte line of
// halves (2-byte stores ran an earlier pre-pass at half the copy bandwidth). Grid: the
// tiles of every (batch, head), head by head; THREADS threads (the split: 128, more blocks in
// flight per SM than 256's; V_HI: kHalfVtThreads; docs/performance.md).
// V_HI: tf32's pipe 14 (attention_wgmma_quad.cuh), V's hi alone: no K, no lo, and V's shift
// kept within [kHalfVMinShift, kHalfVMaxShift], where that kernel's sums stay in float's
// range (its header).
inline constexpr int kF16SplitTileKeys = 64;
inline constexpr int kF16SplitThreads = 128;
// V_HI (pipe 14's pre-pass): 256, a third faster than 128 at head dim 128, where the
// tile's shared memory caps blocks per SM (docs/performance.md).
inline constexpr int kHalfVtThreads = 256;
inline constexpr int kHalfVMinShift = -48;
inline constexpr int kHalfVMaxShift = 48;
// V_HI's shift for a max |v| of m: f16_shift kept within [kHalfVMinShift, kHalfVMaxShift].
__device__ __forceinline__ int half_v_shift(float m) {
  return max(kHalfVMinShift, min(kHalfVMaxShift, f16_shift(m)));
}
// V_HI: the keys of one V factor, pipe 14's key tile (32 at head dim 128: the kernel that makes
// V16 itself has room for 32-key tiles only there).
__host__ __device__ constexpr int half_v_factor_keys(int e) {
  return e == 128 ? 32 : kF16SplitTileKeys;
}
template <int E, int THREADS = kF16SplitThreads, bool V_HI = false>
__global__ void __launch_bounds__(THREADS)
    attention_f16_split_kernel(KernelArgs a, __half* kh, __half* vt, float2* tmul, int64_t sp,
                               int64_t half_elems, unsigned* made, int64_t counts) {
  constexpr int TK = kF16SplitTileKeys, G = E / 8, N = TK * G / THREADS;
  static_assert(E % 8 == 0 && (TK * G) % THREADS == 0, "whole groups of 8 columns per thread");
  __shared__ float tile[TK][E + 1];
  __shared__ float2 wmax[THREADS / 32];
  const AttentionProblem& p = a.p;
  // 32-bit: the grid's index (f16split_prepass keeps it in 31 bits).
  const unsigned tiles = static_cast<unsigned>(sp / TK);
  const int64_t b = blockIdx.x / tiles, j0 = int64_t{blockIdx.x % tiles} * TK;
  const BatchIndex ix = batch_index(p, b);
  // Pipe 14 making V16 in its kernel: the first tile's block of each head here zeroes a share
  // of the `counts` counts.
  if (made != nullptr && blockIdx.x % tiles == 0) {
    const int64_t here = gridDim.x / tiles;
    for (int64_t i = b * THREADS + threadIdx.x; i < counts; i += here * THREADS) made[i] = 0;
  }
  const float* kb = a.k + batch_offset(p, p.k, ix);
  const float* vb = a.v + batch_offset(p, p.v, ix);
  const int tid = threadIdx.x;
  // The kernel may start its prologue now; it waits for this grid before reading what it
  // writes.
  let_dependents_launch();
  // Every load issued before the first use, then the maxima.
  float4 x[N][2], y[N][2];
#pragma unroll
  for (int n = 0; n < N; ++n) {
    const int i = tid + THREADS * n, r = i / G, c = (i % G) * 8;
    const int64_t j = j0 + r;
    const float4 z = make_float4(0.f, 0.f, 0.f, 0.f);
    x[n][0] = x[n][1] = y[n][0] = y[n][1] = z;
    if (j < p.S) {
      if (!V_HI) {
        x[n][0] = *reinterpret_cast<const float4*>(kb + j * p.k.row + c);
        x[n][1] = *reinterpret_cast<const float4*>(kb + j * p.k.row + c + 4);
      }
      y[n][0] = *reinterpret_cast<const float4*>(vb + j * p.v.row + c);
      y[n][1] = *reinterpret_cast<const float4*>(vb + j * p.v.row + c + 4);
    }
  }
  // V_HI at head dim 128: a factor per 32 keys, the first half's max where K's would be.
  constexpr bool kHalves = V_HI && half_v_factor_keys(E) == TK / 2;
  float mk = 0.f, mv = 0.f;
#pragma unroll
  for (int n = 0; n < N; ++n) {
    const int i = tid + THREADS * n, r = i / G, c = (i % G) * 8;
    if (kHalves && r < TK / 2) {
      mk = abs_max4(abs_max4(mk, y[n][0]), y[n][1]);
    } else {
      mk = abs_max4(abs_max4(mk, x[n][0]), x[n][1]);
      mv = abs_max4(abs_max4(mv, y[n][0]), y[n][1]);
    }
    const float yv[8] = {y[n][0].x, y[n][0].y, y[n][0].z, y[n][0].w,
                         y[n][1].x, y[n][1].y, y[n][1].z, y[n][1].w};
#pragma unroll
    for (int u = 0; u < 8; ++u) tile[r][c + u] = yv[u];
  }
#pragma unroll
  for (int off = 16; off > 0; off /= 2) {
    mk = fmaxf(mk, __shfl_xor_sync(0xffffffffu, mk, off));
    mv = fmaxf(mv, __shfl_xor_sync(0xffffffffu, mv, off));
  }
  if (tid % 32 == 0) wmax[tid / 32] = make_float2(mk, mv);
  __syncthreads();
#pragma unroll
  for (int w = 0; w < THREADS / 32; ++w) {
    mk = fmaxf(mk, wmax[w].x);
    mv = fmaxf(mv, wmax[w].y);
  }
  const auto v_shift = [](float m) { return V_HI ? half_v_shift(m) : f16_shift(m); };
  const int sk = kHalves ? v_shift(mk) : f16_shift(mk), sv = v_shift(mv);
  const float ks = exp2_int(sk), vs = exp2_int(sv);
  if (tid == 0) {
    if (kHalves) {
      tmul[2 * blockIdx.x] = make_float2(1.f, exp2_int(-sk));
      tmul[2 * blockIdx.x + 1] = make_float2(1.f, exp2_int(-sv));
    } else {
      tmul[blockIdx.x] = make_float2(exp2_int(-sk), exp2_int(-sv));
    }
  }
  // 8 scaled floats into one 16-byte store of hi and one of lo.
  const auto split8 = [](const float(&v)[8], float s, __half* hi, __half* lo) {
    uint4 h, l;
    f16_split2(v[0] * s, v[1] * s, h.x, l.x);
    f16_split2(v[2] * s, v[3] * s, h.y, l.y);
    f16_split2(v[4] * s, v[5] * s, h.z, l.z);
    f16_split2(v[6] * s, v[7] * s, h.w, l.w);
    *reinterpret_cast<uint4*>(hi) = h;
    if (!V_HI) *reinterpret_cast<uint4*>(lo) = l;
  };
#pragma unroll
  for (int n = 0; n < (V_HI ? 0 : N); ++n) {
    const int i = tid + THREADS * n, r = i / G, c = (i % G) * 8;
    const float xv[8] = {x[n][0].x, x[n][0].y, x[n][0].z, x[n][0].w,
                         x[n][1].x, x[n][1].y, x[n][1].z, x[n][1].w};
    const int64_t at = (b * sp + j0 + r) * E + c;
    split8(xv, ks, kh + at, kh + half_elems + at);
  }
  // Vt: row e of the tile, keys 8 g ... 8 g + 7 per thread (8 threads a row).
#pragma unroll
  for (int n = 0; n < N; ++n) {
    const int i = tid + THREADS * n, e = i / (TK / 8), k8 = (i % (TK / 8)) * 8;
    float v[8];
#pragma unroll
    for (int u = 0; u < 8; ++u) v[u] = tile[k8 + u][e];
    const int64_t at = (b * E + e) * sp + j0 + k8;
    split8(v, kHalves && k8 < TK / 2 ? ks : vs, vt + at, vt + half_elems + at);
  }
}

// Q's rows m0.. (zeros past L), scaled by the op's scale, split per row into fp16 hi and
// lo in 128-byte swizzled K-major panels ([E / 64][BM][64 halves]), lo BM * E halves
// after hi; qmul[r] = 2^-s of row r. Threads tid < THREADS (whole warps of whole rows,
// E / 4 lanes a row, for the row max's shuffles), in two steps: every load issued
// (QRows::load, at the kernel's entry: Q's round trip under the prologue), then the
// split (QRows::split). A loop of load, shuffle, store waited on one DRAM round trip per
// float4.
template <int E, int BM, int THREADS>
struct QRows {
  static constexpr int N = BM * E / 4 / THREADS;
  static_assert(N * THREADS == BM * E / 4 && THREADS % 32 == 0 && E / 4 <= 32,
                "whole warps of whole rows, the same count per thread");
  float4 x[N];

  __device__ __forceinline__ void load(const KernelArgs& a, const float* qb, int64_t m0, int tid) {
#pragma unroll
    for (int n = 0; n < N; ++n) {
      const int i = tid + n * THREADS, r = i / (E / 4), c4 = i % (E / 4);
      x[n] = make_float4(0.f, 0.f, 0.f, 0.f);
      if (m0 + r < a.p.L) {
        x[n] = *reinterpret_cast<const float4*>(qb + (m0 + r) * a.p.q.row + c4 * 4);
      }
    }
  }
  __device__ __forceinline__ void split(uint8_t* qs, float* qmul, const KernelArgs& a, int tid);
};

template <int E, int BM, int THREADS>
__device__ __forceinline__ void QRows<E, BM, THREADS>::split(uint8_t* qs, float* qmul,
                                                             const KernelArgs& a, int tid) {
  // The rows' max |x| as N independent shuffle chains (one after the other, each waited on
  // its shuffles' latency, they took longer than the loads), then times |scale| (rounding
  // is monotonic: the max of the scaled elements), and each element scaled once by
  // scale 2^s (exact: a power of two; the elements as (x scale) 2^s).
  float m[N];
#pragma unroll
  for (int n = 0; n < N; ++n) {
    m[n] = fmaxf(fmaxf(fabsf(x[n].x), fabsf(x[n].y)), fmaxf(fabsf(x[n].z), fabsf(x[n].w)));
  }
#pragma unroll
  for (int off = 1; off < E / 4; off *= 2) {
#pragma unroll
    for (int n = 0; n < N; ++n) m[n] = fmaxf(m[n], __shfl_xor_sync(0xffffffffu, m[n], off));
  }
  const float abs_scale = fabsf(a.scale);
#pragma unroll
  for (int n = 0; n < N; ++n) {
    const int i = tid + n * THREADS, r = i / (E / 4), c4 = i % (E / 4);
    const int s = f16_shift(m[n] * abs_scale);
    const float f = a.scale * exp2_int(s);
    uint2 hi, lo;
    f16_split2(x[n].x * f, x[n].y * f, hi.x, lo.x);
    f16_split2(x[n].z * f, x[n].w * f, hi.y, lo.y);
    const int c = 4 * c4;
    const int at = (c / 64) * BM * 128 + r * 128 + ((((c % 64) / 8) ^ (r % 8)) * 16) + (c % 8) * 2;
    *reinterpret_cast<uint2*>(qs + at) = hi;
    *reinterpret_cast<uint2*>(qs + BM * E * 2 + at) = lo;
    if (c4 == 0) qmul[r] = exp2_int(-s);
  }
}

// S (+)= Q K^T over the head dim in k-steps of 16 (Q's 64 rows from qa, K's BN rows from
// ka, both [E / 64] panels); issued, not committed.
template <int E, int BN, int BM>
__device__ __forceinline__ void issue_qk_f16(float (&acc)[BN / 2], uint32_t qa, uint32_t ka,
                                             bool accumulate) {
  static_assert(BN == 64, "m64n64k16 only");
  const Sw128Desc dq(qa), dk(ka);
#pragma unroll
  for (int kk = 0; kk < E / 16; ++kk) {
    const uint32_t koff = (kk % 4) * 32;
    WgmmaF16N64::mma(acc, dq.at((kk / 4) * BM * 128 + koff), dk.at((kk / 4) * BN * 128 + koff),
                     accumulate || kk > 0 ? 1 : 0);
  }
}

// P (softmax_tile's output) as the A fragments of P V's k-steps of 16 keys: k-step kk
// is S's accumulator chunks 2 kk and 2 kk + 1 as they stand. hi and lo (2^11 up).
template <int SR>
__device__ __forceinline__ void p_fragments_f16(const float (&sc)[SR], uint32_t (&hi)[SR / 8][4],
                                                uint32_t (&lo)[SR / 8][4]) {
#pragma unroll
  for (int kk = 0; kk < SR / 8; ++kk) {
#pragma unroll
    for (int i = 0; i < 4; ++i)
      f16_split2(sc[8 * kk + 2 * i], sc[8 * kk + 2 * i + 1], hi[kk][i], lo[kk][i]);
  }
}

// The consumers' steps shared by pipes 6 and 16 (one consumer's 64 rows, 64-key tiles).
// S back to float32 but for its factor (the rows' factors `qmul` times the tile's K factor:
// powers of two), which the softmax multiplies in exactly, one FMA a score with the
// subtraction of the max; returned. A tile with scores to mask takes it now (the mask's
// terms add to the scores as they are), and 1 is returned.
template <int SR, bool PER_SCORE>
__device__ __forceinline__ float2 f16_scores_landed(float (&acc)[SR], float (&ss)[SR], float2 qmul,
                                                    float kmul, const KernelArgs& a,
                                                    const BatchBase& base, const Rows& rows,
                                                    int64_t n0, int64_t m0) {
  constexpr int BN = 2 * SR;
  const AttentionProblem& p = a.p;
  fence_regs(acc);
  fence_regs(ss);
  float2 mul = make_float2(qmul.x * kmul, qmul.y * kmul);
#pragma unroll
  for (int i = 0; i < SR; ++i) acc[i] = fmaf(ss[i], kF16LoUnscale, acc[i]);
  if (n0 + BN > p.S || (p.causal && n0 + BN - 1 > m0) || a.mask) {
#pragma unroll
    for (int i = 0; i < SR; ++i) acc[i] *= i % 4 < 2 ? mul.x : mul.y;
    mask_tile<SR, PER_SCORE>(acc, a, base, rows, n0, m0, kLog2eF);
    mul = make_float2(1.f, 1.f);
  }
  return mul;
}

// P V of 64 output columns: Phi Vhi into pvb, Phi Vlo + Plo Vhi into pvs (each wgmma's first
// k-step overwrites its accumulator); Vt's hi tile at vt (its 128-byte swizzled panels of 64
// keys E * 128 bytes apart), its lo `lo_bytes` after; issued and committed.
template <int E, int NT, int HR>
__device__ __forceinline__ void issue_pv_f16(float (&pvb)[HR], float (&pvs)[HR],
                                             const uint32_t (&ph)[NT][4],
                                             const uint32_t (&pl)[NT][4], uint32_t vt,
                                             uint32_t lo_bytes) {
  fence_regs(pvb);
  fence_regs(pvs);
  wgmma_fence();
  const Sw128Desc dv(vt);
  const auto off = [](int j) { return uint32_t((j / 4) * E * 128 + (j % 4) * 32); };
#pragma unroll
  for (int j = 0; j < NT; ++j) {
    WgmmaF16N64::mma_rs(pvb, ph[j], dv.at(off(j)), j > 0 ? 1 : 0);
  }
#pragma unroll
  for (int j = 0; j < NT; ++j) {
    WgmmaF16N64::mma_rs(pvs, ph[j], dv.at(lo_bytes + off(j)), j > 0 ? 1 : 0);
    WgmmaF16N64::mma_rs(pvs, pl[j], dv.at(off(j)), 1);
  }
  wgmma_commit();
}

// S of one consumer's 64 rows over a 64-key tile with Q's hi as register fragments (qf): Qhi
// Khi into acc, Qhi Klo + Qlo Khi into ss (Q's lo from its swizzled panel at q_lo); K's hi at
// k, its lo `lo_bytes` after; issued and committed (each wgmma's first k-step overwrites its
// accumulator).
template <int E, int BN, int BM, int SR>
__device__ __forceinline__ void issue_s_f16_qr(float (&acc)[SR], float (&ss)[SR],
                                               const uint32_t (&qf)[E / 16][4], uint32_t k,
                                               uint32_t q_lo, uint32_t lo_bytes) {
  fence_regs(acc);
  fence_regs(ss);
  wgmma_fence();
  const Sw128Desc dk(k);
#pragma unroll
  for (int kk = 0; kk < E / 16; ++kk) {
    const uint32_t koff = (kk / 4) * BN * 128 + (kk % 4) * 32;
    WgmmaF16N64::mma_rs(acc, qf[kk], dk.at(koff), kk > 0 ? 1 : 0);
    WgmmaF16N64::mma_rs(ss, qf[kk], dk.at(lo_bytes + koff), kk > 0 ? 1 : 0);
  }
  issue_qk_f16<E, BN, BM>(ss, q_lo, k, true);  // + Qlo Khi
  wgmma_commit();
}

// Stage s's tile factors (2^-s_k, 2^-s_v) from beside the landed stage: lane 0 alone reads
// them, so that its own arrive on the stage's empty barrier follows the read; the warp takes
// them by shuffle.
__device__ __forceinline__ float2 stage_factors(const float2* tfac, int s, int lane) {
  float2 f = make_float2(0.f, 0.f);
  if (lane == 0) f = tfac[s];
  return make_float2(__shfl_sync(0xffffffffu, f.x, 0), __shfl_sync(0xffffffffu, f.y, 0));
}

// Once a P V (64 columns, from column c0 of O) has landed: O = alpha O + vmul (big + 2^-11
// small), IEEE FMAs (vmul a power of two: the product is exact, one rounding as with a
// factor of 1); alpha f.x for row A, f.y for row B.
template <int OR, int HR>
__device__ __forceinline__ void promote_pv_f16(float (&o)[OR], float (&pvb)[HR], float (&pvs)[HR],
                                               float2 f, float vmul, int c0) {
  fence_regs(pvb);
  fence_regs(pvs);
  const float lmul = vmul * kF16LoUnscale;
#pragma unroll
  for (int n = 0; n < HR / 4; ++n) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const float pv = fmaf(pvs[4 * n + i], lmul, pvb[4 * n + i] * vmul);
      float& x = o[c0 + 4 * n + i];
      x = fmaf(x, i < 2 ? f.x : f.y, pv);
    }
  }
}

// Q's hi and lo (BM rows each), STAGES stages of K's hi, K's lo, Vt's hi, Vt's lo (BN x E
// halves each), qmul, the barriers.
template <int E, int BN, int WG, int STAGES>
struct F16SplitTraits {
  static constexpr int kBM = 64 * WG;
  static constexpr int kThreads = 128 * (WG + 1);
  // setmaxnreg moves registers within the block's allocation at launch, 168 a thread
  // (384 threads): 128 x 24 + 256 x 240 is all of it. A producer at 32 with consumers at
  // 240 asked for 1024 more, and the consumers' setmaxnreg.inc waited forever (an earlier
  // variant's first GPU run).
  static constexpr int kProducerRegs = 24;
  static constexpr int kConsumerRegs = 240;
  static constexpr int kQBytes = kBM * E * 2 * 2;
  static constexpr int kPartBytes = BN * E * 2;
  static constexpr int kStageBytes = 4 * kPartBytes;
  static constexpr int kMulOffset = kQBytes + STAGES * kStageBytes;
  static constexpr int kBarOffset = kMulOffset + kBM * 4;
  // After the barriers, each stage's tile factors (the producer's copy of tmul's).
  static constexpr int kSmemBytes = kBarOffset + 2 * STAGES * 8 + STAGES * 8 + 1024;
  static_assert(kSmemBytes <= 232448, "shared memory over the 227 KB of an SM");
  static_assert(STAGES >= 2, "a ring of one stage would deadlock");
  // Head dim 128 (Q's hi and lo 64 KB, a stage 64 KB: two stages) runs P V in halves of
  // 64 output columns (the consumer's registers hold O and one half's two accumulators).
  static_assert(BN == 64 && (E == 64 || E == 128), "head dim 64 or 128, 64-key tiles");
  static_assert(BN == kF16SplitTileKeys, "a key tile is a tile of the pre-pass's factors");
  static_assert(128 * kProducerRegs + 128 * WG * kConsumerRegs <=
                    65536 / kThreads / 8 * 8 * kThreads,
                "setmaxnreg past the block's registers at launch");
};

// The pre-pass's buffers as TMA maps: K's halves [2 batches S', E], a box of BN rows by
// 64 halves; Vt's [2 batches E, S'], E rows by 64 keys; 128-byte swizzle.
struct F16SplitMaps {
  CUtensorMap k;
  CUtensorMap vt;
};

// A 2-D fp16 map, 128-byte swizzle, or 64-byte where a box row is 64 bytes (false where the
// driver refuses it or has no encoder).
inline bool f16_map_2d(CUtensorMap& map, const __half* ptr, cuuint64_t cols, cuuint64_t rows,
                       cuuint32_t box_cols, cuuint32_t box_rows) {
  if (attention_encode_tiled() == nullptr) return false;
  const cuuint32_t elem[2] = {1, 1};
  const cuuint64_t dims[2] = {cols, rows};
  const cuuint64_t strides[1] = {cols * 2};
  const cuuint32_t box[2] = {box_cols, box_rows};
  return attention_encode_tiled()(
             &map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, const_cast<__half*>(ptr), dims, strides, box,
             elem, CU_TENSOR_MAP_INTERLEAVE_NONE,
             box_cols == 32 ? CU_TENSOR_MAP_SWIZZLE_64B : CU_TENSOR_MAP_SWIZZLE_128B,
             CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// Vt's rows of `halves` * batches * Ev, a box of `keys` keys (64 or 32) by Ev rows.
inline bool f16_vt_map(const AttentionProblem& p, const __half* vt, int64_t sp, int halves,
                       CUtensorMap& map, int keys = 64) {
  return f16_map_2d(map, vt, cuuint64_t(sp), cuuint64_t(halves * p.batch_count() * p.Ev),
                    cuuint32_t(keys), cuuint32_t(p.Ev));
}

inline bool f16split_maps(const AttentionProblem& p, const __half* kh, const __half* vt, int64_t sp,
                          int bn, F16SplitMaps& m) {
  return f16_map_2d(m.k, kh, cuuint64_t(p.E), cuuint64_t(2 * p.batch_count() * sp), 64,
                    cuuint32_t(bn)) &&
         f16_vt_map(p, vt, sp, 2, m.vt);
}

// The producer's step of pipes 6 and 16: ring slot g (stage g % STAGES of `stage_bytes` from
// st0), once the consumers have given it back, takes key tile `tile`'s factors (from tm, the
// head's) beside it and its four parts by TMA, K's hi and lo (rows krow + n0, klo further)
// and Vt's (rows vrow, vlo further); the head's halves as the pre-pass wrote them.
template <int E, int BN, int STAGES>
__device__ __forceinline__ void f16_fill_stage(const F16SplitMaps& maps, const float2* tm,
                                               float2* tfac, uint64_t* full, uint64_t* empty,
                                               uint8_t* st0, int stage_bytes, int part_bytes, int g,
                                               int tile, int32_t krow, int32_t klo, int32_t vrow,
                                               int32_t vlo) {
  namespace ptx = ::cuda::ptx;
  const int s = g % STAGES;
  const float2 f = __ldg(tm + tile);
  if (g >= STAGES) mbar_wait(&empty[s], ((g / STAGES) - 1) & 1);
  tfac[s] = f;
  ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &full[s],
                                 4 * part_bytes);
  uint8_t* st = st0 + s * stage_bytes;
  const int32_t n0 = tile * BN;
  // One box per 64-half panel of K's rows (E / 64 of them).
#pragma unroll
  for (int q = 0; q < E / 64; ++q) {
    const int32_t kc[2] = {64 * q, krow + n0}, kl[2] = {64 * q, klo + krow + n0};
    ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global, st + q * BN * 128, &maps.k, kc,
                              &full[s]);
    ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global, st + part_bytes + q * BN * 128,
                              &maps.k, kl, &full[s]);
  }
  const int32_t vc[2] = {n0, vrow}, vl[2] = {n0, vlo + vrow};
  ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global, st + 2 * part_bytes, &maps.vt, vc,
                            &full[s]);
  ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global, st + 3 * part_bytes, &maps.vt, vl,
                            &full[s]);
}

// The consumers' barrier once Q is in shared memory (PingPong takes 1 and 2).
inline constexpr int kF16QBarrier = 3;

// The kernel: attention_wgmma_ws_kernel's TMA pipeline (one producer thread; PP: the two
// consumers in ping-pong) with the 2 x fp16 split. Per tile t: S = Qhi Khi and, apart,
// Qhi Klo + Qlo Khi, combined S = (S + 2^-11 cross) 2^-(s_q + s_k,t) by FMA (the row's
// factor times the tile's); softmax in base 2 (Q's scale carries log2 e: ex2 is as
// accurate as expf, 2 ulp, in one instruction where expf takes eight); tile t - 1's P V
// under tile t's softmax,
// Phi Vhi and (Phi Vlo + Plo Vhi) in fresh accumulators, O = alpha O + 2^-s_v,t (big +
// 2^-11 small) by FMAs (the tile's V factor: one multiply per O element, exact); 1 / l at
// the store. The producer's copies start at once; the consumers load and split Q
// meanwhile.
// QR: Q's hi as A fragments in registers (S's Qhi Khi and Qhi Klo then read only K from
// shared memory; an m64n64k16 reading both operands there is at the shared memory's
// rate), Q's lo from shared memory.
// The kernel runs as the pre-pass's programmatic dependent (PDL): its prologue and Q's
// loads under the pre-pass's last blocks, the producer and the consumers waiting for the
// pre-pass's writes (griddepcontrol.wait) before the first copy and the first factor.
// DIAG (the kernel bench only, where the time goes): kF16DiagQFirst, Q split before the
// first copies start (the old prologue); kF16DiagSkipLast, causal consumer 0 leaves out
// the key tile above its rows (taking its turn all the same: it lost, the loop's code
// got slower everywhere); kF16DiagNoPdl, a plain launch; kF16DiagNoStore, no output
// stored (its cost; the output is then meaningless: a never-true test keeps the work
// that feeds it).
inline constexpr int kF16DiagQFirst = 1;
inline constexpr int kF16DiagSkipLast = 2;
inline constexpr int kF16DiagNoPdl = 4;
inline constexpr int kF16DiagNoStore = 8;
inline constexpr int kF16DiagTrace = 16;  // kDiagTrace's record
// PER_SCORE: mask_tile's per-score form (the launcher's choice at head dim 64 without causal
// tiles).
template <int E, int BN, int WG, int STAGES, bool PP, bool QR = false, int DIAG = 0,
          bool PER_SCORE = false>
__global__ void __launch_bounds__(128 * (WG + 1), 1)
    attention_wgmma_f16split_kernel(const __grid_constant__ KernelArgs a, const float2* tmul,
                                    int64_t sp, const __grid_constant__ F16SplitMaps maps) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using T = F16SplitTraits<E, BN, WG, STAGES>;
  constexpr bool kTraced = (DIAG & kF16DiagTrace) != 0;
  trace_start<kTraced>();
  static_assert(!PP || WG == 2, "the ping-pong takes two consumer warpgroups");
  static_assert(WG <= 2 && BN == 64, "a causal consumer leaves out one key tile at most");
  namespace ptx = ::cuda::ptx;
  constexpr int BM = T::kBM;
  constexpr int NT = BN / 16, SR = BN / 2, OR = E / 2;
  const AttentionProblem& p = a.p;
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = align_1024(smem_raw);
  const uint32_t q_addr = smem_u32(smem);
  float* qmul = reinterpret_cast<float*>(smem + T::kMulOffset);
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + T::kBarOffset);
  uint64_t* empty = full + STAGES;
  float2* tfac = reinterpret_cast<float2*>(empty + STAGES);  // [STAGES]
  const auto stage = [&](int s) { return smem + T::kQBytes + s * T::kStageBytes; };

  const int tid = threadIdx.x;
  const QueryTile qt = query_tile(p, BM);
  const int64_t m0 = qt.mt * BM;
  const int64_t b = qt.b;
  const BatchBase base = batch_base(a, b);
  const int64_t keys = attended_keys(p, m0, BM);
  const int tiles = static_cast<int>((keys + BN - 1) / BN);
  // Q's loads in flight from the start (the consumers split them once past the barrier).
  QRows<E, BM, 128 * WG> q;
  if (tid < 128 * WG) q.load(a, base.q, m0, tid);

  if (tid == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(&full[s], 1);
      mbar_init(&empty[s], 4 * WG);
    }
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  if constexpr ((DIAG & kF16DiagQFirst) != 0) {
    if (tid < 128 * WG) q.split(smem, qmul, a, tid);
    fence_proxy_async();
  }
  __syncthreads();

  if (tid >= 128 * WG) {
    sm90::detail::setmaxnreg_dec<T::kProducerRegs>();
    if (tid == 128 * WG) {
      const int32_t krow = static_cast<int32_t>(b * sp);
      const int32_t klo = static_cast<int32_t>(qt.batches * sp);
      const int32_t vrow = static_cast<int32_t>(b * E);
      const int32_t vlo = static_cast<int32_t>(qt.batches * E);
      if constexpr ((DIAG & kF16DiagNoPdl) == 0)
        asm volatile("griddepcontrol.wait;\n" ::: "memory");
      // The tiles' factors (2^-s_k, 2^-s_v) of this (batch, head), each stored beside its
      // stage before the stage's arrive (the pre-pass's grid keeps their index in 31 bits).
      const float2* tm = tmul + static_cast<int>(b * (sp / BN));
      for (int tile = 0; tile < tiles; ++tile) {
        f16_fill_stage<E, BN, STAGES>(maps, tm, tfac, full, empty, stage(0), T::kStageBytes,
                                      T::kPartBytes, tile, tile, krow, klo, vrow, vlo);
      }
    }
  } else {
    sm90::detail::setmaxnreg_inc<T::kConsumerRegs>();
    if constexpr ((DIAG & kF16DiagQFirst) == 0) {
      // Q split under the first copies; the consumers alone wait for each other.
      q.split(smem, qmul, a, tid);
      fence_proxy_async();
      asm volatile("bar.sync %0, %1;\n" ::"n"(kF16QBarrier), "n"(128 * WG) : "memory");
    }
    trace_mark<kTraced>(0, 3);
    if constexpr ((DIAG & kF16DiagNoPdl) == 0) asm volatile("griddepcontrol.wait;\n" ::: "memory");
    const int wg = warp_uniform(tid / 128), warp = (tid % 128) / 32, lane = tid % 32;
    Rows rows = consumer_rows(m0, wg, warp, lane);
    const float qmulA = qmul[rows.rA - m0], qmulB = qmul[rows.rB - m0];
    // kF16DiagSkipLast: causal consumer 0 leaves out the last key tile where keys go past
    // its rows (one tile at most: 64-row consumers, 64-key tiles, two consumers). (Masking
    // from each consumer's own first row, so that consumer 1 leaves out the diagonal test
    // on the tile below its rows, spilled 60 bytes at 240 registers.)
    constexpr bool kSkip = (DIAG & kF16DiagSkipLast) != 0;
    const bool skip_last = kSkip && p.causal && wg == 0 && WG == 2 && p.S > m0 + 64;
    const int my_tiles = tiles - (skip_last ? 1 : 0);
    // Tile t's factors (stage_factors).
    const auto factors = [&](int t) { return stage_factors(tfac, t % STAGES, lane); };
    const uint32_t qa = q_addr + wg * 64 * 128;
    constexpr uint32_t kQLo = BM * E * 2;
    // QR: k-step kk's fragment of rows r = 16 warp + lane / 4 (+8), halves 16 kk + 2 t
    // (+1) (+8), from the swizzled tile.
    [[maybe_unused]] uint32_t qf[QR ? E / 16 : 1][4];
    if constexpr (QR) {
#pragma unroll
      for (int kk = 0; kk < E / 16; ++kk) {
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          const int r = wg * 64 + warp * 16 + lane / 4 + (i % 2) * 8;
          const int c = 16 * kk + 2 * (lane % 4) + (i / 2) * 8;
          const int at =
              (c / 64) * BM * 128 + r * 128 + ((((c % 64) / 8) ^ (r % 8)) * 16) + (c % 8) * 2;
          qf[kk][i] = *reinterpret_cast<const uint32_t*>(smem + at);
        }
      }
    }

    float ss[SR];
    const auto issue_s = [&](float(&acc)[SR], int s) {
      const uint32_t k_addr = smem_u32(stage(s));
#pragma unroll
      for (int i = 0; i < SR; ++i) acc[i] = ss[i] = 0.f;
      if constexpr (QR) {
        issue_s_f16_qr<E, BN, BM>(acc, ss, qf, k_addr, qa + kQLo, T::kPartBytes);
      } else {
        fence_regs(acc);
        fence_regs(ss);
        wgmma_fence();
        issue_qk_f16<E, BN, BM>(acc, qa, k_addr, false);                 // Qhi Khi
        issue_qk_f16<E, BN, BM>(ss, qa, k_addr + T::kPartBytes, false);  // Qhi Klo
        issue_qk_f16<E, BN, BM>(ss, qa + kQLo, k_addr, true);            // + Qlo Khi
        wgmma_commit();
      }
    };
    const auto s_landed = [&](float(&acc)[SR], float kmul, int64_t n0) {
      return f16_scores_landed<SR, PER_SCORE>(acc, ss, make_float2(qmulA, qmulB), kmul, a, base,
                                              rows, n0, m0);
    };
    const auto wait_full = [&](int tile) { mbar_wait(&full[tile % STAGES], (tile / STAGES) & 1); };

    // P V in NH halves of 64 output columns, each into the same fresh accumulators, one
    // after the other (head dim 128: both at once would hold 128 accumulator registers).
    constexpr int NH = E / 64, HR = OR / NH;
    float o[OR], pvb[HR], pvs[HR];
    float sc[SR];
    uint32_t ph[NT][4], pl[NT][4];
#pragma unroll
    for (int i = 0; i < OR; ++i) o[i] = 0.f;
    // Half h of P V (P's fragments ph and pl, Vt's halves from stage s), issued.
    const auto issue_pv = [&](int s, int h) {
#pragma unroll
      for (int i = 0; i < HR; ++i) pvb[i] = pvs[i] = 0.f;
      issue_pv_f16<E>(pvb, pvs, ph, pl, smem_u32(stage(s)) + 2 * T::kPartBytes + h * 64 * 128,
                      T::kPartBytes);
    };
    // Once half h of P V has landed: its columns of O.
    const auto promote = [&](float2 f, float vmul, int h) {
      promote_pv_f16(o, pvb, pvs, f, vmul, h * HR);
    };
    const auto release = [&](int s) {
      __syncwarp();
      if (lane == 0) mbar_arrive(&empty[s]);
    };
    // The first half of stage s's P V has landed: promote it, then issue, wait for and
    // promote the other halves in turn; give the stage back (`give_back`) once the last
    // has read it.
    const auto finish_pv = [&](float2 f, float vmul, int s, bool give_back) {
#pragma unroll
      for (int h = 0; h < NH; ++h) {
        if (h > 0) {
          issue_pv(s, h);
          wgmma_wait<0>();
        }
        if (h == NH - 1 && give_back) release(s);
        promote(f, vmul, h);
      }
    };
    const PingPong<PP> turns(wg, tiles);
    const auto turn_wait = [&] { turns.wait(); };
    const auto turn_pass = [&](bool last) { turns.pass(last); };

    if constexpr (NH > 1) {
      // Head dim 128, one tile at a time: S, its softmax, then P V half by half (the
      // ping-pong runs one consumer's softmax and promotions under the other's products).
      // S of the next tile in flight beside this tile's P V, as at head dim 64, would need
      // O, S's two accumulators, P's fragments and a half's two: 224 registers, and spilled.
      static_assert(!kSkip, "kF16DiagSkipLast: head dim 64 only");
      for (int tile = 0; tile < tiles; ++tile) {
        const int s = tile % STAGES;
        wait_full(tile);
        const float2 f = factors(tile);
        if (tile == 0) trace_mark<kTraced>(0, 4);
        turn_wait();
        issue_s(sc, s);
        turn_pass(tile == tiles - 1);
        wgmma_wait<0>();
        const float2 mul = s_landed(sc, f.x, int64_t{tile} * BN);
        const float2 alpha = softmax_tile<false>(sc, rows, mul);
        p_fragments_f16(sc, ph, pl);
        issue_pv(s, 0);
        wgmma_wait<0>();
        fence_regs(o);
        finish_pv(alpha, f.y, s, true);
        if (tile == 0) trace_mark<kTraced>(0, 5);
        if (tile == 0) trace_mark<kTraced>(1, 8);
      }
      trace_mark<kTraced>(0, 6);
    }
    // Head dim 64: tile t's S and tile t - 1's P V in flight together, the P V under tile
    // t's softmax (head dim 128 ran the loop above: no tiles here).
    const int ptiles = NH == 1 ? my_tiles : 0;
    float2 alpha_pv = make_float2(1.f, 1.f);
    float vmul_pv = 1.f;
    if (ptiles > 0) {
      wait_full(0);
      const float2 f = factors(0);
      trace_mark<kTraced>(0, 4);
      turn_wait();
      issue_s(sc, 0);
      turn_pass(false);
      wgmma_wait<0>();
      const float2 mul = s_landed(sc, f.x, 0);
      alpha_pv = softmax_tile<false>(sc, rows, mul);
      vmul_pv = f.y;
      p_fragments_f16(sc, ph, pl);
      trace_mark<kTraced>(0, 5);
      trace_mark<kTraced>(1, 8);
    }
    for (int tile = 1; tile < ptiles; ++tile) {
      const int s = tile % STAGES;
      wait_full(tile);
      const float2 f = factors(tile);
      turn_wait();
      issue_s(sc, s);
      issue_pv((tile - 1) % STAGES, 0);
      turn_pass(false);
      wgmma_wait<1>();
      const float2 mul = s_landed(sc, f.x, int64_t{tile} * BN);
      const float2 alpha = softmax_tile<false>(sc, rows, mul);
      wgmma_wait<0>();
      // The P V has read ph and pl: only now may the new P be written.
      fence_regs(o);
      fence_regs(sc);
      finish_pv(alpha_pv, vmul_pv, (tile - 1) % STAGES, true);
      alpha_pv = alpha;
      vmul_pv = f.y;
      p_fragments_f16(sc, ph, pl);
    }
    if (NH == 1) trace_mark<kTraced>(0, 6);
    if (ptiles > 0) {
      turn_wait();
      issue_pv((ptiles - 1) % STAGES, 0);
      turn_pass(!skip_last);
    }
    // The tile left out (causal, above this consumer's rows): a turn with nothing issued.
    // It is the query tile's last, so no stage is refilled after it and it needs no
    // giving back (nor does this consumer's last, as before).
    if (skip_last) {
      turn_wait();
      turn_pass(true);
    }
    wgmma_wait<0>();
    fence_regs(o);
    if (ptiles > 0) finish_pv(alpha_pv, vmul_pv, (ptiles - 1) % STAGES, false);
    trace_mark<kTraced>(0, 7);
    trace_mark<kTraced>(1, 9);
    if ((DIAG & kF16DiagNoStore) == 0 || a.scale == -1.f) store_rows(o, rows, p, base.out);
    trace_end<kTraced>();
  }
#else
  (void)a;
  (void)tmul;
  (void)sp;
  (void)maps;
#endif
}

// The op's path for pipe 6: the pre-pass (the split into a buffer of 4 bytes per element
// of K and V, the tiles' factors) and the kernel, one block per 64 * WG query rows and
// (batch, head) in query_tile_grid's order. `scratch`: at least f16split_scratch_bytes(p)
// bytes, 16-byte aligned, alive until the kernel has run.
inline constexpr int64_t kF16SplitKeyPad = 64;  // the 64-key tiles and the split's tiles
static_assert(kF16SplitKeyPad % kF16SplitTileKeys == 0, "the split's tiles cover the padded keys");
inline int64_t f16split_keys(const AttentionProblem& p) {
  return (p.S + kF16SplitKeyPad - 1) / kF16SplitKeyPad * kF16SplitKeyPad;
}
inline int64_t f16split_scratch_bytes(const AttentionProblem& p) {
  const int64_t sp = f16split_keys(p), half_elems = p.batch_count() * sp * p.E;
  return 2 * 2 * half_elems * 2 + p.batch_count() * (sp / kF16SplitTileKeys) * 8;
}

// The scratch's parts: K's halves, Vt's, the tiles' factors.
struct F16SplitScratch {
  __half* kh;
  __half* vt;
  float2* tmul;
  int64_t sp, half_elems;
};
inline F16SplitScratch f16split_parts(const AttentionProblem& p, void* scratch) {
  const int64_t sp = f16split_keys(p), half_elems = p.batch_count() * sp * p.E;
  __half* kh = static_cast<__half*>(scratch);
  __half* vt = kh + 2 * half_elems;
  return {kh, vt, reinterpret_cast<float2*>(vt + 2 * half_elems), sp, half_elems};
}

// attention_f16_split_kernel over every (batch, head)'s key tiles of `sp` keys, head dims 64
// and 128 (the kernel's).
template <int THREADS, bool V_HI>
cudaError_t launch_f16_split_kernel(const KernelArgs& a, __half* kh, __half* vt, float2* tmul,
                                    int64_t sp, int64_t half_elems, cudaStream_t stream,
                                    int64_t heads, unsigned* made = nullptr) {
  if (sp == 0 || heads == 0) return cudaSuccess;
  if ((a.p.E != 64 && a.p.E != 128) || a.p.Ev != a.p.E) return cudaErrorInvalidValue;
  const int64_t blocks = heads * (sp / kF16SplitTileKeys);
  if (blocks > int64_t{INT32_MAX}) return cudaErrorInvalidConfiguration;
  const auto kernel = a.p.E == 64 ? attention_f16_split_kernel<64, THREADS, V_HI>
                                  : attention_f16_split_kernel<128, THREADS, V_HI>;
  kernel<<<static_cast<unsigned>(blocks), THREADS, 0, stream>>>(a, kh, vt, tmul, sp, half_elems,
                                                                made, a.p.batch_count());
  return cudaGetLastError();
}

// The pre-pass alone (the kernel bench times the kernel without it, and THREADS other
// than the op's).
template <int THREADS = kF16SplitThreads>
cudaError_t f16split_prepass(const KernelArgs& a, void* scratch, cudaStream_t stream) {
  const F16SplitScratch s = f16split_parts(a.p, scratch);
  return launch_f16_split_kernel<THREADS, false>(a, s.kh, s.vt, s.tmul, s.sp, s.half_elems, stream,
                                                 a.p.batch_count());
}

// Pipe 14's scratch: V's hi transposed ([batches][Ev][S'] halves, keys contiguous, zeros
// past S), the key tiles' factors (float2, V's in .y; per half_v_factor_keys keys) and, for the
// kernel that makes most of V16 itself (MADE), the per-head counts of parts made; 16-byte
// aligned.
struct HalfVt {
  __half* vt;
  float2* tmul;
  unsigned* made;
  int64_t sp;
};
inline int64_t half_vt_scratch_bytes(const AttentionProblem& p) {
  const int64_t sp = f16split_keys(p);
  return p.batch_count() * (p.Ev * sp * 2 + (sp / 32) * 8 + 4);
}
inline HalfVt half_vt_parts(const AttentionProblem& p, void* scratch) {
  const int64_t sp = f16split_keys(p);
  __half* vt = static_cast<__half*>(scratch);
  float2* tmul = reinterpret_cast<float2*>(vt + p.batch_count() * p.Ev * sp);
  return {vt, tmul, reinterpret_cast<unsigned*>(tmul + p.batch_count() * (sp / 32)), sp};
}

// Pipe 14's pre-pass (head dims 64 and 128): V's hi and its tiles' factors into `scratch`
// (half_vt_scratch_bytes). THREADS other than the op's: the kernel bench's.
// `heads` < every head (pipe 14 making the rest in its kernel): heads [0, heads) only, and
// every head's count of parts made zeroed.
template <int THREADS = kHalfVtThreads>
cudaError_t half_vt_prepass(const KernelArgs& a, void* scratch, cudaStream_t stream,
                            int64_t heads = -1) {
  const HalfVt s = half_vt_parts(a.p, scratch);
  const bool all = heads < 0;
  return launch_f16_split_kernel<THREADS, true>(a, nullptr, s.vt, s.tmul, s.sp, 0, stream,
                                                all ? a.p.batch_count() : heads,
                                                all ? nullptr : s.made);
}

// The kernel alone over the pre-pass's scratch (mapped false: the driver refused the
// maps).
template <int E, int BN, int WG, int ST, bool PP, bool QR = false, int DIAG = 0>
cudaError_t f16split_kernel(const KernelArgs& a, void* scratch, cudaStream_t stream, bool& mapped) {
  using Tr = F16SplitTraits<E, BN, WG, ST>;
  const F16SplitScratch s = f16split_parts(a.p, scratch);
  F16SplitMaps maps{};
  // No keys (S == 0): no tile is loaded, the maps go unused.
  mapped = s.sp == 0 || f16split_maps(a.p, s.kh, s.vt, s.sp, BN, maps);
  if (!mapped) return cudaSuccess;
  auto kernel = attention_wgmma_f16split_kernel<E, BN, WG, ST, PP, QR, DIAG>;
  if constexpr (E == 64) {
    if (!a.p.causal) kernel = attention_wgmma_f16split_kernel<E, BN, WG, ST, PP, QR, DIAG, true>;
  }
  const cudaError_t e =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Tr::kSmemBytes);
  if (e != cudaSuccess) return e;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = query_tile_grid(a.p, Tr::kBM);
  cfg.blockDim = dim3(Tr::kThreads);
  cfg.dynamicSmemBytes = Tr::kSmemBytes;
  cfg.stream = stream;
  cudaLaunchAttribute pdl = gemm::sm90::detail::pdl_attribute();
  if ((DIAG & kF16DiagNoPdl) == 0) {
    cfg.attrs = &pdl;
    cfg.numAttrs = 1;
  }
  const cudaError_t l = cudaLaunchKernelEx(&cfg, kernel, a, s.tmul, s.sp, maps);
  return l != cudaSuccess ? l : cudaGetLastError();
}

}  // namespace
}  // namespace tt::ops::cuda::attention
