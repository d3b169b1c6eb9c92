// The wgmma variants of the attention family (attention.h): flash attention on sm_90a
// warpgroup MMAs in tf32. Compiled for sm_90a alone (ops/CMakeLists.txt), like the
// GEMM family's sm90 kernels whose helpers it shares (gemm/sm90/wgmma_util.cuh). Kept
// apart from their launcher (attention_wgmma.cu) so that the kernel bench
// (tools/device/attention_kernel_bench.cu) times them alone, beside the pre-pass; the
// header needs only the CUDA runtime.
//
// tf32 wgmma takes both operands K-major. S = Q K^T is: Q [L, E] and K [S, E] with E
// contiguous. O = P V is not (V [S, Ev] is MN-major), so a pre-pass writes V
// transposed, Vt [Ev, S'] per batch (S' = S rounded up to kVtPad, zeros past S),
// rounded to nearest TF32, and with the keys of every group of 8 in the order
// 0,2,4,6,1,3,5,7: then S's accumulator registers are, as they stand, the A fragment
// of mma_rs (thread (g, t) holds keys 2t and 2t+1 of each 8-key chunk, and mma_rs's
// A wants k-indices t and t+4), with no shuffle.
//
// Per block: 1-2 consumer warpgroups of 64 query rows each; Q (scaled by scale *
// log2 e, rounded to TF32) in shared memory for the whole run (pipe 1-5 at head dim 64:
// in registers, as wgmma A fragments); K and Vt tiles of BN keys into a ring (pipe 0:
// cp.async, double-buffered, block-synchronous; pipe 1-5: filled by a producer warpgroup
// through mbarriers, by cp.async (1) or TMA (2-5; attention_wgmma_ws_kernel says how
// each differs)), in the 128-byte swizzled K-major layout wgmma's descriptors read; online softmax
// in base 2 on the accumulators (row statistics across the 4 threads of a quad). Tiles wholly above
// a causal diagonal are never loaded, and only tiles that cross it are masked; heaviest causal
// query tiles first.
#pragma once

#include <cuda.h>          // CUtensorMap
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled
#include <cuda_runtime.h>

#include <cstdint>
#include <cuda/ptx>

#include "ops/cuda/attention/attention_kernels.cuh"
#include "ops/cuda/attention/attention_order.cuh"
#include "ops/cuda/attention/attention_tma.h"
#include "ops/cuda/gemm/sm90/wgmma_tf32.cuh"
#include "ops/cuda/gemm/sm90/wgmma_util.cuh"

namespace tt::ops::cuda::attention {
namespace {

namespace sm90 = tt::ops::cuda::gemm::sm90;
using sm90::detail::fence_regs;
using sm90::detail::smem_u32;
using sm90::detail::sw128_desc;
using sm90::detail::Sw128Desc;
using sm90::detail::Sw64Desc;
using sm90::detail::tf32_lo;
using sm90::detail::tf32_rna;
using sm90::detail::wgmma_commit;
using sm90::detail::wgmma_fence;
using sm90::detail::wgmma_wait;

// log2 e: scores in base 2 carry it (in the scale, and in an additive mask's terms).
constexpr float kLog2eF = 1.4426950408889634f;

// accurate (ACC): Q's hi and lo halves; a stage holds K, Vt, then K's lo (split in
// shared memory by the threads that loaded it) and Vt's lo (from the pre-pass).
template <int E, int BN, int WG, bool ACC>
struct WgTraits {
  static constexpr int kBM = 64 * WG;
  static constexpr int kThreads = 128 * WG;
  static constexpr int kQBytes = kBM * E * 4 * (ACC ? 2 : 1);
  static constexpr int kKBytes = BN * E * 4;
  static constexpr int kStageBytes = kKBytes * (ACC ? 4 : 2);
  static constexpr int kSmemBytes = kQBytes + 2 * kStageBytes + 1024;  // + alignment pad
  static_assert(E % 32 == 0 && BN % 32 == 0, "whole 128-byte swizzle rows");
  static_assert(kSmemBytes <= 232448, "shared memory over the 227 KB a block can take");
};

// Offset in floats of element (r, 4 * c4) of a [rows, cols] K-major tile stored as
// 32-float panels ([cols / 32][rows][32]), each 128-byte row's 16-byte chunks XORed
// with the row's low three bits (the layout sw128_desc describes; needs the panel
// 1024-byte aligned).
__device__ __forceinline__ int swz(int r, int c4, int rows) {
  return (c4 / 8) * rows * 32 + r * 32 + (((c4 % 8) ^ (r % 8)) * 4);
}

// The swizzle atoms need 1024-byte alignment; the dynamic base only promises 16 (the
// launch asks for 1024 bytes more).
__device__ __forceinline__ uint8_t* align_1024(uint8_t* raw) {
  const uint32_t a = smem_u32(raw);
  return raw + (((a + 1023u) & ~1023u) - a);
}

// x, the same in every lane of the warp, as the compiler can tell (a shuffle from lane 0,
// as CUTLASS's canonical_warp_group_idx does): a warpgroup's index so computed keeps what
// derives from it (a shared-memory descriptor, a named barrier's id) on the uniform
// datapath, where tid / 128 puts it in vector registers and an R2UR before every use.
__device__ __forceinline__ int warp_uniform(int x) { return __shfl_sync(0xffffffffu, x, 0); }

__device__ __forceinline__ void fence_proxy_async() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// Orders this thread's later TMA (async proxy) reads of global memory after what it has
// seen written there (the generic proxy).
__device__ __forceinline__ void fence_proxy_async_global() {
  asm volatile("fence.proxy.async.global;\n" ::: "memory");
}

// A consumer thread's place in the accumulators (thread (warp, lane) of a warpgroup
// holds rows rA = 16 warp + lane / 4 and rB = rA + 8, columns 8j + 2 (lane % 4) (+1) of
// each 8-column chunk j) and the rows' running max and sum of the online softmax.
struct Rows {
  int64_t rA, rB;
  int t;
  float mA = -INFINITY, mB = -INFINITY, lA = 0.f, lB = 0.f;
};

// A consumer thread's rows: warpgroup wg's 64 rows of the query tile from m0.
__device__ __forceinline__ Rows consumer_rows(int64_t m0, int wg, int warp, int lane) {
  Rows r;
  r.rA = m0 + wg * 64 + warp * 16 + lane / 4;
  r.rB = r.rA + 8;
  r.t = lane % 4;
  return r;
}

// Scores of keys past S, above the causal diagonal or masked out, in the tile of BN keys
// from n0 of query rows from m0 (the first of `r`'s tile or consumer slot: no causal mask
// where the tile's last key is at or before it; `mask_mul`: the scale of the score's base). Without
// a mask: each row's last key as a bound relative to the thread's first column, against the
// columns' offsets as immediates, two instructions a score; a causal loop's diagonal tiles
// put these on its critical path (a consumer's softmax runs between its partner's
// products). PER_SCORE: every score's key and row in 64 bits, as the mask's path does; it
// compiles into a faster key loop in the fp16 split at head dim 64 where no tile but the
// last needs it (full attention).
template <int SR, bool PER_SCORE = false>
__device__ __forceinline__ void mask_tile(float (&sc)[SR], const KernelArgs& a,
                                          const BatchBase& base, const Rows& r, int64_t n0,
                                          int64_t m0, float mask_mul) {
  const AttentionProblem& p = a.p;
  constexpr int BN = 2 * SR;
  if (!(n0 + BN > p.S || (p.causal && n0 + BN - 1 > m0) || a.mask)) return;
  if (!PER_SCORE && a.mask == nullptr) {
    const auto bound = [&](int64_t row) {
      int64_t last = p.S - 1 - n0;
      if (p.causal) last = min_i64(last, row - n0);
      return static_cast<int>(last < -1 ? -1 : last > BN ? BN : last) - 2 * r.t;
    };
    const int bA = bound(r.rA), bB = bound(r.rB);
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        if (j * 8 + (i & 1) > (i < 2 ? bA : bB)) sc[4 * j + i] = -INFINITY;
      }
    }
    return;
  }
#pragma unroll
  for (int j = 0; j < BN / 8; ++j) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int64_t row = i < 2 ? r.rA : r.rB;
      const int64_t col = n0 + j * 8 + 2 * r.t + (i & 1);
      float& x = sc[4 * j + i];
      if (col >= p.S || (p.causal && col > row)) {
        x = -INFINITY;
      } else if (a.mask && row < p.L) {
        x += mask_term(p, a.mask, base.mask + row * p.mask.row, col, mask_mul);
      }
    }
  }
}

