// The attention family's configs (attention.h): the descriptor over the compiled
// tables, the problem key, the space per problem and precision mode, the untuned
// default and the run-time lookup.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <tuple>

#include "autotune/descriptor.h"
#include "autotune/problem_key.h"
#include "autotune/space_cache.h"
#include "ops/cuda/attention/attention.h"
#include "ops/cuda/attention/attention_simt2.h"
#include "ops/cuda/attention/attention_tma.h"
#include "ops/cuda/attention/attention_variants.h"

namespace tt::ops::cuda::attention {
namespace {

using autotune::Config;
using Rule = autotune::Descriptor<AttnConfig>::Constraint;

std::vector<AttnConfig> compiled_table() {
  std::vector<AttnConfig> t;
#define TT_X(W, R) t.push_back({Impl::kGeneric, W, R, AttnConfig{}.block_n});
  TT_ATTN_GENERIC_VARIANTS(TT_X)
#undef TT_X
  // The simt and mma tables of every head dim list the same variants.
#define TT_X(E, R) \
  if (E == 64) t.push_back({Impl::kSimt, AttnConfig{}.warps, R, AttnConfig{}.block_n});
  TT_ATTN_SIMT_VARIANTS(TT_X)
#undef TT_X
  // simt2: every head dim lists the same variants (attention_variants.h).
#define TT_X(E, W, R, BN) \
  if (E == 64) t.push_back({Impl::kSimt2, W, R, BN});
  TT_ATTN_SIMT2_VARIANTS(TT_X)
#undef TT_X
#define TT_X(E, W, BN) \
  if (E == 64) t.push_back({Impl::kMma, W, AttnConfig{}.rows, BN});
  TT_ATTN_MMA_VARIANTS(TT_X)
#undef TT_X
  // wgmma: the union over head dims (128 takes 64-key tiles only: the space's rule).
#define TT_X(E, WG, BN) \
  if (E == 64) t.push_back({Impl::kWgmma, 4 * WG, AttnConfig{}.rows, BN, 0});
  TT_ATTN_WGMMA_VARIANTS(TT_X)
#undef TT_X
  // A wgmma config once over every head dim's table (the space's rules keep each head dim's).
  const auto add_wgmma = [&t](int warps, int bn, int pipe) {
    const AttnConfig c{Impl::kWgmma, warps, AttnConfig{}.rows, bn, pipe};
    if (std::find(t.begin(), t.end(), c) == t.end()) t.push_back(c);
  };
#define TT_X(E, WG, BN, ST, MB) add_wgmma(4 * WG, BN, 1);
  if (kWgmmaPipe1Offered) {
    TT_ATTN_WGMMA_WS_VARIANTS(TT_X)
  }
#undef TT_X
  // pipe 2 and 3 (TMA), the union over head dims likewise.
#define TT_X(E, WG, BN, ST, MB, PIPE) add_wgmma(4 * WG, BN, PIPE);
  if (kWgmmaPipe1Offered) {
    TT_ATTN_WGMMA_TMA_VARIANTS(TT_X)
  }
#undef TT_X
  // pipes 6 and 16 (accurate: the 2 x fp16 split; 16 its persistent form).
#define TT_X(E, WG, BN, ST, PIPE) add_wgmma(4 * WG, BN, PIPE);
  if (kWgmmaPipe1Offered && kF16SplitOffered) {
    TT_ATTN_WGMMA_F16SPLIT_VARIANTS(TT_X)
    TT_ATTN_WGMMA_F16SPLIT_PERSISTENT_VARIANTS(TT_X)
  }
  // pipes 8, 9 and 11 (tf32: the persistent kernel).
  if (kWgmmaPipe1Offered) {
    TT_ATTN_WGMMA_PERSISTENT_VARIANTS(TT_X)
  }
#undef TT_X
  // pipe 12 (tf32: four consumer warpgroups), 14 (pipe 12 with P V on fp16) and 15 (14 with V
  // converted per stage).
  if (kWgmmaPipe1Offered) {
#define TT_X(E, WG, BN, ST) add_wgmma(4 * WG, BN, 12);
    TT_ATTN_WGMMA_QUAD_VARIANTS(TT_X)
#undef TT_X
#define TT_X(E, WG, BN, ST) add_wgmma(4 * WG, BN, 14);
    TT_ATTN_WGMMA_QUAD_PV16_VARIANTS(TT_X)
#undef TT_X
#define TT_X(E, WG, BN, ST) add_wgmma(4 * WG, BN, 15);
    TT_ATTN_WGMMA_QUAD_CONV_VARIANTS(TT_X)
#undef TT_X
  }
  return t;
}

std::vector<int64_t> distinct(const std::vector<AttnConfig>& t, std::vector<Impl> impls,
                              int AttnConfig::*m) {
  std::vector<int64_t> out;
  for (const AttnConfig& c : t) {
    if (std::find(impls.begin(), impls.end(), c.impl) != impls.end() &&
        std::find(out.begin(), out.end(), c.*m) == out.end())
      out.push_back(c.*m);
  }
  return out;
}

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

}  // namespace

bool AttnConfig::operator==(const AttnConfig& o) const {
  return std::tie(impl, warps, rows, block_n, pipe) ==
         std::tie(o.impl, o.warps, o.rows, o.block_n, o.pipe);
}

const autotune::Descriptor<AttnConfig>& AttnConfig::descriptor() {
  static const auto d = [] {
    const std::vector<AttnConfig> t = compiled_table();
    return autotune::Descriptor<AttnConfig>("attention")
        .impl(&AttnConfig::impl, {{"generic", Impl::kGeneric},
                                  {"simt", Impl::kSimt},
                                  {"mma", Impl::kMma},
                                  {"wgmma", Impl::kWgmma},
                                  {"simt2", Impl::kSimt2}})
        .field("warps", &AttnConfig::warps,
               distinct(t, {Impl::kGeneric, Impl::kMma, Impl::kWgmma, Impl::kSimt2},
                        &AttnConfig::warps),
               {"generic", "mma", "wgmma", "simt2"})
        .field("rows", &AttnConfig::rows,
               distinct(t, {Impl::kGeneric, Impl::kSimt, Impl::kSimt2}, &AttnConfig::rows),
               {"generic", "simt", "simt2"})
        .field("bn", &AttnConfig::block_n,
               distinct(t, {Impl::kMma, Impl::kWgmma, Impl::kSimt2}, &AttnConfig::block_n),
               {"mma", "wgmma", "simt2"})
        .field("pipe", &AttnConfig::pipe, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 14, 15, 16},
               {"wgmma"})
        .compiled("the variant must be compiled (ops/cuda/attention/attention_variants.h)", t);
  }();
  return d;
}

