// The sm90 tensor-core GEMM kernel (see tc_gemm.h for the family). Reads top to bottom:
// shared-memory layout and descriptors, the producer warpgroup (TMA into the stage
// ring), the consumer warpgroups (split for accurate, wgmma, promotion), the epilogue.
// Only tc_gemm_launch.cuh includes it, compiled for sm_90a alone.
#pragma once

#include <cuda.h>  // CUtensorMap
#include <cuda_runtime.h>

#include <cstdint>
#include <cuda/ptx>
#include <type_traits>

#include "ops/cuda/gemm/epilogue.h"
#include "ops/cuda/gemm/sm90/wgmma_tf32.cuh"
#include "ops/cuda/gemm/sm90/wgmma_util.cuh"

namespace tt::ops::cuda::gemm::sm90 {

// The kernel's flavours (a compile-time axis of the variant table):
//   kSS       tf32, A and B straight from the TMA's shared-memory tiles (the TMA rounded
//             both to nearest TF32 as it loaded them);
//   kRS       tf32, A read into registers (rounded to nearest TF32 there too, a no-op
//             after the TMA's rounding), B from shared memory;
//   kAccurate split TF32: A split into hi/lo in registers, W's tile split in shared
//             memory by the producer warpgroup's spare warps (the raw tile is hi, lo beside
//             it), hi*hi + hi*lo + lo*hi per k-step, promotion into float32.
enum TcFlavor : int { kSS = 0, kRS = 1, kAccurate = 2 };

struct TcParams {
  float* c;
  int m, n, k;
  int tiles_m, tiles_n;
  int group;           // raster: tiles walked per group across the raster's short side
  int raster_n;        // 0: groups of `group` tile rows, walked down; 1: tile columns, across
  int promote_blocks;  // accurate: k-blocks per promotion interval (>= 1)
  int vec2;            // C's rows take 8-byte stores (asked for, N even, C 8-byte aligned)
  int tma_store;       // C goes out through shared memory by TMA stores (tmap_c); 0: from
                       // registers (vec2)
  Epilogue ep;         // the chain, and the column statistics' outputs
  // The chain's trailing residual steps (add_residual / mul_residual of one [M, N] tensor,
  // tmap_r), kept out of ep.steps: combined as the tile is stored (store_tile_tma, so only
  // with tma_store). res_steps: how many (0 to 2); bit i of res_mul: step i multiplies.
  int res_steps;
  int res_mul;
};

// RES: the kernel combines residual steps in its TMA store epilogue (a kernel of its own,
// so that the kernels without them keep their code: in one kernel for both, the residual's
// branches slowed the plain GEMM by 3-20%, H100, docs/performance.md).
template <int FLAVOR, int BM, int BN, int BK, int STAGES, int CONSUMERS, bool PP, int CM,
          bool RES = false>
struct TcTraits {
  static constexpr bool kAcc = FLAVOR == kAccurate;
  static constexpr bool kARegs = FLAVOR != kSS;  // A fragments from registers
  static constexpr int kWM = BM / CONSUMERS;     // rows per consumer warpgroup
  static constexpr int kMI = kWM / 64;           // wgmma m64 blocks per warpgroup
  // Rows of one scheduled tile: cooperative consumers share a BM x BN tile; ping-pong
  // consumers (PP) each own a kWM x BN tile and take turns in the main loop, so one's
  // epilogue overlaps the other's products.
  static constexpr int kTM = PP ? kWM : BM;
  static constexpr int kPanels = BK / 32;  // 128-byte swizzle panels per k-block
  static constexpr int kABytes = kTM * BK * 4;
  static constexpr int kBBytes = BN * BK * 4;
  // Clusters of CM CTAs along M share W's tile: each CTA loads BN / CM of its rows and
  // the TMA multicasts them to every CTA of the cluster.
  static constexpr int kBSliceRows = BN / CM;
  static constexpr int kRawBytes = kABytes + kBBytes;  // what TMA brings per stage
  // accurate: W's raw tile is its hi (the tensor core reads it truncated to TF32) and
  // its lo follows the stage.
  static constexpr int kStageBytes = kRawBytes + (kAcc ? kBBytes : 0);
  static constexpr int kThreads = 128 * (CONSUMERS + 1);
  // The residual's loads into the epilogue buffers: one barrier per buffer a consumer
  // may have (at most BN / 32, which does not depend on the barriers' own space).
  static constexpr int kResBars = RES ? BN / 32 : 0;
  // full, ready, empty, order, residual
  static constexpr int kBarriers = 3 * STAGES + CONSUMERS + CONSUMERS * kResBars;
  // Column statistics: one row of BN partials per warp holding the tile and one of
  // means, per tile in flight.
  static constexpr int kTileWarps = PP ? 4 : 4 * CONSUMERS;
  static constexpr int kStatsBytes = (kTileWarps + 1) * BN * 4 * (PP ? CONSUMERS : 1);
  // The TMA store epilogue (TcParams::tma_store): each consumer warpgroup writes its rows
  // of the tile 32 columns (one 128-byte swizzle row) at a time into one of kEpiBufs
  // buffers and a TMA store takes each buffer out while the next is written; the last
  // ones drain while the next tile's main loop runs. As many buffers (up to a tile's
  // BN / 32) as the shared memory beside the stages holds; 0: this variant stores from
  // registers only.
  // The statistics share the space: a tile's statistics run before its stores.
  // Ping-pong consumers run one's statistics while the other stores, so there the two
  // regions lie side by side.
  static constexpr int kEpiSubBytes = kWM * 32 * 4;
  static constexpr int kFixedBytes =
      STAGES * kStageBytes + 1024 + kBarriers * 8 + (PP ? kStatsBytes : 0);
  static constexpr int kEpiBufsRaw = (232448 - kFixedBytes) / (CONSUMERS * kEpiSubBytes);
  static constexpr int kEpiBufs = kEpiBufsRaw > BN / 32 ? BN / 32 : kEpiBufsRaw;
  static constexpr int kEpiBytes = CONSUMERS * kEpiBufs * kEpiSubBytes;
  static constexpr int kSharedBytes =
      PP ? kEpiBytes : (kEpiBytes > kStatsBytes ? kEpiBytes : kStatsBytes);
  static constexpr int kSmemBytes = kFixedBytes + kSharedBytes;
  // Where each region starts, from the 1024-aligned base: the stages, the epilogue
  // buffers (cooperative: the statistics inside them), the ping-pong statistics after
  // the buffers, then the barriers. The barriers once started at the statistics of
  // ping-pong (kStatsOffset == kBarrierOffset): the statistics' stores and the other
  // warps' mbarrier arrivals then overwrote each other, and column means came out
  // inf whenever a warp lagged (issue 21: 12 of 12 runs under contention, 0 alone).
  static constexpr int kEpiOffset = STAGES * kStageBytes;
  static constexpr int kStatsOffset = kEpiOffset + (PP ? kEpiBytes : 0);
  static constexpr int kBarrierOffset = kEpiOffset + kSharedBytes + (PP ? kStatsBytes : 0);
  // 40 leaves the consumers 232 (accurate holds 192 accumulators); the split loop fits.
  static constexpr int kProducerRegs = 40;
  // What is left of the 64K-register file for each consumer thread, in steps of 8.
  static constexpr int kConsumerRegsRaw = (65536 - 128 * kProducerRegs) / (128 * CONSUMERS);
  static constexpr int kConsumerRegs = (kConsumerRegsRaw > 240 ? 240 : kConsumerRegsRaw) / 8 * 8;
  static constexpr int kSplitThreads = 96;  // producer warps 1-3