// 2^x by the MUFU alone: exp2f's non-ftz form spends two more instructions per score on
// results below 2^-126, which P (rounded to TF32 next) cannot hold anyway.
__device__ __forceinline__ float ex2_ftz(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// The max of a tile's scores in each of the thread's two rows across the quad (the four
// threads that share them), in four interleaved chains joined at the end: one chain of
// SR / 2 maxima per row put its fixed latencies on the softmax's path (a full tree held
// more registers, and spilled at 128-key tiles).
template <int SR>
__device__ __forceinline__ float2 tile_row_max(const float (&sc)[SR]) {
  static_assert(SR % 16 == 0, "four chains of whole 8-key chunks");
  float a[4], b[4];
#pragma unroll
  for (int j = 0; j < SR / 4; ++j) {
    const float x = fmaxf(sc[4 * j], sc[4 * j + 1]), y = fmaxf(sc[4 * j + 2], sc[4 * j + 3]);
    a[j % 4] = j < 4 ? x : fmaxf(a[j % 4], x);
    b[j % 4] = j < 4 ? y : fmaxf(b[j % 4], y);
  }
  float tA = fmaxf(fmaxf(a[0], a[1]), fmaxf(a[2], a[3]));
  float tB = fmaxf(fmaxf(b[0], b[1]), fmaxf(b[2], b[3]));
#pragma unroll
  for (int off = 1; off < 4; off *= 2) {
    tA = fmaxf(tA, __shfl_xor_sync(0xffffffffu, tA, off));
    tB = fmaxf(tB, __shfl_xor_sync(0xffffffffu, tB, off));
  }
  return make_float2(tA, tB);
}

// The scores of a tile become P = exp(mul s - base) (base 2, or e where BASE_E) in place,
// each row's base and multiplier its own (mul: x for row A, y for row B; one FMA with the
// subtraction); the rows' sums move on as l = alpha l + sum_mul times the tile's sum.
template <bool BASE_E, int SR>
__device__ __forceinline__ void exp_rows(float (&sc)[SR], float baseA, float baseB, float2 alpha,
                                         Rows& r, float2 mul = make_float2(1.f, 1.f),
                                         float sum_mul = 1.f) {
  const auto ex = [](float x) { return BASE_E ? expf(x) : ex2_ftz(x); };
  float sumA = 0.f, sumB = 0.f;
#pragma unroll
  for (int j = 0; j < SR / 4; ++j) {
    sc[4 * j] = ex(fmaf(sc[4 * j], mul.x, -baseA));
    sc[4 * j + 1] = ex(fmaf(sc[4 * j + 1], mul.x, -baseA));
    sc[4 * j + 2] = ex(fmaf(sc[4 * j + 2], mul.y, -baseB));
    sc[4 * j + 3] = ex(fmaf(sc[4 * j + 3], mul.y, -baseB));
    sumA += sc[4 * j] + sc[4 * j + 1];
    sumB += sc[4 * j + 2] + sc[4 * j + 3];
  }
  r.lA = r.lA * alpha.x + sumA * sum_mul;
  r.lB = r.lB * alpha.y + sumB * sum_mul;
}

// One tile of the online softmax, in place: the scores become P = exp(s - running max)
// (base 2, or e where BASE_E), the running max and sum move on; returns the factors
// (alpha) by which the rows' O must shrink. `mul` (positive, per row; the fp16 split's
// powers of two): the scores are mul s, multiplied here (the max, then one FMA a score)
// instead of before.
template <bool BASE_E, int SR>
__device__ __forceinline__ float2 softmax_tile(float (&sc)[SR], Rows& r,
                                               float2 mul = make_float2(1.f, 1.f)) {
  const auto ex = [](float x) { return BASE_E ? expf(x) : ex2_ftz(x); };
  const float2 t = tile_row_max(sc);
  const float tA = t.x * mul.x, tB = t.y * mul.y;
  const float nA = fmaxf(r.mA, tA), nB = fmaxf(r.mB, tB);
  // A row that has seen only -inf keeps base 0: exp gives 0, never -inf - -inf.
  const float baseA = nA == -INFINITY ? 0.f : nA, baseB = nB == -INFINITY ? 0.f : nB;
  const float2 alpha = make_float2(ex(r.mA - baseA), ex(r.mB - baseB));
  r.mA = nA;
  r.mB = nB;
  exp_rows<BASE_E>(sc, baseA, baseB, alpha, r, mul);
  return alpha;
}

// tf32's online softmax, with the rescale left out while it changes little
// (FlashAttention-4's conditional rescale): while no row of the warp has a tile max more
// than kLazyRescale (base 2) above the max its P, l and O are based on, that base stays,
// P = 2^(s - base) <= 2^kLazyRescale, and neither O nor l is multiplied (the final O / l
// divides any common base out). Returns whether O must shrink by `alpha` (warp-uniform:
// the caller's 32 multiplies, after the P V in flight has landed). In steady state a row's
// max rarely jumps by 2^8, so most tiles skip O's multiplies and the factors' MUFU.
// SHIFT (pipe 14, V in fp16 scaled per key tile: V = 2^lv V16): the running max and P are
// those of s + lv, so that P V16 is P V's terms on one base, and the tile's sum is taken
// back by inv = 2^-lv, so that l is the sum of 2^(s - base) on that same base.
constexpr float kLazyRescale = 8.f;
template <bool SHIFT = false, int SR>
__device__ __forceinline__ bool softmax_tile_lazy(float (&sc)[SR], Rows& r, float2& alpha,
                                                  float lv = 0.f, float inv = 1.f) {
  const float2 t = tile_row_max(sc);
  const float tA = SHIFT ? t.x + lv : t.x, tB = SHIFT ? t.y + lv : t.y;
  // -inf + 8 is -inf: a row's first finite scores always move its base.
  const bool rescale =
      __any_sync(0xffffffffu, tA > r.mA + kLazyRescale || tB > r.mB + kLazyRescale);
  alpha = make_float2(1.f, 1.f);
  if (rescale) {
    const float nA = fmaxf(r.mA, tA), nB = fmaxf(r.mB, tB);
    // A row that has seen only -inf keeps base 0: exp gives 0, never -inf - -inf.
    alpha = make_float2(ex2_ftz(r.mA - (nA == -INFINITY ? 0.f : nA)),
                        ex2_ftz(r.mB - (nB == -INFINITY ? 0.f : nB)));
    r.mA = nA;
    r.mB = nB;
  }
  const float baseA = r.mA == -INFINITY ? 0.f : r.mA, baseB = r.mB == -INFINITY ? 0.f : r.mB;
  if constexpr (SHIFT) {
    exp_rows<false>(sc, baseA - lv, baseB - lv, alpha, r, make_float2(1.f, 1.f), inv);
  } else {
    exp_rows<false>(sc, baseA, baseB, alpha, r);
  }
  return rescale;
}

// P rounded to the nearest TF32, ties away from zero, as cvt.rna does for every finite P
// (P is in [0, 2^kLazyRescale]): two integer instructions where cvt.rna takes three (it
// also tests for infinities and NaN). A NaN P (a NaN score) may come out as -0 or an
// infinity; its row's l is NaN then, which store_rows carries into the row's output.
__device__ __forceinline__ uint32_t p_tf32(float p) {
  return (__float_as_uint(p) + 0x1000u) & 0xffffe000u;
}

// P (softmax_tile's output) as mma_rs's A fragments, rounded to TF32: k-index t is key
// 2t, t + 4 is key 2t + 1 (Vt's key order). LO: the rest, p - hi, also rounded.
template <bool LO, int SR>
__device__ __forceinline__ void p_fragments(const float (&sc)[SR], uint32_t (&hi)[SR / 4][4],
                                            uint32_t (&lo)[LO ? SR / 4 : 1][4]) {
#pragma unroll
  for (int j = 0; j < SR / 4; ++j) {
    const float pf[4] = {sc[4 * j], sc[4 * j + 2], sc[4 * j + 1], sc[4 * j + 3]};
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      if constexpr (LO) {
        hi[j][i] = to_tf32(pf[i]);
        lo[j][i] = to_tf32(pf[i] - __uint_as_float(hi[j][i]));
      } else {
        hi[j][i] = p_tf32(pf[i]);
      }
    }
  }
}

template <int OR>
__device__ __forceinline__ void scale_rows(float (&o)[OR], float2 f) {
#pragma unroll
  for (int n = 0; n < OR / 4; ++n) {
    o[4 * n] *= f.x;
    o[4 * n + 1] *= f.x;
    o[4 * n + 2] *= f.y;
    o[4 * n + 3] *= f.y;
  }
}

// O / l into the output rows below L (l == 0: every score was -inf; PyTorch's safe
// softmax gives zeros; a NaN l, from a NaN score, makes the row NaN, as PyTorch's).
template <int OR>
__device__ __forceinline__ void store_rows(float (&o)[OR], Rows r, const AttentionProblem& p,
                                           float* out) {
#pragma unroll
  for (int off = 1; off < 4; off *= 2) {
    r.lA += __shfl_xor_sync(0xffffffffu, r.lA, off);
    r.lB += __shfl_xor_sync(0xffffffffu, r.lB, off);
  }
  scale_rows(o, make_float2(r.lA == 0.f ? 0.f : 1.f / r.lA, r.lB == 0.f ? 0.f : 1.f / r.lB));
#pragma unroll
  for (int n = 0; n < OR / 4; ++n) {
    const int col = n * 8 + 2 * r.t;
    if (r.rA < p.L) {
      *reinterpret_cast<float2*>(out + r.rA * p.out.row + col) =
          make_float2(o[4 * n], o[4 * n + 1]);
    }
    if (r.rB < p.L) {
      *reinterpret_cast<float2*>(out + r.rB * p.out.row + col) =
          make_float2(o[4 * n + 2], o[4 * n + 3]);
    }
  }
}

// Q's rows m0.. (zeros past L), scaled and rounded to TF32, into its swizzled tile;
// LO: the rest beside it. Threads tid, tid + threads, ...
template <int E, int BM, bool LO>
__device__ __forceinline__ void load_q(float* qs, const KernelArgs& a, const float* qb, int64_t m0,
                                       int tid, int threads) {
  for (int i = tid; i < BM * E / 4; i += threads) {
    const int r = i / (E / 4), c4 = i % (E / 4);
    float4 x = make_float4(0.f, 0.f, 0.f, 0.f);
    if (m0 + r < a.p.L) x = *reinterpret_cast<const float4*>(qb + (m0 + r) * a.p.q.row + c4 * 4);
    const float4 y = make_float4(x.x * a.scale, x.y * a.scale, x.z * a.scale, x.w * a.scale);
    const float4 h = make_float4(tf32_rna(y.x), tf32_rna(y.y), tf32_rna(y.z), tf32_rna(y.w));
    *reinterpret_cast<float4*>(qs + swz(r, c4, BM)) = h;
    if constexpr (LO) {
      *reinterpret_cast<float4*>(qs + BM * E + swz(r, c4, BM)) = make_float4(
          tf32_rna(y.x - h.x), tf32_rna(y.y - h.y), tf32_rna(y.z - h.z), tf32_rna(y.w - h.w));
    }
  }
}