Config AttnConfig::to_config() const { return descriptor().to_config(*this); }
AttnConfig AttnConfig::from_config(const Config& c) { return descriptor().from_config(c); }

bool tiled_eligible(const AttentionProblem& p, const AttnLaunch& a) {
  if (p.E != p.Ev || (p.E != 32 && p.E != 64 && p.E != 128)) return false;
  for (const AttnStrides* s : {&p.q, &p.k, &p.v, &p.out}) {
    if (s->col != 1 || s->row % 4 != 0) return false;
    for (int d = 0; d < p.batch_rank; ++d) {
      if (s->batch[d] % 4 != 0) return false;
    }
  }
  return aligned16(a.q) && aligned16(a.k) && aligned16(a.v) && aligned16(a.out);
}

int64_t wgmma_ws_smem_bytes(int64_t e, int warps, int block_n) {
#define TT_X(E, WG, BN, ST, MB)                                                       \
  if (e == E && warps == 4 * WG && block_n == BN) {                                   \
    return (int64_t{64} * WG * E + int64_t{ST} * 2 * BN * E) * 4 + 2 * ST * 8 + 1024; \
  }
  TT_ATTN_WGMMA_WS_VARIANTS(TT_X)
#undef TT_X
  return 0;  // no such variant
}

int64_t wgmma_tma_smem_bytes(int64_t e, int warps, int block_n, int pipe, bool accurate) {
#define TT_X(E, WG, BN, ST, MB, PIPE)                                                         \
  if (e == E && warps == 4 * WG && block_n == BN && pipe == PIPE) {                           \
    const int parts = transposes_v_in_kernel(PIPE) ? 3 : 2; /* K, Vt (, V's raw tile) */      \
    return (int64_t{64} * WG * E + int64_t{ST} * parts * BN * E) * 4 + parts * ST * 8 + 1024; \
  }
  if (!accurate) {
    TT_ATTN_WGMMA_TMA_VARIANTS(TT_X)
  }
#undef TT_X
  // pipes 8, 9 and 11 (tf32, persistent): Q's buffers (two at head dim 64, one at 128), the
  // stages as above, and Q's full and empty barriers per buffer (or per half).
#define TT_X(E, WG, BN, ST, PIPE)                                                        \
  if (e == E && warps == 4 * WG && block_n == BN && pipe == PIPE) {                      \
    const int parts = transposes_v_in_kernel(PIPE) ? 3 : 2;                              \
    return (int64_t{E == 64 ? 2 : 1} * 64 * WG * E + int64_t{ST} * parts * BN * E) * 4 + \
           (parts * ST + 4) * 8 + 1024;                                                  \
  }
  if (!accurate) {
    TT_ATTN_WGMMA_PERSISTENT_VARIANTS(TT_X)
  }
#undef TT_X
  // pipe 12 (tf32, four consumers): one Q buffer, the stages, Q's full and empty barriers
  // per consumer.
#define TT_X(E, WG, BN, ST)                                                                      \
  if (e == E && warps == 4 * WG && block_n == BN && pipe == 12) {                                \
    return (int64_t{64} * WG * E + int64_t{ST} * 2 * BN * E) * 4 + (2 * ST + 2 * WG) * 8 + 1024; \
  }
  if (!accurate) {
    TT_ATTN_WGMMA_QUAD_VARIANTS(TT_X)
  }
#undef TT_X
  // pipe 14 (tf32, four consumers, V in fp16): pipe 12's with a stage's V in 2 bytes; the
  // makers' raw V tiles (two at head dim 64, one at 128) and their barriers, V16's staging tile,
  // the makers' maxima and the stages' V factors (16 bytes each).
#define TT_X(E, WG, BN, ST)                                                               \
  if (e == E && warps == 4 * WG && block_n == BN && pipe == 14) {                         \
    return (int64_t{64} * WG * E + int64_t{ST} * BN * E) * 4 + int64_t{ST} * BN * E * 2 + \
           (2 * ST + 2 * WG) * 8 + 1024 + (E == 64 ? 2 : 1) * (int64_t{BN} * E * 4 + 8) + \
           BN * E * 2 + 32;                                                               \
  }
  if (!accurate) {
    TT_ATTN_WGMMA_QUAD_PV16_VARIANTS(TT_X)
  }
#undef TT_X
  // pipe 15 (pipe 14 converting each stage's V): pipe 12's stages (K and V in float32), a
  // converted and a V-full barrier a stage and the stages' V factors.
#define TT_X(E, WG, BN, ST)                                                                       \
  if (e == E && warps == 4 * WG && block_n == BN && pipe == 15) {                                 \
    return (int64_t{64} * WG * E + int64_t{ST} * 2 * BN * E) * 4 + (4 * ST + 2 * WG) * 8 + 1024 + \
           16;                                                                                    \
  }
  if (!accurate) {
    TT_ATTN_WGMMA_QUAD_CONV_VARIANTS(TT_X)
  }
#undef TT_X
  // accurate: Q's hi and lo; K, Vt and their lo halves per stage; three barriers a stage.
#define TT_X(E, WG, BN, ST, MB, PIPE)                                                     \
  if (e == E && warps == 4 * WG && block_n == BN && pipe == PIPE) {                       \
    return (int64_t{64} * WG * E * 2 + int64_t{ST} * 4 * BN * E) * 4 + 3 * ST * 8 + 1024; \
  }
  if (accurate) {
    TT_ATTN_WGMMA_TMA_ACCURATE_VARIANTS(TT_X)
  }
#undef TT_X
  // pipe 6 (accurate, the 2 x fp16 split): Q's hi and lo, per stage K's and Vt's halves
  // in fp16, Q's row factors, two barriers and the tile's factors a stage.
#define TT_X(E, WG, BN, ST, PIPE)                                                               \
  if (e == E && warps == 4 * WG && block_n == BN && pipe == PIPE) {                             \
    return int64_t{64} * WG * E * 2 * 2 + int64_t{ST} * 4 * BN * E * 2 + int64_t{64} * WG * 4 + \
           3 * ST * 8 + 1024;                                                                   \
  }
  if (accurate) {
    TT_ATTN_WGMMA_F16SPLIT_VARIANTS(TT_X)
  }
#undef TT_X
  // pipe 16 (pipe 6 persistent, head dim 64): Q's two float32 buffers and its lo, per stage K's
  // and Vt's halves and the tile's factors, two barriers a stage and Q's four, the two items'
  // slots (24 bytes each).
#define TT_X(E, WG, BN, ST, PIPE)                                                           \
  if (e == E && warps == 4 * WG && block_n == BN && pipe == PIPE) {                         \
    return int64_t{2} * 128 * E * 4 + int64_t{128} * E * 2 + int64_t{ST} * 4 * BN * E * 2 + \
           ST * 8 + (2 * ST + 4) * 8 + 2 * 24 + 1024;                                       \
  }
  if (accurate) {
    TT_ATTN_WGMMA_F16SPLIT_PERSISTENT_VARIANTS(TT_X)
  }
#undef TT_X
  return 0;  // no such variant
}