  static_assert(kWM % 64 == 0 && kWM > 0, "BM / CONSUMERS must be a multiple of 64");
  static_assert(BN == 64 || BN == 128 || BN == 192 || BN == 256, "BN: a generated wgmma N");
  static_assert(BK % 32 == 0, "BK: whole 128-byte swizzle rows");
  static_assert(kSmemBytes <= 232448, "shared memory over the 227 KB a block can take");
  static_assert(kStageBytes % 1024 == 0, "stages and the epilogue buffers: 1024-byte aligned");
  static_assert(CM == 1 || CM == 2 || CM == 4, "cluster: 1, 2 or 4 CTAs along M");
  static_assert(kBSliceRows % 8 == 0, "W's slices: whole 8-row swizzle atoms");
  // The regions must not overlap, and all of them fit behind the alignment pad.
  static_assert(kStatsOffset >= kEpiOffset + (PP ? kEpiBytes : 0), "statistics after buffers");
  static_assert(kBarrierOffset >= kStatsOffset + (PP ? kStatsBytes : kSharedBytes),
                "the barriers lie past the statistics and the epilogue buffers");
  static_assert(kBarrierOffset + kBarriers * 8 + 1024 <= kSmemBytes,
                "the barriers end inside the block's shared memory (after the alignment pad)");
};

namespace detail {

__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

__device__ __forceinline__ void wait_parity(uint64_t* bar, uint32_t parity) {
  while (!::cuda::ptx::mbarrier_try_wait_parity(bar, parity)) {
  }
}

// Grouped raster: CTAs walk `group` tile rows down before moving one tile column right
// (raster_n = 0), or `group` tile columns across before moving one tile row down
// (raster_n = 1), so that a wave's X tiles and W tiles both stay in L2.
__device__ __forceinline__ void tile_coords(int t, int tiles_m, const TcParams& p, int& tm,
                                            int& tn) {
  const int major = p.raster_n ? p.tiles_n : tiles_m;  // the side the groups cut
  const int minor = p.raster_n ? tiles_m : p.tiles_n;
  const int per_group = p.group * minor;
  const int g = t / per_group;
  const int first = g * p.group;
  const int width = min(major - first, p.group);
  const int r = t - g * per_group;
  const int a = first + r % width, b = r / width;
  tm = p.raster_n ? b : a;
  tn = p.raster_n ? a : b;
}

// The CTA's j-th tile (j = 0, 1, ...; false past its last). A cluster of CM CTAs takes
// CM vertically adjacent tiles at once (a cluster tile, rastered as above), the CTA of
// rank r its r-th row, so the cluster's CTAs walk the same tile columns in step and
// share W's tiles. Where M's tile rows are not a multiple of CM, the last cluster tile
// row has tiles past M (tm >= tiles_m): their CTAs load a real tile, so that the
// cluster's pipeline stays in step, and store nothing.
template <int CM>
__device__ __forceinline__ bool cta_tile(int j, const TcParams& p, int& tm, int& tn) {
  const int clusters = gridDim.x / CM, cluster = blockIdx.x / CM;
  const int tiles_m = (p.tiles_m + CM - 1) / CM;
  const int t = cluster + j * clusters;
  if (t >= tiles_m * p.tiles_n) return false;
  tile_coords(t, tiles_m, p, tm, tn);
  tm = tm * CM + int(blockIdx.x % CM);
  return true;
}

// Where a consumer thread's fragment lands: row of its first accumulator (m64 block
// 0, upper half) and column of its first pair. Thread (warp, lane) holds rows
// warp*16 + lane/4 (+8) and column pairs 8j + 2*(lane%4) of each m64 block.
struct TcStore {
  int row0, col0;
};

// Whether a step reads an [M, N] tensor (the residual steps, combined at the store).
__host__ __device__ constexpr bool is_residual(EpilogueOp op) {
  return op == EpilogueOp::kAddResidual || op == EpilogueOp::kMulResidual;
}

// Step OP of the epilogue chain over a thread's whole fragment: straight-line code
// (the caller dispatches once per step), column operands read once per column pair.
template <EpilogueOp OP, int MI, int R>
__device__ __forceinline__ void chain_step(float (&a)[MI][R], const EpilogueStep& st, TcStore s,
                                           const TcParams& p) {
#pragma unroll
  for (int j = 0; j < R / 4; ++j) {
    const int col = s.col0 + 8 * j;
    EpilogueOperand oc[2];
    if constexpr (reads_column(OP)) {
      if (col < p.n) oc[0] = column_operand(st, col);
      if (col + 1 < p.n) oc[1] = column_operand(st, col + 1);
    }
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        a[mi][4 * j + e] = apply_op<OP>(a[mi][4 * j + e], oc[e % 2], st.scalar);
  }
}

// The epilogue chain (ops/cuda/gemm/epilogue.h) over the fragment: one dispatch per
// step, so each tile runs only the code of the steps it has (a per-element switch
// thrashed the instruction cache; docs/performance.md).
template <int MI, int R>
__device__ __forceinline__ void apply_chain(float (&a)[MI][R], TcStore s, const TcParams& p) {
  for (int i = 0; i < p.ep.count; ++i) {
    const EpilogueStep& st = p.ep.steps[i];
    // An if-chain, not a switch: ptxas turned the switch into an indirect branch and
    // spilled the fragment around it (2.7 KB of spill stores per thread at 128 x 256).
    // Steps that read one operand per element are not applied here: reading them from
    // global memory made ptxas hoist all of a fragment's loads and spill (0.8 KB), so the
    // residual steps are combined by store_tile_tma from a TMA-loaded tile (the launcher
    // keeps them out of ep.steps), and per-row vectors are refused
    // (tc_epilogue_unsupported_reason): even their 2 * MI loads per thread, applied here,
    // took the accurate consumer from 12 to 36 bytes of spill stores.
#define TT_TC_CHAIN_CASE(name, text)                \
  if constexpr (!reads_element(EpilogueOp::name)) { \
    if (st.op == EpilogueOp::name) {                \
      chain_step<EpilogueOp::name>(a, st, s, p);    \
      continue;                                     \
    }                                               \
  }
    TT_EPILOGUE_OPS(TT_TC_CHAIN_CASE)
#undef TT_TC_CHAIN_CASE
  }
}

// GroupNorm over each row's groups of p.ep.group_size columns (EpilogueKind::kGroupNorm),
// in registers, no shared memory and no barrier: a row's columns of the tile lie in the
// 4 lanes of a quad (lane % 4), two per 8-column chunk each. The group size is 8 * 2^L and
// the tile holds whole groups (tc_epilogue_unsupported_reason), so a group is an aligned
// run of 2^L chunks: a butterfly over the chunk index (partners known at compile time,
// levels below L taken by a uniform run-time test) leaves each chunk with its group's sum
// within the thread, and two shuffles add the quad. Two passes, as the segment-norm pass
// and our tiled GEMM's group norm: the mean, then the mean of the squared deviations;
// y = (x - mean) * (1 / sqrt(var + eps)) * gamma[col] + beta[col].
template <int MI, int R>
__device__ __forceinline__ void group_norm_rows(float (&a)[MI][R], TcStore s, const TcParams& p) {
  constexpr int kChunks = R / 4;                  // 8-column chunks of the tile (R = BN / 2)
  const int levels = __ffs(p.ep.group_size) - 4;  // L = log2(group_size / 8)
  const float inv = 1.f / static_cast<float>(p.ep.group_size);
  auto group_sums = [&](float(&v)[kChunks]) {
#pragma unroll
    for (int l = 0; (1 << l) < kChunks; ++l) {
      if (l < levels) {
        float w[kChunks];
#pragma unroll
        for (int j = 0; j < kChunks; ++j) w[j] = v[j] + v[j ^ (1 << l)];
#pragma unroll
        for (int j = 0; j < kChunks; ++j) v[j] = w[j];
      }
    }
#pragma unroll
    for (int j = 0; j < kChunks; ++j) {
      v[j] += __shfl_xor_sync(0xffffffffu, v[j], 1);
      v[j] += __shfl_xor_sync(0xffffffffu, v[j], 2);
    }
  };
#pragma unroll
  for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {  // the thread's two rows of the m64 block
      float sum[kChunks], ssd[kChunks];
#pragma unroll
      for (int j = 0; j < kChunks; ++j) sum[j] = a[mi][4 * j + 2 * h] + a[mi][4 * j + 2 * h + 1];
      group_sums(sum);
#pragma unroll
      for (int j = 0; j < kChunks; ++j) {
        const float mu = sum[j] * inv;
        float& x0 = a[mi][4 * j + 2 * h];
        float& x1 = a[mi][4 * j + 2 * h + 1];
        x0 -= mu;
        x1 -= mu;
        ssd[j] = x0 * x0 + x1 * x1;
      }
      group_sums(ssd);
#pragma unroll
      for (int j = 0; j < kChunks; ++j) {
        const float rstd = 1.f / sqrtf(ssd[j] * inv + p.ep.eps);
        a[mi][4 * j + 2 * h] *= rstd;
        a[mi][4 * j + 2 * h + 1] *= rstd;
      }
    }
  }
  // gamma and beta once per column pair (1 and 0 where absent or past N).
#pragma unroll
  for (int j = 0; j < kChunks; ++j) {
    const int col = s.col0 + 8 * j;
    float g[2] = {1.f, 1.f}, b[2] = {0.f, 0.f};
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      if (col + e < p.n && p.ep.gamma) g[e] = __ldg(p.ep.gamma + col + e);
      if (col + e < p.n && p.ep.beta) b[e] = __ldg(p.ep.beta + col + e);
    }
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
      for (int e = 0; e < 4; ++e) a[mi][4 * j + e] = a[mi][4 * j + e] * g[e % 2] + b[e % 2];
  }
}