// The cp.async copies of key tile n0: K's rows (zeros past S) into ks, Vt's columns
// into vs (and vt_lo's into vs_lo where given). Threads tid, tid + threads, ...
template <int E, int BN>
__device__ __forceinline__ void load_kv(float* ks, float* vs, float* vs_lo,
                                        const AttentionProblem& p, const float* kb,
                                        const float* vtb, const float* vtb_lo, int64_t sp,
                                        int64_t n0, int tid, int threads) {
  for (int i = tid; i < BN * E / 4; i += threads) {
    const int r = i / (E / 4), c4 = i % (E / 4);
    const int64_t j = n0 + r;
    const bool ok = j < p.S;
    cp_async16(ks + swz(r, c4, BN), kb + (ok ? j : 0) * p.k.row + c4 * 4, ok);
  }
  for (int i = tid; i < E * BN / 4; i += threads) {
    const int e = i / (BN / 4), c4 = i % (BN / 4);
    cp_async16(vs + swz(e, c4, E), vtb + e * sp + n0 + c4 * 4, true);
    if (vs_lo) cp_async16(vs_lo + swz(e, c4, E), vtb_lo + e * sp + n0 + c4 * 4, true);
  }
}

// S (+)= Q K^T over the head dim: E / 8 k-steps of 8 on the swizzled tiles, Q's rows from
// qa (a warpgroup's 64 rows of a BM-row tile), K's from ka (a BN-key tile); issued, not
// committed. ACCUMULATE: add to `acc` from the first step (else it starts afresh).
template <int E, int BN, int BM>
__device__ __forceinline__ void issue_qk(float (&acc)[BN / 2], uint32_t qa, uint32_t ka,
                                         bool accumulate) {
  const Sw128Desc dq(qa), dk(ka);
#pragma unroll
  for (int kk = 0; kk < E / 8; ++kk) {
    const uint32_t koff = (kk % 4) * 32;
    sm90::WgmmaTf32<BN>::mma(acc, dq.at((kk / 4) * BM * 128 + koff),
                             dk.at((kk / 4) * BN * 128 + koff), accumulate || kk > 0 ? 1 : 0);
  }
}

// The same with Q's rows as mma_rs's A fragments in registers (q_fragments): S then reads
// only K from shared memory, half the bytes per wgmma.
template <int E, int BN>
__device__ __forceinline__ void issue_qk_rs(float (&acc)[BN / 2], const uint32_t (&qf)[E / 8][4],
                                            uint32_t ka) {
  const Sw128Desc dk(ka);
#pragma unroll
  for (int kk = 0; kk < E / 8; ++kk) {
    sm90::WgmmaTf32<BN>::mma_rs(acc, qf[kk], dk.at((kk / 4) * BN * 128 + (kk % 4) * 32),
                                kk > 0 ? 1 : 0);
  }
}

// A thread's A fragments of its warpgroup's 64 query rows from `row0`, straight from
// global memory (scaled, rounded to TF32, zeros past L): k-step kk holds (r, 8 kk + t),
// (r + 8, 8 kk + t), then the same at t + 4, r = row0 + 16 warp + lane / 4. No shared
// memory and no block barrier: the producer's first tiles load meanwhile. In two steps:
// the loads (q_rows_load, at the kernel's entry: Q's round trip under the prologue), then
// the scale and rounding (q_fragments).
template <int E>
__device__ __forceinline__ void q_rows_load(float (&x)[E / 8][4], const KernelArgs& a,
                                            const float* qb, int64_t row0, int warp, int lane) {
  const int64_t r = row0 + warp * 16 + lane / 4;
  const int t = lane % 4;
#pragma unroll
  for (int kk = 0; kk < E / 8; ++kk) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int64_t rr = r + (i % 2) * 8;
      const int c = 8 * kk + t + (i / 2) * 4;
      x[kk][i] = rr < a.p.L ? qb[rr * a.p.q.row + c] : 0.f;
    }
  }
}
template <int E>
__device__ __forceinline__ void q_fragments(uint32_t (&qf)[E / 8][4], const float (&x)[E / 8][4],
                                            float scale) {
#pragma unroll
  for (int kk = 0; kk < E / 8; ++kk) {
#pragma unroll
    for (int i = 0; i < 4; ++i) qf[kk][i] = __float_as_uint(tf32_rna(x[kk][i] * scale));
  }
}

// A pre-pass lets the kernel launched as its programmatic dependent (PDL) start its
// prologue (a no-op before a plain launch); the kernel waits for the pre-pass's grid before
// it reads what the pre-pass writes.
__device__ __forceinline__ void let_dependents_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

// Vt[b][e][j'] = V[b][key(j')][e], key(j') the 0,2,4,6,1,3,5,7 order inside each group of 8,
// rounded to TF32; zeros past S. 32 x 32 tiles through shared memory. `lo` (accurate):
// the rest, v - hi rounded to TF32, into the same place of a second array. `made` (pipe
// 11, whose kernel makes the other heads' Vt: sm90/attention_wgmma_persistent.cuh): its
// `heads` counts zeroed.
__global__ void __launch_bounds__(256)
    attention_vt_kernel(KernelArgs a, float* vt, float* lo, int64_t sp, unsigned* made,
                        int64_t heads) {
  // The warp-specialized kernel may start its prologue now; its producer waits for this
  // grid before the first copy of Vt.
  let_dependents_launch();
  if (made != nullptr && blockIdx.x == 0 && blockIdx.y == 0) {
    for (int64_t i = threadIdx.x + 256 * int64_t{blockIdx.z}; i < heads; i += 256 * gridDim.z) {
      made[i] = 0;
    }
  }
  __shared__ float tile[32][33];
  const AttentionProblem& p = a.p;
  const int64_t b = blockIdx.z;
  const int64_t j0 = int64_t{blockIdx.x} * 32;
  const int e0 = blockIdx.y * 32;
  const float* vb = a.v + batch_offset(p, p.v, b);
  const int tx = threadIdx.x % 32, ty = threadIdx.x / 32;
  for (int r = ty; r < 32; r += 8) {
    const int64_t j = j0 + r;
    tile[r][tx] = j < p.S ? vb[j * p.v.row + (e0 + tx) * p.v.col] : 0.f;
  }
  __syncthreads();
  const int u = tx % 8;
  const int key = (tx & ~7) + (u < 4 ? 2 * u : 2 * (u - 4) + 1);
  for (int r = ty; r < 32; r += 8) {
    const int64_t at = (b * p.Ev + e0 + r) * sp + j0 + tx;
    const float x = tile[key][r], hi = tf32_rna(x);
    vt[at] = hi;
    if (lo) lo[at] = tf32_rna(x - hi);
  }
}

// The pre-pass over heads [0, make) of the problem's (`made`: and its `heads` counts
// zeroed), on `stream`.
inline cudaError_t launch_vt_prepass(const KernelArgs& a, float* vt, float* lo, int64_t sp,
                                     int64_t make, cudaStream_t stream, unsigned* made = nullptr,
                                     int64_t heads = 0) {
  const dim3 grid(static_cast<unsigned>(sp / 32), static_cast<unsigned>(a.p.Ev / 32),
                  static_cast<unsigned>(make));
  attention_vt_kernel<<<grid, 256, 0, stream>>>(a, vt, lo, sp, made, heads);
  return cudaGetLastError();
}

// ACC: the 3xTF32 split of both products (the mma kernel's accurate scheme): S =
// Qhi K + (Qlo K + Qhi Klo), the small cross terms in an accumulator of their own; P
// split in registers, each tile's Plo Vt + Phi Vtlo + Phi Vt in fresh accumulators (64
// columns at a time) promoted into O by IEEE FMA; scores in base e (expf), as strict.
template <int E, int BN, int WG, bool ACC>
__global__ void __launch_bounds__(128 * WG, 1)
    attention_wgmma_kernel(const __grid_constant__ KernelArgs a, const float* vt,
                           const float* vt_lo, int64_t sp) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using T = WgTraits<E, BN, WG, ACC>;
  constexpr int BM = T::kBM;
  constexpr int NT = BN / 8;  // 8-key chunks of a tile: the k-steps of P V
  constexpr int SR = BN / 2;  // S accumulator registers per thread
  constexpr int OR = E / 2;   // O accumulator registers per thread
  const AttentionProblem& p = a.p;
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = align_1024(smem_raw);
  float* qs = reinterpret_cast<float*>(smem);
  const uint32_t q_addr = smem_u32(qs);
  const auto stage_k = [&](int s) {
    return reinterpret_cast<float*>(smem + T::kQBytes + s * T::kStageBytes);
  };

  const int tid = threadIdx.x;
  const int wg = warp_uniform(tid / 128), warp = (tid % 128) / 32, lane = tid % 32;
  // Heaviest causal tiles first: the last query tiles attend the most keys.
  const QueryTile qt = query_tile_reversed(p);
  const int64_t m0 = qt.mt * BM;
  const int64_t b = qt.b;
  const BatchBase base = batch_base(a, b);
  const float* vtb = vt + b * E * sp;
  const float* vtb_lo = ACC ? vt_lo + b * E * sp : nullptr;
  Rows rows = consumer_rows(m0, wg, warp, lane);

  load_q<E, BM, ACC>(qs, a, base.q, m0, tid, T::kThreads);
  const int64_t keys = attended_keys(p, m0, BM);
  const int tiles = static_cast<int>((keys + BN - 1) / BN);
  const auto load = [&](int tile, int s) {
    float* ks = stage_k(s);
    load_kv<E, BN>(ks, ks + BN * E, ACC ? ks + 3 * BN * E : nullptr, p, base.k, vtb, vtb_lo, sp,
                   int64_t{tile} * BN, tid, T::kThreads);
    cp_async_commit();
  };
  // accurate: K's lo beside the stage, each thread over the chunks it loaded (its own
  // cp.async writes are visible to it after the wait). The tensor core reads the raw
  // tile as hi (truncated to TF32); lo = rna(k - trunc(k)) makes the split exact.
  [[maybe_unused]] const auto split_k = [&](int s) {
    const float* ks = stage_k(s);
    float* kl = stage_k(s) + 2 * BN * E;
    for (int i = tid; i < BN * E / 4; i += T::kThreads) {
      const int at = swz(i / (E / 4), i % (E / 4), BN);
      const float4 x = *reinterpret_cast<const float4*>(ks + at);
      *reinterpret_cast<float4*>(kl + at) =
          make_float4(tf32_lo(x.x), tf32_lo(x.y), tf32_lo(x.z), tf32_lo(x.w));
    }
  };

  float o[OR];
