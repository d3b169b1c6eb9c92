// The attention family: our float32 flash-attention kernels behind
// tt::ops::scaled_dot_product_attention (ops/attention_problem.h describes the
// problem), their config (the tunable knobs), the parameter space per problem and
// precision mode, and the run-time choice.
//
// Four implementations, one online-softmax algorithm (running row max and sum, the
// output rescaled as the max grows, every key tile read once per query tile; tiles
// wholly above a causal diagonal are never loaded):
//   generic  any head dims, any mask, any strides: a warp holds `rows` query rows,
//            one key per lane of a 32-key tile staged in shared memory, the output
//            columns spread over the lanes (chunks of 256 columns by grid.z). FMA
//            units only: the strict path, and the fallback of every mode.
//   simt     head dims 32/64/128 (E == Ev), unit column stride, 16-byte aligned
//            rows: the strict flash kernel, FMA only. 256 threads as 16 x 16 hold a
//            16*rows x 64 tile of scores in registers (4 keys x rows per thread), P
//            through shared memory into the thread's own rows of O.
//   simt2    the same eligibility: the strict flash kernel blocked as a SIMT SGEMM
//            (attention_simt2.cuh): `warps` warps, `rows` query rows per thread
//            (2 * warps * rows per block), `bn` keys per tile; each thread's rows x
//            bn/16 scores by outer products of 16-byte Q and K fragments, P V likewise,
//            K and V by cp.async under the other product. FMA only.
//   mma      head dims 32/64/128 (E == Ev), unit column stride, 16-byte aligned
//            rows: FlashAttention-2's shape on mma.sync m16n8k8 tf32 (a warp holds 16
//            query rows, its Q fragments in registers; K/V tiles by cp.async, double
//            buffered, rows padded by 4 floats so fragment reads are conflict-free;
//            P reused from the S accumulators through a key permutation, no shuffle).
//            tf32: one product per MMA. accurate: the 3xTF32 split (hi*hi + hi*lo +
//            lo*hi) of both products, P split as well, S's cross terms accumulated
//            apart and each tile's P V promoted into O by IEEE FMA. Offered in tf32 and accurate
//            modes only (strict promises IEEE FMA arithmetic).
//   wgmma    sm_90a (sm90/attention_wgmma.cu): both products on warpgroup MMAs, V
//            transposed by a pre-pass (tf32 wgmma reads B K-major only; pipes 1-3 and 5,
//            like pipe 6, launch as its programmatic dependent), K/Vt tiles by
//            cp.async into swizzled shared memory; pipe 0 block-synchronous (tf32 at head
//            dims 64/128, accurate at 64), pipe 1 warp-specialized (a producer
//            warpgroup, an mbarrier ring; each consumer runs tile t - 1's P V under
//            tile t's softmax; tf32), pipe 2 the same with K/Vt by TMA from one
//            producer thread, pipe 3 in clusters of two blocks (neighbouring query tiles
//            of one head) that multicast each K/Vt tile into both, pipe 4 as 3 with V's
//            raw tile multicast and transposed by the producer's spare warps (no
//            pre-pass), pipe 5 as 2 with the two consumers taking turns to issue
//            (ping-pong; head dim 64 also in 128-key tiles). accurate at head dim 64: pipe 0, and
//            pipe 2 and 5 with the 3xTF32 split of both products (K's lo split by the producer's
//            spare warps, Vt's lo from the pre-pass); pipe 6 (accurate only) pipe 5's
//            ping-pong with the 2 x fp16 split instead (hi + 2^-11 lo per operand, per-row
//            and per-64-key-tile power-of-two scales, fp16 wgmma at twice tf32's rate; K and V
//            split by a pre-pass; sm90/attention_wgmma_f16split.cuh), also at head dim
//            128 (P V in halves of 64 columns, one tile at a time; accurate's only wgmma
//            kernel there); pipe 7 (tf32) pipe 5 with V transposed in the kernel as pipe 4
//            does (no pre-pass); pipes 8 and 9 (tf32) pipe 5's consumers as a persistent
//            kernel (one CTA per SM walking many query tiles, Q by TMA ahead of its tile;
//            sm90/attention_wgmma_persistent.cuh) over the pre-pass's Vt (8; head dims 64
//            and 128) or with V transposed in the kernel as pipe 7 (9; head dim 64).
//            Compute capability 9.0 only.
//
// Kernel name and problem key in the tuning database:
//   attention   b=B,l=L,s=S,e=E,ev=Ev,causal=0|1,mask=none|add|bool[,maps=none|k|kv],
//               align=16B,precision=P
//   (maps: only where K has no TMA tensor map (none), V has none (k) or Q has none (kv):
//   the TMA pipes' space depends on it)
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "autotune/config.h"
#include "autotune/space.h"
#include "core/cuda/device.h"
#include "core/precision.h"
#include "core/tensor.h"
#include "ops/attention_problem.h"

