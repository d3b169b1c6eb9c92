// accurate attention as a persistent kernel (wgmma pipe 16, head dim 64): pipe 6's 2 x fp16
// split and its consumers' loop on pipe 8's walk (attention_wgmma_persistent.cuh: min(units,
// SMs) CTAs, units of two query tiles, the causal walk's last round dealt tile by tile, the K
// and Vt ring running on across a CTA's items). A non-persistent CTA pays its Q's round trip, its
// split and its pipeline's first fill once per 128 query rows, a large share of a short causal CTA
// (docs/performance.md). Here the producer loads the next item's Q (float32, by TMA, into the
// other of two buffers) and its first key tiles while the consumers are still on this item, so
// an item starts with its Q landed. Each consumer splits its own 64 rows from that buffer: hi
// into its A fragments (registers), lo into its rows of a shared-memory panel (S's Qlo Khi
// reads it there), the row factors from each row's max across its quad (no barrier but the
// consumer's own). The producer works out each item's indices and hands them over beside its
// Q (F16Item), so that the consumers go from one item to the next without a division.
#pragma once

#include "ops/cuda/attention/sm90/attention_wgmma_f16split.cuh"
#include "ops/cuda/attention/sm90/attention_wgmma_persistent.cuh"

namespace tt::ops::cuda::attention {
namespace {

// Q's float32 buffers (two, by TMA: pipe 8's layout, 128-byte swizzled panels of 32
// columns), Q's lo panel (BM x 64 halves, the 128-byte swizzle S reads), STAGES stages of
// K's hi, K's lo, Vt's hi, Vt's lo, each stage's tile factors, the barriers, the two items'
// slots (F16Item).
template <int STAGES>
struct F16PersistentTraits {
  static constexpr int kE = 64, kBN = 64, kBM = 128;
  static constexpr int kThreads = 384;
  static constexpr int kQBytes = kBM * kE * 4;
  static constexpr int kLoOffset = 2 * kQBytes;
  static constexpr int kLoBytes = kBM * kE * 2;
  static constexpr int kPartBytes = kBN * kE * 2;
  static constexpr int kStageBytes = 4 * kPartBytes;
  static constexpr int kStagesOffset = kLoOffset + kLoBytes;
  static constexpr int kFacOffset = kStagesOffset + STAGES * kStageBytes;
  static constexpr int kBarOffset = kFacOffset + STAGES * 8;
  static constexpr int kItemOffset = kBarOffset + (2 * STAGES + 4) * 8;
  static constexpr int kSmemBytes = kItemOffset + 2 * 24 + 1024;
  static_assert(kSmemBytes <= 232448, "shared memory over the 227 KB of an SM");
  static constexpr int kProducerRegs = 24;
  static constexpr int kConsumerRegs = 240;
  static_assert(128 * kProducerRegs + 256 * kConsumerRegs <= 65536 / kThreads / 8 * 8 * kThreads,
                "setmaxnreg past the block's registers at launch");
};

// Consumer wg's 64 rows of the float32 Q buffer `qb` (pipe 8's layout) split: hi as the
// m64n64k16 A fragments of S's k-steps (qf), lo into the same rows of the swizzled panel
// `lo` (QRows::split's layout), each row's factor 2^-s (row rA's in .x, rB's in .y).
__device__ __forceinline__ float2 split_q_rows(const float* qb, uint8_t* lo, uint32_t (&qf)[4][4],
                                               float scale, int wg, int warp) {
  constexpr int BM = 128;
  // The lane read here (volatile: not hoisted out of the walk's loop), so that the
  // addresses below are computed per item: hoisted, ptxas kept them in local memory.
  int lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  // Fragment register i of k-step kk: row r(i), columns c(kk, i) and c(kk, i) + 1.
  const auto r = [&](int i) { return wg * 64 + warp * 16 + lane / 4 + (i % 2) * 8; };
  const auto c = [&](int kk, int i) { return 16 * kk + 2 * (lane % 4) + (i / 2) * 8; };
  float2 x[4][4];
  float mA = 0.f, mB = 0.f;
#pragma unroll
  for (int kk = 0; kk < 4; ++kk) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      x[kk][i] = *reinterpret_cast<const float2*>(qb + (c(kk, i) / 32) * BM * 32 + r(i) * 32 +
                                                  ((((c(kk, i) % 32) / 4) ^ (r(i) % 8)) * 4) +
                                                  c(kk, i) % 4);
      const float m = fmaxf(fabsf(x[kk][i].x), fabsf(x[kk][i].y));
      if (i % 2 == 0) {
        mA = fmaxf(mA, m);
      } else {
        mB = fmaxf(mB, m);
      }
    }
  }
#pragma unroll
  for (int off = 1; off < 4; off *= 2) {
    mA = fmaxf(mA, __shfl_xor_sync(0xffffffffu, mA, off));
    mB = fmaxf(mB, __shfl_xor_sync(0xffffffffu, mB, off));
  }
  const float abs_scale = fabsf(scale);
  const int sA = f16_shift(mA * abs_scale), sB = f16_shift(mB * abs_scale);
  const float fA = scale * exp2_int(sA), fB = scale * exp2_int(sB);
#pragma unroll
  for (int kk = 0; kk < 4; ++kk) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const float f = i % 2 == 0 ? fA : fB;
      uint32_t l;
      f16_split2(x[kk][i].x * f, x[kk][i].y * f, qf[kk][i], l);
      *reinterpret_cast<uint32_t*>(lo + r(i) * 128 + (((c(kk, i) / 8) ^ (r(i) % 8)) * 16) +
                                   (c(kk, i) % 8) * 2) = l;
    }
  }
  return make_float2(exp2_int(-sA), exp2_int(-sB));
}