#pragma unroll
  for (int i = 0; i < OR; ++i) o[i] = 0.f;
  // tf32: scores in base 2 (the scale carries log2 e); accurate: base e.
  constexpr float kMaskMul = ACC ? 1.f : kLog2eF;

  if (tiles > 0) load(0, 0);
  for (int tile = 0; tile < tiles; ++tile) {
    const int s = tile & 1;
    if (tile + 1 < tiles) {
      load(tile + 1, s ^ 1);
      cp_async_wait<1>();
    } else {
      cp_async_wait<0>();
    }
    if constexpr (ACC) split_k(s);
    // The tiles (and Q) were written through the generic proxy; wgmma reads through
    // the async one.
    fence_proxy_async();
    __syncthreads();
    const uint32_t k_addr = smem_u32(stage_k(s));
    const uint32_t v_addr = k_addr + T::kKBytes;
    [[maybe_unused]] const uint32_t kl_addr = k_addr + 2 * T::kKBytes;
    [[maybe_unused]] const uint32_t vl_addr = k_addr + 3 * T::kKBytes;

    float sc[SR];
#pragma unroll
    for (int i = 0; i < SR; ++i) sc[i] = 0.f;
    fence_regs(sc);
    wgmma_fence();
    const uint32_t qa = q_addr + wg * 64 * 128;
    issue_qk<E, BN, BM>(sc, qa, k_addr, false);
    [[maybe_unused]] float ss[ACC ? SR : 1];
    if constexpr (ACC) {
#pragma unroll
      for (int i = 0; i < SR; ++i) ss[i] = 0.f;
      fence_regs(ss);
      issue_qk<E, BN, BM>(ss, qa + BM * E * 4, k_addr, false);  // Qlo K
      issue_qk<E, BN, BM>(ss, qa, kl_addr, true);               // + Qhi Klo
    }
    wgmma_commit();
    wgmma_wait<0>();
    fence_regs(sc);
    if constexpr (ACC) {
      fence_regs(ss);
#pragma unroll
      for (int i = 0; i < SR; ++i) sc[i] += ss[i];
    }

    mask_tile(sc, a, base, rows, int64_t{tile} * BN, m0, kMaskMul);
    const float2 alpha = softmax_tile<ACC>(sc, rows);
    uint32_t pa[NT][4];
    [[maybe_unused]] uint32_t pl[ACC ? NT : 1][4];
    p_fragments<ACC>(sc, pa, pl);
    if constexpr (ACC) {
      // 64 output columns at a time: the tile's P V in fresh accumulators, promoted.
#pragma unroll
      for (int h = 0; h < E / 64; ++h) {
        float pv[32];
#pragma unroll
        for (int i = 0; i < 32; ++i) pv[i] = 0.f;
        fence_regs(pv);
        wgmma_fence();
#pragma unroll
        for (int j = 0; j < NT; ++j) {
          const uint32_t off = (j / 4) * E * 128 + h * 64 * 128 + (j % 4) * 32;
          sm90::WgmmaTf32<64>::mma_rs(pv, pl[j], sw128_desc(v_addr + off), j > 0 ? 1 : 0);
          sm90::WgmmaTf32<64>::mma_rs(pv, pa[j], sw128_desc(vl_addr + off), 1);
          sm90::WgmmaTf32<64>::mma_rs(pv, pa[j], sw128_desc(v_addr + off), 1);
        }
        wgmma_commit();
        wgmma_wait<0>();
        fence_regs(pv);
#pragma unroll
        for (int n = 0; n < 8; ++n) {
          float* on = o + h * 32 + 4 * n;
          on[0] = fmaf(on[0], alpha.x, pv[4 * n]);
          on[1] = fmaf(on[1], alpha.x, pv[4 * n + 1]);
          on[2] = fmaf(on[2], alpha.y, pv[4 * n + 2]);
          on[3] = fmaf(on[3], alpha.y, pv[4 * n + 3]);
        }
      }
    } else {
      scale_rows(o, alpha);
      fence_regs(o);
      wgmma_fence();
#pragma unroll
      for (int j = 0; j < NT; ++j) {
        const uint64_t db = sw128_desc(v_addr + (j / 4) * E * 128 + (j % 4) * 32);
        sm90::WgmmaTf32<E>::mma_rs(o, pa[j], db, 1);
      }
      wgmma_commit();
      wgmma_wait<0>();
      fence_regs(o);
    }
    // Every warp is done with this stage before the next iteration's loads refill it.
    __syncthreads();
  }
  store_rows(o, rows, p, base.out);
#else
  (void)a;
  (void)vt;
  (void)vt_lo;
  (void)sp;
#endif
}

// ---- pipe=1: warp-specialized, with the next tile's S under this tile's softmax ----

__device__ __forceinline__ void mbar_init(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(count)
               : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_u32(bar)) : "memory");
}
// A producer warp's part of a stage, written by ordinary stores, goes to the consumers'
// wgmma (the async proxy): fence, then one arrival per warp on `bar`.
__device__ __forceinline__ void hand_over(uint64_t* bar) {
  fence_proxy_async();
  __syncwarp();
  if (threadIdx.x % 32 == 0) mbar_arrive(bar);
}
// Arrives once the calling thread's earlier cp.async copies have landed (noinc: the
// arrival is one of the barrier's expected count).
__device__ __forceinline__ void mbar_arrive_cp_async(uint64_t* bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(smem_u32(bar))
               : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n.reg .pred P1;\nLAB_WAIT:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n"
      "@P1 bra DONE;\nbra LAB_WAIT;\nDONE:\n}\n" ::"r"(smem_u32(bar)),
      "r"(parity)
      : "memory");
}

// Waits for the grid this one depends on (PDL: the pre-pass) to finish and its writes to be
// visible, then orders this thread's TMA (async proxy) reads after them.
__device__ __forceinline__ void grid_dependency_wait() {
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
  fence_proxy_async_global();
}

// ---- pipe 2 and 3: K and Vt by TMA, pipe 3 multicast across a 2-CTA cluster ----

// The tensor maps of the TMA pipelines: K as [batch dims..., S, E] (five dims: E, S, then
// up to three batch dims innermost first, size 1 where the problem has fewer), a box of
// one 128-byte swizzle panel (32 floats) by BN keys; Vt as [batches * Ev, sp], a box of
// 32 keys by Ev rows. Either box lands in the swizzled panel layout swz() describes.
struct AttnTmaMaps {
  CUtensorMap k;
  CUtensorMap vt;  // accurate: [2 * batches * Ev, sp], Vt's lo rows after the hi ones
  CUtensorMap v;   // VT: V as K, a box of E x BN unswizzled
};

// Through the runtime's entry-point query (as tc_gemm.cu), so nothing links libcuda.
inline PFN_cuTensorMapEncodeTiled_v12000 attention_encode_tiled() {
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* f = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault,
                                         &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess) {
      f = nullptr;
    }
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(f);
  }();
  return fn;
}

