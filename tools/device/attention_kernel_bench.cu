// The attention family's kernels alone (ops/cuda/attention/attention_kernels.cuh and
// sm90/attention_wgmma_kernels.cuh), built with nvcc into one static binary that needs
// only the CUDA driver: the mma references, the wgmma variants (pipe 0 and the
// warp-specialized pipe 1) with and without their V-transpose pre-pass, and the
// pre-pass alone, side by side at the issue's shapes, each checked against a float64
// CPU reference of two (batch, head) slices and timed (median of 10 launches, each
// after a 256 MB L2 flush, CUDA events).
// Build here, run there:
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a --expt-relaxed-constexpr -I. \
//     -Xcompiler=-fopenmp tools/device/attention_kernel_bench.cu -o attention_kernel_bench -lgomp
// Rows: KB,<shape>,<variant>,<ms>,<tflops>,<rel_err>
// KB_FILTER=a,b: only the variants whose names contain one of these (all where unset);
// KB_SHAPES=a,b likewise for the shapes' names ("B8 H16 T1024 E64 causal"; "T1024 E64$":
// the full one only). KB_TRACE=1: the "trace ..." variants also print, per CTA of their last
// launch, TR,<shape>,<variant>,<cta>,<start ns>,<end ns>,<SM>,<marks 3-9>, then the
// persistent kernels' per-item words (the kernels' kDiagTrace record: where a CTA's time
// goes).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "ops/cuda/attention/attention_kernels.cuh"
#include "ops/cuda/attention/sm90/attention_wgmma_f16split.cuh"
#include "ops/cuda/attention/sm90/attention_wgmma_f16split_persistent.cuh"
#include "ops/cuda/attention/sm90/attention_wgmma_kernels.cuh"
#include "ops/cuda/attention/sm90/attention_wgmma_persistent.cuh"
#include "ops/cuda/attention/sm90/attention_wgmma_quad.cuh"

#include "tools/device/standalone_check.cuh"

using namespace tt::ops;
using namespace tt::ops::cuda::attention;

namespace {

constexpr double kLog2e = 1.4426950408889634;

template <int E, int W, int BN, bool ACC, int FL>
void run_mma(KernelArgs a, int64_t T, int64_t BH) {
  const auto k = attention_mma_kernel<E, W, BN, ACC, FL>;
  const size_t smem = 2 * 2 * BN * (E + 4) * 4;
  if (!ACC) a.scale = float(a.p.scale * kLog2e);
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  k<<<dim3(unsigned((T + 16 * W - 1) / (16 * W)), unsigned(BH)), W * 32, smem>>>(a);
  CK(cudaGetLastError());
}

// The transposed V (and its lo half) of the wgmma kernels: the largest shape's.
float* vt_buffer() {
  static float* vt = nullptr;
  if (!vt) CK(cudaMalloc(&vt, size_t{2} * 128 * 128 * 1024 * 4));
  return vt;
}

// Keys of Vt rounded up as the launcher does (attention.h's kVtPad; that header needs the
// library).
int64_t vt_keys(const KernelArgs& a) { return (a.p.S + 127) / 128 * 128; }

void run_vt(KernelArgs a, bool acc) {
  const int64_t sp = vt_keys(a), BH = a.p.batch[0];
  float* vt = vt_buffer();
  CK(launch_vt_prepass(a, vt, acc ? vt + BH * a.p.Ev * sp : nullptr, sp, BH, nullptr));
}

template <int E, int BN, int WG, bool ACC>
void run_wgmma(KernelArgs a, int64_t T, int64_t BH) {
  using Tr = WgTraits<E, BN, WG, ACC>;
  const auto k = attention_wgmma_kernel<E, BN, WG, ACC>;
  if (!ACC) a.scale = float(a.p.scale * kLog2e);
  const int64_t sp = vt_keys(a);
  float* vt = vt_buffer();
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, Tr::kSmemBytes));
  k<<<dim3(unsigned((T + Tr::kBM - 1) / Tr::kBM), unsigned(BH)), Tr::kThreads, Tr::kSmemBytes>>>(
      a, vt, ACC ? vt + BH * E * sp : nullptr, sp);
  CK(cudaGetLastError());
}

// PDL: launched as the Vt pre-pass's programmatic dependent (the op's launch; the caller
// runs the pre-pass right before).
template <int E, int BN, int WG, int ST, int MB = 1, int DIAG = 0,
          bool QR = (E * BN <= 64 * 64 && MB == 1), int LD = 0, bool VT = false, bool PP = false,
          bool PDL = false>
void run_ws(KernelArgs a, int64_t T, int64_t BH) {
  a.scale = float(a.p.scale * kLog2e);
  AttnTmaMaps maps{};
  if (LD > 0 && !attention_tma_maps(a.p, a.k, a.v, vt_buffer(), vt_keys(a), BN, VT, maps)) {
    std::fprintf(stderr, "no tensor map\n");
    std::exit(1);
  }
  CK((launch_ws_kernel<E, BN, WG, ST, MB, LD, VT, PP, false, DIAG, QR>(a, vt_buffer(), vt_keys(a),
                                                                       maps, nullptr, PDL)));
  CK(cudaGetLastError());
}

