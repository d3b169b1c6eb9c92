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
// joins the per-row factor that takes S back to float32), per (batch, head) for K and V
// (a factor on S and on O), each from the max |x| so that the largest element lands in
// [2^14, 2^15). P in [0, 1] needs none. Where this differs from float32: an element more
// than about 2^29 below its row's (Q) or head's (K, V) largest loses relative accuracy
// (lo becomes subnormal near 2^-14 of fp16, hi and lo flush to zero below 2^-24);
// docs/performance.md gives the figures.
//
// A pre-pass per (batch, head): the max |k| and |v| (one kernel, atomics), then the
// split (K as [2][batches][S'][E], hi then lo; V transposed, [2][batches][E][S'], keys
// contiguous, so both products read K-major B operands; S' = S rounded up to 64,
// zeros past S). The consumer's S accumulator packs into fp16 A fragments as it stands
// (FlashAttention 2/3's trick): no key permutation. Head dim 128 (two stages) runs P V in
// halves of 64 output columns and one tile at a time, where the registers do not hold
// head dim 64's overlap of the next S with this P V. KIN (the kernel bench only; it lost
// to the pre-pass on the H100): K's float32 tiles by TMA, split by the producer's spare
// warps, the pre-pass splitting V alone.
#pragma once

#include <cuda_fp16.h>

#include <algorithm>

#include "ops/cuda/attention/sm90/attention_wgmma_kernels.cuh"

namespace tt::ops::cuda::attention {
namespace {

// wgmma m64n64k16, fp16 operands (K-major), float32 accumulator. mma: A and B from
// shared memory; mma_rs: A from registers (the m16n8k16 A fragment per warp: rows
// 16 warp + lane / 4 (+8), columns 2 (lane % 4) (+1) (+8)). scale_d == 0 starts afresh.
struct WgmmaF16N64 {
  __device__ __forceinline__ static void mma(float (&d)[32], uint64_t desc_a, uint64_t desc_b,
                                             int scale_d) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, "
        "%8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, "
        "%26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
        : TT_WGMMA_D32(d)
        : "l"(desc_a), "l"(desc_b), "r"(scale_d));
  }
  __device__ __forceinline__ static void mma_rs(float (&d)[32], const uint32_t (&a)[4],
                                                uint64_t desc_b, int scale_d) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, "
        "%8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, "
        "%26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, p, 1, 1, 0;\n}\n"
        : TT_WGMMA_D32(d)
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d));
  }
};

inline constexpr float kF16LoScale = 2048.f;          // 2^11
inline constexpr float kF16LoUnscale = 1.f / 2048.f;  // 2^-11

// The shift s for a max |x| of m: m 2^s in [2^14, 2^15) (0 for m == 0, inf or NaN, whose
// elements pass as they are), kept within float's normal exponents.
__device__ __forceinline__ int f16_shift(float m) {
  if (!(m > 0.f) || isinf(m)) return 0;
  int ex = 0;
  frexpf(m, &ex);  // m < 2^ex
  return max(-120, min(120, 15 - ex));
}

__device__ __forceinline__ float exp2_int(int s) { return __int_as_float((127 + s) << 23); }

// hi and lo of x (already scaled by 2^s), two at a time: (x.x, x.y) into one register each.
__device__ __forceinline__ void f16_split2(float x, float y, uint32_t& hi, uint32_t& lo) {
  const __half2 h = __floats2half2_rn(x, y);
  const float2 hf = __half22float2(h);
  const __half2 l = __floats2half2_rn((x - hf.x) * kF16LoScale, (y - hf.y) * kF16LoScale);
  hi = *reinterpret_cast<const uint32_t*>(&h);
  lo = *reinterpret_cast<const uint32_t*>(&l);
}