// An operand of the problem's layout (K or V: [batch dims..., S, E]) as a 5-dim map
// (E, S, then the batch dims innermost first, size 1 where the problem has fewer).
inline bool attention_kv_map(const AttentionProblem& p, const AttnStrides& st, const float* ptr,
                             const cuuint32_t (&box)[5], CUtensorMapSwizzle swizzle,
                             CUtensorMap& m) {
  cuuint64_t dims[5] = {cuuint64_t(p.E), cuuint64_t(p.S), 1, 1, 1};
  cuuint64_t strides[4];
  strides[0] = cuuint64_t(p.S > 1 ? st.row : p.E) * 4;
  // A size-1 dim's stride is never used; any legal value does.
  const cuuint64_t span = strides[0] * cuuint64_t(p.S);
  for (int i = 0; i < 3; ++i) {
    const int d = p.batch_rank - 1 - i;
    const bool real = d >= 0 && p.batch[d] > 1;
    dims[2 + i] = real ? cuuint64_t(p.batch[d]) : 1;
    strides[1 + i] = real ? cuuint64_t(st.batch[d]) * 4 : span;
  }
  const cuuint32_t elem[5] = {1, 1, 1, 1, 1};
  return attention_encode_tiled()(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 5, const_cast<float*>(ptr),
                                  dims, strides, box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                                  CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// K's map, boxes of bn keys by 32 columns (false where K's layout has none or the driver
// refuses it).
inline bool attention_k_map(const AttentionProblem& p, const float* k, int bn, CUtensorMap& m) {
  if (attention_encode_tiled() == nullptr || !kv_tma_mappable(p, p.k)) return false;
  const cuuint32_t kbox[5] = {32, cuuint32_t(bn), 1, 1, 1};
  return attention_kv_map(p, p.k, k, kbox, CU_TENSOR_MAP_SWIZZLE_128B, m);
}

// False where K's layout (VT: V's too) has no tensor map (kv_tma_mappable) or the
// driver refuses one: the launcher then runs the cp.async pipeline of the same variant.
// vt: the pre-pass's Vt (unused with VT); with_lo (accurate): its lo half follows it.
inline bool attention_tma_maps(const AttentionProblem& p, const float* k, const float* v,
                               const float* vt, int64_t sp, int bn, bool in_kernel_vt,
                               AttnTmaMaps& m, bool with_lo = false) {
  if (!attention_k_map(p, k, bn, m.k)) return false;
  if (in_kernel_vt) {
    const cuuint32_t vbox[5] = {cuuint32_t(p.E), cuuint32_t(bn), 1, 1, 1};
    return p.Ev == p.E && kv_tma_mappable(p, p.v) &&
           attention_kv_map(p, p.v, v, vbox, CU_TENSOR_MAP_SWIZZLE_NONE, m.v);
  }
  const cuuint64_t vdims[2] = {cuuint64_t(sp),
                               cuuint64_t(p.batch_count() * p.Ev * (with_lo ? 2 : 1))};
  const cuuint64_t vstrides[1] = {cuuint64_t(sp) * 4};
  const cuuint32_t vbox[2] = {32, cuuint32_t(p.Ev)};
  const cuuint32_t elem[2] = {1, 1};
  return attention_encode_tiled()(&m.vt, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(vt),
                                  vdims, vstrides, vbox, elem, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                  CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// K's map coordinates of batch `b` (row-major over the merged batch dims, innermost
// first as the map's dims 2-4).
__device__ __forceinline__ void k_batch_coords(const AttentionProblem& p, int64_t b,
                                               int32_t (&c)[5]) {
  uint32_t rest = static_cast<uint32_t>(b);  // 32-bit, as batch_index
#pragma unroll
  for (int i = 0; i < 3; ++i) {
    const int d = p.batch_rank - 1 - i;
    c[2 + i] = 0;
    if (d >= 0) {
      const uint32_t n = static_cast<uint32_t>(p.batch[d]);
      c[2 + i] = static_cast<int32_t>(rest % n);
      rest /= n;
    }
  }
}

// FlashAttention-3's ping-pong of two consumer warpgroups (PP; nothing otherwise):
// consumer w issues after barrier 1 + w completes (its partner's arrival), then arrives
// on its partner's. Both issue tiles + 1 times (tile 0's S, each loop iteration, the last
// P V); consumer 1 opens with an arrival so consumer 0 goes first, and leaves out its
// last one, so that no arrival is left pending at exit.
template <bool PP>
struct PingPong {
  int wg;
  __device__ __forceinline__ PingPong(int consumer, int tiles) : wg(consumer) {
    if constexpr (PP) {
      if (wg == 1 && tiles > 0) asm volatile("bar.arrive 1, 256;\n" ::: "memory");
    }
  }
  __device__ __forceinline__ void wait() const {
    if constexpr (PP) asm volatile("bar.sync %0, 256;\n" ::"r"(1 + wg) : "memory");
  }
  __device__ __forceinline__ void pass(bool last) const {
    if constexpr (PP) {
      if (!(last && wg == 1)) asm volatile("bar.arrive %0, 256;\n" ::"r"(2 - wg) : "memory");
    }
  }
  // A persistent walk's item without key tiles (S == 0): its turns go on as if it had one.
  __device__ __forceinline__ void pass_empty_item() const {
    wait();
    pass(false);
    wait();
    pass(false);
  }
};

// V's raw tile in shared memory (pipes 4 and 7: by TMA, [BN keys][E], unswizzled) into
// Vt's K-major tile (swz()'s panels, keys in the pre-pass's 0,2,4,6,1,3,5,7 order of each
// 8, rounded to TF32), by `n` threads from `t`, in 4 x 4 blocks: item i reads four keys'
// 16 bytes of columns 4a .. 4a + 3 and writes four Vt rows' 16 bytes of Vt positions
// 4c4 .. 4c4 + 3 (keys key0 + 0, 2, 4, 6). The eight lanes of a quarter-warp (one
// 16-byte access phase) take eight consecutive column chunks (distinct banks for the
// reads) and, by pairs, four key chunks rotated by the round, so that the writes'
// swizzled chunks ((key chunk) ^ (row % 8)) are distinct too. (One thread a 4-byte read
// per element, the first version, ran 8-14% slower through pipes 4 and 7:
// docs/performance.md.)
__device__ __forceinline__ float float4_at(const float4& v, int j) {
  return j == 0 ? v.x : j == 1 ? v.y : j == 2 ? v.z : v.w;
}
template <int E, int BN>
__device__ __forceinline__ void transpose_v_tile(float* vt, const float* vraw, int t, int n) {
  static_assert(E % 32 == 0 && BN % 16 == 0, "whole groups of 8 column and 4 key chunks");
  constexpr int kColGroups = E / 32;
#pragma unroll 1
  for (int i = t; i < E * BN / 16; i += n) {
    const int lane8 = i % 8, round = i / 8;
    const int turn = round % 4, col_group = (round / 4) % kColGroups;
    const int key_group = round / (4 * kColGroups);
    const int a = 8 * col_group + lane8;
    const int c4 = 4 * key_group + ((lane8 >> 1) + turn) % 4;
    const int key0 = (c4 / 2) * 8 + (c4 & 1);
    float4 x[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      x[k] = *reinterpret_cast<const float4*>(vraw + (key0 + 2 * k) * E + 4 * a);
    }
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      *reinterpret_cast<float4*>(vt + swz(4 * a + j, c4, E)) =
          make_float4(tf32_rna(float4_at(x[0], j)), tf32_rna(float4_at(x[1], j)),
                      tf32_rna(float4_at(x[2], j)), tf32_rna(float4_at(x[3], j)));
    }
  }
}

// Diagnostics of the pipe=1 kernel (DIAG bits; the kernel bench alone instantiates them,
// their output is meaningless): where its time goes, by leaving a part out.
constexpr int kDiagNoSoftmax = 1;    // no mask or softmax: P is S as it stands
constexpr int kDiagNoLoads = 2;      // no K/Vt copies and no waits for them
constexpr int kDiagNoMma = 4;        // no wgmma (S stays zero)
constexpr int kDiagTrace = 8;        // each CTA's SM, start and end into g_cta_trace
constexpr int kDiagReadyVt = 16;     // pipes 12, 14: V's pre-pass run before, nothing made ahead
constexpr int kDiagFirstReady = 32;  // pipe 14 (MADE): the first units' heads made before
constexpr int kDiagNoConvert = 64;   // pipe 15 (CONV): V16 left as it is (wrong results)

// kDiagTrace's record (the kernel bench sets g_cta_trace; where a CTA's time goes):
// kTraceWords per CTA of the grid in launch order: its start (%globaltimer, ns, at entry),
// its end (the last consumer's, after its store), its SM, then marks of consumer 0 (3-7)
// and consumer 1 (8-9) at the kernel's steps. ON false (every launch but the bench's
// traced ones): no code.
// The persistent kernels add, per item n < kTraceItems of consumer 0, kItemWords words from
// 10 + kItemWords n: its start, Q taken, first softmax done, key loop done, O stored (ns),
// its key tiles, and how long the producer waited for its head's Vt (pipe 11, ns).
constexpr int kTraceItems = 8, kItemWords = 7;
constexpr int kTraceWords = 10 + kTraceItems * kItemWords;
__device__ unsigned long long* g_cta_trace = nullptr;
__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ unsigned long long* cta_trace() {
  return g_cta_trace + kTraceWords * (blockIdx.x + blockIdx.y * gridDim.x);
}
template <bool ON>
__device__ __forceinline__ void trace_start() {
  if constexpr (ON) {
    if (threadIdx.x == 0 && g_cta_trace != nullptr) {
      unsigned sm;
      asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
      cta_trace()[0] = global_ns();
      cta_trace()[2] = sm;
    }
  }
}
template <bool ON>
__device__ __forceinline__ void trace_end() {
  if constexpr (ON) {
    if (threadIdx.x % 128 == 0 && g_cta_trace != nullptr) atomicMax(&cta_trace()[1], global_ns());
  }
}
// Mark step `step` (0-4) of item `n` by consumer 0's first thread.
template <bool ON>
__device__ __forceinline__ void trace_item(int n, int step) {
  if constexpr (ON) {
    if (threadIdx.x == 0 && g_cta_trace != nullptr && n < kTraceItems) {
      cta_trace()[10 + kItemWords * n + step] = global_ns();
    }
  }
}
// Word `word` (5, 6) of item `n`'s record: `value`, by whichever thread calls it.
template <bool ON>
__device__ __forceinline__ void trace_item_value(int n, int word, unsigned long long value) {
  if constexpr (ON) {
    if (g_cta_trace != nullptr && n < kTraceItems) cta_trace()[10 + kItemWords * n + word] = value;
  }
}
// Mark `word` by the first thread of consumer `wg`.
template <bool ON>
__device__ __forceinline__ void trace_mark(int wg, int word) {
  if constexpr (ON) {
    if (threadIdx.x == 128 * wg && g_cta_trace != nullptr) cta_trace()[word] = global_ns();
  }
}

// MINB: blocks per SM (two: one block's prologue and epilogue run under the other's
// main loop; registers and shared memory are halved).
// VT: V's raw tile (by TMA, [BN keys][E], unswizzled) staged beside K and Vt, which
// the producer's warps 1-3 transpose into Vt (no pre-pass).
// ACC (accurate, TMA pipes 2 and 5): Q's hi and lo in shared memory; a stage holds K,
// Vt, K's lo (split from K by the producer's warps 1-3) and Vt's lo (the pre-pass's).
template <int E, int BN, int WG, int STAGES, int MINB = 1, bool VT = false, bool ACC = false>
struct WsTraits {
  static constexpr int kBM = 64 * WG;
  static constexpr int kThreads = 128 * (WG + 1);  // the consumers, then the producer
  // The producer keeps kProducerRegs; the consumers share the rest, in steps of 8
  // (ptxas allocates each role's branch to its setmaxnreg budget). cp.async's producer
  // spilled its address arithmetic at 40; ACC's (one TMA thread, a float4 split loop)
  // fits 24, and its consumers spill 76 bytes at 232 (pipe 2), none at 240. 128-key
  // tiles (bench only: TMA) likewise take 240.
  static constexpr int kProducerRegs = ACC || BN >= 128 ? 24 : 56;
  // setmaxnreg moves registers only within what the block holds at launch (the launch
  // bound's share a thread, in steps of 8): past it, the consumers' increase waits forever.
  static constexpr int kLaunchRegs = 65536 / MINB / kThreads / 8 * 8;
  static constexpr int kConsumerRegsRaw =
      (kLaunchRegs * kThreads - 128 * kProducerRegs) / (128 * WG);
  static constexpr int kConsumerRegs = (kConsumerRegsRaw > 240 ? 240 : kConsumerRegsRaw) / 8 * 8;
  static_assert(128 * kProducerRegs + 128 * WG * kConsumerRegs <= kLaunchRegs * kThreads,
                "setmaxnreg past the block's registers at launch");
  static constexpr int kQBytes = kBM * E * 4 * (ACC ? 2 : 1);
  static constexpr int kKBytes = BN * E * 4;
  // K, Vt (, V's raw tile; ACC: K's lo, Vt's lo)
  static constexpr int kStageBytes = (ACC ? 4 : VT ? 3 : 2) * kKBytes;
  static constexpr int kBarOffset = kQBytes + STAGES * kStageBytes;
  static constexpr int kSmemBytes = kBarOffset + (VT || ACC ? 3 : 2) * STAGES * 8 + 1024;
  static_assert(kSmemBytes * MINB <= 232448, "shared memory over the 227 KB of an SM");
  // A consumer waits for tile t having given back tile t - 2's stage (t - 1's goes
  // back after its P V, inside iteration t): two stages run without deadlock.
  static_assert(STAGES >= 2, "a ring of one stage would deadlock");
};

// tf32. One producer warpgroup fills a STAGES-deep ring of K and Vt tiles, each stage's
// full barrier completing as the copies land; the consumer warpgroups run free of each
// other (no block barrier in the loop), each giving a stage back (empty) once its P V
// has read it. Inside a consumer (FlashAttention-3's intra-warpgroup pipelining): tile
// t's S and tile t - 1's P V are issued together, and the P V runs under tile t's
// softmax. Only the P V is in flight while the softmax reads S's registers: an S of the
// next tile in flight as well (the first version of this kernel) had ptxas serialise
// every wgmma (C7514) and needed a third register array.
// LD, how the producer loads: 0 (pipe 1) cp.async by its 128 threads; 1 (pipe 2) TMA
// from one thread (`maps`), no copy instructions on the other 127; 2 (pipe 3) TMA in a
// cluster of two CTAs that take neighbouring query tiles of one (batch, head): CTA 0
// loads each K tile, CTA 1 each Vt tile, both multicast into the pair (each K/Vt byte
// leaves L2 once per pair instead of once per CTA). A pair walks the same key tiles in
// step: its lighter (causal) CTA waits for and gives back the tiles only its partner
// uses, and each stage comes back to a producer once the consumers of both CTAs are
// done with it (the empty barriers count both CTAs' warps).
// VT (pipe 4 with LD 2, pipe 7 with LD 1 and PP): no pre-pass; V's raw tile comes by
// TMA (pipe 4: CTA 1 of the pair multicasts it) into the stage's third part, and the
// producer's warps 1-3 transpose it into Vt there (keys in Vt's order, rounded to TF32),
// fence it for the async proxy and arrive on the stage's full barrier beside the TMA's
// bytes.
// PP (pipes 5 and 7, with LD 1 and two consumers): FlashAttention-3's ping-pong on top:
// the consumers take turns to issue their wgmma (two named barriers), so one's softmax
// runs under the other's products.
// ACC (accurate; LD 1, head dim 64): the 3xTF32 split of pipe 0's accurate kernel on
// this pipeline. Q's hi and lo in shared memory; K's tile lands on its own barrier
// (`kload`) and the producer's warps 1-3 write its lo beside it (fence, then arrive on
// the stage's full barrier with the TMA's bytes of Vt and Vt's lo). S = Qhi K + (Qlo K
// + Qhi Klo), the cross terms in an accumulator of their own; P split in registers; tile
// t - 1's Plo Vt + Phi Vtlo + Phi Vt runs under tile t's softmax into fresh
// accumulators, promoted into O by IEEE FMA (O = alpha(t - 1) O + PV) once it lands;
// scores in base e (expf): pipe 0's accurate arithmetic, but for the order of the P V
// products (issue_pv).
template <int E, int BN, int WG, int STAGES, int MINB = 1, int LD = 0, bool VT = false,
          bool PP = false, bool ACC = false, int DIAG = 0,
          bool QR = (E * BN <= 64 * 64 && MINB == 1 && !ACC)>
__global__ void __launch_bounds__(128 * (WG + 1), MINB)
    attention_wgmma_ws_kernel(const __grid_constant__ KernelArgs a, const float* vt, int64_t sp,
                              const __grid_constant__ AttnTmaMaps maps, bool vt_dependent) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  constexpr bool kTraced = (DIAG & kDiagTrace) != 0;
  trace_start<kTraced>();
  using T = WsTraits<E, BN, WG, STAGES, MINB, VT, ACC>;
  static_assert(!VT || LD != 0, "the in-kernel V transpose reads V's tile by TMA");
  static_assert(!PP || WG == 2, "the ping-pong takes two consumer warpgroups");
  // Q's hi as register fragments beside S's cross terms spilled 108-120 bytes and ran
  // no faster (docs/performance.md): ACC keeps Q in shared memory.
  static_assert(!ACC || (LD == 1 && !VT && !QR && E == 64),
                "accurate runs on the TMA pipes (2, 5) at head dim 64, Q in shared memory");
  namespace ptx = ::cuda::ptx;
  constexpr int BM = T::kBM;
  constexpr int NT = BN / 8, SR = BN / 2, OR = E / 2;
  constexpr int CL = LD == 2 ? 2 : 1;  // CTAs per cluster
  const AttentionProblem& p = a.p;
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = align_1024(smem_raw);
  float* qs = reinterpret_cast<float*>(smem);
  const uint32_t q_addr = smem_u32(qs);
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + T::kBarOffset);
  uint64_t* empty = full + STAGES;
  // VT: V's raw tile has landed; ACC: K's tile has (its lo is split from it).
  [[maybe_unused]] uint64_t* vload = empty + STAGES;
  const auto stage_k = [&](int s) {
    return reinterpret_cast<float*>(smem + T::kQBytes + s * T::kStageBytes);
  };

  const int tid = threadIdx.x;
  // One CTA: query_tile_grid's order (causal: heaviest tiles first across groups of
  // heads); a pair: neighbouring query tiles of one head, heaviest pair first.
  const QueryTile qt = CL == 1 ? query_tile(p, BM) : query_tile_reversed(p);
  const int64_t m0 = qt.mt * BM;
  const int64_t b = qt.b;
  const BatchBase base = batch_base(a, b);
  const auto tiles_of = [&](int64_t first_row) {
    const int64_t keys = attended_keys(p, first_row, BM);
    return static_cast<int>((keys + BN - 1) / BN);
  };
  // The key tiles the pair walks (causal: its first CTA's query tile is the later one)
  // and those this CTA computes (none for a query tile past L that only pads the pair).
  const int rank = CL == 2 ? static_cast<int>(blockIdx.x & 1) : 0;
  const int ctiles = tiles_of(m0 + (p.causal ? int64_t{rank} * BM : 0));
  const int tiles = CL == 2 && m0 >= p.L ? 0 : tiles_of(m0);

  // QR: the consumers' Q loads in flight from the kernel's entry (2-5% at 1k keys); but
  // where the producer's warps transpose V (VT), after setmaxnreg as before: early, pipe 7
  // ran 2% slower (docs/performance.md).
  constexpr bool kEarlyQ = QR && !VT;
  [[maybe_unused]] float qx[QR ? E / 8 : 1][4];
  if constexpr (kEarlyQ) {
    if (tid < 128 * WG) {
      q_rows_load<E>(qx, a, base.q, m0 + (tid / 128) * 64, (tid % 128) / 32, tid % 32);
    }
  }
  if (tid == 0) {
    for (int s = 0; s < STAGES; ++s) {
      // cp.async: one arrival per producer thread; TMA: the issuing thread's expect_tx
      // (VT: and one per transposing warp; ACC: per K-splitting warp).
      mbar_init(&full[s], LD == 0 ? 128 : VT || ACC ? 4 : 1);
      mbar_init(&empty[s], 4 * WG * CL);
      if constexpr (VT || ACC) mbar_init(&vload[s], 1);
    }
    if constexpr (LD != 0) ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  if constexpr (!QR) {
    load_q<E, BM, ACC>(qs, a, base.q, m0, tid, T::kThreads);
    fence_proxy_async();
  }
  // The pair's barriers are initialised before either CTA multicasts or arrives on them.
  if constexpr (CL == 2) {
    ptx::barrier_cluster_arrive(ptx::sem_release);
    ptx::barrier_cluster_wait();
  } else {
    __syncthreads();
  }

  if (tid >= 128 * WG) {
    // The producer warpgroup.
    sm90::detail::setmaxnreg_dec<T::kProducerRegs>();
    if constexpr (LD == 0) {
      const float* vtb = vt + b * E * sp;
      if (vt_dependent) grid_dependency_wait();
      for (int tile = 0; tile < ((DIAG & kDiagNoLoads) ? 0 : tiles); ++tile) {
        const int s = tile % STAGES;
        if (tile >= STAGES) mbar_wait(&empty[s], ((tile / STAGES) - 1) & 1);
        float* ks = stage_k(s);
        load_kv<E, BN>(ks, ks + BN * E, nullptr, p, base.k, vtb, nullptr, sp, int64_t{tile} * BN,
                       tid - 128 * WG, 128);
        mbar_arrive_cp_async(&full[s]);
      }
      cp_async_wait<0>();
    } else if (tid == 128 * WG) {
      // A box into this CTA's shared memory, or into the same place of both CTAs of a pair.
      const auto tma_load = [&](float* dst, const CUtensorMap* map, const auto& coords,
                                uint64_t* bar) {
        if constexpr (CL == 1) {
          ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global, dst, map, coords, bar);
        } else {
          ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, dst, map, coords, bar,
                                    uint16_t(3));
        }
      };
      int32_t kc[5];
      k_batch_coords(p, b, kc);
      const int32_t vrow = static_cast<int32_t>(b * E);
      for (int tile = 0; tile < ((DIAG & kDiagNoLoads) ? 0 : ctiles); ++tile) {
        const int s = tile % STAGES;
        if (tile >= STAGES) mbar_wait(&empty[s], ((tile / STAGES) - 1) & 1);
        // The whole stage: in a pair, half of it comes from the partner's multicast.
        // VT: V's raw tile lands on vload; ACC: K lands on it, Vt and its lo on full.
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared,
                                       &full[s], VT ? T::kKBytes : 2 * T::kKBytes);
        if constexpr (VT || ACC) {
          ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared,
                                         &vload[s], T::kKBytes);
        }
        float* ks = stage_k(s);
        const int32_t n0 = tile * BN;
        if (CL == 1 || rank == 0) {
          // K's rows past S arrive as zeros (the map's out-of-bounds fill).
#pragma unroll
          for (int q = 0; q < E / 32; ++q) {
            kc[0] = 32 * q;
            kc[1] = n0;
            tma_load(ks + q * BN * 32, &maps.k, kc, ACC ? &vload[s] : &full[s]);
          }
        }
        if constexpr (VT) {
          if (CL == 1 || rank == 1) {
            // V's rows past S arrive as zeros: Vt's keys past S are zeros, as the pre-pass's.
            kc[0] = 0;
            kc[1] = n0;
            tma_load(ks + 2 * BN * E, &maps.v, kc, &vload[s]);
          }
        } else if (CL == 1 || rank == 1) {
          // vt_dependent: the pre-pass's grid before the first copy of Vt (K's copies,
          // from the problem's own tensor, went out already).
          if (vt_dependent && tile == 0) grid_dependency_wait();
#pragma unroll
          for (int q = 0; q < BN / 32; ++q) {
            const int32_t vc[2] = {n0 + 32 * q, vrow};
            tma_load(ks + BN * E + q * E * 32, &maps.vt, vc, &full[s]);
            if constexpr (ACC) {
              // Vt's lo: the same box, qt.batches * E rows further (the pre-pass's lo half).
              const int32_t lc[2] = {n0 + 32 * q, vrow + static_cast<int32_t>(qt.batches * E)};
              tma_load(ks + 3 * BN * E + q * E * 32, &maps.vt, lc, &full[s]);
            }
          }
        }
      }
    } else if (ACC && tid >= 128 * WG + 32) {
      // Warps 1-3: K's lo beside the stage once K has landed. The tensor cores read the
      // raw tile as hi (truncated to TF32); lo = rna(k - trunc(k)) makes the split exact
      // (pipe 0's split_k). Element-wise, so the swizzle does not matter.
      const int ttid = tid - 128 * WG - 32;
      for (int tile = 0; tile < ((DIAG & kDiagNoLoads) ? 0 : ctiles); ++tile) {
        const int s = tile % STAGES;
        mbar_wait(&vload[s], (tile / STAGES) & 1);
        const float4* k4 = reinterpret_cast<const float4*>(stage_k(s));
        float4* kl4 = reinterpret_cast<float4*>(stage_k(s) + 2 * BN * E);
#pragma unroll 4
        for (int i = ttid; i < BN * E / 4; i += 96) {
          const float4 x = k4[i];
          kl4[i] = make_float4(tf32_lo(x.x), tf32_lo(x.y), tf32_lo(x.z), tf32_lo(x.w));
        }
        // The consumers' wgmma reads K's lo through the async proxy.
        hand_over(&full[s]);
      }
    } else if (VT && tid >= 128 * WG + 32) {
      // Warps 1-3: V's raw tile [BN][E] into Vt's place, Vt[e][j'] = V[key(j')][e] with
      // key(j') the 0,2,4,6,1,3,5,7 order of each 8 (the pre-pass's), rounded to TF32.
      const int ttid = tid - 128 * WG - 32;
      for (int tile = 0; tile < ((DIAG & kDiagNoLoads) ? 0 : ctiles); ++tile) {
        const int s = tile % STAGES;
        mbar_wait(&vload[s], (tile / STAGES) & 1);
        const float* vraw = stage_k(s) + 2 * BN * E;
        float* vs = stage_k(s) + BN * E;
        transpose_v_tile<E, BN>(vs, vraw, ttid, 96);
        // The consumers' wgmma reads Vt through the async proxy.
        hand_over(&full[s]);
      }
    }
    // The producer ends here; setmaxnreg wants each role one branch of an if/else.
  } else {
    sm90::detail::setmaxnreg_inc<T::kConsumerRegs>();
    const int wg = warp_uniform(tid / 128), warp = (tid % 128) / 32, lane = tid % 32;
    Rows rows = consumer_rows(m0, wg, warp, lane);
    const uint32_t qa = q_addr + wg * 64 * 128;
    // QR: Q's fragments in registers for the whole run (head dim 64: 32 registers; with
    // 128-key tiles or head dim 128 they spill).
    [[maybe_unused]] uint32_t qf[QR ? E / 8 : 1][4];
    if constexpr (QR && !kEarlyQ) q_rows_load<E>(qx, a, base.q, m0 + wg * 64, warp, lane);
    if constexpr (QR) q_fragments<E>(qf, qx, a.scale);
    trace_mark<kTraced>(0, 3);
    // ACC: S's cross terms (Qlo K + Qhi Klo), added to S once it lands.
    [[maybe_unused]] float ss[ACC ? SR : 1];
    // S = Q K^T of the tile in stage s into `acc` (issued and committed, not waited).
    const auto issue_s = [&](float(&acc)[SR], int s) {
      const uint32_t k_addr = smem_u32(stage_k(s));
#pragma unroll
      for (int i = 0; i < SR; ++i) acc[i] = 0.f;
      fence_regs(acc);
      if constexpr (ACC) {
#pragma unroll
        for (int i = 0; i < SR; ++i) ss[i] = 0.f;
        fence_regs(ss);
      }
      wgmma_fence();
      if constexpr (DIAG & kDiagNoMma) {
      } else if constexpr (QR) {
        issue_qk_rs<E, BN>(acc, qf, k_addr);
      } else {
        issue_qk<E, BN, BM>(acc, qa, k_addr, false);
        if constexpr (ACC) {
          issue_qk<E, BN, BM>(ss, qa + BM * E * 4, k_addr, false);     // Qlo K
          issue_qk<E, BN, BM>(ss, qa, k_addr + 2 * T::kKBytes, true);  // + Qhi Klo
        }
      }
      wgmma_commit();
    };
    // S has landed (waited for): ACC adds the cross terms.
    const auto s_landed = [&](float(&acc)[SR]) {
      fence_regs(acc);
      if constexpr (ACC) {
        fence_regs(ss);
#pragma unroll
        for (int i = 0; i < SR; ++i) acc[i] += ss[i];
      }
    };
    // The tile's stage has landed (cp.async wrote it through the generic proxy, which
    // wgmma's async proxy reads after a fence; TMA wrote it through the async proxy).
    // ACC: K's own barrier too (the splitting warps arrive on full after it, so this
    // wait returns at once; it makes the consumers observe K's bytes themselves).
    const auto wait_full = [&](int tile) {
      if constexpr (ACC && !(DIAG & kDiagNoLoads)) {
        mbar_wait(&vload[tile % STAGES], (tile / STAGES) & 1);
      }
      if constexpr (!(DIAG & kDiagNoLoads)) mbar_wait(&full[tile % STAGES], (tile / STAGES) & 1);
      if constexpr (LD == 0) fence_proxy_async();
    };

    float o[OR];
#pragma unroll
    for (int i = 0; i < OR; ++i) o[i] = 0.f;
    // ACC: each tile's P V in fresh accumulators, promoted into O once landed.
    [[maybe_unused]] float pv[ACC ? OR : 1];
    // P V of the tile in stage s, P as mma_rs's A fragments (ACC: pa P's hi, pl its lo),
    // into O (ACC: into pv; issued and committed).
    const auto issue_pv = [&](const uint32_t(&pa)[NT][4], const uint32_t(&pl)[ACC ? NT : 1][4],
                              int s) {
      if constexpr (ACC) {
#pragma unroll
        for (int i = 0; i < OR; ++i) pv[i] = 0.f;
        fence_regs(pv);
      } else {
        fence_regs(o);
      }
      wgmma_fence();
      const Sw128Desc dv(smem_u32(stage_k(s)) + T::kKBytes);
      const auto off = [](int j) { return uint32_t((j / 4) * E * 128 + (j % 4) * 32); };
      if constexpr (DIAG & kDiagNoMma) {
      } else if constexpr (ACC) {
        // The small products of every key chunk first (Plo Vt, Phi Vtlo), then the large
        // ones (Phi Vt): the accumulator rounds 8 times at the tile's full size instead
        // of 24 times (pipe 0 interleaves them per chunk).
#pragma unroll
        for (int j = 0; j < NT; ++j) {
          sm90::WgmmaTf32<E>::mma_rs(pv, pl[j], dv.at(off(j)), j > 0 ? 1 : 0);
        }
#pragma unroll
        for (int j = 0; j < NT; ++j) {
          sm90::WgmmaTf32<E>::mma_rs(pv, pa[j], dv.at(2 * T::kKBytes + off(j)), 1);
        }
#pragma unroll
        for (int j = 0; j < NT; ++j) {
          sm90::WgmmaTf32<E>::mma_rs(pv, pa[j], dv.at(off(j)), 1);
        }
      } else {
#pragma unroll
        for (int j = 0; j < NT; ++j) {
          sm90::WgmmaTf32<E>::mma_rs(o, pa[j], dv.at(off(j)), 1);
        }
      }
      wgmma_commit();
    };
    // ACC, once pv has landed: O = alpha O + pv by IEEE FMA (alpha: the factor of the
    // tile before pv's; pipe 0's promotion).
    [[maybe_unused]] const auto promote = [&](float2 f) {
      fence_regs(pv);
#pragma unroll
      for (int n = 0; n < OR / 4; ++n) {
        o[4 * n] = fmaf(o[4 * n], f.x, pv[4 * n]);
        o[4 * n + 1] = fmaf(o[4 * n + 1], f.x, pv[4 * n + 1]);
        o[4 * n + 2] = fmaf(o[4 * n + 2], f.y, pv[4 * n + 2]);
        o[4 * n + 3] = fmaf(o[4 * n + 3], f.y, pv[4 * n + 3]);
      }
    };
    // Gives stage s back to the producer(s) (each warp once per CTA of the cluster).
    const auto release = [&](int s) {
      __syncwarp();
      if (lane == 0) {
        if constexpr (CL == 1) {
          mbar_arrive(&empty[s]);
        } else {
          sm90::detail::arrive_remote(&empty[s], 0);
          sm90::detail::arrive_remote(&empty[s], 1);
        }
      }
    };

    const PingPong<PP> turns(wg, tiles);
    const auto turn_wait = [&] { turns.wait(); };
    const auto turn_pass = [&](bool last) { turns.pass(last); };

    float sc[SR];
    uint32_t pa[NT][4], pl[ACC ? NT : 1][4];
    // tf32: scores in base 2 (the scale carries log2 e); accurate: base e.
    constexpr float kMaskMul = ACC ? 1.f : kLog2eF;
    // ACC: the factor of the tile whose P V is in flight (promote's).
    float2 alpha_pv = make_float2(1.f, 1.f);
    // Tile 0: S and its softmax (tf32: O is still zero, its factor moot); its P V waits for
    // the loop, under tile 1's softmax.
    if (tiles > 0) {
      wait_full(0);
      trace_mark<kTraced>(0, 4);
      turn_wait();
      issue_s(sc, 0);
      turn_pass(false);
      wgmma_wait<0>();
      s_landed(sc);
      if constexpr (!(DIAG & kDiagNoSoftmax)) {
        mask_tile(sc, a, base, rows, 0, m0, kMaskMul);
        if constexpr (ACC) {
          alpha_pv = softmax_tile<ACC>(sc, rows);
        } else {
          softmax_tile_lazy(sc, rows, alpha_pv);
        }
      }
      p_fragments<ACC>(sc, pa, pl);
      trace_mark<kTraced>(0, 5);
      trace_mark<kTraced>(1, 8);
    }
    for (int tile = 1; tile < tiles; ++tile) {
      const int s = tile % STAGES;
      wait_full(tile);
      turn_wait();
      issue_s(sc, s);
      issue_pv(pa, pl, (tile - 1) % STAGES);
      turn_pass(false);
      // S has landed (the P V committed after it runs on under this tile's softmax).
      wgmma_wait<1>();
      s_landed(sc);
      float2 alpha = make_float2(1.f, 1.f);
      // tf32: whether O shrinks this tile (softmax_tile_lazy's rescale).
      bool rescale = false;
      if constexpr (!(DIAG & kDiagNoSoftmax)) {
        mask_tile(sc, a, base, rows, int64_t{tile} * BN, m0, kMaskMul);
        if constexpr (ACC) {
          alpha = softmax_tile<ACC>(sc, rows);
        } else {
          rescale = softmax_tile_lazy(sc, rows, alpha);
        }
      }
      wgmma_wait<0>();
      // The P V has read pa: only now may the new P be written (sc's fence keeps the
      // conversions below the wait).
      fence_regs(o);
      fence_regs(sc);
      release((tile - 1) % STAGES);
      if constexpr (ACC) {
        promote(alpha_pv);
        alpha_pv = alpha;
      } else if (rescale) {
        scale_rows(o, alpha);
      }
      p_fragments<ACC>(sc, pa, pl);
    }
    trace_mark<kTraced>(0, 6);
    if (tiles > 0) {
      turn_wait();
      issue_pv(pa, pl, (tiles - 1) % STAGES);
      turn_pass(true);
    }
    wgmma_wait<0>();
    fence_regs(o);
    if constexpr (ACC) {
      if (tiles > 0) promote(alpha_pv);
    }
    if constexpr (CL == 2) {
      // The partner's producer refills these stages too: the last tile's goes back, and
      // the tiles only the partner computes are waited for (their bytes land here) and
      // given back.
      if (tiles > 0) release((tiles - 1) % STAGES);
      for (int tile = tiles; tile < ((DIAG & kDiagNoLoads) ? 0 : ctiles); ++tile) {
        wait_full(tile);
        release(tile % STAGES);
      }
    }
    trace_mark<kTraced>(0, 7);
    trace_mark<kTraced>(1, 9);
    store_rows(o, rows, p, base.out);
    trace_end<kTraced>();
  }
  // Neither CTA of a pair exits while its partner may still arrive on its barriers.
  if constexpr (CL == 2) {
    ptx::barrier_cluster_arrive(ptx::sem_release);
    ptx::barrier_cluster_wait();
  }