// accurate on the TMA pipeline (pipe 2; PP: 5): Vt's lo half after Vt (run_vt's layout).
template <int E, int BN, int WG, int ST, bool PP>
void run_ws_acc(KernelArgs a, int64_t, int64_t) {
  AttnTmaMaps maps{};
  if (!attention_tma_maps(a.p, a.k, a.v, vt_buffer(), vt_keys(a), BN, false, maps, true)) {
    std::fprintf(stderr, "no tensor map\n");
    std::exit(1);
  }
  CK((launch_ws_kernel<E, BN, WG, ST, 1, 1, false, PP, true>(a, vt_buffer(), vt_keys(a), maps,
                                                             nullptr)));
  CK(cudaGetLastError());
}

// The Vt pre-pass, then the TMA kernel (pipe 2; PP: 5) as its programmatic dependent (PDL,
// the op's launch): the kernel's prologue, Q and K's first copies under the pre-pass's end.
template <int E, int BN, int WG, int ST, bool PP>
void run_ws_pdl(KernelArgs a, int64_t T, int64_t BH) {
  run_vt(a, false);
  run_ws<E, BN, WG, ST, 1, 0, E * BN <= 64 * 64, 1, false, PP, true>(a, T, BH);
}

// The persistent tf32 kernel over the pre-pass's Vt (pipe 8; PDL: launched as its
// dependent, the caller having run it right before), or transposing V itself (VT: pipe 9).
// AHEAD (pipe 11): the kernel makes Vt itself but for its first units' heads (the
// launcher's pre-pass), counted in these.
unsigned* made_counts() {
  static unsigned* made = nullptr;
  if (!made) CK(cudaMalloc(&made, 4096 * sizeof(unsigned)));
  return made;
}

// NaN over Vt, so that a part the kernel fails to make shows.
void poison_vt(KernelArgs) { CK(cudaMemset(vt_buffer(), 0xff, size_t{2} * 128 * 128 * 1024 * 4)); }

// The persistent kernels' K and Vt (VT: V) maps over the bench's Vt buffer; exits without.
AttnTmaMaps persistent_maps(const KernelArgs& a, int bn, bool vt_in_kernel) {
  AttnTmaMaps maps{};
  if (!attention_tma_maps(a.p, a.k, a.v, vt_buffer(), vt_keys(a), bn, vt_in_kernel, maps)) {
    std::fprintf(stderr, "no tensor map\n");
    std::exit(1);
  }
  return maps;
}

// The persistent kernels' grid: device 0's SM count, read once.
int bench_sms() {
  static const int sms = [] {
    int n = 0;
    CK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, 0));
    return n;
  }();
  return sms;
}

template <int DIAG = 0, bool PDL = false, bool VT = false, int E = 64, bool AHEAD = false,
          int BN = 64>
void run_persist(KernelArgs a, int64_t, int64_t) {
  a.scale = float(a.p.scale * kLog2e);
  const AttnTmaMaps maps = persistent_maps(a, BN, VT);
  const int sms = bench_sms();
  bool mapped = false;
  constexpr int kStages = E == 128 && BN == 64 ? 2 : VT ? 3 : 4;
  CK((launch_persistent_kernel<E, BN, kStages, DIAG, VT, AHEAD>(
      a, maps, sms, nullptr, PDL, mapped, VtAhead{vt_buffer(), made_counts(), vt_keys(a), 0})));
  if (!mapped) {
    std::fprintf(stderr, "no Q tensor map\n");
    std::exit(1);
  }
  CK(cudaGetLastError());
}

// accurate with the 2 x fp16 split (pipe 6): its pre-pass's scratch, the largest shape's.
void* f16_scratch(const KernelArgs& a) {
  static void* s = nullptr;
  static int64_t have = 0;
  const int64_t need = f16split_scratch_bytes(a.p);
  if (need > have) {
    if (s) CK(cudaFree(s));
    CK(cudaMalloc(&s, size_t(need)));
    have = need;
  }
  return s;
}
void run_f16_prepass(KernelArgs a) { CK(f16split_prepass(a, f16_scratch(a), nullptr)); }
// The pre-pass alone with THREADS threads a block (timed; no output to check).
template <int THREADS>
void run_f16_prepass_t(KernelArgs a, int64_t, int64_t) {
  CK(f16split_prepass<THREADS>(a, f16_scratch(a), nullptr));
}
// Pipe 16: pipe 6's split as a persistent kernel (head dim 64), the pre-pass's dependent.
// TAIL false: the causal walk's last round by pairs, as the rounds before it (the op deals it
// tile by tile: PersistentWalk's balanced tail).
template <int ST, int DIAG = 0, bool TAIL = true>
void run_f16persist(KernelArgs a, int64_t, int64_t) {
  a.scale = float(a.p.scale * kLog2e);
  bool mapped = false;
  CK((f16split_persistent_kernel<ST, DIAG>(a, f16_scratch(a), bench_sms(), nullptr, true, mapped,
                                           TAIL)));
  if (!mapped) {
    std::fprintf(stderr, "no tensor map\n");
    std::exit(1);
  }
}
template <int E, int BN, int WG, int ST, bool PP, bool QR = false, int DIAG = 0>
void run_f16split(KernelArgs a, int64_t, int64_t) {
  a.scale = float(a.p.scale * kLog2e);  // scores in base 2, as the launcher passes them
  bool mapped = false;
  CK((f16split_kernel<E, BN, WG, ST, PP, QR, DIAG>(a, f16_scratch(a), nullptr, mapped)));
  if (!mapped) {
    std::fprintf(stderr, "no tensor map\n");
    std::exit(1);
  }
}