// Per (batch, head): max |k| and max |v| as float bits (non-negative floats order as
// their bits), into amax[2 b] and amax[2 b + 1] (zeroed first). Grid (blocks, batches).
// Index: the element counter's type, 32-bit where a head's float4s fit.
template <class Index>
__global__ void __launch_bounds__(256) attention_f16_absmax_kernel(KernelArgs a, unsigned* amax) {
  const AttentionProblem& p = a.p;
  const int64_t b = blockIdx.y;
  const float* kb = a.k + batch_offset(p, p.k, b);
  const float* vb = a.v + batch_offset(p, p.v, b);
  const Index c4s = static_cast<Index>(p.E / 4), n = static_cast<Index>(p.S) * c4s;
  float mk = 0.f, mv = 0.f;
  for (Index i = Index{blockIdx.x} * 256 + threadIdx.x; i < n; i += Index{gridDim.x} * 256) {
    const Index j = i / c4s, c = (i - j * c4s) * 4;
    const float4 x = *reinterpret_cast<const float4*>(kb + j * p.k.row + c);
    const float4 y = *reinterpret_cast<const float4*>(vb + j * p.v.row + c);
    mk = fmaxf(mk, fmaxf(fmaxf(fabsf(x.x), fabsf(x.y)), fmaxf(fabsf(x.z), fabsf(x.w))));
    mv = fmaxf(mv, fmaxf(fmaxf(fabsf(y.x), fabsf(y.y)), fmaxf(fabsf(y.z), fabsf(y.w))));
  }
#pragma unroll
  for (int off = 16; off > 0; off /= 2) {
    mk = fmaxf(mk, __shfl_xor_sync(0xffffffffu, mk, off));
    mv = fmaxf(mv, __shfl_xor_sync(0xffffffffu, mv, off));
  }
  if (threadIdx.x % 32 == 0) {
    atomicMax(&amax[2 * b], __float_as_uint(mk));
    atomicMax(&amax[2 * b + 1], __float_as_uint(mv));
  }
}

// The split of K (rows as they are) and V (transposed, keys contiguous) into kh and vt,
// hi halves then lo halves (`half_elems` apart each); zeros past S. Tiles of 64 keys x 32
// head-dim columns: K's float4 loads become 8-byte stores of four halves; V's tile goes
// through shared memory and leaves as four consecutive keys per thread (8-byte stores),
// so every warp writes whole 128-byte lines (scalar 2-byte stores ran the pre-pass at
// about half the copy bandwidth). Grid (S' / 64, E / 32, batches), 256 threads.
inline constexpr int kF16SplitTileKeys = 64;
__global__ void __launch_bounds__(256)
    attention_f16_split_kernel(KernelArgs a, const unsigned* amax, __half* kh, __half* vt,
                               int64_t sp, int64_t half_elems) {
  // kh == nullptr: V alone (the kernel splits K's tiles itself).
  constexpr int TK = kF16SplitTileKeys;
  __shared__ float tile[TK][33];
  const AttentionProblem& p = a.p;
  const int64_t b = blockIdx.z;
  const int64_t j0 = int64_t{blockIdx.x} * TK;
  const int e0 = blockIdx.y * 32;
  const float* kb = a.k + batch_offset(p, p.k, b);
  const float* vb = a.v + batch_offset(p, p.v, b);
  const float ks = exp2_int(f16_shift(__uint_as_float(amax[2 * b])));
  const float vs = exp2_int(f16_shift(__uint_as_float(amax[2 * b + 1])));
  const auto split4 = [](float4 x, __half* hi, __half* lo) {
    uint2 h, l;
    f16_split2(x.x, x.y, h.x, l.x);
    f16_split2(x.z, x.w, h.y, l.y);
    *reinterpret_cast<uint2*>(hi) = h;
    *reinterpret_cast<uint2*>(lo) = l;
  };
  // 64 rows x 8 float4 columns: two per thread.
  for (int i = threadIdx.x; i < TK * 8; i += 256) {
    const int r = i / 8, c = (i % 8) * 4;
    const int64_t j = j0 + r;
    const bool in = j < p.S;
    if (kh != nullptr) {
      float4 x = make_float4(0.f, 0.f, 0.f, 0.f);
      if (in) x = *reinterpret_cast<const float4*>(kb + j * p.k.row + e0 + c);
      x = make_float4(x.x * ks, x.y * ks, x.z * ks, x.w * ks);
      const int64_t at = (b * sp + j) * p.E + e0 + c;
      split4(x, kh + at, kh + half_elems + at);
    }
    float4 y = make_float4(0.f, 0.f, 0.f, 0.f);
    if (in) y = *reinterpret_cast<const float4*>(vb + j * p.v.row + e0 + c);
    tile[r][c] = y.x * vs;
    tile[r][c + 1] = y.y * vs;
    tile[r][c + 2] = y.z * vs;
    tile[r][c + 3] = y.w * vs;
  }
  __syncthreads();
  // 32 rows of Vt x 16 groups of four keys: two per thread.
  for (int i = threadIdx.x; i < 32 * (TK / 4); i += 256) {
    const int e = i / (TK / 4), k4 = (i % (TK / 4)) * 4;
    const float4 x = make_float4(tile[k4][e], tile[k4 + 1][e], tile[k4 + 2][e], tile[k4 + 3][e]);
    const int64_t at = (b * p.Ev + e0 + e) * sp + j0 + k4;
    split4(x, vt + at, vt + half_elems + at);
  }
}