// Column statistics of the tile (EpilogueKind::kColumnStats): mean and M2 of each
// column over the tile's rows below M, two passes (the mean first, then the squared
// deviations from it, as the own tiled kernel does), written as partial `band` of
// part_mean / part_m2 [bands][N]. Lanes that share a column combine by shuffles; each
// warp stores its column partials in its own row of `stats` ([WARPS + 1][BN] floats of
// shared memory, the last row the sums), and the rows are added in a fixed order, so
// the result does not depend on timing (shared-memory float atomics, the first
// version, spun on contention). `bar` is a barrier over
// the `threads` consumer threads that hold the tile, `tid` the thread's index among them.
template <int WARPS, int MI, int R>
__device__ __forceinline__ void column_stats(const float (&a)[MI][R], TcStore s, const TcParams& p,
                                             float* stats, int64_t band, int tile_col0, int rows,
                                             int bar, int threads, int tid) {
  constexpr int kBN = 2 * R;
  float* sums = stats + WARPS * kBN;
  const int lane = threadIdx.x % 32, wid = tid / 32;
  // Each warp's partial of every column it holds: a thread's rows below M first, then
  // the 8 lanes that hold a column (same lane % 4) combined by a transposing butterfly:
  // per group of 8 column values, each xor step hands half of them to the partner
  // lane and keeps the sum of the other half, so after 3 steps (7 shuffles instead of
  // 24) lane g of the 8 holds the whole warp's sum of value g of the group.
  auto warp_partials = [&](auto&& value) {
    static_assert(R % 16 == 0, "column values come in groups of 8 per thread");
#pragma unroll
    for (int j0 = 0; j0 < R / 4; j0 += 4) {
      float v[8];  // value i: column pair j0 + i / 2, column i % 2 of the pair
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        const int j = j0 + i / 2, x = i % 2;
        v[i] = 0.f;
#pragma unroll
        for (int mi = 0; mi < MI; ++mi)
#pragma unroll
          for (int h = 0; h < 2; ++h)
            if (s.row0 + mi * 64 + 8 * h < p.m) v[i] += value(a[mi][4 * j + 2 * h + x], j, x);
      }
#pragma unroll
      for (int half = 4; half >= 1; half /= 2) {
        const bool up = lane & (4 * half);  // xor masks 16, 8, 4
#pragma unroll
        for (int i = 0; i < half; ++i) {
          const float send = up ? v[i] : v[i + half];
          const float keep = up ? v[i + half] : v[i];
          v[i] = keep + __shfl_xor_sync(0xffffffffu, send, 4 * half);
        }
      }
      const int g = lane / 4;  // this lane now holds value g of the group
      stats[wid * kBN + 8 * (j0 + g / 2) + 2 * (lane % 4) + g % 2] = v[0];
    }
  };
  auto column_total = [&](int i) {
    float t = 0.f;
#pragma unroll
    for (int w = 0; w < WARPS; ++w) t += stats[w * kBN + i];
    return t;
  };
  named_barrier_sync(bar, threads);  // the previous tile's readers are done
  warp_partials([](float v, int, int) { return v; });
  named_barrier_sync(bar, threads);
  for (int i = tid; i < kBN; i += threads) sums[i] = column_total(i);
  named_barrier_sync(bar, threads);
  const float inv = 1.f / static_cast<float>(rows);
  const int t2 = 2 * (lane % 4);
  warp_partials([&](float v, int j, int x) {
    const float d = v - sums[8 * j + t2 + x] * inv;
    return d * d;
  });
  named_barrier_sync(bar, threads);
  for (int i = tid; i < kBN; i += threads) {
    const int col = tile_col0 + i;
    if (col < p.n) {
      p.ep.part_mean[band * p.n + col] = sums[i] * inv;
      p.ep.part_m2[band * p.n + col] = column_total(i);
    }
  }
}