// Heads of the first round of pipe 14's walk (256-row query tiles): what its pre-pass makes.
int64_t first_heads(const KernelArgs& a) {
  const PersistentWalk walk(a.p, 256, static_cast<unsigned>(bench_sms()), a.p.causal);
  return heads_of_first_units(a.p, walk, std::min(walk.units, unsigned(bench_sms())), 1);
}

// Pipe 14's pre-pass, untimed before a kernel timed alone: every head's V16, or the first
// round's heads' (what the op's pre-pass makes).
void prep_half_vt(KernelArgs a) { CK(half_vt_prepass(a, f16_scratch(a), nullptr)); }
void prep_half_vt_first(KernelArgs a) {
  CK(half_vt_prepass(a, f16_scratch(a), nullptr, first_heads(a)));
}

// Pipe 14's pre-pass of the first round's heads alone, THREADS a block.
template <int THREADS>
void prepass_first(KernelArgs a, int64_t, int64_t) {
  CK(half_vt_prepass<THREADS>(a, f16_scratch(a), nullptr, first_heads(a)));
}

// Pipe 12: four consumer warpgroups, persistent, Vt made ahead (its pre-pass inside); PV16:
// pipe 14 (P V on fp16, its pre-pass of V's fp16 hi inside but for kDiagReadyVt); CONV: pipe
// 15 (V converted per stage, no pre-pass).
template <int DIAG, int E, int BN, int ST, bool PV16 = false, bool MADE = false, bool CONV = false>
void run_quad(KernelArgs a, int64_t, int64_t) {
  a.scale = float(a.p.scale * kLog2e);
  const AttnTmaMaps maps = persistent_maps(a, BN, MADE || CONV);
  bool mapped = false;
  CK((launch_quad_kernel<E, BN, ST, DIAG, PV16, MADE, CONV>(
      a, maps, bench_sms(), nullptr, mapped, VtAhead{vt_buffer(), made_counts(), vt_keys(a), 0},
      f16_scratch(a))));
  if (!mapped) {
    std::fprintf(stderr, "no tensor map\n");
    std::exit(1);
  }
  CK(cudaGetLastError());
}

struct Variant {
  const char* name;
  std::function<void(KernelArgs, int64_t, int64_t)> run;
  // Untimed, before each timed run (the pre-pass of a kernel timed alone); the
  // pre-pass alone (no output) skips the check.
  std::function<void(KernelArgs)> prep = nullptr;
  bool checked = true;
};

// A wgmma variant twice: with its pre-pass (what the op runs) and the kernel alone.
template <class F>
void both(std::vector<Variant>& v, const char* name, const char* alone, F run, bool acc) {
  v.push_back({name, [run, acc](KernelArgs a, int64_t T, int64_t BH) {
                 run_vt(a, acc);
                 run(a, T, BH);
               }});
  v.push_back({alone, run, [acc](KernelArgs a) { run_vt(a, acc); }});
}

// A 2 x fp16 split variant twice: with its pre-pass (the split; what the op runs) and the
// kernel alone.
template <class F>
void f16_both(std::vector<Variant>& v, const char* name, const char* alone, F run) {
  v.push_back({name, [run](KernelArgs a, int64_t T, int64_t BH) {
                 run_f16_prepass(a);
                 run(a, T, BH);
               }});
  v.push_back({alone, run, run_f16_prepass});
}

