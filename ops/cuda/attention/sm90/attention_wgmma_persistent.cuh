// tf32 attention as a persistent kernel (wgmma pipes 8, 9 and 11; 64-key tiles, and 32 at
// head dim 128; head dim 64, and 128 for pipes 8 and 11): pipe 5's consumers (K and Vt by TMA, the
// two consumer warpgroups in ping-pong; Q's fragments in registers at head dim 64, Q in shared
// memory at 128) walking many query tiles per CTA, one CTA per SM. A CTA of pipe 5 waits at its
// start for its own Q (a round trip to memory under the other SMs' traffic), then for its first S
// and softmax, and ends with its last P V and store, with nothing under any of it: a fixed cost per
// query tile that weighs most at few keys (docs/performance.md, issue 19, seventeenth step). Here
// each query tile's Q is read by TMA ahead of its use (into one of two buffers a whole tile ahead
// at head dim 64, half by half at 128: PersistentTraits), and the ring of K and Vt stages runs on
// across query tiles. Pipe 8 reads Vt from the pre-pass (launched as its
// programmatic dependent); pipe 9 (VT) transposes V's raw tile in the kernel as pipe 7 does; pipe
// 11 (AHEAD) makes Vt itself, a unit ahead of its use (below), the pre-pass only the first units'
// heads.
//
// The walk is static (no index passes between the roles): units of two query tiles of
// one (batch, head), unit u = blockIdx.x + i gridDim.x. Full attention: tiles 2j and
// 2j + 1; causal: tiles m - 1 - j and j, so that every unit has the same key tiles.
// Where there are fewer such units than SMs, units of one tile. With `balanced_tail` (causal
// pairs; pipe 16, through PersistentWalk::slots and dealt), the last round, where fewer units
// than CTAs are left, is dealt tile by tile instead (PersistentWalk::tail_index).
#pragma once

#include <cuda/atomic>

#include "ops/cuda/attention/sm90/attention_wgmma_kernels.cuh"

namespace tt::ops::cuda::attention {
namespace {

// Unsigned division of n < 2^31 by a divisor fixed at launch, as a multiply-high, an add
// and a shift (Granlund and Montgomery): built on the host and read from the kernel's
// parameters, so that the quotient can stay on the uniform datapath (a division by a
// runtime value goes through the FP32 reciprocal, which has no uniform form).
struct UniformDivisor {
  uint32_t d = 1, mul = 1, shift = 0;
  UniformDivisor() = default;
  explicit UniformDivisor(uint32_t divisor) : d(divisor) {
    while ((uint64_t{1} << shift) < d) ++shift;
    mul = static_cast<uint32_t>(((uint64_t{1} << 32) * ((uint64_t{1} << shift) - d)) / d + 1);
  }
  __device__ __forceinline__ uint32_t div(uint32_t n) const {
    return (__umulhi(n, mul) + n) >> shift;
  }
};

// The walk, built on the host (a kernel parameter): the CTA's item n (a query tile, or an
// empty slot) is a function of n alone, so that the roles' loops carry nothing but n and
// their stage counters. Units of two query tiles where there are at least as many such
// units as CTAs (`sms`), else of one (a small problem keeps every SM busy). An empty
// slot (the lone last tile's partner, the causal middle tile's second) has mt == m_tiles
// and no key tiles: its Q is read (clamped) and its turns are passed as any item's, so
// that both roles count items alike.
struct PersistentWalk {
  unsigned m_tiles, per_unit, units_per_head, units;
  bool causal;
  UniformDivisor per_head;
  unsigned batches = 1;
  // The balanced tail: its first slot (0: none), its first unit, its tiles (empty ones left
  // out).
  unsigned tail_n = 0, tail_u0 = 0, tail_tiles = 0;