// Stores the fragment: 8-byte stores where allowed (p.vec2), four lanes filling one
// 32-byte sector of a row.
template <int MI, int R>
__device__ __forceinline__ void store_tile(const float (&a)[MI][R], TcStore s, const TcParams& p) {
#pragma unroll
  for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = s.row0 + mi * 64 + 8 * h;
      if (row >= p.m) continue;
      float* out_row = p.c + int64_t(row) * p.n;
#pragma unroll
      for (int j = 0; j < R / 4; ++j) {
        const int col = s.col0 + 8 * j;
        if (col >= p.n) continue;
        const float v0 = a[mi][4 * j + 2 * h], v1 = a[mi][4 * j + 2 * h + 1];
        if (p.vec2 && col + 1 < p.n) {
          *reinterpret_cast<float2*>(out_row + col) = make_float2(v0, v1);
        } else {
          out_row[col] = v0;
          if (col + 1 < p.n) out_row[col + 1] = v1;
        }
      }
    }
  }
}

// The residual steps of the TMA store epilogue (TcParams::res_steps): the warpgroup's
// [rows x 32] tile of the residual for each 32-column chunk is TMA-loaded into the buffer
// that chunk is written to, bars[b] completing the load into buffer b.
struct TcResidual {
  const CUtensorMap* map = nullptr;
  uint64_t* bars = nullptr;
  int steps = 0;  // 0: no residual
  int mul = 0;    // bit i: step i multiplies, else adds
};

// Loads the residual's chunk of the warpgroup's rows at (row0, col) into buffer seq % BUFS
// (its barrier expects the whole box: the TMA counts the zero fill past M and N too).
template <int BUFS, int MI>
__device__ __forceinline__ void load_residual_chunk(uint8_t* bufs, const TcResidual& res, int seq,
                                                    int row0, int col) {
  namespace ptx = ::cuda::ptx;
  constexpr int kSub = MI * 64 * 128;
  const int b = seq % BUFS;
  ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &res.bars[b],
                                 kSub);
  const int32_t coords[2] = {col, row0};
  ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global, bufs + b * kSub, res.map, coords,
                            &res.bars[b]);
}

// Asks the TMA to bring the residual's chunk at (row0, col) into L2 (a hint: no barrier,
// nothing lands in shared memory), so that its later load into a buffer waits for L2
// instead of device memory.
__device__ __forceinline__ void prefetch_residual_l2(const CUtensorMap* map, int row0, int col) {
  asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "r"(col), "r"(row0)
               : "memory");
}

// v after the residual steps (at most two, all of the same operand r).
__device__ __forceinline__ float residual_steps(float v, float r, const TcResidual& res) {
  namespace pw = tt::ops::pointwise;
  if (res.steps > 0) v = (res.mul & 1) ? pw::MulFn{}(v, r) : pw::AddFn{}(v, r);
  if (res.steps > 1) v = (res.mul & 2) ? pw::MulFn{}(v, r) : pw::AddFn{}(v, r);
  return v;
}

