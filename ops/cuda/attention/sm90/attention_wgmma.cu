// The launcher of the attention family's wgmma kernels (attention_wgmma_kernels.cuh):
// the V-transpose pre-pass, then the variant the config names. Compiled for sm_90a
// alone (ops/CMakeLists.txt).
#include <cuda_runtime.h>

#include <cstdint>

#include "core/cuda/check.h"
#include "core/cuda/device.h"
#include "core/error.h"
#include "core/tensor.h"
#include "ops/cuda/attention/attention.h"
#include "ops/cuda/attention/attention_tma.h"
#include "ops/cuda/attention/attention_variants.h"
#include "ops/cuda/attention/sm90/attention_wgmma_f16split.cuh"
#include "ops/cuda/attention/sm90/attention_wgmma_f16split_persistent.cuh"
#include "ops/cuda/attention/sm90/attention_wgmma_kernels.cuh"
#include "ops/cuda/attention/sm90/attention_wgmma_persistent.cuh"
#include "ops/cuda/attention/sm90/attention_wgmma_quad.cuh"

namespace tt::ops::cuda::attention {

namespace {

// The warp-specialized kernel's LD of a pipe (1: cp.async; 2, 5 and 7: TMA; 3 and 4: TMA
// multicast; 4 and 7 add VT, 5 and 7 PP).
constexpr int ws_loader(int pipe) {
  return pipe == 1 ? 0 : pipe == 2 || pipe == 5 || pipe == 7 ? 1 : 2;
}

template <int E, int BN, int WG, int ST, int MB, int LD, bool VT, bool PP, bool ACC = false>
void launch_ws(const KernelArgs& args, const float* vt, int64_t sp, const AttnTmaMaps& maps,
               cudaStream_t stream) {
  // The kernel runs as the Vt pre-pass's programmatic dependent (pipes 4 and 7 have none).
  // The host's formulas (attention_config.cpp: wgmma_ws_smem_bytes, wgmma_tma_smem_bytes)
  // are the kernel's own.
  constexpr int kParts = ACC ? 4 : VT ? 3 : 2, kBars = VT || ACC ? 3 : 2;
  static_assert(
      WsTraits<E, BN, WG, ST, MB, VT, ACC>::kSmemBytes ==
          (64 * WG * E * (ACC ? 2 : 1) + ST * kParts * BN * E) * 4 + kBars * ST * 8 + 1024,
      "wgmma_ws_smem_bytes");
  TT_CUDA_CHECK((launch_ws_kernel<E, BN, WG, ST, MB, LD, VT, PP, ACC>(args, vt, sp, maps, stream,
                                                                      !VT && vt != nullptr)));
  TT_CUDA_CHECK_LAUNCH();
}

// pipes 8, 9 and 11 (tf32): the persistent kernel, one CTA per SM of `device` at most;
// pipe 8 as the Vt pre-pass's programmatic dependent, pipe 11 as its own pre-pass's (the
// first units' heads; `ahead`: Vt and the per-head counts).
template <int E, int BN, int ST, int PIPE>
void launch_persistent(const KernelArgs& args, const AttnTmaMaps& maps, int device,
                       cudaStream_t stream, bool vt_dependent, const VtAhead& ahead) {
  constexpr bool VT = transposes_v_in_kernel(PIPE), AHEAD = makes_vt_ahead(PIPE);
  static_assert(PersistentTraits<E, BN, ST, VT, AHEAD>::kSmemBytes ==
                    ((E == 64 ? 2 : 1) * 128 * E + ST * (VT ? 3 : 2) * BN * E) * 4 +
                        ((VT ? 3 : 2) * ST + 4) * 8 + 1024,
                "wgmma_tma_smem_bytes (pipes 8, 9 and 11)");
  const int sms = tt::cuda::device_limits(device).sm_count;
  bool mapped = false;
  TT_CUDA_CHECK((launch_persistent_kernel<E, BN, ST, 0, VT, AHEAD>(args, maps, sms, stream,
                                                                   vt_dependent, mapped, ahead)));
  TT_CHECK(mapped,
           "attention: cuTensorMapEncodeTiled refused Q's map of the persistent wgmma pipe={} "
           "(head dim {}), or the driver has none",
           PIPE, E);
  TT_CUDA_CHECK_LAUNCH();
}

// pipe 12 (tf32): the persistent kernel of four consumers, as its own pre-pass's programmatic
// dependent (the first units' heads' Vt; `ahead`: Vt and the per-head counts).
template <int E, int BN, int ST>
void launch_quad(const KernelArgs& args, const AttnTmaMaps& maps, int device, cudaStream_t stream,
                 const VtAhead& ahead) {
  static_assert(QuadTraits<E, BN, ST>::kSmemBytes ==
                    (256 * E + ST * 2 * BN * E) * 4 + (2 * ST + 8) * 8 + 1024,
                "wgmma_tma_smem_bytes (pipe 12)");
  const int sms = tt::cuda::device_limits(device).sm_count;
  bool mapped = false;
  TT_CUDA_CHECK((launch_quad_kernel<E, BN, ST>(args, maps, sms, stream, mapped, ahead)));
  TT_CHECK(mapped,
           "attention: cuTensorMapEncodeTiled refused Q's map of the persistent wgmma pipe=12 "
           "(head dim {}), or the driver has none",
           E);
  TT_CUDA_CHECK_LAUNCH();
}

// pipe 14 (tf32): pipe 12's kernel with P V on fp16, after its pre-pass (V's fp16 hi and the
// key tiles' factors, in a scratch that lives until the launcher returns, as pipe 6's): the
// first units' heads only, the kernel making the rest.
template <int E, int BN, int ST>
void launch_quad_pv16(const KernelArgs& args, const AttnTmaMaps& maps, int device,
                      cudaStream_t stream) {
  constexpr int kRaws = E == 64 ? 2 : 1;
  static_assert(QuadTraits<E, BN, ST, true, true>::kSmemBytes ==
                    (256 * E + ST * BN * E) * 4 + ST * BN * E * 2 + (2 * ST + 8) * 8 + 1024 +
                        kRaws * (BN * E * 4 + 8) + BN * E * 2 + 32,
                "wgmma_tma_smem_bytes (pipe 14)");
  const int64_t bytes = half_vt_scratch_bytes(args.p);
  const Tensor scratch = Tensor::empty({(bytes + 3) / 4}, DType::F32, Device::cuda(device));
  const int sms = tt::cuda::device_limits(device).sm_count;
  bool mapped = false;
  TT_CUDA_CHECK((launch_quad_kernel<E, BN, ST, 0, true, true>(args, maps, sms, stream, mapped, {},
                                                              scratch.data_ptr())));
  TT_CHECK(mapped,
           "attention: cuTensorMapEncodeTiled refused Q's map or V's fp16 map of the persistent "
           "wgmma pipe=14 (head dim {}), or the driver has none",
           E);
  TT_CUDA_CHECK_LAUNCH();
}

// pipe 15 (tf32): pipe 14's kernel converting each stage's V in the kernel: no pre-pass, no
// scratch.
template <int E, int BN, int ST>
void launch_quad_conv(const KernelArgs& args, const AttnTmaMaps& maps, int device,
                      cudaStream_t stream) {
  static_assert(QuadTraits<E, BN, ST, true, false, true>::kSmemBytes ==
                    (256 * E + ST * 2 * BN * E) * 4 + (4 * ST + 8) * 8 + 1024 + 16,
                "wgmma_tma_smem_bytes (pipe 15)");
  const int sms = tt::cuda::device_limits(device).sm_count;
  bool mapped = false;
  TT_CUDA_CHECK(
      (launch_quad_kernel<E, BN, ST, 0, true, false, true>(args, maps, sms, stream, mapped, {})));
  TT_CHECK(mapped,
           "attention: cuTensorMapEncodeTiled refused Q's map of the persistent wgmma pipe=15 "
           "(head dim {}), or the driver has none",
           E);
  TT_CUDA_CHECK_LAUNCH();
}

// pipe 6 (accurate): the 2 x fp16 split's pre-pass and kernel (ping-pong, Q's hi in
// registers at head dim 64, from shared memory at 128). Its scratch (K's and Vt's halves,
// the key tiles' factors) lives until the launcher returns; the caching allocator hands it
// to later work on the same stream only, which runs after the kernel.
void launch_f16split(const AttnConfig& c, const AttentionProblem& p, const KernelArgs& args,
                     int device, cudaStream_t stream) {
  const int64_t bytes = f16split_scratch_bytes(p);
  const Tensor scratch = Tensor::empty({(bytes + 3) / 4}, DType::F32, Device::cuda(device));
  void* s = scratch.data_ptr();
#define TT_X(E_, WG_, BN_, ST_, PIPE_)                                                            \
  if (c.pipe == PIPE_ && p.E == E_ && c.warps == 4 * WG_ && c.block_n == BN_) {                   \
    TT_CUDA_CHECK(f16split_prepass(args, s, stream));                                             \
    bool mapped = false;                                                                          \
    TT_CUDA_CHECK((f16split_kernel<E_, BN_, WG_, ST_, true, E_ == 64>(args, s, stream, mapped))); \
    TT_CHECK(mapped,                                                                              \
             "attention: cuTensorMapEncodeTiled refused the fp16 split's maps of wgmma "          \
             "pipe={} (head dim {}, bn={}), or the driver has none",                              \
             c.pipe, p.E, c.block_n);                                                             \
    return;                                                                                       \
  }
  TT_ATTN_WGMMA_F16SPLIT_VARIANTS(TT_X)
#undef TT_X
  // pipe 16: the same pre-pass, then the persistent kernel (one CTA per SM), its dependent.
#define TT_X(E_, WG_, BN_, ST_, PIPE_)                                                        \
  if (c.pipe == PIPE_ && p.E == E_ && c.warps == 4 * WG_ && c.block_n == BN_) {               \
    TT_CUDA_CHECK(f16split_prepass(args, s, stream));                                         \
    bool mapped = false;                                                                      \
    TT_CUDA_CHECK((f16split_persistent_kernel<ST_>(                                           \
        args, s, tt::cuda::device_limits(device).sm_count, stream, true, mapped)));           \
    TT_CHECK(mapped,                                                                          \
             "attention: cuTensorMapEncodeTiled refused Q's map or the fp16 split's maps of " \
             "wgmma pipe={} (head dim {}), or the driver has none",                           \
             c.pipe, p.E);                                                                    \
    return;                                                                                   \
  }
  TT_ATTN_WGMMA_F16SPLIT_PERSISTENT_VARIANTS(TT_X)
#undef TT_X
  TT_FAIL("attention: no wgmma pipe={} variant for head dim {} with warps={} bn={} (accurate)",
          c.pipe, p.E, c.warps, c.block_n);
}

// Every wgmma variant as TT_X(E, WG, BN, accurate), tf32's then accurate's, for the TT_X
// defined where it expands.
#define TT_X_TF32(E_, WG_, BN_) TT_X(E_, WG_, BN_, false)
#define TT_X_ACC(E_, WG_, BN_) TT_X(E_, WG_, BN_, true)
#define TT_EACH_WGMMA_VARIANT \
  TT_ATTN_WGMMA_VARIANTS(TT_X_TF32) TT_ATTN_WGMMA_ACCURATE_VARIANTS(TT_X_ACC)

}  // namespace

void launch_wgmma(const AttnConfig& c, const AttentionProblem& p, const AttnLaunch& a,
                  cudaStream_t stream) {
  TT_CHECK(a.precision != Precision::strict,
           "attention: the wgmma kernels run in tf32 and accurate modes only (strict promises "
           "IEEE FMA arithmetic)");
  const bool acc = a.precision == Precision::accurate;
  const int64_t batches = p.batch_count();
  if (p.L == 0 || batches == 0) return;
  const int64_t sp = (p.S + kVtPad - 1) / kVtPad * kVtPad;
  int device = 0;
  TT_CUDA_CHECK(cudaGetDevice(&device));
  // Scores in base 2 (the scale carries log2 e; the softmax on ex2) but for accurate's
  // 3xTF32 pipes (0, 2, 5), whose softmax is in base e.
  const bool base_e = acc && !f16_split_pipe(c.pipe);
  const double scale = base_e ? p.scale : p.scale * 1.4426950408889634;
  const KernelArgs args{p, a.q, a.k, a.v, a.mask, a.out, static_cast<float>(scale)};
  TT_CHECK(!f16_split_pipe(c.pipe) || acc,
           "attention: wgmma pipe={} (the 2 x fp16 split) runs in accurate mode only", c.pipe);
  if (f16_split_pipe(c.pipe)) {
    launch_f16split(c, p, args, device, stream);
    return;
  }
  TT_CHECK(c.pipe == 0 || !acc || c.pipe == 2 || c.pipe == 5,
           "attention: wgmma pipe={} runs in tf32 mode only (accurate: pipe 0, 2, 5, 6 and 16)",
           c.pipe);
  // pipe 2-5, 7-9, 11, 12, 14 and 15 read K (4, 7 and 9: and V; 8, 9, 11, 12, 14 and 15: and Q)
  // through tensor maps; a layout that has none (a broadcast or a fourth batch dim:
  // attention_tma.h) runs the same variant on cp.async (pipe 1; tf32 only: the space offers
  // accurate's TMA pipes, and the persistent ones, only where the maps exist). pipes 4, 7 and
  // 9 transpose V in the kernel: no pre-pass; pipes 11 and 12 launch their own, over their
  // first units' heads, and pipe 14 its fp16 V's (launch_quad_pv16), the first units' heads.
  const bool tma = c.pipe >= 2 && tma_mappable(p, c.pipe);
  TT_CHECK(!acc || c.pipe == 0 || tma,
           "attention: accurate wgmma pipe={} needs K's tensor map (attention_tma.h)", c.pipe);
  const int pipe = c.pipe >= 2 && !tma ? 1 : c.pipe;
  if (!acc && (pipe == 14 || pipe == 15)) {
    // K's map, and V's: the kernel makes V16 from it.
    AttnTmaMaps maps{};
    TT_CHECK(attention_tma_maps(p, a.k, a.v, nullptr, 0, c.block_n, true, maps),
             "attention: cuTensorMapEncodeTiled refused the K or V map of wgmma pipe={} (head "
             "dim {}, bn={}), or the driver has none",
             pipe, p.E, c.block_n);
#define TT_X_PV16(E_, WG_, BN_, ST_)                                       \
  if (pipe == 14 && p.E == E_ && c.warps == 4 * WG_ && c.block_n == BN_) { \
    launch_quad_pv16<E_, BN_, ST_>(args, maps, device, stream);            \
    return;                                                                \
  }
    TT_ATTN_WGMMA_QUAD_PV16_VARIANTS(TT_X_PV16)
#undef TT_X_PV16
#define TT_X_CONV(E_, WG_, BN_, ST_)                                       \
  if (pipe == 15 && p.E == E_ && c.warps == 4 * WG_ && c.block_n == BN_) { \
    launch_quad_conv<E_, BN_, ST_>(args, maps, device, stream);            \
    return;                                                                \
  }
    TT_ATTN_WGMMA_QUAD_CONV_VARIANTS(TT_X_CONV)
#undef TT_X_CONV
    TT_FAIL("attention: no wgmma pipe={} variant for head dim {} with warps={} bn={}", pipe, p.E,
            c.warps, c.block_n);
  }
  // Vt (and its lo) lives until this function returns; the caching allocator hands its
  // block to later work on the same stream only, which runs after the kernel.
  // Pipes 11 and 12's per-head counts follow their Vt.
  const int64_t vt_floats = batches * p.Ev * sp;
  Tensor vt;
  float* vt_ptr = nullptr;
  float* lo_ptr = nullptr;
  VtAhead ahead{};
  if (sp > 0 && !transposes_v_in_kernel(pipe)) {
    const int64_t counts = makes_vt_ahead(pipe) ? batches : 0;
    vt = Tensor::empty({vt_floats * (acc ? 2 : 1) + counts}, DType::F32, Device::cuda(device));
    vt_ptr = static_cast<float*>(vt.data_ptr());
    lo_ptr = acc ? vt_ptr + vt_floats : nullptr;
    // Pipes 11 and 12 read V in 16-byte pieces: tiled_eligible (attention_config.cpp) offers the
    // tiled kernels only where V's data is 16-byte aligned.
    if (makes_vt_ahead(pipe)) {
      ahead = {vt_ptr, reinterpret_cast<unsigned*>(vt_ptr + vt_floats), sp, 0};
    } else {
      TT_CUDA_CHECK(launch_vt_prepass(args, vt_ptr, lo_ptr, sp, batches, stream));
    }
  }
  if (pipe >= 1) {
    AttnTmaMaps maps{};
    if (pipe >= 2) {
      TT_CHECK(attention_tma_maps(p, a.k, a.v, vt_ptr, sp, c.block_n, transposes_v_in_kernel(pipe),
                                  maps, acc),
               "attention: cuTensorMapEncodeTiled refused the K/V maps of wgmma pipe={} (head "
               "dim {}, bn={}), or the driver has none",
               pipe, p.E, c.block_n);
    }
#define TT_X(E_, WG_, BN_, ST_, MB_, PIPE_)                                            \
  if (!acc && pipe == PIPE_ && p.E == E_ && c.warps == 4 * WG_ && c.block_n == BN_) {  \
    launch_ws<E_, BN_, WG_, ST_, MB_, ws_loader(PIPE_), transposes_v_in_kernel(PIPE_), \
              PIPE_ == 5 || PIPE_ == 7>(args, vt_ptr, sp, maps, stream);               \
    return;                                                                            \
  }
#define TT_X_PERSISTENT(E_, WG_, BN_, ST_, PIPE_)                                                 \
  if (!acc && pipe == PIPE_ && p.E == E_ && c.warps == 4 * WG_ && c.block_n == BN_) {             \
    launch_persistent<E_, BN_, ST_, PIPE_>(args, maps, device, stream, vt_ptr != nullptr, ahead); \
    return;                                                                                       \
  }
    TT_ATTN_WGMMA_PERSISTENT_VARIANTS(TT_X_PERSISTENT)
#undef TT_X_PERSISTENT
#define TT_X_QUAD(E_, WG_, BN_, ST_)                                               \
  if (!acc && pipe == 12 && p.E == E_ && c.warps == 4 * WG_ && c.block_n == BN_) { \
    launch_quad<E_, BN_, ST_>(args, maps, device, stream, ahead);                  \
    return;                                                                        \
  }
    TT_ATTN_WGMMA_QUAD_VARIANTS(TT_X_QUAD)
#undef TT_X_QUAD
#define TT_X_CP(E_, WG_, BN_, ST_, MB_) TT_X(E_, WG_, BN_, ST_, MB_, 1)
    TT_ATTN_WGMMA_WS_VARIANTS(TT_X_CP)
    TT_ATTN_WGMMA_TMA_VARIANTS(TT_X)
#undef TT_X_CP
#undef TT_X
#define TT_X(E_, WG_, BN_, ST_, MB_, PIPE_)                                                        \
  if (acc && pipe == PIPE_ && p.E == E_ && c.warps == 4 * WG_ && c.block_n == BN_) {               \
    launch_ws<E_, BN_, WG_, ST_, MB_, 1, false, PIPE_ == 5, true>(args, vt_ptr, sp, maps, stream); \
    return;                                                                                        \
  }
    TT_ATTN_WGMMA_TMA_ACCURATE_VARIANTS(TT_X)
#undef TT_X
    TT_FAIL("attention: no wgmma pipe={} variant for head dim {} with warps={} bn={} in {} mode",
            c.pipe, p.E, c.warps, c.block_n, precision_name(a.precision));
  }
  const size_t smem = static_cast<size_t>(wgmma_smem_bytes(p.E, c.warps, c.block_n, acc));
#define TT_X(E_, WG_, BN_, ACC_)                                                       \
  if (p.E == E_ && c.warps == 4 * WG_ && c.block_n == BN_ && acc == ACC_) {            \
    const auto kernel = attention_wgmma_kernel<E_, BN_, WG_, ACC_>;                    \
    const dim3 grid(static_cast<unsigned>((p.L + 64 * WG_ - 1) / (64 * WG_)),          \
                    static_cast<unsigned>(batches));                                   \
    launch_with_smem(kernel, grid, 128 * WG_, smem, stream, args, vt_ptr, lo_ptr, sp); \
    return;                                                                            \
  }
  TT_EACH_WGMMA_VARIANT
#undef TT_X
  TT_FAIL("attention: no wgmma variant for head dim {} with warps={} bn={} in {} mode", p.E,
          c.warps, c.block_n, precision_name(a.precision));
}

// The host's shared-memory formula (attention.h) is the kernels' own.
#define TT_X(E_, WG_, BN_, ACC_)                                                                 \
  static_assert(WgTraits<E_, BN_, WG_, ACC_>::kSmemBytes ==                                      \
                    (64 * WG_ * E_ * (ACC_ ? 2 : 1) + 4 * BN_ * E_ * (ACC_ ? 2 : 1)) * 4 + 1024, \
                "wgmma_smem_bytes");
TT_EACH_WGMMA_VARIANT
#undef TT_X

// pipe 6's host formula (attention_config.cpp) is its kernel's own.
#define TT_X(E_, WG_, BN_, ST_, PIPE_)                                                        \
  static_assert(                                                                              \
      F16SplitTraits<E_, BN_, WG_, ST_>::kSmemBytes ==                                        \
          64 * WG_ * E_ * 2 * 2 + ST_ * 4 * BN_ * E_ * 2 + 64 * WG_ * 4 + 3 * ST_ * 8 + 1024, \
      "wgmma_tma_smem_bytes (pipe 6)");
TT_ATTN_WGMMA_F16SPLIT_VARIANTS(TT_X)
#undef TT_X
#define TT_X(E_, WG_, BN_, ST_, PIPE_)                                                         \
  static_assert(E_ == 64 && WG_ == 2 && BN_ == 64 &&                                           \
                    F16PersistentTraits<ST_>::kSmemBytes ==                                    \
                        (2 * 128 * E_ * 4 + 128 * E_ * 2 + ST_ * 4 * BN_ * E_ * 2) + ST_ * 8 + \
                            (2 * ST_ + 4) * 8 + 2 * 24 + 1024,                                 \
                "wgmma_tma_smem_bytes (pipe 16)");
TT_ATTN_WGMMA_F16SPLIT_PERSISTENT_VARIANTS(TT_X)
#undef TT_X

}  // namespace tt::ops::cuda::attention