  // `pairs` false: units of one tile always (full attention gains nothing from pairs, and
  // smaller units leave a smaller share of the heads to pipe 12's pre-pass).
  PersistentWalk(const AttentionProblem& p, unsigned bm, unsigned sms, bool pairs = true,
                 bool balanced_tail = false)
      : m_tiles(static_cast<unsigned>((p.L + bm - 1) / bm)), causal(p.causal) {
    for (int d = 0; d < p.batch_rank; ++d) batches *= static_cast<unsigned>(p.batch[d]);
    per_unit = pairs && (m_tiles + 1) / 2 * batches >= sms ? 2 : 1;
    units_per_head = (m_tiles + per_unit - 1) / per_unit;
    units = units_per_head * batches;
    per_head = UniformDivisor(units_per_head);
    const unsigned grid = std::min(units, sms);
    if (balanced_tail && causal && per_unit == 2 && units % grid != 0) {
      tail_u0 = units / grid * grid;
      tail_n = 2 * (units / grid);
      for (unsigned u = tail_u0; u < units; ++u) {
        const unsigned j = u % units_per_head;
        tail_tiles += j == m_tiles - 1 - j ? 1 : 2;
      }
    }
  }
  __device__ __forceinline__ unsigned unit(int n) const {
    return blockIdx.x + static_cast<unsigned>(n >> (per_unit - 1)) * gridDim.x;
  }
  __device__ __forceinline__ bool in_tail(int n) const {
    return tail_n != 0 && static_cast<unsigned>(n) >= tail_n;
  }
  // The tail's tiles, heaviest first (the latest query tile first), dealt to the CTAs as
  // greedy scheduling would: where there are more tiles than CTAs, the first CTAs take one
  // heavy tile each and the rest fold what is left, the k-th heaviest with the k-th
  // lightest, so that the last round ends at about its average instead of a whole pair's
  // length with CTAs idle beside it. Slot n's index into that order (n in the tail), and
  // how many of the tail's slots this CTA has.
  __device__ __forceinline__ unsigned tail_singles() const {
    return 2 * gridDim.x - min(tail_tiles, 2 * gridDim.x);
  }
  __device__ __forceinline__ unsigned tail_slots() const {
    if (blockIdx.x >= tail_singles()) return 2;
    return blockIdx.x < tail_tiles ? 1 : 0;
  }
  __device__ __forceinline__ unsigned tail_index(int n) const {
    const unsigned singles = tail_singles();
    if (blockIdx.x < singles) return blockIdx.x;
    const unsigned k = blockIdx.x - singles;
    return static_cast<unsigned>(n) == tail_n ? singles + k : tail_tiles - 1 - k;
  }
  // A walk with a balanced tail: how many slots this CTA has, worked out once (the roles'
  // loops run n below it), and slot n's tile (dealt). has and at are the walk without it.
  __device__ __forceinline__ int slots() const {
    if (tail_n != 0) return static_cast<int>(tail_n + tail_slots());
    const unsigned mine = blockIdx.x < units ? (units - blockIdx.x + gridDim.x - 1) / gridDim.x : 0;
    return static_cast<int>(mine * per_unit);
  }
  __device__ __forceinline__ QueryTile dealt(int n) const {
    return in_tail(n) ? tail_at(tail_index(n)) : at(n);
  }
  __device__ __forceinline__ bool has(int n) const { return unit(n) < units; }
  // The 64-row slot of item n's query tile that consumer c of `consumers` takes. Causal: the
  // last rows of a tile attend to the most keys, so the slots are mirrored on odd items, and
  // over a pair (a late tile, then an early one) every consumer has the same key tiles.
  __device__ __forceinline__ int slot(int n, int c, int consumers) const {
    return causal && (n & 1) ? consumers - 1 - c : c;
  }
  // Slot n's query tile (mt == m_tiles: empty) and (batch, head).
  __device__ __forceinline__ QueryTile at(int n) const {
    const unsigned u = unit(n), b = per_head.div(u), j = u - b * units_per_head;
    if (per_unit == 1) return {j, b, 0};
    const unsigned h = static_cast<unsigned>(n & 1);
    unsigned mt;
    if (causal) {
      mt = h == 0 ? m_tiles - 1 - j : (j == m_tiles - 1 - j ? m_tiles : j);
    } else {
      mt = 2 * j + h < m_tiles ? 2 * j + h : m_tiles;
    }
    return {mt, b, 0};
  }
  // The tail's i-th tile, heaviest first: query tiles from the last down, each (batch, head)
  // whose unit with that tile is in the tail in order. Tile x is unit j's late tile
  // (x = m_tiles - 1 - j) from m_tiles - units_per_head up, its early one (x = j) below.
  __device__ __forceinline__ QueryTile tail_at(unsigned i) const {
    for (unsigned x = m_tiles; x-- > 0;) {
      const unsigned j = x >= m_tiles - units_per_head ? m_tiles - 1 - x : x;
      const unsigned first = tail_u0 > j ? per_head.div(tail_u0 - j + units_per_head - 1) : 0;
      if (i < batches - first) return {x, first + i, 0};
      i -= batches - first;
    }
    return {m_tiles, 0, 0};
  }
};

// Q's buffers (BM x E floats each, 128-byte swizzled panels of 32 columns, by TMA), the
// stages of pipe 5 (VT: pipe 7's, V's raw tile a third part), the barriers: the stages'
// full and empty, Q's full and empty per buffer (kQInSmem: per consumer's half), then (VT)
// the stages' V landed. Head dim 64: two buffers, Q's fragments in registers, so a buffer
// is free once read and the next query tile's Q lands a whole tile ahead. Head dim 128
// (kQInSmem): the fragments would spill, and two 64 KB buffers leave no room for two
// stages, so one buffer, which S reads from shared memory; each consumer's half is
// reloaded as soon as that consumer's last S of a query tile has landed.
template <int E, int BN, int STAGES, bool VT = false, bool AHEAD = false>
struct PersistentTraits {
  static constexpr int kBM = 128;
  static constexpr int kThreads = 384;
  static constexpr bool kQInSmem = E == 128;
  static constexpr int kQBuffers = kQInSmem ? 1 : 2;
  static constexpr int kQBytes = kBM * E * 4;
  static constexpr int kKBytes = BN * E * 4;
  static constexpr int kStageBytes = (VT ? 3 : 2) * kKBytes;
  static constexpr int kStagesOffset = kQBuffers * kQBytes;
  static constexpr int kBarOffset = kStagesOffset + STAGES * kStageBytes;
  static constexpr int kSmemBytes = kBarOffset + ((VT ? 3 : 2) * STAGES + 4) * 8 + 1024;
  static_assert(kSmemBytes <= 232448, "shared memory over the 227 KB of an SM");
  // VT: the transposing warps take pipe 7's 56 registers (AHEAD: the making warps).
  static constexpr int kProducerRegs = VT || AHEAD ? 56 : 24;
  static constexpr int kConsumerRegs = VT || AHEAD ? 224 : 240;
  // AHEAD: the warps that make Vt (the producer warpgroup's but the TMA issuer and, with
  // kQInSmem, Q's loader).
  static constexpr int kMakerTid = kQInSmem ? 320 : 288;
  static constexpr int kMakers = kThreads - kMakerTid;
  static_assert(128 * kProducerRegs + 256 * kConsumerRegs <= 65536 / kThreads / 8 * 8 * kThreads,
                "setmaxnreg past the block's registers at launch");
};

// Q's map: the problem's Q as K's map reads K (attention_kv_map; L rows), a box of 32
// columns by BM rows. False where Q's layout has none (q_tma_mappable).
inline bool persistent_q_map(const AttentionProblem& p, const float* q, int bm, CUtensorMap& m) {
  if (attention_encode_tiled() == nullptr || !q_tma_mappable(p)) return false;
  const cuuint32_t box[5] = {32, cuuint32_t(bm), 1, 1, 1};
  return attention_kv_map(queries_as_keys(p), p.q, q, box, CU_TENSOR_MAP_SWIZZLE_128B, m);
}

struct PersistentMaps {
  AttnTmaMaps kv;
  CUtensorMap q;
};

// kQInSmem: each consumer's barrier once its half of Q is scaled (PingPong takes 1 and 2).
inline constexpr int kPersistentQBarrier = 3;
// AHEAD: the making warps' barrier once a part of Vt is written.
inline constexpr int kPersistentMadeBarrier = 5;

// AHEAD (pipe 11): the pre-pass's Vt is made in the kernel. The pre-pass's whole grid
// waits before a pipe 8 kernel's first P V (its 64 MB at 1k keys are a sixth of pipe 8's
// time); here the pre-pass makes only the heads of each CTA's first unit (`first`: the
// heads below it; two units at head dim 128 when causal, see the launcher) and zeroes
// `made`, and the producer warpgroup's idle warps make, for each later unit of their CTA,
// that unit's part of its head's Vt (the head's keys split evenly over its units),
// straight from global memory to global memory. A head's
// units all wait (before their first copy of Vt) until `made` counts every part of it;
// each part's maker is an earlier unit of a CTA that is running, and the makers wait on
// nothing, so every wait ends.
struct VtAhead {
  float* vt = nullptr;
  unsigned* made = nullptr;  // per (batch, head): parts made
  int64_t sp = 0;            // Vt's keys (kVtPad's multiple)
  unsigned first = 0;        // the heads the pre-pass makes: [0, first)
};

// Part `part` of `parts` of head b's Vt (the pre-pass's layout, attention_vt_kernel: keys in
// the 0,2,4,6,1,3,5,7 order of each group of 8, rounded to TF32, zeros past S), by
// `threads` threads from `t`. A warp takes 32 keys by 16 columns at a time, a lane 4 keys
// of one parity by 4 columns: it reads four rows' 16 bytes (a row's 64 bytes from 4 lanes)
// and writes four Vt rows' 16 bytes (a row's 128 bytes from 8 lanes).
template <int E>
__device__ __forceinline__ void make_vt_part(const AttentionProblem& p, const float* v,
                                             const VtAhead& ah, unsigned b, unsigned part,
                                             unsigned parts, int t, int threads) {
  const int64_t blocks = ah.sp / 32;
  const int64_t kb0 = part * blocks / parts, kb1 = (part + 1) * blocks / parts;
  const float* vb = v + batch_offset(p, p.v, b);
  float* vtb = ah.vt + int64_t{b} * E * ah.sp;
  const int lane = t % 32, g = lane % 4, par = (lane / 4) % 2;
  constexpr int kColumnBlocks = E / 16;
  for (int64_t w = t / 32; w < (kb1 - kb0) * kColumnBlocks; w += threads / 32) {
    const int64_t kb = kb0 + w / kColumnBlocks;
    const int d0 = static_cast<int>(w % kColumnBlocks) * 16 + (lane / 8) * 4;
    float4 x[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int64_t key = kb * 32 + g * 8 + par + 2 * i;
      x[i] = key < p.S ? __ldg(reinterpret_cast<const float4*>(vb + key * p.v.row + d0))
                       : make_float4(0.f, 0.f, 0.f, 0.f);
    }
    float* at = vtb + int64_t{d0} * ah.sp + kb * 32 + g * 8 + par * 4;
    const auto column = [&](int c) {
      const auto pick = [c](const float4& f) {
        return c == 0 ? f.x : c == 1 ? f.y : c == 2 ? f.z : f.w;
      };
      return make_float4(tf32_rna(pick(x[0])), tf32_rna(pick(x[1])), tf32_rna(pick(x[2])),
                         tf32_rna(pick(x[3])));
    };
#pragma unroll
    for (int c = 0; c < 4; ++c) __stcg(reinterpret_cast<float4*>(at + c * ah.sp), column(c));
  }
}

// A head's count of parts made, as every CTA of the grid sees it.
__device__ __forceinline__ ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device> made_count(
    const VtAhead& ah, unsigned b) {
  return ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device>(ah.made[b]);
}

// K's tile of BN keys from n0 of the head at kc (k_batch_coords) into ks, panel by panel of
// 32 columns, its bytes counted on `bar` (pipes 8, 9, 11 and 12).
template <int E, int BN>
__device__ __forceinline__ void copy_k_tile(const CUtensorMap& k, int32_t (&kc)[5], int32_t n0,
                                            float* ks, uint64_t* bar) {
  namespace ptx = ::cuda::ptx;
#pragma unroll
  for (int q = 0; q < E / 32; ++q) {
    kc[0] = 32 * q;
    kc[1] = n0;
    ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global, ks + q * BN * 32, &k, kc, bar);
  }
}

// A TMA load of a 5-d map's box into shared memory, counted on `bar`, its lines marked to
// leave L2 first: for data read once (cuda::ptx has no cache-hint form of the copy).
__device__ __forceinline__ void tma_load_evict_first(void* dst, const CUtensorMap* map,
                                                     const int32_t (&c)[5], uint64_t* bar) {
  uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(policy));
  asm volatile(
      "cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      ".L2::cache_hint [%0], [%1, {%2, %3, %4, %5, %6}], [%7], %8;\n" ::"r"(smem_u32(dst)),
      "l"(map), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(c[4]), "r"(smem_u32(bar)),
      "l"(policy)
      : "memory");
}

