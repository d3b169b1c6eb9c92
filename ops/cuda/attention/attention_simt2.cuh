// The simt2 kernel: the strict flash-attention kernel blocked as a SIMT SGEMM is, FMA
// units only. Included by attention_simt.cu (the launcher) and
// tools/device/attention_simt_bench.cu (the kernels alone).
//
// Why it is laid out this way (docs/performance.md, "The strict kernel"): on the FMA
// pipes every non-FMA instruction costs an issue slot, so the inner loops must feed
// many FMAs per shared-memory load and the rest (softmax, copies, barriers) must stay a
// few percent of the work.
//   - A block of 32*WARPS threads owns BM = 2*WARPS*TM query rows; thread (ty, tx) with
//     tx = lane % 16 holds rows ty*TM .. +TM-1 in both products, so a row's running max
//     and sum never leave the 16 lanes of its half-warp (shuffles, no shared memory).
//   - S = Q K^T: the thread's TM x TN tile (TN = BN/16, keys tx + 16 j) by outer
//     products of 16-byte Q and K fragments read along E: per 4 columns of E, TM + TN
//     loads feed 4*TM*TN FMAs (8 x 4: 12 loads, 128 FMAs). K rows are padded to E + 4
//     floats (an odd number of 16-byte units) so the 16 keys of a load hit distinct
//     banks; Q's row groups are padded apart by 16 bytes for the same reason.
//   - Online softmax in base 2: Q is scaled once by scale * log2(e), p = 2^(s - m) on
//     ex2.approx. P goes to shared memory as [key][row] (rows padded by 4 floats: the
//     16-byte stores of the 16 key lanes hit distinct banks), and P V reads 16-byte P
//     and V fragments: per key, TM/4 + E/64 loads feed TM*E/16 FMAs. Each tile's P V
//     goes to fresh accumulators and into O once (O = alpha O + PV): a two-level sum,
//     whose rounding does not grow with S as one running sum's does (1.2e-6 vs
//     float64 at T4096 with one sum, 3.6e-7 with two).
//   - K and V by cp.async into one buffer each, overlapped with the other product:
//     K(t+1) lands under softmax(t) and P V(t), V(t+1) under Q K^T(t+1); three
//     barriers per tile (KDB: K in two stages, two barriers). At E = 64, 4 warps of 8
//     rows with KDB take 90 KB: two blocks (8 warps) per SM.
// Causal: key tiles past the block's last row are never loaded; the heaviest query
// tiles start first across groups of heads (attention_order.cuh). Masks, causal edges and keys
// past S are applied on the tiles that need them only (a block-uniform branch).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "ops/attention_problem.h"
#include "ops/cuda/attention/attention_kernels.cuh"
#include "ops/cuda/attention/attention_order.cuh"
#include "ops/cuda/attention/attention_simt2.h"