#else
  (void)a;
  (void)vt;
  (void)sp;
  (void)maps;
  (void)vt_dependent;
#endif
}

// Launches the warp-specialized kernel (the op's launcher and the kernel bench): one
// block per 64 * WG query rows and (batch, head) (query_tile_grid), in clusters of two
// for LD 2 (the grid rounded up to pairs), its shared-memory limit raised first.
template <int E, int BN, int WG, int ST, int MB, int LD, bool VT, bool PP, bool ACC = false,
          int DIAG = 0, bool QR = (E * BN <= 64 * 64 && MB == 1 && !ACC)>
cudaError_t launch_ws_kernel(const KernelArgs& a, const float* vt, int64_t sp,
                             const AttnTmaMaps& maps, cudaStream_t stream,
                             bool vt_dependent = false) {
  using Tr = WsTraits<E, BN, WG, ST, MB, VT, ACC>;
  const auto kernel = attention_wgmma_ws_kernel<E, BN, WG, ST, MB, LD, VT, PP, ACC, DIAG, QR>;
  const cudaError_t e =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Tr::kSmemBytes);
  if (e != cudaSuccess) return e;
  constexpr int kCluster = LD == 2 ? 2 : 1;
  const int64_t m_tiles = (a.p.L + Tr::kBM - 1) / Tr::kBM;
  // vt_dependent: launched as the Vt pre-pass's programmatic dependent (PDL), so that this
  // kernel's prologue, Q's loads and K's first copies run under the pre-pass's last blocks.
  cudaLaunchAttribute attrs[2] = {gemm::sm90::detail::cluster_attribute(kCluster),
                                  gemm::sm90::detail::pdl_attribute()};
  cudaLaunchConfig_t lc{};
  lc.gridDim = kCluster == 1
                   ? query_tile_grid(a.p, Tr::kBM)
                   : dim3(static_cast<unsigned>((m_tiles + kCluster - 1) / kCluster * kCluster),
                          static_cast<unsigned>(a.p.batch_count()));
  lc.blockDim = dim3(Tr::kThreads);
  lc.dynamicSmemBytes = static_cast<size_t>(Tr::kSmemBytes);
  lc.stream = stream;
  lc.attrs = kCluster > 1 ? attrs : attrs + 1;
  lc.numAttrs = (kCluster > 1 ? 1 : 0) + (vt_dependent ? 1 : 0);
  return cudaLaunchKernelEx(&lc, kernel, a, vt, sp, maps, vt_dependent);
}

}  // namespace
}  // namespace tt::ops::cuda::attention