// The making warps' loop (pipes 11 and 12): each later unit of this CTA's walk, its part of
// its head's Vt (VtAhead), then the head's count once every maker has written; MAKERS threads
// from `t`. The pre-pass zeroes the counts first (the grid dependency).
template <int E, int MAKERS>
__device__ __forceinline__ void make_later_units_vt(const AttentionProblem& p, const float* v,
                                                    const PersistentWalk& walk,
                                                    const VtAhead& ahead, int t) {
  grid_dependency_wait();
  for (unsigned u = blockIdx.x + gridDim.x; u < walk.units; u += gridDim.x) {
    const unsigned b = walk.per_head.div(u);
    if (b < ahead.first) continue;
    make_vt_part<E>(p, v, ahead, b, u - b * walk.units_per_head, walk.units_per_head, t, MAKERS);
    __threadfence();
    asm volatile("bar.sync %0, %1;\n" ::"n"(kPersistentMadeBarrier), "n"(MAKERS) : "memory");
    if (t == 0) made_count(ahead, b).fetch_add(1u, ::cuda::memory_order_release);
  }
}

// The producer's wait before a unit's first copy of Vt from head b (made by the units before
// it: VtAhead), then its view of Vt's bytes for the async proxy; returns the ns waited.
__device__ __forceinline__ unsigned long long wait_for_made_vt(const VtAhead& ahead, unsigned b,
                                                               unsigned parts, bool timed) {
  const unsigned long long t0 = timed ? global_ns() : 0;
  while (made_count(ahead, b).load(::cuda::memory_order_acquire) < parts) __nanosleep(64);
  fence_proxy_async_global();
  return timed ? global_ns() - t0 : 0;
}