namespace tt::ops::cuda::attention {

// 2^x on the MUFU unit, subnormal results flushed to zero (exp2f adds a range fix of
// three instructions per score for those; a probability under 2^-126 next to a row sum
// of at least 1 is lost either way).
__device__ __forceinline__ float ex2_ftz(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// MASKED: the instantiation for a mask argument (its per-score loads and 64-bit
// indexing cost registers that the unmasked kernel keeps for its tiles). MINB: the
// launch bounds' blocks per SM; QKU: the unroll of Q K^T's loop over E; MLS: the rows'
// running max and each lane's partial sums kept in shared memory between tiles instead
// of registers (16 registers fewer through both products); KDB: K double-buffered, so
// K(t+2) is issued with V(t+1) and a tile needs two barriers instead of three. Their
// defaults are the variant's (attention_simt2.h); the bench tries others
// (tools/device/attention_simt_bench.cu).
template <int E, int WARPS, int TM, int BN, bool MASKED,
          int MINB = simt2_min_blocks(E, WARPS, TM, BN), int QKU = 4,
          bool MLS = simt2_mls(E, WARPS, TM, BN), bool KDB = simt2_kdb(E, WARPS, TM, BN)>
__global__ void __launch_bounds__(32 * WARPS, MINB) attention_simt2_kernel(KernelArgs a) {
  constexpr int NT = 32 * WARPS;
  constexpr int BM = 2 * WARPS * TM;
  constexpr int TN = BN / 16;               // keys per thread
  constexpr int LDK = E + 4;                // K row: odd count of 16-byte units
  constexpr int QG = TM * E + 4;            // one row group of Q, padded
  constexpr int LDP = BM + 4;               // P row (one key)
  constexpr int OG = E >= 64 ? E / 64 : 1;  // 16-byte column groups of O per thread
  constexpr int OC = E >= 64 ? 4 : E / 16;  // columns per group (E = 32: 2)
  constexpr int OSTEP = E >= 64 ? 64 : 0;   // column distance between groups
  static_assert(TM % 4 == 0 && BN % 16 == 0 && E % 32 == 0, "simt2 tile shape");
  const AttentionProblem& p = a.p;
  extern __shared__ __align__(16) float smem[];
  float* qs = smem;                 // [2*WARPS][TM][E] + 4 per group
  float* ks = qs + 2 * WARPS * QG;  // [BN][LDK]
  float* vs = ks + BN * LDK;        // [BN][E]
  float* ps = vs + BN * E;          // [BN][LDP]
  float* ms = ps + BN * LDP;        // [BM] (MLS) running row max
  float* ls = ms + BM;              // [16][LDP] (MLS) each lane's partial row sums
  float* ks2 = ls + 16 * LDP;       // [BN][LDK] (KDB) K's second stage, odd tiles
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const QueryTile at = query_tile(p, BM);  // the launch's grid is query_tile_grid's
  const int64_t m0 = at.mt * BM;
  const BatchBase base = batch_base(a, at.b);
  const float *qb = base.q, *kb = base.k, *vb = base.v;
  const int64_t mb = base.mask;
  float* ob = base.out;
  const float c2 = a.scale * 1.4426950408889634f;

  const int64_t keys = attended_keys(p, m0, BM);
  const int tiles = static_cast<int>((keys + BN - 1) / BN);
  constexpr int kChunks = BN * E / 4;  // 16-byte pieces of a K or V tile
  static_assert(kChunks % NT == 0 && (BM * E / 4) % NT == 0, "whole copies per thread");
  const auto kbuf = [&](int t) { return KDB && (t & 1) ? ks2 : ks; };
  // Rows n0 .. n0 + BN - 1 of a K or V tile (rows past S zero-filled) into dst.
  const auto load_rows = [&](float* dst, int ld, const float* src, int64_t stride, int t) {
    const int64_t n0 = int64_t{t} * BN;
#pragma unroll
    for (int u = 0; u < kChunks / NT; ++u) {
      const int c = threadIdx.x + u * NT;
      const int r = c / (E / 4), col = (c % (E / 4)) * 4;
      const bool ok = n0 + r < p.S;
      cp_async16(dst + r * ld + col, src + (ok ? n0 + r : 0) * stride + col, ok);
    }
  };
  const auto load_k = [&](int t) { load_rows(kbuf(t), LDK, kb, p.k.row, t); };
  const auto load_v = [&](int t) { load_rows(vs, E, vb, p.v.row, t); };
  // Q (rows past L zero-filled) with K(0) in the first group, V(0) in the second.
#pragma unroll
  for (int u = 0; u < BM * E / 4 / NT; ++u) {
    const int c = threadIdx.x + u * NT;
    const int r = c / (E / 4), col = (c % (E / 4)) * 4;
    const bool ok = m0 + r < p.L;
    cp_async16(qs + (r / TM) * QG + (r % TM) * E + col, qb + (ok ? m0 + r : 0) * p.q.row + col, ok);
  }
  if (tiles > 0) load_k(0);
  cp_async_commit();
  if (tiles > 0) load_v(0);
  cp_async_commit();
  if constexpr (KDB) {
    if (tiles > 1) load_k(1);
    cp_async_commit();
  }

  float m[TM], l[TM], o[TM][OG][OC];
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    m[i] = -INFINITY;
    l[i] = 0.f;
    if constexpr (MLS) {
      ls[tx * LDP + ty * TM + i] = 0.f;
      if (tx == 0) ms[ty * TM + i] = -INFINITY;
    }
#pragma unroll
    for (int w = 0; w < OG; ++w) {
#pragma unroll
      for (int c = 0; c < OC; ++c) o[i][w][c] = 0.f;
    }
  }
  cp_async_wait<KDB ? 2 : 1>();  // Q and K(0)
  __syncthreads();
  // Q scaled once by scale * log2(e): the scores come out of Q K^T in base 2.
#pragma unroll
  for (int u = 0; u < 2 * WARPS * QG / NT; ++u) qs[threadIdx.x + u * NT] *= c2;
  for (int i = 2 * WARPS * QG / NT * NT + threadIdx.x; i < 2 * WARPS * QG; i += NT) qs[i] *= c2;
  __syncthreads();
  const float* qt = qs + ty * QG;
  for (int t = 0; t < tiles; ++t) {
    const int64_t n0 = int64_t{t} * BN;
    const float* kt = kbuf(t);
    // ---- S = Q K^T: outer products of 16-byte fragments along E ----
    float s[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i) {
#pragma unroll
      for (int j = 0; j < TN; ++j) s[i][j] = 0.f;
    }
#pragma unroll QKU
    for (int e = 0; e < E; e += 4) {
      float4 kf[TN];
#pragma unroll
      for (int j = 0; j < TN; ++j)
        kf[j] = *reinterpret_cast<const float4*>(kt + (tx + 16 * j) * LDK + e);
#pragma unroll
      for (int i = 0; i < TM; ++i) {
        const float4 qf = *reinterpret_cast<const float4*>(qt + i * E + e);
#pragma unroll
        for (int j = 0; j < TN; ++j) {
          s[i][j] = fmaf(qf.x, kf[j].x, s[i][j]);
          s[i][j] = fmaf(qf.y, kf[j].y, s[i][j]);
          s[i][j] = fmaf(qf.z, kf[j].z, s[i][j]);
          s[i][j] = fmaf(qf.w, kf[j].w, s[i][j]);
        }
      }
    }
    if constexpr (!KDB) {
      __syncthreads();  // every thread is done with K(t)
      if (t + 1 < tiles) load_k(t + 1);
      cp_async_commit();
    }
    // ---- online softmax on the register tile, base 2 ----
    float alpha[TM];  // the rescale of O's rows, applied when this tile's P V is added
    if constexpr (MLS) {
#pragma unroll
      for (int i = 0; i < TM; i += 4) {
        const float4 x = *reinterpret_cast<const float4*>(ms + ty * TM + i);
        const float4 y = *reinterpret_cast<const float4*>(ls + tx * LDP + ty * TM + i);
        m[i] = x.x, m[i + 1] = x.y, m[i + 2] = x.z, m[i + 3] = x.w;
        l[i] = y.x, l[i + 1] = y.y, l[i + 2] = y.z, l[i + 3] = y.w;
      }
    }
    // Tile-relative bounds in 32 bits: keys at or past `kend` do not exist; key c of
    // row r lies above the causal diagonal when c - r > diag.
    const bool edge = n0 + BN > p.S || (p.causal && n0 + BN - 1 > m0);
    const int kend = static_cast<int>(min_i64(p.S - n0, BN));
    const int diag = p.causal ? static_cast<int>(min_i64(m0 - n0, BN)) : BN;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      if (edge) {
#pragma unroll
        for (int j = 0; j < TN; ++j) {
          const int c = tx + 16 * j;
          if (c >= kend || c - (ty * TM + i) > diag) s[i][j] = -INFINITY;
        }
      }
      if constexpr (MASKED) {
        const int64_t row = m0 + ty * TM + i;
        if (row < p.L) {
#pragma unroll
          for (int j = 0; j < TN; ++j) {
            const int64_t col = n0 + tx + 16 * j;
            if (col < p.S) {
              s[i][j] += mask_term(p, a.mask, mb + row * p.mask.row, col, 1.4426950408889634f);
            }
          }
        }
      }
      float mx = s[i][0];
#pragma unroll
      for (int j = 1; j < TN; ++j) mx = fmaxf(mx, s[i][j]);
#pragma unroll
      for (int off = 1; off < 16; off *= 2) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, off));
      const float nm = fmaxf(m[i], mx);
      // A row that has seen only -inf keeps base 0: exp2 gives 0, never -inf - -inf.
      const float b = nm == -INFINITY ? 0.f : nm;
      alpha[i] = ex2_ftz(m[i] - b);
      m[i] = nm;
      float sum = 0.f;
#pragma unroll
      for (int j = 0; j < TN; ++j) {
        s[i][j] = ex2_ftz(s[i][j] - b);
        sum += s[i][j];
      }
      l[i] = fmaf(l[i], alpha[i], sum);  // this thread's keys; summed over tx at the end
    }
    if constexpr (MLS) {
      __syncwarp();  // the row's 16 lanes have all read the old max
#pragma unroll
      for (int i = 0; i < TM; i += 4) {
        *reinterpret_cast<float4*>(ms + ty * TM + i) =
            make_float4(m[i], m[i + 1], m[i + 2], m[i + 3]);
        *reinterpret_cast<float4*>(ls + tx * LDP + ty * TM + i) =
            make_float4(l[i], l[i + 1], l[i + 2], l[i + 3]);
      }
    }
