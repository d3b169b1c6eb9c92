// The compiled variants of the attention family, as X-macro tables: the descriptor's
// candidates and compiled-table constraint (attention_config.cpp) and the launchers'
// template instantiations (attention_generic.cu, attention_simt.cu, attention_mma_e*.cu,
// sm90/attention_wgmma.cu) read the same lists, so a config the space offers always has
// a kernel.
#pragma once

// generic: X(WARPS, ROWS)
#define TT_ATTN_GENERIC_VARIANTS(X) \
  X(4, 1)                           \
  X(4, 2)                           \
  X(4, 4)                           \
  X(8, 2)                           \
  X(8, 4)

// simt (strict flash): X(E, ROWS) with ROWS query rows per thread (16 * ROWS per block).
#define TT_ATTN_SIMT_VARIANTS(X) \
  X(32, 2)                       \
  X(32, 4)                       \
  X(32, 8)                       \
  X(64, 2)                       \
  X(64, 4)                       \
  X(64, 8)                       \
  X(128, 2)                      \
  X(128, 4)                      \
  X(128, 8)

// simt2 (strict flash, SGEMM-style register tiles; attention_simt2.cuh):
// X(E, WARPS, ROWS, BN) with 2*WARPS*ROWS query rows and BN keys per tile.
#define TT_ATTN_SIMT2_VARIANTS_E(X, E) \
  X(E, 8, 8, 64)                       \
  X(E, 4, 8, 64)                       \
  X(E, 8, 4, 64)                       \
  X(E, 8, 8, 32)

#define TT_ATTN_SIMT2_VARIANTS(X) \
  TT_ATTN_SIMT2_VARIANTS_E(X, 32) \
  TT_ATTN_SIMT2_VARIANTS_E(X, 64) \
  TT_ATTN_SIMT2_VARIANTS_E(X, 128)

// mma, per head dim: X(E, WARPS, BLOCK_N); each in tf32 and accurate.
#define TT_ATTN_MMA_VARIANTS_E(X, E) \
  X(E, 4, 32)                        \
  X(E, 4, 64)                        \
  X(E, 8, 32)                        \
  X(E, 8, 64)

#define TT_ATTN_MMA_VARIANTS(X) \
  TT_ATTN_MMA_VARIANTS_E(X, 32) \
  TT_ATTN_MMA_VARIANTS_E(X, 64) \
  TT_ATTN_MMA_VARIANTS_E(X, 128)

// wgmma (sm_90a): X(E, WG, BN) with WG consumer warpgroups of 64 query rows
// (config warps = 4 * WG) and BN keys per tile. Head dim 128 takes 64-key tiles only:
// Q and two stages of K and Vt at 128 keys pass the 227 KB of shared memory.
#define TT_ATTN_WGMMA_VARIANTS(X) \
  X(64, 1, 64)                    \
  X(64, 1, 128)                   \
  X(64, 2, 64)                    \
  X(64, 2, 128)                   \
  X(128, 1, 64)                   \
  X(128, 2, 64)

// wgmma in accurate mode (the hi/lo halves double the tiles): head dim 64, 64-key tiles.
#define TT_ATTN_WGMMA_ACCURATE_VARIANTS(X) \
  X(64, 1, 64)                             \
  X(64, 2, 64)

// wgmma pipe=1 (warp-specialized, tf32): X(E, WG, BN, STAGES, MINB), a ring of STAGES
// K/Vt tiles beside Q (two at least: attention_wgmma_kernels.cuh, WsTraits), MINB blocks
// per SM. One consumer at head dim 64 runs two blocks per SM (one block's Q load and
// output store under the other's loop; as one block per SM it ran 0.41 ms against two
// consumers' 0.25 at B8 H16 T1024, H100). 128-key tiles spill (ptxas caps the whole
// kernel at its launch bound's registers).
#define TT_ATTN_WGMMA_WS_VARIANTS(X) \
  X(64, 1, 64, 2, 2)                 \
  X(64, 2, 64, 4, 1)                 \
  X(128, 1, 64, 3, 1)                \
  X(128, 2, 64, 2, 1)