// Nothing to do (load_q_item's default).
struct NoStep {
  __device__ __forceinline__ void operator()() const {}
};

// Q of item n of the walk (query tile qt; an empty slot loads the last tile) into buffer n % 2
// of two at `buffers`, `bytes` apart (BM rows in panels of 32 columns, by TMA), once the
// consumers have let go of the item two before it in that buffer (pipes 8, 9 and 11 at head
// dim 64; 16). `once_free` runs between the two: what it stores beside the buffer reaches the
// consumers with Q's arrival (pipe 16's item slots).
template <int E, int BM, class OnceFree = NoStep>
__device__ __forceinline__ void load_q_item(const AttentionProblem& p, const PersistentWalk& walk,
                                            const CUtensorMap& qmap, int n, const QueryTile& qt,
                                            uint8_t* buffers, int bytes, uint64_t* qfull,
                                            uint64_t* qempty, const OnceFree& once_free = {}) {
  namespace ptx = ::cuda::ptx;
  const int buf = n & 1;
  if (n >= 2) mbar_wait(&qempty[buf], ((n >> 1) - 1) & 1);
  once_free();
  ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &qfull[buf],
                                 bytes);
  int32_t c[5];
  k_batch_coords(p, qt.b, c);
  c[1] = static_cast<int32_t>(min_i64(qt.mt, int64_t{walk.m_tiles} - 1) * BM);
  float* q = reinterpret_cast<float*>(buffers + buf * bytes);