// Q's rows m0.. (zeros past L), scaled by the op's scale, split per row into fp16 hi and
// lo in 128-byte swizzled K-major panels ([E / 64][BM][64 halves]), lo BM * E halves
// after hi; qmul[r] = 2^-s of row r. Threads tid, tid + threads, ... (a multiple of 32:
// each warp's rows are whole, E / 4 lanes a row, for the row max's shuffles).
template <int E, int BM>
__device__ __forceinline__ void load_q_f16(uint8_t* qs, float* qmul, const KernelArgs& a,
                                           const float* qb, int64_t m0, int tid, int threads) {
  static_assert((BM * E / 4) % 32 == 0 && E / 4 <= 32, "whole warps of whole rows");
  for (int i = tid; i < BM * E / 4; i += threads) {
    const int r = i / (E / 4), c4 = i % (E / 4);
    float4 x = make_float4(0.f, 0.f, 0.f, 0.f);
    if (m0 + r < a.p.L) x = *reinterpret_cast<const float4*>(qb + (m0 + r) * a.p.q.row + c4 * 4);
    x = make_float4(x.x * a.scale, x.y * a.scale, x.z * a.scale, x.w * a.scale);
    float m = fmaxf(fmaxf(fabsf(x.x), fabsf(x.y)), fmaxf(fabsf(x.z), fabsf(x.w)));
#pragma unroll
    for (int off = 1; off < E / 4; off *= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
    const int s = f16_shift(m);
    const float f = exp2_int(s);
    uint2 hi, lo;
    f16_split2(x.x * f, x.y * f, hi.x, lo.x);
    f16_split2(x.z * f, x.w * f, hi.y, lo.y);
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
#pragma unroll
  for (int kk = 0; kk < E / 16; ++kk) {
    const uint32_t koff = (kk % 4) * 32;
    WgmmaF16N64::mma(acc, sw128_desc(qa + (kk / 4) * BM * 128 + koff),
                     sw128_desc(ka + (kk / 4) * BN * 128 + koff), accumulate || kk > 0 ? 1 : 0);
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

// Q's hi and lo (BM rows each), STAGES stages of K's hi, K's lo, Vt's hi, Vt's lo (BN x E
// halves each; KIN: and K's float32 tile, by TMA from K itself), qmul, the barriers (KIN:
// a third per stage, K's tile landed).
template <int E, int BN, int WG, int STAGES, bool KIN = false>
struct F16SplitTraits {
  static constexpr int kBM = 64 * WG;
  static constexpr int kThreads = 128 * (WG + 1);
  // setmaxnreg moves registers within the block's allocation at launch, 168 a thread
  // (384 threads): 128 x 24 + 256 x 240 is all of it. A producer at 32 with consumers at
  // 240 asked for 1024 more, and the consumers' setmaxnreg.inc waited forever (pipe 7's
  // first GPU run).
  static constexpr int kProducerRegs = 24;
  static constexpr int kConsumerRegs = 240;
  static constexpr int kQBytes = kBM * E * 2 * 2;
  static constexpr int kPartBytes = BN * E * 2;
  static constexpr int kStageBytes = (KIN ? 6 : 4) * kPartBytes;
  static constexpr int kMulOffset = kQBytes + STAGES * kStageBytes;
  static constexpr int kBarOffset = kMulOffset + kBM * 4;
  static constexpr int kSmemBytes = kBarOffset + (KIN ? 3 : 2) * STAGES * 8 + 1024;
  static_assert(kSmemBytes <= 232448, "shared memory over the 227 KB of an SM");
  static_assert(STAGES >= 2, "a ring of one stage would deadlock");
  // Head dim 128 (Q's hi and lo 64 KB, a stage 64 KB: two stages) runs P V in halves of
  // 64 output columns (the consumer's registers hold O and one half's two accumulators);
  // KIN's split of K's tile takes one 64-half panel.
  static_assert(BN == 64 && (E == 64 || (E == 128 && !KIN)), "head dim 64 or 128, 64-key tiles");
  static_assert(128 * kProducerRegs + 128 * WG * kConsumerRegs <=
                    65536 / kThreads / 8 * 8 * kThreads,
                "setmaxnreg past the block's registers at launch");
};

// The pre-pass's buffers as TMA maps: K's halves [2 batches S', E], a box of BN rows by
// 64 halves; Vt's [2 batches E, S'], E rows by 64 keys; 128-byte swizzle.
struct F16SplitMaps {
  CUtensorMap k;
  CUtensorMap vt;
  CUtensorMap kraw;  // KIN: K itself (attention_kv_map: pipe 2's map, 32 floats by BN keys)
};

inline bool f16split_maps(const AttentionProblem& p, const __half* kh, const __half* vt, int64_t sp,
                          int bn, F16SplitMaps& m) {
  if (attention_encode_tiled() == nullptr) return false;
  const cuuint32_t elem[2] = {1, 1};
  const cuuint64_t kdims[2] = {cuuint64_t(p.E), cuuint64_t(2 * p.batch_count() * sp)};
  const cuuint64_t kstrides[1] = {cuuint64_t(p.E) * 2};
  const cuuint32_t kbox[2] = {64, cuuint32_t(bn)};
  const cuuint64_t vdims[2] = {cuuint64_t(sp), cuuint64_t(2 * p.batch_count() * p.Ev)};
  const cuuint64_t vstrides[1] = {cuuint64_t(sp) * 2};
  const cuuint32_t vbox[2] = {64, cuuint32_t(p.Ev)};
  const auto enc = [&](CUtensorMap& map, const __half* ptr, const cuuint64_t* dims,
                       const cuuint64_t* strides, const cuuint32_t* box) {
    return attention_encode_tiled()(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2,
                                    const_cast<__half*>(ptr), dims, strides, box, elem,
                                    CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                    CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                    CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
  };
  return enc(m.k, kh, kdims, kstrides, kbox) && enc(m.vt, vt, vdims, vstrides, vbox);
}

// KIN: K's float32 tile (swizzled 32-float panels, swz()) into its fp16 hi and lo parts
// (one 64-half panel each, BN rows), scaled by `ks`; threads tid, tid + threads, ... of
// the producer's warps 1-3, a float4 each (the producer's 32 registers hold no more).
template <int E, int BN>
__device__ __forceinline__ void split_k_tile(const float* raw, uint8_t* hi, uint8_t* lo, float ks,
                                             int tid, int threads) {
  static_assert(E == 64, "one 64-half panel per part");
#pragma unroll 2
  for (int i = tid; i < BN * E / 4; i += threads) {
    const int r = i / (E / 4), c4 = i % (E / 4);
    const float4 x = *reinterpret_cast<const float4*>(raw + swz(r, c4, BN));
    uint2 h, l;
    f16_split2(x.x * ks, x.y * ks, h.x, l.x);
    f16_split2(x.z * ks, x.w * ks, h.y, l.y);
    const int at = r * 128 + (((c4 / 2) ^ (r % 8)) * 16) + (c4 % 2) * 8;
    *reinterpret_cast<uint2*>(hi + at) = h;
    *reinterpret_cast<uint2*>(lo + at) = l;
  }
}

// The kernel: attention_wgmma_ws_kernel's TMA pipeline (one producer thread; PP: the two
// consumers in ping-pong) with the 2 x fp16 split. Per tile: S = Qhi Khi and, apart,
// Qhi Klo + Qlo Khi, combined S = (S + 2^-11 cross) 2^-(s_q + s_k) by FMA (the row's
// factor); softmax in base e; tile t - 1's P V under tile t's softmax, Phi Vhi and
// (Phi Vlo + Plo Vhi) in fresh accumulators, O = alpha O + (big + 2^-11 small) by FMA;
// 2^-s_v with 1 / l at the store.
// KIN: K's tiles come as float32 by TMA from K itself (its own barrier, kload) and the
// producer's warps 1-3 split them beside the stage (fence, then arrive on the stage's
// full barrier with the TMA's bytes of Vt's halves); the pre-pass splits V alone.
// QR: Q's hi as A fragments in registers (S's Qhi Khi and Qhi Klo then read only K from
// shared memory; an m64n64k16 reading both operands there is at the shared memory's
// rate), Q's lo from shared memory.
template <int E, int BN, int WG, int STAGES, bool PP, bool KIN = false, bool QR = false>
__global__ void __launch_bounds__(128 * (WG + 1), 1)
    attention_wgmma_f16split_kernel(const __grid_constant__ KernelArgs a, const unsigned* amax,
                                    int64_t sp, const __grid_constant__ F16SplitMaps maps) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using T = F16SplitTraits<E, BN, WG, STAGES, KIN>;
  static_assert(!PP || WG == 2, "the ping-pong takes two consumer warpgroups");
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
  [[maybe_unused]] uint64_t* kload = empty + STAGES;
  const auto stage = [&](int s) { return smem + T::kQBytes + s * T::kStageBytes; };

  const int tid = threadIdx.x;
  const QueryTile qt = query_tile(p, BM);
  const int64_t m0 = qt.mt * BM;
  const int64_t b = qt.b;
  const BatchBase base = batch_base(a, b);
  const int64_t keys = p.causal ? min_i64(p.S, m0 + BM) : p.S;
  const int tiles = static_cast<int>((keys + BN - 1) / BN);

  if (tid == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(&full[s], KIN ? 4 : 1);  // KIN: the TMA thread's and the 3 splitting warps'
      mbar_init(&empty[s], 4 * WG);
      if constexpr (KIN) mbar_init(&kload[s], 1);
    }
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  load_q_f16<E, BM>(smem, qmul, a, base.q, m0, tid, T::kThreads);
  fence_proxy_async();
  __syncthreads();

  if (tid >= 128 * WG) {
    sm90::detail::setmaxnreg_dec<T::kProducerRegs>();
    if (tid == 128 * WG) {
      const int32_t krow = static_cast<int32_t>(b * sp);
      const int32_t klo = static_cast<int32_t>(qt.batches * sp);
      const int32_t vrow = static_cast<int32_t>(b * E);
      const int32_t vlo = static_cast<int32_t>(qt.batches * E);
      [[maybe_unused]] int32_t kr[5];
      if constexpr (KIN) k_batch_coords(p, b, kr);
      for (int tile = 0; tile < tiles; ++tile) {
        const int s = tile % STAGES;
        if (tile >= STAGES) mbar_wait(&empty[s], ((tile / STAGES) - 1) & 1);
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared,
                                       &full[s], (KIN ? 2 : 4) * T::kPartBytes);
        uint8_t* st = stage(s);
        const int32_t n0 = tile * BN;
        if constexpr (KIN) {
          // K's rows past S arrive as zeros (the map's out-of-bounds fill).
          ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared,
                                         &kload[s], 2 * T::kPartBytes);
#pragma unroll
          for (int q = 0; q < E / 32; ++q) {
            kr[0] = 32 * q;
            kr[1] = n0;
            ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global,
                                      st + 4 * T::kPartBytes + q * BN * 128, &maps.kraw, kr,
                                      &kload[s]);
          }
        } else {
          // One box per 64-half panel of K's rows (E / 64 of them).
#pragma unroll
          for (int q = 0; q < E / 64; ++q) {
            const int32_t kc[2] = {64 * q, krow + n0}, kl[2] = {64 * q, klo + krow + n0};
            ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global, st + q * BN * 128,
                                      &maps.k, kc, &full[s]);
            ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global,
                                      st + T::kPartBytes + q * BN * 128, &maps.k, kl, &full[s]);
          }
        }
        const int32_t vc[2] = {n0, vrow}, vl[2] = {n0, vlo + vrow};
        ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global, st + 2 * T::kPartBytes,
                                  &maps.vt, vc, &full[s]);
        ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global, st + 3 * T::kPartBytes,
                                  &maps.vt, vl, &full[s]);
      }
    } else if (KIN && tid >= 128 * WG + 32) {
      const float ks = exp2_int(f16_shift(__uint_as_float(amax[2 * b])));
      for (int tile = 0; tile < tiles; ++tile) {
        const int s = tile % STAGES;
        mbar_wait(&kload[s], (tile / STAGES) & 1);
        uint8_t* st = stage(s);
        if constexpr (KIN) {  // head dim 64 only (F16SplitTraits)
          split_k_tile<E, BN>(reinterpret_cast<const float*>(st + 4 * T::kPartBytes), st,
                              st + T::kPartBytes, ks, tid - 128 * WG - 32, 96);
        }
        // The consumers' wgmma reads K's halves through the async proxy.
        hand_over(&full[s]);
      }
    }
  } else {
    sm90::detail::setmaxnreg_inc<T::kConsumerRegs>();
    const int wg = tid / 128, warp = (tid % 128) / 32, lane = tid % 32;
    Rows rows = consumer_rows(m0, wg, warp, lane);
    // The rows' factor back to float32 (Q's row shift and K's head shift), and V's.
    const float kmul = exp2_int(-f16_shift(__uint_as_float(amax[2 * b])));
    const float vmul = exp2_int(-f16_shift(__uint_as_float(amax[2 * b + 1])));
    const float mulA = qmul[rows.rA - m0] * kmul, mulB = qmul[rows.rB - m0] * kmul;
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
      fence_regs(acc);
      fence_regs(ss);
      wgmma_fence();
      if constexpr (QR) {
#pragma unroll
        for (int kk = 0; kk < E / 16; ++kk) {
          const uint32_t koff = (kk / 4) * BN * 128 + (kk % 4) * 32;
          WgmmaF16N64::mma_rs(acc, qf[kk], sw128_desc(k_addr + koff), kk > 0 ? 1 : 0);
          WgmmaF16N64::mma_rs(ss, qf[kk], sw128_desc(k_addr + T::kPartBytes + koff),
                              kk > 0 ? 1 : 0);
        }
      } else {
        issue_qk_f16<E, BN, BM>(acc, qa, k_addr, false);                 // Qhi Khi
        issue_qk_f16<E, BN, BM>(ss, qa, k_addr + T::kPartBytes, false);  // Qhi Klo
      }
      issue_qk_f16<E, BN, BM>(ss, qa + kQLo, k_addr, true);  // + Qlo Khi
      wgmma_commit();
    };
    const auto s_landed = [&](float(&acc)[SR]) {
      fence_regs(acc);
      fence_regs(ss);
#pragma unroll
      for (int i = 0; i < SR; ++i) {
        acc[i] = fmaf(ss[i], kF16LoUnscale, acc[i]) * (i % 4 < 2 ? mulA : mulB);
      }
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
      fence_regs(pvb);
      fence_regs(pvs);
      wgmma_fence();
      const uint32_t v_addr = smem_u32(stage(s)) + 2 * T::kPartBytes + h * 64 * 128;
      const auto off = [](int j) { return uint32_t((j / 4) * E * 128 + (j % 4) * 32); };
#pragma unroll
      for (int j = 0; j < NT; ++j) {
        WgmmaF16N64::mma_rs(pvb, ph[j], sw128_desc(v_addr + off(j)), j > 0 ? 1 : 0);
      }
#pragma unroll
      for (int j = 0; j < NT; ++j) {
        WgmmaF16N64::mma_rs(pvs, ph[j], sw128_desc(v_addr + T::kPartBytes + off(j)), j > 0 ? 1 : 0);
        WgmmaF16N64::mma_rs(pvs, pl[j], sw128_desc(v_addr + off(j)), 1);
      }
      wgmma_commit();
    };
    // Once half h of P V has landed: its columns of O = alpha O + (big + 2^-11 small), IEEE
    // FMA.
    const auto promote = [&](float2 f, int h) {
      fence_regs(pvb);
      fence_regs(pvs);
#pragma unroll
      for (int n = 0; n < HR / 4; ++n) {
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          const float pv = fmaf(pvs[4 * n + i], kF16LoUnscale, pvb[4 * n + i]);
          float& x = o[h * HR + 4 * n + i];
          x = fmaf(x, i < 2 ? f.x : f.y, pv);
        }
      }
    };
    const auto release = [&](int s) {
      __syncwarp();
      if (lane == 0) mbar_arrive(&empty[s]);
    };
    // The first half of stage s's P V has landed: promote it, then issue, wait for and
    // promote the other halves in turn; give the stage back (`give_back`) once the last
    // has read it.
    const auto finish_pv = [&](float2 f, int s, bool give_back) {
#pragma unroll
      for (int h = 0; h < NH; ++h) {
        if (h > 0) {
          issue_pv(s, h);
          wgmma_wait<0>();
        }
        if (h == NH - 1 && give_back) release(s);
        promote(f, h);
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
      for (int tile = 0; tile < tiles; ++tile) {
        const int s = tile % STAGES;
        wait_full(tile);
        turn_wait();
        issue_s(sc, s);
        turn_pass(tile == tiles - 1);
        wgmma_wait<0>();
        s_landed(sc);
        mask_tile(sc, a, base, rows, int64_t{tile} * BN, m0, 1.f);
        const float2 alpha = softmax_tile<true>(sc, rows);
        p_fragments_f16(sc, ph, pl);
        issue_pv(s, 0);
        wgmma_wait<0>();
        fence_regs(o);
        finish_pv(alpha, s, true);
      }
    }
    // Head dim 64: tile t's S and tile t - 1's P V in flight together, the P V under tile
    // t's softmax (head dim 128 ran the loop above: no tiles here).
    const int ptiles = NH == 1 ? tiles : 0;
    float2 alpha_pv = make_float2(1.f, 1.f);
    if (ptiles > 0) {
      wait_full(0);
      turn_wait();
      issue_s(sc, 0);
      turn_pass(false);
      wgmma_wait<0>();
      s_landed(sc);
      mask_tile(sc, a, base, rows, 0, m0, 1.f);
      alpha_pv = softmax_tile<true>(sc, rows);
      p_fragments_f16(sc, ph, pl);
    }
    for (int tile = 1; tile < ptiles; ++tile) {
      const int s = tile % STAGES;
      wait_full(tile);
      turn_wait();
      issue_s(sc, s);
      issue_pv((tile - 1) % STAGES, 0);
      turn_pass(false);
      wgmma_wait<1>();
      s_landed(sc);
      mask_tile(sc, a, base, rows, int64_t{tile} * BN, m0, 1.f);
      const float2 alpha = softmax_tile<true>(sc, rows);
      wgmma_wait<0>();
      // The P V has read ph and pl: only now may the new P be written.
      fence_regs(o);
      fence_regs(sc);
      finish_pv(alpha_pv, (tile - 1) % STAGES, true);
      alpha_pv = alpha;
      p_fragments_f16(sc, ph, pl);
    }
    if (ptiles > 0) {
      turn_wait();
      issue_pv((ptiles - 1) % STAGES, 0);
      turn_pass(true);
    }
    wgmma_wait<0>();
    fence_regs(o);
    if (ptiles > 0) finish_pv(alpha_pv, (ptiles - 1) % STAGES, false);
    scale_rows(o, make_float2(vmul, vmul));
    store_rows(o, rows, p, base.out);
  }