#pragma unroll
    for (int j = 0; j < TN; ++j) {
#pragma unroll
      for (int i = 0; i < TM; i += 4) {
        *reinterpret_cast<float4*>(ps + (tx + 16 * j) * LDP + ty * TM + i) =
            make_float4(s[i][j], s[i + 1][j], s[i + 2][j], s[i + 3][j]);
      }
    }
    // V(t); KDB: K(t+1) too. Else K(t+1) may still be in flight.
    cp_async_wait<KDB ? 0 : 1>();
    __syncthreads();  // P and V(t) visible (KDB: K(t+1) too)
                      // ---- O = alpha O + P V: outer products of 16-byte P and V fragments per key
                      // ----
    // The tile's P V in fresh accumulators, added to O once: two-level sums keep the
    // rounding of O at T = 4096 near T = 1024's (one long running sum drifted to 1.2e-6
    // vs float64 there, as the old simt kernel does).
    float acc[TM][OG][OC];
#pragma unroll
    for (int i = 0; i < TM; ++i) {
#pragma unroll
      for (int w = 0; w < OG; ++w) {
#pragma unroll
        for (int c = 0; c < OC; ++c) acc[i][w][c] = 0.f;
      }
    }
#pragma unroll 4
    for (int j = 0; j < BN; ++j) {
      float pv[TM];
#pragma unroll
      for (int i = 0; i < TM; i += 4) {
        const float4 x = *reinterpret_cast<const float4*>(ps + j * LDP + ty * TM + i);
        pv[i] = x.x, pv[i + 1] = x.y, pv[i + 2] = x.z, pv[i + 3] = x.w;
      }
#pragma unroll
      for (int w = 0; w < OG; ++w) {
        float vv[OC];
        if constexpr (OC == 4) {
          const float4 x = *reinterpret_cast<const float4*>(vs + j * E + w * OSTEP + tx * 4);
          vv[0] = x.x, vv[1] = x.y, vv[2] = x.z, vv[3] = x.w;
        } else {
          const float2 x = *reinterpret_cast<const float2*>(vs + j * E + tx * 2);
          vv[0] = x.x, vv[1] = x.y;
        }
#pragma unroll
        for (int i = 0; i < TM; ++i) {
#pragma unroll
          for (int c = 0; c < OC; ++c) acc[i][w][c] = fmaf(pv[i], vv[c], acc[i][w][c]);
        }
      }
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
#pragma unroll
      for (int w = 0; w < OG; ++w) {
#pragma unroll
        for (int c = 0; c < OC; ++c) o[i][w][c] = fmaf(o[i][w][c], alpha[i], acc[i][w][c]);
      }
    }
    if constexpr (!KDB) cp_async_wait<0>();  // K(t+1)
    __syncthreads();                         // V(t), P and K(t)'s stage free; K(t+1) visible
    if (t + 1 < tiles) load_v(t + 1);
    cp_async_commit();
    if constexpr (KDB) {
      if (t + 2 < tiles) load_k(t + 2);
      cp_async_commit();
    }
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    float l_row = MLS ? ls[tx * LDP + ty * TM + i] : l[i];
#pragma unroll
    for (int off = 1; off < 16; off *= 2) l_row += __shfl_xor_sync(0xffffffffu, l_row, off);
    const int64_t row = m0 + ty * TM + i;
    if (row >= p.L) continue;
    // l == 0: every score was -inf; PyTorch's safe softmax gives zeros.
    const float inv = l_row > 0.f ? 1.f / l_row : 0.f;
    float* orow = ob + row * p.out.row;
#pragma unroll
    for (int w = 0; w < OG; ++w) {
      if constexpr (OC == 4) {
        *reinterpret_cast<float4*>(orow + w * OSTEP + tx * 4) =
            make_float4(o[i][w][0] * inv, o[i][w][1] * inv, o[i][w][2] * inv, o[i][w][3] * inv);
      } else {
        *reinterpret_cast<float2*>(orow + tx * 2) = make_float2(o[i][w][0] * inv, o[i][w][1] * inv);
      }
    }
  }
}

}  // namespace tt::ops::cuda::attention