#pragma unroll
  for (int i = 0; i < E / 32; ++i) {
    c[0] = 32 * i;
    ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global, q + i * BM * 32, &qmap, c,
                              &qfull[buf]);
  }
}

template <int E, int BN, int STAGES, int DIAG = 0, bool VT = false, bool AHEAD = false>
__global__ void __launch_bounds__(384, 1)
    attention_wgmma_persistent_kernel(const __grid_constant__ KernelArgs a,
                                      const __grid_constant__ PersistentMaps maps,
                                      const __grid_constant__ PersistentWalk walk,
                                      const __grid_constant__ VtAhead ahead, bool vt_dependent) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  constexpr bool kTraced = (DIAG & kDiagTrace) != 0;
  trace_start<kTraced>();
  using T = PersistentTraits<E, BN, STAGES, VT, AHEAD>;
  static_assert((E == 64 || E == 128) && (BN == 64 || BN == 32), "head dim 64 or 128");
  static_assert(!(T::kQInSmem && VT), "head dim 128 has no room for V's raw tile");
  static_assert(!(VT && AHEAD), "V transposed in the kernel or made ahead, not both");
  constexpr bool kQInSmem = T::kQInSmem;
  namespace ptx = ::cuda::ptx;
  constexpr int BM = T::kBM, NT = BN / 8, SR = BN / 2, OR = E / 2;
  const AttentionProblem& p = a.p;
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = align_1024(smem_raw);
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + T::kBarOffset);
  uint64_t* empty = full + STAGES;
  uint64_t* qfull = empty + STAGES;               // [2]: per buffer (kQInSmem: per half)
  uint64_t* qempty = qfull + 2;                   // [2]
  [[maybe_unused]] uint64_t* vload = qempty + 2;  // VT: [STAGES]
  const auto stage_k = [&](int s) {
    return reinterpret_cast<float*>(smem + T::kStagesOffset + s * T::kStageBytes);
  };
  const auto q_buffer = [&](int i) { return reinterpret_cast<float*>(smem + i * T::kQBytes); };
  // Key tiles of a walk's query tile (none for an empty slot).
  const auto tiles_of = [&](const QueryTile& qt) {
    if (qt.mt >= walk.m_tiles) return 0;
    return static_cast<int>((attended_keys(p, qt.mt * BM, BM) + BN - 1) / BN);
  };

  const int tid = threadIdx.x;
  if (tid == 0) {
    for (int s = 0; s < STAGES; ++s) {
      // VT: the copy's expect_tx and one arrival per transposing warp.
      mbar_init(&full[s], VT ? 4 : 1);
      mbar_init(&empty[s], 8);
      if constexpr (VT) mbar_init(&vload[s], 1);
    }
    for (int i = 0; i < 2; ++i) {
      mbar_init(&qfull[i], 1);
      mbar_init(&qempty[i], kQInSmem ? 4 : 8);
    }
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  __syncthreads();

  if (tid >= 256) {
    sm90::detail::setmaxnreg_dec<T::kProducerRegs>();
    if (tid == 256) {
      // Q of item `n` (the CTA's n-th query tile) into buffer n % 2, once the consumers have
      // read the item two before it out of that buffer.
      const auto load_q = [&](int n, const QueryTile& qt) {
        load_q_item<E, BM>(p, walk, maps.q, n, qt, smem, T::kQBytes, qfull, qempty);
      };
      int g = 0;
      [[maybe_unused]] bool waited = !vt_dependent;
      // The first item's Q, then each item's tiles with the next item's Q after its first.
      if (!kQInSmem && walk.has(0)) load_q(0, walk.at(0));
      for (int n = 0; walk.has(n); ++n) {
        const QueryTile qt = walk.at(n);
        const bool next = walk.has(n + 1);
        int32_t kc[5];
        k_batch_coords(p, qt.b, kc);
        const int32_t vrow = static_cast<int32_t>(qt.b * E);
        const int tiles = tiles_of(qt);
        for (int tile = 0; tile < tiles; ++tile, ++g) {
          const int s = g % STAGES;
          if (g >= STAGES) mbar_wait(&empty[s], ((g / STAGES) - 1) & 1);
          ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared,
                                         &full[s], VT ? T::kKBytes : 2 * T::kKBytes);
          float* ks = stage_k(s);
          const int32_t n0 = tile * BN;
          copy_k_tile<E, BN>(maps.kv.k, kc, n0, ks, &full[s]);
          if constexpr (VT) {
            // V's raw tile (rows past S as zeros) for the transposing warps.
            ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared,
                                           &vload[s], T::kKBytes);
            kc[0] = 0;
            kc[1] = n0;
            ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global, ks + 2 * BN * E,
                                      &maps.kv.v, kc, &vload[s]);
          } else {
            if (!waited) {
              grid_dependency_wait();
              waited = true;
            }
            if (AHEAD && tile == 0 && qt.b >= ahead.first) {
              const unsigned long long waited_ns = wait_for_made_vt(
                  ahead, static_cast<unsigned>(qt.b), walk.units_per_head, kTraced);
              trace_item_value<kTraced>(n, 6, waited_ns);
            }
#pragma unroll
            for (int q = 0; q < BN / 32; ++q) {
              const int32_t vc[2] = {n0 + 32 * q, vrow};
              ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global,
                                        ks + BN * E + q * E * 32, &maps.kv.vt, vc, &full[s]);
            }
          }
          if (!kQInSmem && tile == 0 && next) load_q(n + 1, walk.at(n + 1));
        }
        if (!kQInSmem && tiles == 0 && next) load_q(n + 1, walk.at(n + 1));
      }
    } else if (kQInSmem && tid == 288) {
      // kQInSmem: warp 9 loads each item's Q half by half, each once its consumer has let
      // go of the item before's (a box of 64 rows: the half's rows of each panel).
      for (int n = 0; walk.has(n); ++n) {
        const QueryTile qt = walk.at(n);
        int32_t c[5];
        k_batch_coords(p, qt.b, c);
        const int32_t row0 = static_cast<int32_t>(min_i64(qt.mt, int64_t{walk.m_tiles} - 1) * BM);
        for (int h = 0; h < 2; ++h) {
          if (n >= 1) mbar_wait(&qempty[h], (n - 1) & 1);
          ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared,
                                         &qfull[h], T::kQBytes / 2);
          c[1] = row0 + h * 64;
#pragma unroll
          for (int q = 0; q < E / 32; ++q) {
            c[0] = 32 * q;
            ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global,
                                      q_buffer(0) + q * BM * 32 + h * 64 * 32, &maps.q, c,
                                      &qfull[h]);
          }
        }
      }
    } else if (AHEAD && tid >= T::kMakerTid) {
      make_later_units_vt<E, T::kMakers>(p, a.v, walk, ahead, tid - T::kMakerTid);
    } else if (VT && tid >= 288) {
      // Warps 1-3 (VT): each stage's raw V into Vt's place (pipe 7's transpose), over the
      // same walk.
      int g = 0;
      for (int n = 0; walk.has(n); ++n) {
        const QueryTile qt = walk.at(n);
        const int tiles = tiles_of(qt);
        for (int tile = 0; tile < tiles; ++tile, ++g) {
          const int s = g % STAGES;
          mbar_wait(&vload[s], (g / STAGES) & 1);
          transpose_v_tile<E, BN>(stage_k(s) + BN * E, stage_k(s) + 2 * BN * E, tid - 288, 96);
          hand_over(&full[s]);
        }
      }
    }
  } else {
    sm90::detail::setmaxnreg_inc<T::kConsumerRegs>();
    const int wg = warp_uniform(tid / 128), warp = (tid % 128) / 32, lane = tid % 32;
    // Every turn passes, the last item's too (a pass under a condition on the warpgroup
    // took the loop off the uniform datapath: see the header); consumer 0 takes consumer
    // 1's surplus arrival after its loop, so that none is pending at exit.
    const PingPong<true> turns(wg, 1);
    int g = 0;
    for (int n = 0; walk.has(n); ++n) {
      const QueryTile qt = walk.at(n);
      const int64_t m0 = qt.mt * BM;
      const BatchBase base = batch_base(a, qt.b);
      const int tiles = tiles_of(qt);
      Rows rows = consumer_rows(m0, wg, warp, lane);
      trace_item<kTraced>(n, 0);
      if (tid == 0) trace_item_value<kTraced>(n, 5, static_cast<unsigned>(tiles));
      // Head dim 64: Q's fragments (q_fragments' layout) from the buffer, scaled and
      // rounded; the buffer goes back at once. kQInSmem: this consumer's half scaled and
      // rounded in place (each thread rewrites what it read), for S to read from there.
      [[maybe_unused]] uint32_t qf[kQInSmem ? 1 : E / 8][4];
      if constexpr (kQInSmem) {
        mbar_wait(&qfull[wg], n & 1);
#pragma unroll 4
        for (int i = tid % 128; i < 64 * E / 4; i += 128) {
          float4* at =
              reinterpret_cast<float4*>(q_buffer(0) + (i / 512) * BM * 32 + wg * 64 * 32) + i % 512;
          const float4 x = *at;
          *at = make_float4(tf32_rna(x.x * a.scale), tf32_rna(x.y * a.scale),
                            tf32_rna(x.z * a.scale), tf32_rna(x.w * a.scale));
        }
        fence_proxy_async();
        asm volatile("bar.sync %0, 128;\n" ::"r"(kPersistentQBarrier + wg) : "memory");
      } else {
        const int buf = n & 1;
        mbar_wait(&qfull[buf], (n >> 1) & 1);
        const float* qb = q_buffer(buf);
#pragma unroll
        for (int kk = 0; kk < E / 8; ++kk) {
#pragma unroll
          for (int i = 0; i < 4; ++i) {
            const int r = wg * 64 + warp * 16 + lane / 4 + (i % 2) * 8;
            const int c = 8 * kk + lane % 4 + (i / 2) * 4;
            const float x =
                qb[(c / 32) * BM * 32 + r * 32 + ((((c % 32) / 4) ^ (r % 8)) * 4) + c % 4];
            qf[kk][i] = __float_as_uint(tf32_rna(x * a.scale));
          }
        }
        __syncwarp();
        if (lane == 0) mbar_arrive(&qempty[buf]);
      }
      if (n == 0) trace_mark<kTraced>(0, 3);
      trace_item<kTraced>(n, 1);
      const auto issue_s = [&](float(&acc)[SR], int s) {
#pragma unroll
        for (int i = 0; i < SR; ++i) acc[i] = 0.f;
        fence_regs(acc);
        wgmma_fence();
        if constexpr (kQInSmem) {
          issue_qk<E, BN, BM>(acc, smem_u32(q_buffer(0)) + wg * 64 * 128, smem_u32(stage_k(s)),
                              false);
        } else {
          issue_qk_rs<E, BN>(acc, qf, smem_u32(stage_k(s)));
        }
        wgmma_commit();
      };
      float o[OR];
#pragma unroll
      for (int i = 0; i < OR; ++i) o[i] = 0.f;
      const auto issue_pv = [&](const uint32_t(&pa)[NT][4], int s) {
        fence_regs(o);
        wgmma_fence();
        const Sw128Desc dv(smem_u32(stage_k(s)) + T::kKBytes);
#pragma unroll
        for (int j = 0; j < NT; ++j) {
          sm90::WgmmaTf32<E>::mma_rs(o, pa[j], dv.at(uint32_t((j / 4) * E * 128 + (j % 4) * 32)),
                                     1);
        }
        wgmma_commit();
      };
      const auto release = [&](int s) {
        __syncwarp();
        if (lane == 0) mbar_arrive(&empty[s]);
      };
      const auto wait_full = [&](int gi) { mbar_wait(&full[gi % STAGES], (gi / STAGES) & 1); };
      // kQInSmem: once this item's last S has landed, its half of Q goes back.
      const auto let_go_of_q = [&] {
        if constexpr (kQInSmem) {
          __syncwarp();
          if (lane == 0) mbar_arrive(&qempty[wg]);
        }
      };
      float sc[SR];
      uint32_t pa[NT][4];
      uint32_t unused[1][4];
      float2 alpha0 = make_float2(1.f, 1.f);
      if (tiles > 0) {
        wait_full(g);
        turns.wait();
        issue_s(sc, g % STAGES);
        turns.pass(false);
        wgmma_wait<0>();
        fence_regs(sc);
        if (tiles == 1) let_go_of_q();
        mask_tile(sc, a, base, rows, 0, m0, kLog2eF);
        softmax_tile_lazy(sc, rows, alpha0);
        p_fragments<false>(sc, pa, unused);
      }
      trace_item<kTraced>(n, 2);
      for (int tile = 1; tile < tiles; ++tile) {
        const int gi = g + tile;
        wait_full(gi);
        turns.wait();
        issue_s(sc, gi % STAGES);
        issue_pv(pa, (gi - 1) % STAGES);
        turns.pass(false);
        wgmma_wait<1>();
        fence_regs(sc);
        if (tile == tiles - 1) let_go_of_q();
        float2 alpha = make_float2(1.f, 1.f);
        mask_tile(sc, a, base, rows, int64_t{tile} * BN, m0, kLog2eF);
        const bool rescale = softmax_tile_lazy(sc, rows, alpha);
        wgmma_wait<0>();
        fence_regs(o);
        fence_regs(sc);
        release((gi - 1) % STAGES);
        if (rescale) scale_rows(o, alpha);
        p_fragments<false>(sc, pa, unused);
      }
      trace_item<kTraced>(n, 3);
      if (tiles > 0) {
        turns.wait();
        issue_pv(pa, (g + tiles - 1) % STAGES);
        turns.pass(false);
        wgmma_wait<0>();
        fence_regs(o);
        release((g + tiles - 1) % STAGES);
      } else {
        // No key tile (S == 0).
        let_go_of_q();
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
  (void)maps;
  (void)walk;
  (void)ahead;
  (void)vt_dependent;
#endif
}

// min(units, SMs) CTAs of the persistent walk (the SM count of the current device, cached
// per device by the caller). False where Q or K has no tensor map. AHEAD: `ahead`'s Vt and
// counts (as many as the problem's batches), the pre-pass of the first units' heads first.
// The heads of the first `rounds` rounds of `grid` CTAs' units: [0, the count returned).
inline unsigned heads_of_first_units(const AttentionProblem& p, const PersistentWalk& walk,
                                     unsigned grid, int64_t rounds) {
  const int64_t per = walk.units_per_head;
  return static_cast<unsigned>(std::min<int64_t>(p.batch_count(), (rounds * grid + per - 1) / per));
}

// The pre-pass of a kernel that makes Vt ahead (pipes 11 and 12), launched before it on
// `stream`: Vt of the heads of the first `rounds` rounds of `grid` CTAs' units
// (`ahead.first`, set here), every head's count zeroed. No keys (`ahead.sp` 0): nothing to
// make or wait for, no pre-pass, and every head counts as made.
inline cudaError_t prepass_first_units(const KernelArgs& a, const PersistentWalk& walk,
                                       unsigned grid, int64_t rounds, cudaStream_t stream,
                                       VtAhead& ahead) {
  const int64_t heads = a.p.batch_count();
  ahead.first =
      ahead.sp == 0 ? static_cast<unsigned>(heads) : heads_of_first_units(a.p, walk, grid, rounds);
  if (ahead.sp == 0) return cudaSuccess;
  return launch_vt_prepass(a, ahead.vt, nullptr, ahead.sp, ahead.first, stream, ahead.made, heads);
}

template <int E, int BN, int STAGES, int DIAG = 0, bool VT = false, bool AHEAD = false>
cudaError_t launch_persistent_kernel(const KernelArgs& a, const AttnTmaMaps& kv, int sms,
                                     cudaStream_t stream, bool vt_dependent, bool& mapped,
                                     VtAhead ahead = {}) {
  using Tr = PersistentTraits<E, BN, STAGES, VT, AHEAD>;
  PersistentMaps maps{kv, {}};
  mapped = persistent_q_map(a.p, a.q, Tr::kQInSmem ? Tr::kBM / 2 : Tr::kBM, maps.q);
  if (!mapped) return cudaSuccess;
  const auto kernel = attention_wgmma_persistent_kernel<E, BN, STAGES, DIAG, VT, AHEAD>;
  cudaError_t e =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Tr::kSmemBytes);
  if (e != cudaSuccess) return e;
  const PersistentWalk walk(a.p, Tr::kBM, static_cast<unsigned>(sms));
  const unsigned grid = std::min(walk.units, static_cast<unsigned>(sms));
  if constexpr (AHEAD) {
    // At head dim 128 a causal CTA's unit ends before its two making warps have made a
    // later unit's part, and every later unit would wait for its Vt: there the pre-pass
    // makes the first two rounds of units.
    e = prepass_first_units(a, walk, grid, E == 128 && a.p.causal ? 2 : 1, stream, ahead);
    if (e != cudaSuccess) return e;
    vt_dependent = vt_dependent || ahead.sp > 0;
  }
  cudaLaunchAttribute pdl = gemm::sm90::detail::pdl_attribute();
  cudaLaunchConfig_t lc{};
  lc.gridDim = dim3(grid);
  lc.blockDim = dim3(Tr::kThreads);
  lc.dynamicSmemBytes = static_cast<size_t>(Tr::kSmemBytes);
  lc.stream = stream;
  lc.attrs = &pdl;
  lc.numAttrs = vt_dependent ? 1 : 0;
  return cudaLaunchKernelEx(&lc, kernel, a, maps, walk, ahead, vt_dependent);
}

}  // namespace
}  // namespace tt::ops::cuda::attention