#else
  (void)a;
  (void)amax;
  (void)sp;
  (void)maps;
#endif
}

// The op's path for pipe 6: the pre-pass (max |k|, |v| per head; the split into a
// buffer of 4 bytes per element of K and V) and the kernel, one block per 64 * WG query
// rows and (batch, head) in query_tile_grid's order. `scratch`: at least
// f16split_scratch_bytes(p) bytes, 16-byte aligned, alive until the kernel has run.
inline constexpr int64_t kF16SplitKeyPad = 64;  // the 64-key tiles and the split's tiles
static_assert(kF16SplitKeyPad % kF16SplitTileKeys == 0, "the split's tiles cover the padded keys");
inline int64_t f16split_keys(const AttentionProblem& p) {
  return (p.S + kF16SplitKeyPad - 1) / kF16SplitKeyPad * kF16SplitKeyPad;
}
inline int64_t f16split_scratch_bytes(const AttentionProblem& p) {
  const int64_t half_elems = p.batch_count() * f16split_keys(p) * p.E;
  return 2 * 2 * half_elems * 2 + p.batch_count() * 2 * 4;
}

// The pre-pass alone (the kernel bench times the kernel without it). with_k: K's split
// too (false: the kernel splits K's tiles, KIN).
inline cudaError_t f16split_prepass(const KernelArgs& a, void* scratch, cudaStream_t stream,
                                    bool with_k = true) {
  const AttentionProblem& p = a.p;
  const int64_t sp = f16split_keys(p), batches = p.batch_count();
  const int64_t half_elems = batches * sp * p.E;
  __half* kh = static_cast<__half*>(scratch);
  __half* vt = kh + 2 * half_elems;
  unsigned* amax = reinterpret_cast<unsigned*>(vt + 2 * half_elems);
  cudaError_t e = cudaMemsetAsync(amax, 0, static_cast<size_t>(batches) * 8, stream);
  if (e != cudaSuccess) return e;
  const int64_t per_head = p.S * p.E / 4;
  const unsigned blocks = static_cast<unsigned>(std::min<int64_t>(16, (per_head + 1023) / 1024));
  const dim3 max_grid(std::max(blocks, 1u), static_cast<unsigned>(batches));
  if (p.S * (p.E / 4) + int64_t{max_grid.x} * 256 <= int64_t{UINT32_MAX})
    attention_f16_absmax_kernel<uint32_t><<<max_grid, 256, 0, stream>>>(a, amax);
  else
    attention_f16_absmax_kernel<int64_t><<<max_grid, 256, 0, stream>>>(a, amax);
  e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  if (sp == 0) return cudaSuccess;
  const dim3 grid(static_cast<unsigned>(sp / kF16SplitTileKeys), static_cast<unsigned>(p.E / 32),
                  static_cast<unsigned>(batches));
  attention_f16_split_kernel<<<grid, 256, 0, stream>>>(a, amax, with_k ? kh : nullptr, vt, sp,
                                                       half_elems);
  return cudaGetLastError();
}