// wgmma pipe 2, 3, 4, 5 and 7 (tf32): X(E, WG, BN, STAGES, MINB, PIPE), the warp-specialized
// kernel with K and Vt by TMA from one producer thread (pipe 2), in clusters of two
// blocks that multicast each tile into both (pipe 3: each CTA loads half the stage), and
// the same with V's raw tile multicast and transposed by the producer in shared memory
// (pipe 4: no pre-pass; a third part per stage), and pipe 2 with the two consumers
// taking turns to issue their products (pipe 5: FlashAttention-3's ping-pong). Each
// (E, WG, BN) but pipe 5's 128-key tiles is also a pipe 1 variant above: the launcher
// runs that one where K or V has no tensor map (attention_tma.h); the space offers the
// TMA pipes only where the maps exist. Pipe 5 with 128-key tiles (three stages; the
// producer at 24 registers leaves the consumers 240, 52 bytes spilled) ran 9% faster
// than 64-key tiles at B2 H16 T4096 full, the same at T1024 and 22% slower causal.
// Pipe 7 is pipe 5 with V transposed in the kernel as pipe 4 does (no pre-pass, a third
// part per stage): it saves the pre-pass where the products are few (causal at 1k keys)
// and loses where they are many (docs/performance.md).
#define TT_ATTN_WGMMA_TMA_VARIANTS(X) \
  X(64, 2, 64, 4, 1, 2)               \
  X(64, 1, 64, 2, 2, 2)               \
  X(128, 1, 64, 3, 1, 2)              \
  X(128, 2, 64, 2, 1, 2)              \
  X(64, 2, 64, 4, 1, 3)               \
  X(64, 1, 64, 2, 2, 3)               \
  X(128, 1, 64, 3, 1, 3)              \
  X(128, 2, 64, 2, 1, 3)              \
  X(64, 2, 64, 4, 1, 4)               \
  X(64, 2, 64, 4, 1, 5)               \
  X(64, 2, 128, 3, 1, 5)              \
  X(128, 2, 64, 2, 1, 5)              \
  X(64, 2, 64, 4, 1, 7)

// wgmma pipes 8, 9 and 11 (tf32; sm90/attention_wgmma_persistent.cuh): X(E, WG, BN, STAGES,
// PIPE), pipe 5's consumers as a persistent kernel (one CTA per SM walking many query
// tiles, Q by TMA ahead of its tile), reading Vt from the pre-pass (pipe 8) or transposing
// V in the kernel as pipe 7 (pipe 9: a third part per stage, so three stages). Head dim
// 64: Q's fragments stay in registers. Head dim 128 (pipes 8 and 11: two stages beside one Q
// tile fill the shared memory): Q from shared memory, each consumer's half reloaded once
// its last S of a query tile has landed; with 32-key tiles, four stages of them (the
// deeper ring won 18-22% at 1k keys). Pipe 11: pipe 8 with most of Vt made in the kernel, a
// unit ahead, by the producer warpgroup's idle warps (VtAhead).
#define TT_ATTN_WGMMA_PERSISTENT_VARIANTS(X) \
  X(64, 2, 64, 4, 8)                         \
  X(64, 2, 64, 3, 9)                         \
  X(128, 2, 64, 2, 8)                        \
  X(128, 2, 32, 4, 8)                        \
  X(64, 2, 64, 4, 11)                        \
  X(128, 2, 64, 2, 11)                       \
  X(128, 2, 32, 4, 11)

// wgmma pipe 12 (tf32; sm90/attention_wgmma_quad.cuh): X(E, WG, BN, STAGES), pipe 11's
// walk and Vt made ahead with four consumer warpgroups (256 query rows a CTA), each
// consumer's tile one product at a time and no ping-pong; Q in shared memory.
#define TT_ATTN_WGMMA_QUAD_VARIANTS(X) \
  X(64, 4, 64, 3)                      \
  X(128, 4, 32, 3)