// An item as the producer hands it to the consumers beside its Q (one per Q buffer): its
// query tile, key tiles and its (batch, head)'s output and mask offsets, so that the
// consumers do none of the walk's and the batch index's divisions between items.
struct F16Item {
  int32_t mt, tiles;
  int64_t out, mask;
};

// Slot `buf`'s item: lane 0 alone reads it (as stage_factors does), so that its own arrive
// on Q's empty barrier follows the read; the warp takes it by shuffle.
__device__ __forceinline__ F16Item item_of(const F16Item* items, int buf, int lane) {
  F16Item it{};
  if (lane == 0) it = items[buf];
  const auto bcast = [](int64_t x) {
    return static_cast<int64_t>(__shfl_sync(0xffffffffu, static_cast<long long>(x), 0));
  };
  return {__shfl_sync(0xffffffffu, it.mt, 0), __shfl_sync(0xffffffffu, it.tiles, 0), bcast(it.out),
          bcast(it.mask)};
}

template <int STAGES, int DIAG = 0, bool PER_SCORE = false>
__global__ void __launch_bounds__(384, 1)
    attention_wgmma_f16split_persistent_kernel(const __grid_constant__ KernelArgs a,
                                               const float2* tmul, int64_t sp,
                                               const __grid_constant__ F16SplitMaps maps,
                                               const __grid_constant__ CUtensorMap qmap,
                                               const __grid_constant__ PersistentWalk walk) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using T = F16PersistentTraits<STAGES>;
  constexpr bool kTraced = (DIAG & kDiagTrace) != 0;
  trace_start<kTraced>();
  namespace ptx = ::cuda::ptx;
  constexpr int E = T::kE, BN = T::kBN, BM = T::kBM;
  constexpr int NT = BN / 16, SR = BN / 2, OR = E / 2;
  const AttentionProblem& p = a.p;
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = align_1024(smem_raw);
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + T::kBarOffset);
  uint64_t* empty = full + STAGES;
  uint64_t* qfull = empty + STAGES;                                    // [2]
  uint64_t* qempty = qfull + 2;                                        // [2]
  F16Item* items = reinterpret_cast<F16Item*>(smem + T::kItemOffset);  // [2]
  float2* tfac = reinterpret_cast<float2*>(smem + T::kFacOffset);
  const auto stage = [&](int s) { return smem + T::kStagesOffset + s * T::kStageBytes; };
  const auto q_buffer = [&](int i) { return reinterpret_cast<float*>(smem + i * T::kQBytes); };
  const auto tiles_of = [&](const QueryTile& qt) {
    if (qt.mt >= walk.m_tiles) return 0;
    return static_cast<int>((attended_keys(p, qt.mt * BM, BM) + BN - 1) / BN);
  };
  const unsigned batches = walk.batches;

  const int tid = threadIdx.x;
  if (tid == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(&full[s], 1);
      mbar_init(&empty[s], 8);
    }
    for (int i = 0; i < 2; ++i) {
      mbar_init(&qfull[i], 1);
      mbar_init(&qempty[i], 8);
    }
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  __syncthreads();

  if (tid >= 256) {
    sm90::detail::setmaxnreg_dec<T::kProducerRegs>();
    if (tid == 256) {
      // Item n and its Q into slot and buffer n % 2 once the consumers have split the item two
      // before (Q's arrival releases the slot's stores to them).
      const auto load_q = [&](int n, const QueryTile& qt) {
        load_q_item<E, BM>(p, walk, qmap, n, qt, smem, T::kQBytes, qfull, qempty, [&] {
          const BatchBase base = batch_base(a, qt.b);
          items[n & 1] = {static_cast<int32_t>(qt.mt), tiles_of(qt), base.out - a.out, base.mask};
        });
      };
      const int slots = walk.slots();
      if (slots > 0) load_q(0, walk.dealt(0));
      // The pre-pass's split and factors (Q is the problem's own).
      grid_dependency_wait();
      const int32_t klo = static_cast<int32_t>(batches * sp);
      const int32_t vlo = static_cast<int32_t>(batches * E);
      int g = 0;
      for (int n = 0; n < slots; ++n) {
        const QueryTile qt = walk.dealt(n);
        const bool next = n + 1 < slots;
        const int32_t krow = static_cast<int32_t>(qt.b * sp);
        const int32_t vrow = static_cast<int32_t>(qt.b * E);
        const float2* tm = tmul + static_cast<int>(qt.b * (sp / BN));
        const int tiles = tiles_of(qt);
        for (int tile = 0; tile < tiles; ++tile, ++g) {
          f16_fill_stage<E, BN, STAGES>(maps, tm, tfac, full, empty, stage(0), T::kStageBytes,
                                        T::kPartBytes, g, tile, krow, klo, vrow, vlo);
          if (tile == 0 && next) load_q(n + 1, walk.dealt(n + 1));
        }
        if (tiles == 0 && next) load_q(n + 1, walk.dealt(n + 1));
      }
    }
  } else {
    sm90::detail::setmaxnreg_inc<T::kConsumerRegs>();
    const int wg = warp_uniform(tid / 128), warp = (tid % 128) / 32, lane = tid % 32;
    const uint32_t lo_addr = smem_u32(smem + T::kLoOffset) + wg * 64 * 128;
    // Every turn passes (pipe 8's walk): consumer 0 takes consumer 1's surplus arrival at
    // the end.
    const PingPong<true> turns(wg, 1);
    int g = 0;
    const int slots = walk.slots();
    for (int n = 0; n < slots; ++n) {
      trace_item<kTraced>(n, 0);
      // This item (the producer's slot) and its Q: hi into qf, lo into this consumer's rows of
      // the panel (the item before's last S has landed: its P V was waited for), the float32
      // buffer back.
      const int buf = n & 1;
      mbar_wait(&qfull[buf], (n >> 1) & 1);
      const F16Item item = item_of(items, buf, lane);
      const int64_t m0 = int64_t{item.mt} * BM;
      const int tiles = item.tiles;
      const BatchBase base{nullptr, nullptr, nullptr, item.mask, a.out + item.out};
      Rows rows = consumer_rows(m0, wg, warp, lane);
      if (tid == 0) trace_item_value<kTraced>(n, 5, static_cast<unsigned>(tiles));
      uint32_t qf[4][4];
      const float2 qmul = split_q_rows(q_buffer(buf), smem + T::kLoOffset, qf, a.scale, wg, warp);
      __syncwarp();
      if (lane == 0) mbar_arrive(&qempty[buf]);
      fence_proxy_async();
      asm volatile("bar.sync %0, 128;\n" ::"r"(kPersistentQBarrier + wg) : "memory");
      if (n == 0) trace_mark<kTraced>(0, 3);
      trace_item<kTraced>(n, 1);
      // Each wgmma's first k-step overwrites its accumulators; zeroed all the same, after the
      // split (live across items, they held registers the split needs), so that none is
      // read before it is written.
      float o[OR], pvb[OR], pvs[OR], sc[SR], ss[SR];
      uint32_t ph[NT][4], pl[NT][4];
#pragma unroll
      for (int i = 0; i < SR; ++i) sc[i] = ss[i] = 0.f;
#pragma unroll
      for (int i = 0; i < OR; ++i) o[i] = pvb[i] = pvs[i] = 0.f;

      const auto factors = [&](int gi) { return stage_factors(tfac, gi % STAGES, lane); };
      const auto issue_s = [&](int s) {
        issue_s_f16_qr<E, BN, BM>(sc, ss, qf, smem_u32(stage(s)), lo_addr, T::kPartBytes);
      };
      const auto s_landed = [&](float kmul, int64_t n0) {
        return f16_scores_landed<SR, PER_SCORE>(sc, ss, qmul, kmul, a, base, rows, n0, m0);
      };
      const auto issue_pv = [&](int s) {
        issue_pv_f16<E>(pvb, pvs, ph, pl, smem_u32(stage(s)) + 2 * T::kPartBytes, T::kPartBytes);
      };
      const auto promote = [&](float2 f, float vmul) { promote_pv_f16(o, pvb, pvs, f, vmul, 0); };
      const auto release = [&](int s) {
        __syncwarp();
        if (lane == 0) mbar_arrive(&empty[s]);
      };
      const auto wait_full = [&](int gi) { mbar_wait(&full[gi % STAGES], (gi / STAGES) & 1); };

      float2 alpha_pv = make_float2(1.f, 1.f);
      float vmul_pv = 1.f;
      if (tiles > 0) {
        wait_full(g);
        const float2 f = factors(g);
        turns.wait();
        issue_s(g % STAGES);
        turns.pass(false);
        wgmma_wait<0>();
        const float2 mul = s_landed(f.x, 0);
        alpha_pv = softmax_tile<false>(sc, rows, mul);
        vmul_pv = f.y;
        p_fragments_f16(sc, ph, pl);
      }
      trace_item<kTraced>(n, 2);
      for (int tile = 1; tile < tiles; ++tile) {
        const int gi = g + tile;
        wait_full(gi);
        const float2 f = factors(gi);
        turns.wait();
        issue_s(gi % STAGES);
        issue_pv((gi - 1) % STAGES);
        turns.pass(false);
        wgmma_wait<1>();
        const float2 mul = s_landed(f.x, int64_t{tile} * BN);
        const float2 alpha = softmax_tile<false>(sc, rows, mul);
        wgmma_wait<0>();
        fence_regs(o);
        fence_regs(sc);
        release((gi - 1) % STAGES);
        promote(alpha_pv, vmul_pv);
        alpha_pv = alpha;
        vmul_pv = f.y;
        p_fragments_f16(sc, ph, pl);
      }
      trace_item<kTraced>(n, 3);
      if (tiles > 0) {
        turns.wait();
        issue_pv((g + tiles - 1) % STAGES);
        turns.pass(false);
        wgmma_wait<0>();
        fence_regs(o);
        release((g + tiles - 1) % STAGES);
        promote(alpha_pv, vmul_pv);
      } else {
        // No key tile (S == 0).
        turns.pass_empty_item();
      }
      if (n == 0) trace_mark<kTraced>(wg, wg == 0 ? 7 : 9);
      store_rows(o, rows, p, base.out);
      trace_item<kTraced>(n, 4);
      g += tiles;
    }
    if (wg == 0) turns.wait();
    trace_end<kTraced>();
  }