int64_t smem_bytes(const AttnConfig& c, const AttentionProblem& p) {
  if (c.impl == Impl::kWgmma) {
    if (c.pipe >= 2) {
      return wgmma_tma_smem_bytes(p.E, c.warps, c.block_n, c.pipe, f16_split_pipe(c.pipe));
    }
    return c.pipe == 1 ? wgmma_ws_smem_bytes(p.E, c.warps, c.block_n)
                       : wgmma_smem_bytes(p.E, c.warps, c.block_n, false);
  }
  if (c.impl == Impl::kMma) return int64_t{2} * 2 * c.block_n * (p.E + 4) * 4;
  if (c.impl == Impl::kSimt2) {
    return int64_t{4} * simt2_smem_floats(static_cast<int>(p.E), c.warps, c.rows, c.block_n);
  }
  if (c.impl == Impl::kSimt) {
    const int64_t bm = 16 * c.rows;
    return (p.E * bm + 2 * p.E * 64 + 64 * bm) * 4;
  }
  const int64_t evc = std::min<int64_t>(p.Ev, 256);
  return (int64_t{c.warps} * c.rows * p.E + 32 * (p.E + 1) + 32 * evc) * 4;
}

std::string problem_key(const AttentionProblem& p, bool aligned, Precision precision) {
  autotune::ProblemKey key;
  key.add("b", p.batch_count())
      .add("l", p.L)
      .add("s", p.S)
      .add("e", p.E)
      .add("ev", p.Ev)
      .add("causal", p.causal ? 1 : 0)
      .add("mask", p.mask_kind == AttnMask::kNone       ? "none"
                   : p.mask_kind == AttnMask::kAdditive ? "add"
                                                        : "bool");
  // The TMA pipes need K's (pipes 4, 7, 9, 11, 12, 14 and 15: and V's; 8, 9, 11, 12, 14 and 15: and
  // Q's) maps, so the space depends on the layout: a problem without them is another key (its
  // cached space and its tuned entries apart from the same shape's with maps). Only then: the usual
  // layouts' keys, and the databases' entries, stay as they were.
  if (!kv_tma_mappable(p, p.k)) {
    key.add("maps", "none");
  } else if (!kv_tma_mappable(p, p.v)) {
    key.add("maps", "k");
  } else if (!q_tma_mappable(p)) {
    key.add("maps", "kv");
  }
  return key.add_align_floats(aligned ? 4 : 1).add_precision(precision).str();
}