template <int E>
std::vector<Variant> variants() {
  std::vector<Variant> v = {
      {"mma tf32 w4 bn64", run_mma<E, 4, 64, false, 0>},
      {"mma acc w4 bn32 split", run_mma<E, 4, 32, true, kSplitS>},
      {"vt pre-pass (tf32)", [](KernelArgs a, int64_t, int64_t) { run_vt(a, false); }, nullptr,
       false},
  };
  if constexpr (E == 64) {
    both(v, "wg p0 wg2 bn128", "wg p0 wg2 bn128 alone", run_wgmma<64, 128, 2, false>, false);
    both(v, "wg p1 wg2 bn64 st4", "wg p1 wg2 bn64 alone", run_ws<64, 64, 2, 4>, false);
    // Where the time goes (output meaningless, unchecked): a kernel with a part left out.
    const auto diag = [&v](const char* name, auto run) {
      v.push_back({name, run, [](KernelArgs a) { run_vt(a, false); }, false});
    };
    diag("diag wg2 bn64 mma only", run_ws<64, 64, 2, 4, 1, kDiagNoSoftmax | kDiagNoLoads>);
    diag("diag wg2 bn64 softmax only", run_ws<64, 64, 2, 4, 1, kDiagNoLoads | kDiagNoMma>);
    // K/Vt by TMA (pipe 2) and multicast in 2-CTA clusters (pipe 3).
    both(v, "wg p2 wg2 bn64 st4", "wg p2 wg2 bn64 alone", run_ws<64, 64, 2, 4, 1, 0, true, 1>,
         false);
    both(v, "wg p3 wg2 bn64 st4", "wg p3 wg2 bn64 alone", run_ws<64, 64, 2, 4, 1, 0, true, 2>,
         false);
    both(v, "wg p2 wg1 bn64 st2 x2", "wg p2 wg1 bn64 x2 alone",
         run_ws<64, 64, 1, 2, 2, 0, false, 1>, false);
    both(v, "wg p5 wg2 bn64 st4", "wg p5 wg2 bn64 alone",
         run_ws<64, 64, 2, 4, 1, 0, true, 1, false, true>, false);
    // 128-key tiles (S on m64n128k8, Q from shared memory; the producer at 24 registers
    // leaves the consumers 240: 52 bytes spilled).
    both(v, "wg p5 wg2 bn128 st3", "wg p5 wg2 bn128 alone",
         run_ws<64, 128, 2, 3, 1, 0, false, 1, false, true>, false);
    // With the pre-pass, the kernel its programmatic dependent (the op's launch).
    v.push_back({"wg p5 wg2 bn64 st4 pdl", run_ws_pdl<64, 64, 2, 4, true>});
    v.push_back({"wg p5 wg2 bn128 st3 pdl", run_ws_pdl<64, 128, 2, 3, true>});
    // Pipe 12: four consumer warpgroups (256 query rows a CTA), persistent, Vt made ahead
    // (its pre-pass inside, as the op launches it).
    v.push_back({"wg p12 quad st3", run_quad<0, 64, 64, 3>, poison_vt});
    v.push_back({"wg p12 quad alone", run_quad<kDiagReadyVt, 64, 64, 3>,
                 [](KernelArgs a) { run_vt(a, false); }});
    v.push_back({"wg p12 quad st4", run_quad<0, 64, 64, 4>, poison_vt});
    // Pipe 14: pipe 12 with P V on fp16, V16 made in the kernel but for the first units' heads
    // (the op's; its pre-pass inside); after a pre-pass of every head instead; alone over a
    // ready V16.
    v.push_back({"wg p14 pv16 st4", run_quad<0, 64, 64, 4, true, true>});
    v.push_back({"wg p14 pv16 st3", run_quad<0, 64, 64, 3, true, true>});
    // Pipe 15: pipe 14 converting each stage's V in the kernel (no pre-pass); the same with V16
    // left unconverted (wrong results: the cost of the stages' raw V and barriers alone).
    v.push_back({"wg p15 st4", run_quad<0, 64, 64, 4, true, false, true>});
    v.push_back({"wg p15 st3", run_quad<0, 64, 64, 3, true, false, true>});
    v.push_back({"diag p15 no conversion", run_quad<kDiagNoConvert, 64, 64, 4, true, false, true>,
                 nullptr, false});
    v.push_back({"wg p14 whole pre-pass st4", run_quad<0, 64, 64, 4, true>});
    v.push_back({"wg p14 pv16 alone", run_quad<kDiagReadyVt, 64, 64, 4, true>, prep_half_vt});
    v.push_back({"wg p14 pv16 first ready", run_quad<kDiagFirstReady, 64, 64, 4, true, true>,
                 prep_half_vt_first});
    v.push_back({"half vt pre-pass first t128", prepass_first<128>, nullptr, false});
    v.push_back({"half vt pre-pass first", prepass_first<kHalfVtThreads>, nullptr, false});
    v.push_back({"half vt pre-pass first t512", prepass_first<512>, nullptr, false});
    v.push_back({"wg p14 made ready", run_quad<kDiagReadyVt, 64, 64, 4, true, true>, prep_half_vt});
    v.push_back({"half vt pre-pass", [](KernelArgs a, int64_t, int64_t) { prep_half_vt(a); },
                 nullptr, false});
    v.push_back({"half vt pre-pass t128",
                 [](KernelArgs a, int64_t, int64_t) {
                   CK(half_vt_prepass<128>(a, f16_scratch(a), nullptr));
                 },
                 nullptr, false});
    v.push_back({"half vt pre-pass t64",
                 [](KernelArgs a, int64_t, int64_t) {
                   CK(half_vt_prepass<64>(a, f16_scratch(a), nullptr));
                 },
                 nullptr, false});
    // The pre-pass's bytes as one copy (its floor): V read, half as many bytes written, as
    // 3/4 of V's bytes copied (read and written).
    v.push_back({"copy of 3/4 V",
                 [](KernelArgs a, int64_t, int64_t) {
                   const size_t n = size_t(a.p.batch_count() * a.p.S * a.p.E) * 4;
                   CK(cudaMemcpyAsync(f16_scratch(a), a.v, n / 4 * 3, cudaMemcpyDeviceToDevice));
                 },
                 nullptr, false});
    v.push_back({"trace wg p12 quad", run_quad<kDiagTrace, 64, 64, 3>, poison_vt});
    v.push_back({"trace wg p14 pv16", run_quad<kDiagTrace, 64, 64, 4, true, true>});
    // V transposed by the producer (pipe 4): no pre-pass, so "alone" is the op's kernel.
    v.push_back({"wg p4 wg2 bn64 st4", run_ws<64, 64, 2, 4, 1, 0, true, 2, true>});
    // Pipe 7: pipe 5 with V transposed by the producer's warps 1-3 as pipe 4 (no pre-pass).
    v.push_back({"wg p7 wg2 bn64 st4", run_ws<64, 64, 2, 4, 1, 0, true, 1, true, true>});
    diag("diag p7 loads only",
         run_ws<64, 64, 2, 4, 1, kDiagNoSoftmax | kDiagNoMma, true, 1, true, true>);
    diag("diag p2 wg2 loads only", run_ws<64, 64, 2, 4, 1, kDiagNoSoftmax | kDiagNoMma, true, 1>);
    diag("diag p2 wg2 no softmax", run_ws<64, 64, 2, 4, 1, kDiagNoSoftmax, true, 1>);
    diag("diag p2 wg2 no mma", run_ws<64, 64, 2, 4, 1, kDiagNoMma, true, 1>);
    both(v, "wg acc p0 wg2 bn64", "wg acc p0 wg2 bn64 alone", run_wgmma<64, 64, 2, true>, true);
    both(v, "wg acc p2 wg2 bn64 st2", "wg acc p2 wg2 bn64 alone", run_ws_acc<64, 64, 2, 2, false>,
         true);
    both(v, "wg acc p5 wg2 bn64 st2", "wg acc p5 wg2 bn64 alone", run_ws_acc<64, 64, 2, 2, true>,
         true);
    // The 2 x fp16 split (pipe 6): with its pre-pass (the split), the kernel alone, the
    // pre-pass alone; ping-pong (the op's) and not, 4 and 2 stages.
    // The op's pipe 6: ping-pong, 4 stages, Q's hi in registers, Q's loads under the
    // first copies, launched as the pre-pass's dependent (PDL); then each undone, and causal
    // consumer 0 leaving out the tile above its rows (lost).
    f16_both(v, "f16 p6 op", "f16 p6 op alone", run_f16split<64, 64, 2, 4, true, true>);
    f16_both(v, "f16 p16 st3", "f16 p16 st3 alone", run_f16persist<3>);
    f16_both(v, "f16 p16 st4", "f16 p16 st4 alone", run_f16persist<4>);
    f16_both(v, "f16 p16 pairs to the end", "f16 p16 pairs to the end alone",
             run_f16persist<4, 0, false>);
    f16_both(v, "f16 p6 q first", "f16 p6 q first alone",
             run_f16split<64, 64, 2, 4, true, true, kF16DiagQFirst>);
    f16_both(v, "f16 p6 skip last", "f16 p6 skip last alone",
             run_f16split<64, 64, 2, 4, true, true, kF16DiagSkipLast>);
    f16_both(v, "f16 p6 no pdl", "f16 p6 no pdl alone",
             run_f16split<64, 64, 2, 4, true, true, kF16DiagNoPdl>);
    f16_both(v, "f16 p6 q smem", "f16 p6 q smem alone", run_f16split<64, 64, 2, 4, true>);
    f16_both(v, "f16 p6 no pp", "f16 p6 no pp alone", run_f16split<64, 64, 2, 4, false, true>);
    v.push_back({"f16 pre-pass", run_f16_prepass_t<kF16SplitThreads>, nullptr, false});
    // The pre-pass's block of 256 and 512 threads (2 and 1 groups of 8 floats of K and V
    // each) against the op's 128.
    v.push_back({"f16 pre-pass t256", run_f16_prepass_t<256>, nullptr, false});
    v.push_back({"f16 pre-pass t512", run_f16_prepass_t<512>, nullptr, false});
    // The fixed cost per query tile: the op's kernel alone with the keys cut to 1, 2, 4
    // key tiles (unchecked; the pre-pass of the same cut untimed before each run).
    const auto cut = [&v](const char* name, int64_t keys, auto run) {
      const auto with = [keys](KernelArgs a) {
        a.p.S = std::min(a.p.S, keys);
        return a;
      };
      v.push_back({name, [with, run](KernelArgs a, int64_t T, int64_t BH) { run(with(a), T, BH); },
                   [with](KernelArgs a) { run_f16_prepass(with(a)); }, false});
    };
    cut("diag f16 keys 64", 64, run_f16split<64, 64, 2, 4, true, true>);
    cut("diag f16 keys 128", 128, run_f16split<64, 64, 2, 4, true, true>);
    cut("diag f16 keys 256", 256, run_f16split<64, 64, 2, 4, true, true>);
    cut("diag f16 q first keys 64", 64, run_f16split<64, 64, 2, 4, true, true, kF16DiagQFirst>);
    cut("diag f16 no store keys 64", 64, run_f16split<64, 64, 2, 4, true, true, kF16DiagNoStore>);
    v.push_back({"diag f16 no store", run_f16split<64, 64, 2, 4, true, true, kF16DiagNoStore>,
                 run_f16_prepass, false});
    // The persistent kernel (pipe 8): alone over a ready Vt, and after the pre-pass as its
    // programmatic dependent (the op's launch).
    both(v, "wg p8 persist", "wg p8 persist alone", run_persist<>, false);
    v.push_back({"wg p8 persist pdl", [](KernelArgs a, int64_t T, int64_t BH) {
                   run_vt(a, false);
                   run_persist<0, true>(a, T, BH);
                 }});
    v.push_back({"trace wg p8", run_persist<kDiagTrace>, [](KernelArgs a) { run_vt(a, false); }});
    v.push_back({"trace wg p11", run_persist<kDiagTrace, false, false, 64, true>, poison_vt});
    // The persistent kernel with V transposed in it (pipe 9: pipe 7's producer warps), no
    // pre-pass.
    v.push_back({"wg p9 persist vt", run_persist<0, false, true>});
    // Vt made in the kernel a unit ahead (pipe 11), over a Vt of NaNs.
    v.push_back({"wg p11 ahead", run_persist<0, false, false, 64, true>, poison_vt});
    // Each CTA's SM, start and end (KB_TRACE=1 prints them: TR rows).
    v.push_back(
        {"trace f16 p6", run_f16split<64, 64, 2, 4, true, true, kF16DiagTrace>, run_f16_prepass});
    v.push_back({"trace wg p5 wg2 bn64", run_ws<64, 64, 2, 4, 1, kDiagTrace, true, 1, false, true>,
                 [](KernelArgs a) { run_vt(a, false); }});
    v.push_back({"trace wg p5 wg2 bn128",
                 run_ws<64, 128, 2, 3, 1, kDiagTrace, false, 1, false, true>,
                 [](KernelArgs a) { run_vt(a, false); }});
    v.push_back({"trace wg p7", run_ws<64, 64, 2, 4, 1, kDiagTrace, true, 1, true, true>});
    v.push_back({"trace wg p5 st2", run_ws<64, 64, 2, 2, 1, kDiagTrace, true, 1, false, true>,
                 [](KernelArgs a) { run_vt(a, false); }});
    v.push_back({"trace f16 p16", run_f16persist<4, kDiagTrace>, run_f16_prepass});
    v.push_back({"trace f16 p6 st2", run_f16split<64, 64, 2, 2, true, true, kF16DiagTrace>,
                 run_f16_prepass});
    v.push_back({"trace f16 p6 qfirst",
                 run_f16split<64, 64, 2, 4, true, true, kF16DiagTrace | kF16DiagQFirst>,
                 run_f16_prepass});
  } else {
    both(v, "wg p0 wg2 bn64", "wg p0 wg2 bn64 alone", run_wgmma<128, 64, 2, false>, false);
    both(v, "wg p1 wg1 bn64 st3", "wg p1 wg1 bn64 alone", run_ws<128, 64, 1, 3>, false);
    both(v, "wg p1 wg2 bn64 st2", "wg p1 wg2 bn64 alone", run_ws<128, 64, 2, 2>, false);
    both(v, "wg p3 wg1 bn64 st3", "wg p3 wg1 bn64 alone", run_ws<128, 64, 1, 3, 1, 0, false, 2>,
         false);
    both(v, "wg p3 wg2 bn64 st2", "wg p3 wg2 bn64 alone", run_ws<128, 64, 2, 2, 1, 0, false, 2>,
         false);
    both(v, "wg p2 wg1 bn64 st3", "wg p2 wg1 bn64 alone", run_ws<128, 64, 1, 3, 1, 0, false, 1>,
         false);
    both(v, "wg p2 wg2 bn64 st2", "wg p2 wg2 bn64 alone", run_ws<128, 64, 2, 2, 1, 0, false, 1>,
         false);
    both(v, "wg p5 wg2 bn64 st2", "wg p5 wg2 bn64 alone",
         run_ws<128, 64, 2, 2, 1, 0, false, 1, false, true>, false);
    v.push_back({"wg p12 e128 quad st3", run_quad<0, 128, 32, 3>, poison_vt});
    v.push_back({"wg p12 e128 quad alone", run_quad<kDiagReadyVt, 128, 32, 3>,
                 [](KernelArgs a) { run_vt(a, false); }});
    v.push_back({"wg p12 e128 quad st2", run_quad<0, 128, 32, 2>, poison_vt});
    // Pipe 14 at head dim 128: V16 made in the kernel but for the first units' heads (the
    // op's, three stages); after a pre-pass of every head instead.
    v.push_back({"wg p14 e128 st3", run_quad<0, 128, 32, 3, true, true>});
    // Pipe 15 at head dim 128 (three stages beside Q's 128 KB; two), and unconverted.
    v.push_back({"wg p15 e128 st3", run_quad<0, 128, 32, 3, true, false, true>});
    v.push_back({"wg p15 e128 st2", run_quad<0, 128, 32, 2, true, false, true>});
    v.push_back({"diag p15 e128 no conversion",
                 run_quad<kDiagNoConvert, 128, 32, 3, true, false, true>, nullptr, false});
    v.push_back({"wg p14 e128 whole pre-pass st3", run_quad<0, 128, 32, 3, true>});
    v.push_back({"wg p14 e128 whole pre-pass st4", run_quad<0, 128, 32, 4, true>});
    v.push_back({"wg p14 e128 alone", run_quad<kDiagReadyVt, 128, 32, 3, true>, prep_half_vt});
    v.push_back({"wg p14 e128 first ready", run_quad<kDiagFirstReady, 128, 32, 3, true, true>,
                 prep_half_vt_first});
    v.push_back({"half vt pre-pass e128 first t128", prepass_first<128>, nullptr, false});
    v.push_back({"half vt pre-pass e128 first", prepass_first<kHalfVtThreads>, nullptr, false});
    v.push_back({"half vt pre-pass e128 first t512", prepass_first<512>, nullptr, false});
    v.push_back({"half vt pre-pass e128", [](KernelArgs a, int64_t, int64_t) { prep_half_vt(a); },
                 nullptr, false});
    v.push_back({"trace wg p12 e128 quad", run_quad<kDiagTrace, 128, 32, 3>, poison_vt});
    v.push_back({"wg p2 wg1 bn64 st3 pdl", run_ws_pdl<128, 64, 1, 3, false>});
    v.push_back({"wg p5 wg2 bn64 st2 pdl", run_ws_pdl<128, 64, 2, 2, true>});
    // The 2 x fp16 split at head dim 128 (pipe 6's variant: two stages, P V in halves, one
    // tile at a time; fa19i): the op's (ping-pong), without the ping-pong, its pre-pass.
    // The persistent kernel at head dim 128 (pipe 8: Q from shared memory, reloaded half by
    // half): alone over a ready Vt, and after the pre-pass as its dependent (the op's).
    both(v, "wg p8 e128 persist", "wg p8 e128 persist alone", run_persist<0, false, false, 128>,
         false);
    v.push_back({"wg p8 e128 persist pdl", [](KernelArgs a, int64_t T, int64_t BH) {
                   run_vt(a, false);
                   run_persist<0, true, false, 128>(a, T, BH);
                 }});
    v.push_back({"wg p11 e128 ahead", run_persist<0, false, false, 128, true>, poison_vt});
    // 32-key tiles, four stages (the head-dim-128 default).
    v.push_back({"wg p11 e128 bn32", run_persist<0, false, false, 128, true, 32>, poison_vt});
    v.push_back({"trace wg p11 e128 bn32", run_persist<kDiagTrace, false, false, 128, true, 32>,
                 poison_vt});
    v.push_back({"wg p8 e128 bn32 alone", run_persist<0, false, false, 128, false, 32>,
                 [](KernelArgs a) { run_vt(a, false); }});
    v.push_back({"trace wg p8 e128 bn32", run_persist<kDiagTrace, false, false, 128, false, 32>,
                 [](KernelArgs a) { run_vt(a, false); }});
    f16_both(v, "f16 e128 p6 op", "f16 e128 p6 op alone", run_f16split<128, 64, 2, 2, true>);
    f16_both(v, "f16 e128 no pp", "f16 e128 no pp alone", run_f16split<128, 64, 2, 2, false>);
    v.push_back({"f16 e128 pre-pass", run_f16_prepass_t<kF16SplitThreads>, nullptr, false});
    v.push_back({"f16 e128 pre-pass t256", run_f16_prepass_t<256>, nullptr, false});
    v.push_back({"trace f16 e128", run_f16split<128, 64, 2, 2, true, false, kF16DiagTrace>,
                 run_f16_prepass});
    v.push_back({"trace f16 e128 qfirst",
                 run_f16split<128, 64, 2, 2, true, false, kF16DiagTrace | kF16DiagQFirst>,
                 run_f16_prepass});
  }
  return v;
}