// wgmma pipe 14 (tf32; sm90/attention_wgmma_quad.cuh, PV16): X(E, WG, BN, STAGES), pipe 12
// with P V on fp16 tensor cores over V in fp16 (scaled per key tile), made by a pre-pass for the
// first units' heads and by the kernel for the rest, so no float32 Vt; a stage (K 16 KB, V
// 8 KB) leaves room for four at head dim 64 beside the makers' 40 KB, three at 128 beside their
// 24 KB (at 128: 32-key tiles, as pipe 12's, for the consumers' registers; V16's 64-byte rows
// on the 64-byte swizzle, P V as two n64 halves).
#define TT_ATTN_WGMMA_QUAD_PV16_VARIANTS(X) \
  X(64, 4, 64, 4)                           \
  X(128, 4, 32, 3)

// wgmma pipe 15 (tf32; sm90/attention_wgmma_quad.cuh, CONV): X(E, WG, BN, STAGES), pipe 14 with
// no pre-pass and nothing made ahead: each stage brings V's raw tile beside K's, and the
// producer's two spare warps turn it into fp16 in place (P V reads it N-major), so a V tile is
// converted once per query tile that reads it. A stage of 32 KB (K and V in float32): four at
// head dim 64, three beside Q's 128 KB at 128.
#define TT_ATTN_WGMMA_QUAD_CONV_VARIANTS(X) \
  X(64, 4, 64, 4)                           \
  X(128, 4, 32, 3)

// wgmma pipe 2 and 5 in accurate mode (the 3xTF32 split of both products on the TMA
// pipeline; sm90/attention_wgmma_kernels.cuh, ACC): X(E, WG, BN, STAGES, MINB, PIPE) as
// above. Head dim 64, two consumers, 64-key tiles: Q's hi and lo (64 KB) and two stages
// of K, Vt and their lo halves (64 KB each) fill the shared memory.
#define TT_ATTN_WGMMA_TMA_ACCURATE_VARIANTS(X) \
  X(64, 2, 64, 2, 1, 2)                        \
  X(64, 2, 64, 2, 1, 5)

// wgmma pipe 6, accurate only: the 2 x fp16 split (sm90/attention_wgmma_f16split.cuh) on
// pipe 5's TMA ping-pong, K and Vt split by a pre-pass. X(E, WG, BN, STAGES, PIPE): head
// dim 64, two consumers, 64-key tiles (Q's hi and lo 32 KB, a stage of four fp16 parts
// 32 KB). K split in the kernel by the producer's spare warps (a pipe 7) lost to the
// pre-pass by 6-33% on the H100 (docs/performance.md) and went when the pre-pass's
// scales became per key tile.
// Head dim 128 (issue 19, tenth step): two stages (Q's hi and lo 64 KB, a stage 64 KB), P V
// in two halves of 64 output columns, one tile at a time (the consumers' registers), Q from
// shared memory.
#define TT_ATTN_WGMMA_F16SPLIT_VARIANTS(X) \
  X(64, 2, 64, 4, 6)                       \
  X(128, 2, 64, 2, 6)

// wgmma pipe 16, accurate only: pipe 6's split and consumers as a persistent kernel
// (sm90/attention_wgmma_f16split_persistent.cuh) on pipe 8's walk, each item's Q (float32, by
// TMA) landed a whole item ahead and split by its consumers. X(E, WG, BN, STAGES, PIPE): head
// dim 64 only (Q's two float32 buffers 64 KB, Q's lo 16 KB, four stages of 32 KB).
#define TT_ATTN_WGMMA_F16SPLIT_PERSISTENT_VARIANTS(X) X(64, 2, 64, 4, 16)