AttnConfig default_for(const AttentionProblem& p, bool tiled_ok, bool mma_ok, bool wgmma_ok,
                       Precision precision, int64_t max_smem) {
  const int rows = AttnConfig{}.rows, warps = AttnConfig{}.warps;
  // accurate at head dim 128: the 2 x fp16 split (pipe 6) where it is the default
  // (attention.h: kF16SplitDefaultE128), else the FMA kernels below.
  const bool acc128 = precision == Precision::accurate && p.E == 128;
  if (wgmma_ok && acc128 && kF16SplitDefaultE128) return {Impl::kWgmma, 8, rows, 64, 6};
  if (wgmma_ok && !acc128) {
    // The defaults are the H100 sweeps' winners (docs/performance.md, the attention
    // family's sections): where K and Vt have tensor maps, TMA loads with the two
    // consumers in ping-pong (pipe 5) at head dim 64 and the TMA pipeline with one
    // consumer (pipe 2) at 128; the cp.async pipeline (pipe 1) where they have none;
    // multicast pairs (pipes 3 and 4) lost.
    // Full attention at head dim 64 takes 128-key tiles (9% at T4096, even at T1024;
    // causal lost 22%); causal at head dim 128 the ping-pong (12% over pipe 2). Where Q
    // and V have maps too, the persistent kernel making its own Vt (pipe 11: 5-8% ahead of
    // every other pipe at T512-T2048; at head dim 128 on 32-key tiles in four stages, 18%
    // ahead of its 64-key tiles in two at T1024 full, 7% causal); full attention beyond
    // 2048 keys stays on pipe 5's 128-key tiles, 1% ahead at T4096. Where V has none, at
    // head dim 64 causal up to 1024 keys transposing V in the kernel (pipe 9), beyond it
    // and full attention up to 2048 keys over the pre-pass (pipe 8); causal at head dim 128
    // pipe 8 (32-key tiles). From 512 query rows where there are 128 or more 256-row query
    // tiles, four consumers with P V on fp16 (pipe 14: at head dim 64 6-20% ahead of pipe 12,
    // the four consumers on tf32, and 10-17% of pipe 11 at every shape measured, T512-T4096,
    // full and causal, down to 128 query tiles; pipe 12 led pipe 11 only from 1024 keys full
    // and 2048 causal; at head dim 128 on 32-key tiles 11-12% ahead of pipe 11 at T1024).
    // There, pipe 15 (pipe 14 converting each stage's V, once per query tile that reads it)
    // where a head has few query tiles: at head dim 64 up to 4 (1024 rows) full and 8 causal
    // (2-13% ahead of pipe 14 at T512-T2048; behind at T2048 full, 2%, and T4096, 1-6%), at 128
    // up to 4 causal (2% ahead at T1024; 12% behind full).
    if (precision == Precision::tf32 && kWgmmaPipe1Offered && tma_mappable(p, 2)) {
      const int64_t query_tiles = (p.L + 255) / 256;
      if ((p.E == 64 || p.E == 128) && p.L >= 512 && p.batch_count() * query_tiles >= 128 &&
          tma_mappable(p, 14)) {
        const bool convert =
            p.E == 64 ? query_tiles <= (p.causal ? 8 : 4) : p.causal && query_tiles <= 4;
        return {Impl::kWgmma, 16, rows, p.E == 64 ? 64 : 32, convert ? 15 : 14};
      }
      if ((p.E == 128 || p.causal || p.S <= 2048) && tma_mappable(p, 11)) {
        return {Impl::kWgmma, 8, rows, p.E == 128 ? 32 : 64, 11};
      }
      if (p.E == 64 && p.causal && p.S <= 1024 && tma_mappable(p, 9)) {
        return {Impl::kWgmma, 8, rows, 64, 9};
      }
      if (p.E == 64 && (p.causal || p.S <= 2048) && tma_mappable(p, 8)) {
        return {Impl::kWgmma, 8, rows, 64, 8};
      }
      if (p.E == 64 && p.causal && p.S <= 1024 && tma_mappable(p, 7)) {
        return {Impl::kWgmma, 8, rows, 64, 7};
      }
      if (p.E == 64) return {Impl::kWgmma, 8, rows, p.causal ? 64 : 128, 5};
      if (p.E == 128 && p.causal && tma_mappable(p, 8)) return {Impl::kWgmma, 8, rows, 32, 8};
      if (p.E == 128) {
        return p.causal ? AttnConfig{Impl::kWgmma, 8, rows, 64, 5}
                        : AttnConfig{Impl::kWgmma, 4, rows, 64, 2};
      }
    }
    // accurate at head dim 64: the 2 x fp16 split on the ping-pong (pipe 6; it maps its
    // pre-pass's buffers, so K needs no tensor map): faster than pipe 5's 3xTF32 at every
    // shape on the H100, and closer to float64 (docs/performance.md). Where Q has a tensor
    // map, causal or up to 1024 query rows, its persistent form (pipe 16: 4-9% ahead causal at
    // T512-T4096, 2% at T1024 full; level at T4096 full).
    if (precision == Precision::accurate && kWgmmaPipe1Offered && kF16SplitOffered && p.E == 64) {
      if ((p.causal || p.L <= 1024) && q_tma_mappable(p)) return {Impl::kWgmma, 8, rows, 64, 16};
      return {Impl::kWgmma, 8, rows, 64, 6};
    }
    // accurate at head dim 64: the 3xTF32 split on the TMA ping-pong pipeline (pipe 2
    // and 5 beat pipe 0 by 3-14% at every head-dim-64 shape, pipe 5 pipe 2 by 0-1%).
    if (precision == Precision::accurate && kWgmmaPipe1Offered && p.E == 64 && tma_mappable(p, 2)) {
      return {Impl::kWgmma, 8, rows, 64, 5};
    }
    // Where K has no tensor map (attention_tma.h): the cp.async pipelines.
    if (precision == Precision::tf32 && p.E == 64 && kWgmmaPipe1Offered) {
      return {Impl::kWgmma, 8, rows, 64, 1};
    }
    return {Impl::kWgmma, 8, rows, precision == Precision::tf32 && p.E == 64 ? 128 : 64, 0};
  }
  // accurate at head dim 128 where pipe 6 is not the default: the strict kernel, IEEE FMA,
  // is both faster than the 3xTF32 mma kernel on the H100 and more accurate
  // (docs/performance.md).
  const bool accurate_on_fma = precision == Precision::accurate && p.E == 128 && tiled_ok;
  if (mma_ok && precision != Precision::strict && !accurate_on_fma) {
    // The H100 sweeps (tools/device/attention_harness.cpp, attention_kernel_bench.cu at
    // B8 H16 T1024 and B2 H16 T4096): tf32 takes 4 warps and 64-key tiles at head dim
    // 64, 8 warps at 128 (causal: 4 warps, 32 keys); accurate (split S) 32-key tiles,
    // 8 warps only at head dim 128 without causal.
    if (precision == Precision::accurate) {
      return {Impl::kMma, p.E == 128 && !p.causal ? 8 : 4, rows, 32};
    }
    if (p.E == 128) {
      return p.causal ? AttnConfig{Impl::kMma, 4, rows, 32} : AttnConfig{Impl::kMma, 8, rows, 64};
    }
    return {Impl::kMma, 4, rows, 64};
  }
  if (tiled_ok) {
    // simt2 beat simt at every shape of the H100 sweep (tools/device/attention_simt_bench.cu,
    // 1.3-1.9x): 4 warps of 8 rows at head dim 64 (B8 H16 T1024 0.987 ms vs 8 warps'
    // 1.051; causal 0.593 vs 0.711), 8 warps at 128 (1.788 vs 3.449) and at 32 full
    // (0.547 vs 0.564). The first that fits the device's shared memory; else simt.
    const int w = p.E == 128 || (p.E == 32 && !p.causal) ? 8 : 4;
    for (const AttnConfig c :
         {AttnConfig{Impl::kSimt2, w, 8, 64}, AttnConfig{Impl::kSimt2, 4, 8, 64},
          AttnConfig{Impl::kSimt2, 8, 4, 64}}) {
      if (smem_bytes(c, p) <= max_smem) return c;
    }
    // simt: 8 rows per thread won full attention (1.03-1.06x), 4 rows causal (1.03-1.05x).
    AttnConfig c{Impl::kSimt, warps, p.causal ? 4 : 8, AttnConfig{}.block_n};
    if (smem_bytes(c, p) > max_smem) c.rows = 4;
    return c;
  }
  // 8 warps of 4 rows won every generic sweep on the H100 (1.4-1.6x over 4 warps).
  for (int r : {4, 2, 1}) {
    const AttnConfig c{Impl::kGeneric, 8, r, AttnConfig{}.block_n};
    if (smem_bytes(c, p) <= 96 * 1024) return c;
  }
  return {Impl::kGeneric, 4, 1, AttnConfig{}.block_n};
}