// softmax(q k^T * scale) v of one [T, E] slice, in double.
std::vector<double> reference(const float* q, const float* k, const float* v, int64_t T, int64_t E,
                              bool causal, double scale) {
  std::vector<double> out(size_t(T * E));
#pragma omp parallel for schedule(dynamic, 16)
  for (int64_t i = 0; i < T; ++i) {
    std::vector<double> s(static_cast<size_t>(T));
    const int64_t n = causal ? i + 1 : T;
    double mx = -INFINITY;
    for (int64_t j = 0; j < n; ++j) {
      double d = 0;
      for (int64_t e = 0; e < E; ++e) d += double(q[i * E + e]) * double(k[j * E + e]);
      s[size_t(j)] = d * scale;
      mx = std::max(mx, s[size_t(j)]);
    }
    double sum = 0;
    for (int64_t j = 0; j < n; ++j) sum += (s[size_t(j)] = std::exp(s[size_t(j)] - mx));
    for (int64_t e = 0; e < E; ++e) {
      double acc = 0;
      for (int64_t j = 0; j < n; ++j) acc += s[size_t(j)] * double(v[j * E + e]);
      out[size_t(i * E + e)] = acc / sum;
    }
  }
  return out;
}

}  // namespace

// The comma-separated parts of the variable `var`, each found in the name (a part ending in
// '$': at its end); empty or unset: every name.
bool selected(const char* var, const char* name) {
  const char* f = std::getenv(var);
  if (f == nullptr || *f == 0) return true;
  const std::string all(f), n(name);
  for (size_t at = 0; at <= all.size();) {
    const size_t end = std::min(all.find(',', at), all.size());
    std::string part = all.substr(at, end - at);
    const bool at_end = !part.empty() && part.back() == '$';
    if (at_end) part.pop_back();
    const size_t hit = at_end ? n.rfind(part) : n.find(part);
    if (!part.empty() && hit != std::string::npos && (!at_end || hit + part.size() == n.size())) {
      return true;
    }
    at = end + 1;
  }
  return false;
}