// Stores the consumer warpgroup's rows of the fragment by TMA (TcParams::tma_store): 32
// columns at a time into the next of BUFS shared-memory buffers of MI * 64 rows x 128
// bytes, laid out as the TMA's 128-byte swizzle (16-byte chunk index XOR row % 8, which
// also spreads the fragment's 8-byte writes over all banks), then one thread's TMA store
// takes the buffer out to C, clipped at M and N. Register stores from the fragment cost
// a line write per 32 bytes and held the tensor cores up; here the warpgroup only writes shared
// memory and the last buffers drain while the next tile's main loop runs. `seq` counts the
// warpgroup's buffers across tiles. Before each barrier the issuing thread waits until the store
// that last used the next buffer has read it, so one barrier per 32 columns orders both
// (BUFS 1: a second barrier after the store has read the only buffer).
// With a residual (RES) each thread reads the residual's values where it writes
// its own (the load has the same swizzled layout) and writes the combined value in place.
// The main loop loaded the first BUFS chunks (the caller's prefetch, all buffers free
// then); chunk q + 1 goes into its buffer at the start of chunk q once the store that used
// it has read it (BUFS 1: after chunk q's store has), so its load overlaps chunk q's work.
template <int BUFS, bool RES, int MI, int R>
__device__ __forceinline__ void store_tile_tma(const float (&a)[MI][R], uint8_t* bufs,
                                               const CUtensorMap* tmap_c, int row0, int col0,
                                               int& seq, int bar, bool issuer,
                                               const TcResidual& res) {
  namespace ptx = ::cuda::ptx;
  static_assert(BUFS >= 1, "the TMA store epilogue needs a buffer");
  constexpr int kSub = MI * 64 * 128;
  constexpr int kChunks = R / 16;
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
  const int g = lane / 4, t = lane % 4;
#pragma unroll
  for (int q = 0; q < kChunks; ++q, ++seq) {
    uint8_t* buf = bufs + (seq % BUFS) * kSub;
    if constexpr (RES) {
      if constexpr (BUFS >= 2) {
        if (issuer && q + 1 >= BUFS && q + 1 < kChunks) {
          ptx::cp_async_bulk_wait_group_read(ptx::n32_t<BUFS - 2>{});
          load_residual_chunk<BUFS, MI>(bufs, res, seq + 1, row0, col0 + 32 * (q + 1));
        }
      }
      wait_parity(&res.bars[seq % BUFS], (seq / BUFS) & 1);
    }
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int r = mi * 64 + warp * 16 + g + 8 * h;
#pragma unroll
        for (int jj = 0; jj < 4; ++jj) {
          const int j = 4 * q + jj;
          float2* slot = reinterpret_cast<float2*>(
              buf + r * 128 + (((2 * jj + (t >> 1)) ^ g) << 4) + ((t & 1) << 3));
          float2 v = make_float2(a[mi][4 * j + 2 * h], a[mi][4 * j + 2 * h + 1]);
          if constexpr (RES) {
            const float2 rv = *slot;
            v = make_float2(residual_steps(v.x, rv.x, res), residual_steps(v.y, rv.y, res));
          }
          *slot = v;
        }
      }
    ptx::fence_proxy_async(ptx::space_shared);  // the TMA reads through the async proxy
    if constexpr (BUFS >= 2) {
      if (issuer) ptx::cp_async_bulk_wait_group_read(ptx::n32_t<BUFS - 2>{});
    }
    named_barrier_sync(bar, 128);
    if (issuer) {
      const int32_t coords[2] = {col0 + 32 * q, row0};
      ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, tmap_c, coords, buf);
      ptx::cp_async_bulk_commit_group();
    }
    if constexpr (BUFS == 1) {
      if (issuer) ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>{});
      named_barrier_sync(bar, 128);
      if constexpr (RES) {
        if (issuer && q + 1 < kChunks)
          load_residual_chunk<BUFS, MI>(bufs, res, seq + 1, row0, col0 + 32 * (q + 1));
      }
    }
  }
}

}  // namespace detail