autotune::ParamSpace space(const AttentionProblem& p, bool tiled_ok, Precision precision,
                           const tt::cuda::DeviceLimits& limits) {
  std::vector<Rule> rules;
  if (limits.known) {
    const int64_t max_smem = limits.max_shared_per_block;
    rules.push_back({fmt::format("the tiles must fit the device's {} bytes of shared memory "
                                 "per block",
                                 max_smem),
                     [p, max_smem](const AttnConfig& c) { return smem_bytes(c, p) <= max_smem; }});
  }
  // strict promises IEEE FMA arithmetic: the tensor-core kernel is offered in tf32 and
  // accurate modes only; the FMA kernels are offered in every mode.
  const bool offer_mma =
      tiled_ok && precision != Precision::strict && (!limits.known || limits.cc_major >= 8);
  std::vector<std::string> impls = {"generic"};
  if (tiled_ok) impls.push_back("simt");
  if (tiled_ok) impls.push_back("simt2");
  if (offer_mma) impls.push_back("mma");
  // wgmma, on sm_90 with this build's sm_90a code: tf32 at head dims 64 and 128,
  // accurate at 64 and, the 2 x fp16 split alone (pipe 6), at 128 (3xTF32's hi/lo tiles
  // at 128 pass the shared memory).
  const bool acc = precision == Precision::accurate;
  const bool offer_wgmma =
      tiled_ok && kWgmmaCompiled &&
      ((precision == Precision::tf32 && (p.E == 64 || p.E == 128)) || (acc && p.E == 64) ||
       (acc && p.E == 128 && kWgmmaPipe1Offered && kF16SplitOffered));
  // The default takes wgmma only where the device is known to run it.
  const bool wgmma_on_device =
      offer_wgmma && limits.known && limits.cc_major == 9 && limits.cc_minor == 0;
  if (offer_wgmma) {
    impls.push_back("wgmma");
    if (limits.known && !(limits.cc_major == 9 && limits.cc_minor == 0)) {
      rules.push_back(
          {fmt::format("the wgmma kernels need compute capability 9.0; this GPU has {}.{}",
                       limits.cc_major, limits.cc_minor),
           [](const AttnConfig&) { return false; },
           {"wgmma"}});
    }
    rules.push_back({"the wgmma tiles (Q, two stages of K and Vt) must fit 227 KB of shared memory",
                     [p, acc](const AttnConfig& c) {
                       return c.pipe >= 1 ||
                              wgmma_smem_bytes(p.E, c.warps, c.block_n, acc) <= 232448;
                     },
                     {"wgmma"}});
    if (!kWgmmaPipe1Offered) {
      rules.push_back(
          {"wgmma pipe=1 is not offered until a GPU run confirms its rings "
           "(attention.h: kWgmmaPipe1Offered)",
           [](const AttnConfig& c) { return c.pipe == 0; },
           {"wgmma"}});
    }
    rules.push_back(
        {"wgmma pipe=1 runs in tf32 mode only, with the variants of its head dim, and accurate "
         "takes pipe 0, 2, 5, 6 and 16 (ops/cuda/attention/attention_variants.h)",
         [p, acc](const AttnConfig& c) {
           if (acc) {
             return c.pipe == 0 || wgmma_tma_smem_bytes(p.E, c.warps, c.block_n, c.pipe, true) > 0;
           }
           // tf32's TMA pipes have a cp.async twin (pipe 1) but for 128-key tiles.
           return c.pipe == 0 || wgmma_ws_smem_bytes(p.E, c.warps, c.block_n) > 0 ||
                  (c.pipe >= 2 && wgmma_tma_smem_bytes(p.E, c.warps, c.block_n, c.pipe) > 0);
         },
         {"wgmma"}});
    // pipe 2-5, 7-9, 11, 12, 14 and 15 load K (4, 7 and 9: and V; 8, 9, 11, 12, 14 and 15: and Q)
    // by TMA (11, 12, 14 and 15 read V on its map's terms): offered where those layouts have tensor
    // maps (else the launcher would run pipe 1's kernel under their name). pipes 6 and 16 map
    // their pre-pass's buffers, never K or V; 16 maps Q.
    rules.push_back(
        {"wgmma pipe=2, 3, 4, 5, 7, 8, 9, 11, 12, 14 and 15 (TMA) run the variants of their "
         "head dim (ops/cuda/attention/attention_variants.h) where K's (pipe 4, 7, 9, 11, 12, 14 "
         "and 15: and V's; 8, 9, 11, 12, 14 and 15: and Q's) strides have a tensor map "
         "(ops/cuda/attention/attention_tma.h)",
         [p, acc](const AttnConfig& c) {
           // accurate's only; the first rule checks the table. Pipe 16 reads Q by TMA.
           if (c.pipe == 6) return acc;
           if (c.pipe == 16) return acc && q_tma_mappable(p);
           return c.pipe <= 1 || (tma_mappable(p, c.pipe) &&
                                  wgmma_tma_smem_bytes(p.E, c.warps, c.block_n, c.pipe, acc) > 0);
         },
         {"wgmma"}});
  }
  // Shared memory of an H100 block where the device is not known (the portable space).
  const int64_t max_smem = limits.known ? limits.max_shared_per_block : 227 * 1024;
  return AttnConfig::descriptor().space(
      kKernel, rules, default_for(p, tiled_ok, offer_mma, wgmma_on_device, precision, max_smem),
      impls);
}

AttnConfig choose(const AttentionProblem& p, const AttnLaunch& a, int device) {
  const bool tiled_ok = tiled_eligible(p, a);
  return AttnConfig::from_config(autotune::choose(
      device, kKernel, problem_key(p, tiled_ok, a.precision), /*swept_first=*/false,
      [&](bool constrained) {
        const tt::cuda::DeviceLimits limits =
            constrained ? tt::cuda::device_limits(device) : tt::cuda::DeviceLimits{};
        return space(p, tiled_ok, a.precision, limits);
      }));
}

}  // namespace tt::ops::cuda::attention