namespace tt::autotune {
template <class C>
class Descriptor;  // autotune/descriptor.h
}  // namespace tt::autotune

namespace tt::ops::cuda {

// The op's CUDA side (called by ops/attention_ops.cpp after its checks).
void scaled_dot_product_attention(const AttentionProblem& p, const Tensor& q, const Tensor& k,
                                  const Tensor& v, const Tensor& mask, const Tensor& out);

}  // namespace tt::ops::cuda

namespace tt::ops::cuda::attention {

// Whether the warp-specialized wgmma pipeline (pipe=1) is offered to the space, the tuner
// and the op table. Its first ring deadlocked on the GPU (a stage came back after the wait
// for the tile two ahead); the FlashAttention-3 order that replaced it gives each stage
// back one tile earlier and passed every variant's float64 check and compute-sanitizer
// memcheck/racecheck on an H100 (docs/performance.md). A failing variant is never offered.
inline constexpr bool kWgmmaPipe1Offered = true;

// Whether the 2 x fp16 split (wgmma pipe 6, accurate) is offered and the accurate default
// at head dim 64. On the H100 it passed attention_test (every variant against float64 at
// awkward shapes, the wide-range test) and memcheck, racecheck and synccheck over
// AttentionCuda.* (docs/performance.md); false withdraws it (the default goes back to pipe 5).
inline constexpr bool kF16SplitOffered = true;

// Whether pipe 6 is also the accurate default at head dim 128 (issue 19, tenth step: its
// head-dim-128 variant runs P V in halves, one tile at a time). On the H100 it beat simt2
// and PyTorch's float32 SDPA at below PyTorch's error, and attention_test and memcheck,
// racecheck and synccheck over AttentionCuda.* passed (docs/performance.md). It is offered
// there wherever kF16SplitOffered; false keeps simt2 as that default.
inline constexpr bool kF16SplitDefaultE128 = true;

inline constexpr const char* kKernel = "attention";

enum class Impl : int { kGeneric = 0, kMma = 1, kSimt = 2, kWgmma = 3, kSimt2 = 4 };

struct AttnConfig {
  Impl impl = Impl::kGeneric;
  int warps = 4;     // warps per block (mma: 16 query rows each)
  int rows = 4;      // generic: query rows per warp; simt: per thread (16x that per block)
                     // simt2: per thread (2 * warps * rows per block)
  int block_n = 64;  // mma, wgmma, simt2: keys per tile
  int pipe = 0;      // wgmma: 0 block-synchronous double buffer, 1 warp-specialized
                     // (cp.async), 2 the same by TMA, 3 TMA multicast in 2-CTA clusters,
                     // 4 as 3 with V transposed in the kernel (no pre-pass), 5 as 2 with the
                     // consumers in ping-pong, 6 as 5 with the 2 x fp16 split (accurate),
                     // 7 as 5 with V transposed in the kernel (tf32)