template <int FLAVOR, int BM, int BN, int BK, int STAGES, int CONSUMERS, bool PP, int CM, bool RES>
__global__ void __launch_bounds__(128 * (CONSUMERS + 1), 1)
    tc_gemm_kernel(const __grid_constant__ CUtensorMap tmap_x,
                   const __grid_constant__ CUtensorMap tmap_w,
                   const __grid_constant__ CUtensorMap tmap_c,
                   const __grid_constant__ CUtensorMap tmap_r, const __grid_constant__ TcParams p) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using T = TcTraits<FLAVOR, BM, BN, BK, STAGES, CONSUMERS, PP, CM, RES>;
  using namespace detail;
  namespace ptx = ::cuda::ptx;
  extern __shared__ uint8_t smem_raw[];
  // The swizzle atoms need 1024-byte alignment; the dynamic base only promises 16.
  const uint32_t raw_addr = smem_u32(smem_raw);
  uint8_t* smem = smem_raw + (((raw_addr + 1023u) & ~1023u) - raw_addr);
  // The regions of TcTraits' layout (kEpiOffset, kStatsOffset, kBarrierOffset).
  uint8_t* epi_bufs = smem + T::kEpiOffset;
  float* stats_base = reinterpret_cast<float*>(smem + T::kStatsOffset);
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + T::kBarrierOffset);
  uint64_t* ready = full + STAGES;  // accurate: W's tile of the stage is split
  uint64_t* empty = ready + STAGES;
  uint64_t* order = empty + STAGES;        // PP: consumer c may start its main loop
  uint64_t* res_full = order + CONSUMERS;  // [CONSUMERS][kResBars]: a residual chunk landed
  const uint32_t smem_addr = smem_u32(smem);

  const int wg = threadIdx.x / 128;
  const int nkb = (p.k + BK - 1) / BK;

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      ptx::mbarrier_init(&full[s], 1);
      ptx::mbarrier_init(&ready[s], 3);  // one arrival per split warp
      // One arrival per consumer warp (of the one consumer, PP) of every CTA of the
      // cluster once its wgmma has read the stage: each CTA's producer multicasts into
      // all of them.
      ptx::mbarrier_init(&empty[s], (PP ? 4 : CONSUMERS * 4) * CM);
    }
    for (int c = 0; c < CONSUMERS; ++c) ptx::mbarrier_init(&order[c], 1);
    for (int i = 0; i < CONSUMERS * T::kResBars; ++i) ptx::mbarrier_init(&res_full[i], 1);
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  // The cluster's barriers are initialised before any CTA multicasts or arrives on them.
  if constexpr (CM > 1) {
    ptx::barrier_cluster_arrive(ptx::sem_release);
    ptx::barrier_cluster_wait();
  } else {
    __syncthreads();
  }
  // Stage s is free again in every CTA whose producer writes into this CTA's stage s.
  auto release = [&](int s) {
    if constexpr (CM == 1) {
      ptx::mbarrier_arrive(&empty[s]);
    } else {
#pragma unroll
      for (int r = 0; r < CM; ++r) arrive_remote(&empty[s], r);
    }
  };

  if (wg == 0) {
    // Producer warpgroup: one thread issues every TMA load; in accurate, warps 1-3
    // split each stage's W tile; the rest only give back their registers.
    setmaxnreg_dec<T::kProducerRegs>();
    if (threadIdx.x == 0) {
      int idx = 0, tm, tn;
      for (int j = 0; cta_tile<CM>(j, p, tm, tn); ++j) {
        const int xm = min(tm, p.tiles_m - 1);  // a tile past M loads a real one
        for (int kb = 0; kb < nkb; ++kb, ++idx) {
          const int s = idx % STAGES;
          const uint32_t ph = (idx / STAGES) & 1;
          wait_parity(&empty[s], ph ^ 1);  // a fresh barrier passes parity 1 at once
          ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared,
                                         &full[s], T::kRawBytes);
          uint8_t* st = smem + s * T::kStageBytes;
#pragma unroll
          for (int q = 0; q < T::kPanels; ++q) {
            // Rows past M or N and columns past K arrive as zeros (TMA's out-of-bounds
            // fill), so partial tiles need no masking in the main loop.
            const int32_t ca[2] = {kb * BK + 32 * q, xm * T::kTM};
            ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global, st + q * T::kTM * 128,
                                      &tmap_x, ca, &full[s]);
            if constexpr (CM == 1) {
              const int32_t cb[2] = {kb * BK + 32 * q, tn * BN};
              ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global,
                                        st + T::kABytes + q * BN * 128, &tmap_w, cb, &full[s]);
            } else {
              // This CTA's slice of W's tile, into the same place of every CTA of the
              // cluster (each CTA's full barrier expects the whole tile).
              const int rank = int(blockIdx.x % CM);
              const int32_t cb[2] = {kb * BK + 32 * q, tn * BN + rank * T::kBSliceRows};
              ptx::cp_async_bulk_tensor(
                  ptx::space_cluster, ptx::space_global,
                  st + T::kABytes + q * BN * 128 + rank * T::kBSliceRows * 128, &tmap_w, cb,
                  &full[s], uint16_t((1u << CM) - 1));
            }
          }
        }
      }
    } else if (T::kAcc && threadIdx.x >= 32) {
      // Split each stage's W tile: the raw tile stays as hi (the tensor core reads it
      // truncated to TF32, hi = trunc(w)), lo = rna(w - trunc(w)) goes into the space
      // after the stage's raw tiles. Writing lo alone saves a third of the split's
      // shared-memory traffic, which bounds this kernel, and is as accurate as a
      // rounded hi with a truncated lo (docs/performance.md). Elementwise, so the
      // swizzled layout carries over as is. The tensor cores read through the async
      // proxy: each thread fences its writes, then its warp tells the consumers (ready).
      const int stid = threadIdx.x - 32;
      int idx = 0, tm, tn;
      for (int j = 0; cta_tile<CM>(j, p, tm, tn); ++j) {
        for (int kb = 0; kb < nkb; ++kb, ++idx) {
          const int s = idx % STAGES;
          wait_parity(&full[s], (idx / STAGES) & 1);
          uint8_t* st = smem + s * T::kStageBytes;
          const float4* raw = reinterpret_cast<const float4*>(st + T::kABytes);
          float4* lo = reinterpret_cast<float4*>(st + T::kRawBytes);
#pragma unroll 2
          for (int i = stid; i < T::kBBytes / 16; i += T::kSplitThreads) {
            const float4 v = raw[i];
            lo[i] = make_float4(tf32_lo(v.x), tf32_lo(v.y), tf32_lo(v.z), tf32_lo(v.w));
          }
          ptx::fence_proxy_async(ptx::space_shared);
          __syncwarp();
          if (threadIdx.x % 32 == 0) ptx::mbarrier_arrive(&ready[s]);
        }
      }
    }
  } else {
    setmaxnreg_inc<T::kConsumerRegs>();
    const int ctid = threadIdx.x - 128;
    const int c = ctid / 128;  // consumer warpgroup
    const int warp = (ctid % 128) / 32;
    const int lane = threadIdx.x % 32;
    constexpr int kR = BN / 2;  // accumulator registers per m64 block
    using Acc = float[T::kMI][kR];
    // tf32: acc0 is the tile's sum. accurate: acc0 sums hi*hi over one promotion
    // interval, acc1 the two corrections (hi*lo + lo*hi, ~2^-11 of it) over the whole
    // tile, and tot the promoted intervals in IEEE float32. The tensor core truncates
    // each sum it writes; keeping the small corrections out of acc0 cuts acc0's
    // truncations per interval from three per k-step to one (2.5-3x less error).
    Acc acc0;
    [[maybe_unused]] Acc acc1;
    [[maybe_unused]] float tot[T::kAcc ? T::kMI : 1][T::kAcc ? kR : 1];
    int idx = 0;
    // A fragments (kARegs): thread (warp, lane) reads rows warp*16 + lane/4 (+8) and
    // columns lane%4 (+4) of each k-step; the TMA's 128-byte swizzle XORs the 16-byte
    // chunk index with the row's low three bits (= lane/4 here, since the rows start
    // at multiples of 8), which also makes the four loads bank-conflict free.
    const int g = lane / 4;
    const uint32_t a_row_off =
        uint32_t(((PP ? 0 : c * T::kWM) + warp * 16 + g) * 128 + (lane % 4) * 4);

    // One k-block into `acc` (SS): wait for its stage, issue the products, then wait
    // until only these are in flight, which frees the previous stage for the producer
    // (and means every earlier product has landed).
    [[maybe_unused]] auto kblock_ss = [&](Acc& acc, int kb, bool fresh) {
      const int s = idx % STAGES;
      wait_parity(&full[s], (idx / STAGES) & 1);
      const uint32_t st_addr = smem_addr + s * T::kStageBytes;
#pragma unroll
      for (int mi = 0; mi < T::kMI; ++mi) fence_regs(acc[mi]);
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < BK / 8; ++kk) {
        const int q = kk / 4;
        const uint32_t koff = (kk % 4) * 32;
        const uint64_t db = sw128_desc(st_addr + T::kABytes + q * BN * 128 + koff);
#pragma unroll
        for (int mi = 0; mi < T::kMI; ++mi) {
          const uint64_t da = sw128_desc(st_addr + q * T::kTM * 128 +
                                         ((PP ? 0 : c * T::kWM) + mi * 64) * 128 + koff);
          WgmmaTf32<BN>::mma(acc[mi], da, db, (fresh && kk == 0) ? 0 : 1);
        }
      }
      wgmma_commit();
#pragma unroll
      for (int mi = 0; mi < T::kMI; ++mi) fence_regs(acc[mi]);
      wgmma_wait<1>();
      if (kb > 0 && lane == 0) release((idx - 1) % STAGES);
      ++idx;
    };
    // tot += acc once acc's products have landed (the caller waited).
    [[maybe_unused]] auto promote = [&](Acc& acc) {
#pragma unroll
      for (int mi = 0; mi < T::kMI; ++mi) {
        fence_regs(acc[mi]);
#pragma unroll
        for (int i = 0; i < kR; ++i) tot[mi][i] += acc[mi][i];
      }
    };
    // One k-block into `acc` with A from registers (RS, accurate): one commit group
    // per k-step, at most kInflight + 1 in flight, so only that many k-steps' fragments
    // stay live.
    // kInflight = 2 (three groups in flight) spilled the accurate consumer and gained
    // nothing (docs/performance.md).
    constexpr int kInflight = 1;
    static_assert(kInflight >= 1 && kInflight < BK / 8, "in-flight groups within a k-block");
    // accurate: `start` (a std::bool_constant: the commit groups must be the same on
    // every path, else ptxas serializes every wgmma) begins a promotion interval: its
    // first k-step issues the corrections as their own group, waits for all of this
    // warpgroup's products (a wait that leaves the corrections in flight is not one
    // ptxas can prove, and it serializes the kernel: C7514), promotes acc0 into tot and
    // restarts acc0 with the new hi*hi; the other consumer warpgroup's products keep the
    // tensor cores busy meanwhile. `first` (the tile's first k-block) restarts acc1 too.
    // Two k-steps per commit group (half the switches between acc0 and acc1) spilled
    // and ran slower (docs/performance.md).
    [[maybe_unused]] auto kblock_rs = [&](Acc& acc, int kb, bool fresh, auto start, bool first) {
      const int s = idx % STAGES;
      const uint32_t ph = (idx / STAGES) & 1;
      wait_parity(&full[s], ph);
      if constexpr (T::kAcc) wait_parity(&ready[s], ph);
      const uint8_t* st = smem + s * T::kStageBytes;
      const uint32_t st_addr = smem_addr + s * T::kStageBytes;
#pragma unroll
      for (int kk = 0; kk < BK / 8; ++kk) {
        const int q = kk / 4;
        const uint32_t koff = (kk % 4) * 32;
        const uint64_t db = sw128_desc(st_addr + T::kABytes + q * BN * 128 + koff);
        const uint32_t c0 = uint32_t(((2 * (kk % 4)) ^ g) * 16), c1 = c0 ^ 16u;
        uint32_t hi[T::kMI][4];
        [[maybe_unused]] uint32_t lo[T::kMI][4];
#pragma unroll
        for (int mi = 0; mi < T::kMI; ++mi) {
          const uint8_t* a = st + q * T::kTM * 128 + mi * 64 * 128 + a_row_off;
          const float v[4] = {*reinterpret_cast<const float*>(a + c0),
                              *reinterpret_cast<const float*>(a + 1024 + c0),
                              *reinterpret_cast<const float*>(a + c1),
                              *reinterpret_cast<const float*>(a + 1024 + c1)};
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const float h = tf32_rna(v[e]);
            hi[mi][e] = __float_as_uint(h);
            if constexpr (T::kAcc) lo[mi][e] = __float_as_uint(v[e] - h);
          }
        }
#pragma unroll
        for (int mi = 0; mi < T::kMI; ++mi) fence_regs(acc[mi]);
        // accurate: odd k-steps issue hi*hi first, so the wgmma stream switches between
        // acc0 and acc1 once per k-step instead of twice (faster, same bits;
        // docs/performance.md).
        // An interval's first k-step keeps the corrections first (see above).
        [[maybe_unused]] const bool hh_first = T::kAcc && kk % 2 == 1 && !decltype(start)::value;
        if constexpr (T::kAcc) {
#pragma unroll
          for (int mi = 0; mi < T::kMI; ++mi) fence_regs(acc1[mi]);
        }
        // hi*hi into acc (tf32: the only product).
        auto issue_hh = [&] {
          wgmma_fence();
#pragma unroll
          for (int mi = 0; mi < T::kMI; ++mi)
            WgmmaTf32<BN>::mma_rs(acc[mi], hi[mi], db, (fresh && kk == 0) ? 0 : 1);
        };
        if (hh_first) issue_hh();
        if constexpr (T::kAcc) {
          if (!hh_first) wgmma_fence();
#pragma unroll
          for (int mi = 0; mi < T::kMI; ++mi) {
            WgmmaTf32<BN>::mma_rs(acc1[mi], hi[mi], db + (T::kBBytes >> 4),
                                  (first && kk == 0) ? 0 : 1);
            WgmmaTf32<BN>::mma_rs(acc1[mi], lo[mi], db, 1);
          }
          if constexpr (decltype(start)::value) {
            if (kk == 0) {
              wgmma_commit();
#pragma unroll
              for (int mi = 0; mi < T::kMI; ++mi) fence_regs(acc1[mi]);
              wgmma_wait<0>();
              promote(acc);  // acc is zero before the tile's first interval
            }
          }
        }
        if (!hh_first) issue_hh();
        wgmma_commit();
#pragma unroll
        for (int mi = 0; mi < T::kMI; ++mi) fence_regs(acc[mi]);
        if constexpr (T::kAcc) {
#pragma unroll
          for (int mi = 0; mi < T::kMI; ++mi) fence_regs(acc1[mi]);
        }
        wgmma_wait<kInflight>();
        // The previous k-block's last group has landed: its stage is free.
        if (kk == kInflight - 1 && kb > 0 && lane == 0) release((idx - 1) % STAGES);
      }
      ++idx;
    };
    auto kblock = [&](Acc& acc, int kb, bool fresh) {
      if constexpr (T::kARegs) {
        kblock_rs(acc, kb, fresh, std::false_type{}, false);
      } else {
        kblock_ss(acc, kb, fresh);
      }
    };

    // Cooperative: every consumer works on each of the CTA's tiles. PP: consumer c
    // takes the CTA's tiles j = c, c + CONSUMERS, ...; their k-blocks sit in the stage
    // ring after those of tile j - 1, so it waits for its turn (order[c]) before its
    // main loop, else a stage two phases behind would pass its parity test.
    const int j0 = PP ? c : 0, dj = PP ? CONSUMERS : 1;
    int tm, tn, epi_seq = 0;
    for (int j = j0; cta_tile<CM>(j, p, tm, tn); j += dj) {
      idx = j * nkb;
      if constexpr (PP) {
        if (j > 0) wait_parity(&order[c], ((j - 1) / CONSUMERS) & 1);
      }
      // PP: every full barrier of this tile has been passed once its last k-block is
      // issued, so the next consumer may start issuing while these products finish
      // (passing the turn after the drain left the tensor cores idle at each switch).
      auto pass_turn = [&] {
        if constexpr (PP) {
          if (ctid % 128 == 0) ptx::mbarrier_arrive(&order[(c + 1) % CONSUMERS]);
        }
      };
      // Recomputed where used, so that nothing of them stays live across the main loop
      // (the accurate consumer's registers are full there).
      auto wg_row0 = [&] { return tm * T::kTM + (PP ? 0 : c * T::kWM); };  // its first row
      auto my_bufs = [&] { return epi_bufs + c * T::kEpiBufs * T::kEpiSubBytes; };
      auto residual = [&] {
        TcResidual r;
        r.map = &tmap_r;
        r.bars = res_full + c * T::kResBars;
        r.steps = p.res_steps;
        r.mul = p.res_mul;
        return r;
      };
      // The residual's first chunks, one per buffer, halfway through the main loop: the
      // previous tile's stores have long read the buffers, and the loads land under the
      // remaining k-blocks instead of in the epilogue (a tile past M stores nothing and
      // loads nothing). The chunks past the buffers go to L2 meanwhile: their loads wait
      // in the epilogue, for L2 instead of device memory.
      auto prefetch_residual = [&](int kb) {
        if constexpr (RES && T::kEpiBufs > 0) {
          if (kb == nkb / 2 && ctid % 128 == 0 && tm < p.tiles_m) {
            ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>{});
#pragma unroll 1
            for (int q = 0; q < T::kEpiBufs; ++q)
              load_residual_chunk<T::kEpiBufs, T::kMI>(my_bufs(), residual(), epi_seq + q,
                                                       wg_row0(), tn * BN + 32 * q);
#pragma unroll 1
            for (int q = T::kEpiBufs; q < BN / 32; ++q)
              prefetch_residual_l2(&tmap_r, wg_row0(), tn * BN + 32 * q);
          }
        }
      };
      if constexpr (T::kAcc) {
        const int pkb = p.promote_blocks;
#pragma unroll
        for (int mi = 0; mi < T::kMI; ++mi)
#pragma unroll
          for (int i = 0; i < kR; ++i) tot[mi][i] = 0.f;
#pragma unroll
        for (int mi = 0; mi < T::kMI; ++mi)
#pragma unroll
          for (int i = 0; i < kR; ++i) acc0[mi][i] = 0.f;
        // kblock_rs promotes each finished interval at the next one's start.
        for (int kb = 0; kb < nkb;) {
          prefetch_residual(kb);
          kblock_rs(acc0, kb, true, std::true_type{}, kb == 0);
          ++kb;
          for (int i = 1; i < pkb && kb < nkb; ++i, ++kb) {
            prefetch_residual(kb);
            kblock_rs(acc0, kb, false, std::false_type{}, false);
          }
        }
        pass_turn();
        wgmma_wait<0>();
        promote(acc0);
        promote(acc1);
      } else {
        for (int kb = 0; kb < nkb; ++kb) {
          prefetch_residual(kb);
          kblock(acc0, kb, kb == 0);
        }
        pass_turn();
        wgmma_wait<0>();
#pragma unroll
        for (int mi = 0; mi < T::kMI; ++mi) fence_regs(acc0[mi]);
      }
      if (lane == 0) release((idx - 1) % STAGES);

      const TcStore st{tm * T::kTM + (PP ? 0 : c * T::kWM) + warp * 16 + lane / 4,
                       tn * BN + 2 * (lane % 4)};
      const bool issuer = ctid % 128 == 0;  // issues this warpgroup's TMA stores
      auto finish = [&](auto& frag) {
        apply_chain(frag, st, p);
        if (p.ep.kind == EpilogueKind::kGroupNorm) group_norm_rows(frag, st, p);
        if (p.ep.kind == EpilogueKind::kColumnStats) {
          float* stats = stats_base + (PP ? c * (T::kTileWarps + 1) * BN : 0);
          const int bar = PP ? 1 + c : 1, threads = PP ? 128 : 128 * CONSUMERS;
          // Cooperative: the statistics reuse the epilogue's buffers once the stores
          // have read them (column_stats starts with a barrier), and the buffers are
          // written again after the statistics' last reads.
          const bool shared = !PP && p.tma_store;
          if (shared && issuer) ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>{});
          column_stats<T::kTileWarps>(frag, st, p, stats, p.ep.row0 / T::kTM + tm, tn * BN,
                                      min(T::kTM, p.m - tm * T::kTM), bar, threads,
                                      PP ? ctid % 128 : ctid);
          if (shared) named_barrier_sync(bar, threads);
        }
        // A row without room for the buffers never gets tma_store (tc_config_invalid_reason).
        if constexpr (T::kEpiBufs > 0) {
          if (p.tma_store) {
            store_tile_tma<T::kEpiBufs, RES>(frag, my_bufs(), &tmap_c, wg_row0(), tn * BN, epi_seq,
                                             3 + c, issuer, residual());
            return;
          }
        }
        store_tile(frag, st, p);
      };
      if (tm >= p.tiles_m) continue;  // a cluster's tile past M
      if constexpr (T::kAcc) {
        finish(tot);
      } else {
        finish(acc0);
      }
    }
    // The last TMA stores are complete before the CTA's shared memory goes away.
    if (p.tma_store && ctid % 128 == 0) ptx::cp_async_bulk_wait_group(ptx::n32_t<0>{});
  }
  // No CTA leaves while a peer may still arrive on its barriers.
  if constexpr (CM > 1) {
    ptx::barrier_cluster_arrive(ptx::sem_release);
    ptx::barrier_cluster_wait();
  }
#else
  // Built for a target without wgmma: the launcher never starts this.
  __trap();
#endif
}

}  // namespace tt::ops::cuda::gemm::sm90