int main() {
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("GPU %s\n", prop.name);
  struct Shape {
    int64_t B, H, T, E;
    bool causal;
  };
  const std::vector<Shape> shapes = {{8, 16, 1024, 64, false},
                                     {8, 16, 1024, 64, true},
                                     {2, 16, 4096, 64, false},
                                     {8, 16, 1024, 128, false},
                                     {8, 16, 1024, 128, true},
                                     // Where causal pipe 7's lead ends (the default's bound).
                                     {16, 16, 512, 64, true},
                                     {4, 16, 2048, 64, true},
                                     {2, 16, 4096, 64, true},
                                     // Where full attention's persistent pipe 8 leads.
                                     {4, 16, 2048, 64, false},
                                     // Where the default's rule for pipe 12 turns (256-row
                                     // tiles against 132 SMs).
                                     {16, 16, 512, 64, false},
                                     {4, 16, 1024, 64, false},
                                     {2, 16, 1024, 64, false},
                                     {1, 16, 2048, 64, false}};
  char* flush = nullptr;
  CK(cudaMalloc(&flush, 256 << 20));
  // kDiagTrace's records, the largest grid's (B16 H16 T512 at 64 rows).
  constexpr size_t kTraceAll = kTraceWords * 8192;
  unsigned long long* trace = nullptr;
  CK(cudaMalloc(&trace, kTraceAll * 8));
  CK(cudaMemcpyToSymbol(g_cta_trace, &trace, sizeof trace));
  std::mt19937 gen(7);
  std::normal_distribution<float> nd;
  for (const Shape& sh : shapes) {
    char name[64];
    std::snprintf(name, sizeof name, "B%ld H%ld T%ld E%ld%s", long(sh.B), long(sh.H), long(sh.T),
                  long(sh.E), sh.causal ? " causal" : "");
    if (!selected("KB_SHAPES", name)) continue;
    const int64_t BH = sh.B * sh.H, T = sh.T, E = sh.E, n = BH * T * E;
    std::vector<float> h[3];
    for (auto& x : h) {
      x.resize(size_t(n));
      for (float& f : x) f = nd(gen);
    }
    float* d[4];
    for (int i = 0; i < 4; ++i) CK(cudaMalloc(&d[i], size_t(n) * 4));
    for (int i = 0; i < 3; ++i)
      CK(cudaMemcpy(d[i], h[i].data(), size_t(n) * 4, cudaMemcpyHostToDevice));
    const double scale = 1.0 / std::sqrt(double(E));
    std::vector<int64_t> slices = {0, BH - 1};
    std::vector<std::vector<double>> want;
    for (int64_t s : slices) {
      want.push_back(reference(h[0].data() + s * T * E, h[1].data() + s * T * E,
                               h[2].data() + s * T * E, T, E, sh.causal, scale));
    }
    AttentionProblem p;
    p.batch_rank = 1;
    p.batch[0] = BH;
    p.L = p.S = T;
    p.E = p.Ev = E;
    for (AttnStrides* st : {&p.q, &p.k, &p.v, &p.out}) {
      st->batch[0] = T * E;
      st->row = E;
      st->col = 1;
    }
    p.causal = sh.causal;
    p.scale = scale;
    const KernelArgs args{p, d[0], d[1], d[2], nullptr, d[3], float(scale)};
    const double flops = 4.0 * BH * T * T * E * (sh.causal ? 0.5 : 1.0);
    const auto vs = E == 64 ? variants<64>() : variants<128>();
    for (const Variant& v : vs) {
      if (!selected("KB_FILTER", v.name)) continue;
      CK(cudaMemset(d[3], 0xff, size_t(n) * 4));  // NaN: every element must be written
      if (v.prep) v.prep(args);
      v.run(args, T, BH);
      CK(cudaDeviceSynchronize());
      std::vector<float> got(static_cast<size_t>(n));
      CK(cudaMemcpy(got.data(), d[3], size_t(n) * 4, cudaMemcpyDeviceToHost));
      double num = 0, den = 0;
      bool finite = true;
      for (size_t si = 0; si < slices.size(); ++si) {
        for (int64_t i = 0; i < T * E; ++i) {
          const double g = got[size_t(slices[si] * T * E + i)], w = want[si][size_t(i)];
          finite = finite && std::isfinite(g);
          num += (g - w) * (g - w);
          den += w * w;
        }
      }
      for (float g : got) finite = finite && std::isfinite(g);
      CK(cudaMemset(trace, 0, kTraceAll * 8));
      const float ms = median_of_10_ms([&] { v.run(args, T, BH); },
                                       [&] {
                                         if (v.prep) v.prep(args);
                                       },
                                       flush);
      if (!v.checked) {
        std::printf("KB,%s,%s,%.4f,,\n", name, v.name, ms);
      } else {
        std::printf("KB,%s,%s,%.4f,%.1f,%.2e%s\n", name, v.name, ms, flops / ms / 1e9,
                    std::sqrt(num / den), finite ? "" : ",NOT FINITE");
      }
      if (std::getenv("KB_TRACE") != nullptr && std::string(v.name).rfind("trace", 0) == 0) {
        // The last timed launch's record (its starts overwrite, its ends are the latest).
        std::vector<unsigned long long> t(kTraceAll);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(t.data(), trace, kTraceAll * 8, cudaMemcpyDeviceToHost));
        for (size_t c = 0; c < 8192 && t[kTraceWords * c] != 0; ++c) {
          std::printf("TR,%s,%s,%zu", name, v.name, c);
          for (int w = 0; w < kTraceWords; ++w) std::printf(",%llu", t[kTraceWords * c + w]);
          std::printf("\n");
        }
      }
      std::fflush(stdout);
    }
    for (float* x : d) CK(cudaFree(x));
  }
  return 0;
}