// The kernel alone over the pre-pass's scratch (mapped false: the driver refused the
// maps, or KIN and K has none: attention_tma.h).
template <int E, int BN, int WG, int ST, bool PP, bool KIN = false, bool QR = false>
cudaError_t f16split_kernel(const KernelArgs& a, void* scratch, cudaStream_t stream, bool& mapped) {
  using Tr = F16SplitTraits<E, BN, WG, ST, KIN>;
  const AttentionProblem& p = a.p;
  const int64_t sp = f16split_keys(p), half_elems = p.batch_count() * sp * p.E;
  const __half* kh = static_cast<const __half*>(scratch);
  const __half* vt = kh + 2 * half_elems;
  const unsigned* amax = reinterpret_cast<const unsigned*>(vt + 2 * half_elems);
  F16SplitMaps maps{};
  // No keys (S == 0): no tile is loaded, the maps go unused.
  mapped = sp == 0 || f16split_maps(p, kh, vt, sp, BN, maps);
  if (KIN && sp > 0) {
    const cuuint32_t kbox[5] = {32, cuuint32_t(BN), 1, 1, 1};
    mapped = mapped && kv_tma_mappable(p, p.k) &&
             attention_kv_map(p, p.k, a.k, kbox, CU_TENSOR_MAP_SWIZZLE_128B, maps.kraw);
  }
  if (!mapped) return cudaSuccess;
  const auto kernel = attention_wgmma_f16split_kernel<E, BN, WG, ST, PP, KIN, QR>;
  const cudaError_t e =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Tr::kSmemBytes);
  if (e != cudaSuccess) return e;
  kernel<<<query_tile_grid(p, Tr::kBM), Tr::kThreads, Tr::kSmemBytes, stream>>>(a, amax, sp, maps);
  return cudaGetLastError();
}

}  // namespace
}  // namespace tt::ops::cuda::attention