  autotune::Config to_config() const;
  static AttnConfig from_config(const autotune::Config& c);
  static const autotune::Descriptor<AttnConfig>& descriptor();
  bool operator==(const AttnConfig& o) const;
};

// What the kernels need beyond the problem: raw pointers and the precision mode.
struct AttnLaunch {
  const float* q = nullptr;
  const float* k = nullptr;
  const float* v = nullptr;
  const void* mask = nullptr;
  float* out = nullptr;
  Precision precision = Precision::strict;
};

// The tiled kernels' (simt, mma) preconditions on the problem and pointers (head
// dims, strides, alignment); the device's compute capability is checked by the space.
bool tiled_eligible(const AttentionProblem& p, const AttnLaunch& a);

// Dynamic shared memory of a config's launch, in bytes.
int64_t smem_bytes(const AttnConfig& c, const AttentionProblem& p);

std::string problem_key(const AttentionProblem& p, bool aligned, Precision precision);
autotune::ParamSpace space(const AttentionProblem& p, bool tiled_ok, Precision precision,
                           const tt::cuda::DeviceLimits& limits);
// The untuned config; max_smem: the device's shared memory per block.
AttnConfig default_for(const AttentionProblem& p, bool tiled_ok, bool mma_ok, bool wgmma_ok,
                       Precision precision, int64_t max_smem);
AttnConfig choose(const AttentionProblem& p, const AttnLaunch& a, int device);

void launch_generic(const AttnConfig& c, const AttentionProblem& p, const AttnLaunch& a,
                    cudaStream_t stream);
void launch_simt(const AttnConfig& c, const AttentionProblem& p, const AttnLaunch& a,
                 cudaStream_t stream);
void launch_simt2(const AttnConfig& c, const AttentionProblem& p, const AttnLaunch& a,
                  cudaStream_t stream);
void launch_mma(const AttnConfig& c, const AttentionProblem& p, const AttnLaunch& a,
                cudaStream_t stream);

// ---- wgmma (sm_90a; attention_wgmma.cu in this build's sm90 object library) ----
// Keys of the transposed V are padded to a multiple of this (the largest tile).
inline constexpr int64_t kVtPad = 128;
// Whether this build has the wgmma kernels (the sm_90a code of ops/CMakeLists.txt).
#if defined(TT_SM90_GEMM) && TT_SM90_GEMM
inline constexpr bool kWgmmaCompiled = true;
#else
inline constexpr bool kWgmmaCompiled = false;
#endif
// Dynamic shared memory of a wgmma launch: Q, two stages of K and Vt (accurate: each
// with its lo half), the alignment pad.
inline int64_t wgmma_smem_bytes(int64_t e, int warps, int block_n, bool accurate) {
  return (int64_t{16} * warps * e + int64_t{4} * block_n * e) * 4 * (accurate ? 2 : 1) + 1024;
}
// pipe=1: Q, the variant's ring of K and Vt tiles (attention_variants.h), its barriers.
int64_t wgmma_ws_smem_bytes(int64_t e, int warps, int block_n);
// pipe 2-5, 7-9, 11, 12, 14 and 15 (K and Vt by TMA; 3: in 2-CTA clusters, multicast; 4: V
// transposed in the kernel; 5: ping-pong; 7: both; 8, 9 and 11: persistent; 12: persistent
// with four consumers; 14: 12 with V in fp16; 15: 14 converting V per stage): the variant's
// shared memory, 0 where the table has no such variant (attention_variants.h:
// TT_ATTN_WGMMA_TMA_VARIANTS, TT_ATTN_WGMMA_PERSISTENT_VARIANTS, TT_ATTN_WGMMA_QUAD_VARIANTS,
// TT_ATTN_WGMMA_QUAD_PV16_VARIANTS, TT_ATTN_WGMMA_QUAD_CONV_VARIANTS; accurate:
// TT_ATTN_WGMMA_TMA_ACCURATE_VARIANTS, pipe 2 and 5; and pipe 6, TT_ATTN_WGMMA_F16SPLIT_VARIANTS).
int64_t wgmma_tma_smem_bytes(int64_t e, int warps, int block_n, int pipe, bool accurate = false);
void launch_wgmma(const AttnConfig& c, const AttentionProblem& p, const AttnLaunch& a,
                  cudaStream_t stream);

}  // namespace tt::ops::cuda::attention