#else
  (void)a;
  (void)tmul;
  (void)sp;
  (void)maps;
  (void)qmap;
  (void)walk;
#endif
}

// Pipe 16 over the pre-pass's scratch (f16split_prepass), head dim 64, min(units, sms)
// CTAs; `dependent`: launched as the pre-pass's programmatic dependent. mapped false: a
// tensor map was refused (Q's layout has none, or the driver's).
template <int STAGES = 4, int DIAG = 0>
cudaError_t f16split_persistent_kernel(const KernelArgs& a, void* scratch, int sms,
                                       cudaStream_t stream, bool dependent, bool& mapped,
                                       bool balanced_tail = true) {
  using Tr = F16PersistentTraits<STAGES>;
  const F16SplitScratch s = f16split_parts(a.p, scratch);
  F16SplitMaps maps{};
  CUtensorMap qmap{};
  mapped = (s.sp == 0 || f16split_maps(a.p, s.kh, s.vt, s.sp, Tr::kBN, maps)) &&
           persistent_q_map(a.p, a.q, Tr::kBM, qmap);
  if (!mapped) return cudaSuccess;
  auto kernel = attention_wgmma_f16split_persistent_kernel<STAGES, DIAG>;
  if (!a.p.causal) kernel = attention_wgmma_f16split_persistent_kernel<STAGES, DIAG, true>;
  const cudaError_t e =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Tr::kSmemBytes);
  if (e != cudaSuccess) return e;
  const PersistentWalk walk(a.p, Tr::kBM, static_cast<unsigned>(sms), true, balanced_tail);
  cudaLaunchAttribute pdl = gemm::sm90::detail::pdl_attribute();
  cudaLaunchConfig_t lc{};
  lc.gridDim = dim3(std::min(walk.units, static_cast<unsigned>(sms)));
  lc.blockDim = dim3(Tr::kThreads);
  lc.dynamicSmemBytes = static_cast<size_t>(Tr::kSmemBytes);
  lc.stream = stream;
  lc.attrs = &pdl;
  lc.numAttrs = dependent ? 1 : 0;
  const cudaError_t l = cudaLaunchKernelEx(&lc, kernel, a, s.tmul, s.sp, maps, qmap, walk);
  return l != cudaSuccess ? l : cudaGetLastError();
}

}  // namespace
}  // namespace tt::ops::cuda::attention
