// The GEMM config tables (own and tc variants), the tc conversion and the untuned
// defaults.
#include "ops/cuda/gemm/gemm_config.h"

#include <fmt/format.h>

#include <cstdint>
#include <limits>

#include "core/error.h"
#include "ops/cuda/gemm/gemm_space.h"
#include "ops/cuda/gemm/tc_config.h"
#include "ops/cuda/gemm/tiled_gemm_variants.h"

namespace tt::ops::cuda::gemm {

std::string GemmProblem::str() const { return fmt::format("m={},n={},k={}", m, n, k); }

const std::vector<GemmConfig>& own_variants() {
  static const std::vector<GemmConfig> table = [] {
    std::vector<GemmConfig> t;
#define TT_GEMM_CONFIG_ROW(BM, BN, BK, TM, TN, VEC, MINB) \
  t.push_back(GemmConfig{GemmImpl::kOwn, BM, BN, BK, TM, TN, VEC, 2, 0});
    TT_GEMM_OWN_VARIANTS(TT_GEMM_CONFIG_ROW)
#undef TT_GEMM_CONFIG_ROW
    return t;
  }();
  return table;
}

sm90::TcConfig to_tc_config(const GemmConfig& c) {
  sm90::TcConfig t;
  t.mode = c.tc_accurate ? sm90::TcMode::accurate : sm90::TcMode::tf32;
  t.a_regs = c.tc_a_regs != 0;
  t.bm = c.bm;
  t.bn = c.bn;
  t.bk = c.bk;
  t.stages = c.stages;
  t.consumers = c.tc_warpgroups;
  t.pingpong = c.tc_pingpong != 0;
  t.cluster = c.tc_cluster;
  t.promote = c.tc_promote;
  t.group_m = c.tc_group;
  t.raster_n = c.tc_raster_n != 0;
  t.persistent = c.tc_persistent != 0;
  t.vec = c.tc_vec;
  return t;
}

GemmConfig from_tc_config(const sm90::TcConfig& t) {
  GemmConfig c;
  c.impl = GemmImpl::kTc;
  c.tc_accurate = t.mode == sm90::TcMode::accurate ? 1 : 0;
  c.tc_a_regs = t.a_regs ? 1 : 0;
  c.bm = t.bm;
  c.bn = t.bn;
  c.bk = t.bk;
  c.stages = t.stages;
  c.tc_warpgroups = t.consumers;
  c.tc_pingpong = t.pingpong ? 1 : 0;
  c.tc_cluster = t.cluster;
  c.tc_promote = t.promote;
  c.tc_group = t.group_m;
  c.tc_raster_n = t.raster_n ? 1 : 0;
  c.tc_persistent = t.persistent ? 1 : 0;
  c.tc_vec = t.vec;
  return c;
}

const TcRuntimeCandidates& tc_runtime_candidates() {
  static const TcRuntimeCandidates values = [] {
    TcRuntimeCandidates v;
#if TT_SM90_GEMM
    const sm90::TcRuntimeAxes& ax = sm90::tc_gemm_runtime_axes();
    const auto ints = [](const auto& list) {
      std::vector<int64_t> out;
      for (auto x : list) out.push_back(static_cast<int64_t>(x));
      return out;
    };
    v.promote = ints(ax.promote);
    v.group = ints(ax.group_m);
    v.raster_n = ints(ax.raster_n);
    v.persistent = ints(ax.persistent);
    v.vec = ints(ax.vec);
#else
    v.promote = v.group = v.raster_n = v.persistent = v.vec = {0};
#endif
    return v;
  }();
  return values;
}

bool tc_runnable(const GemmConfig& c) {
#if TT_SM90_GEMM
  return sm90::tc_config_invalid_reason(to_tc_config(c)).empty();
#else
  (void)c;
  return false;
#endif
}

const std::vector<GemmConfig>& tc_variants() {
  static const std::vector<GemmConfig> table = [] {
    std::vector<GemmConfig> t;
#if TT_SM90_GEMM
    for (const sm90::TcConfig& v : sm90::tc_gemm_variants()) t.push_back(from_tc_config(v));
#endif
    return t;
  }();
  return table;
}

GemmConfig tc_default(bool accurate) {
#if TT_SM90_GEMM
  return from_tc_config(
      sm90::tc_gemm_default(accurate ? sm90::TcMode::accurate : sm90::TcMode::tf32));
#else
  TT_FAIL("gemm: this build has no sm_90a code, so the tensor-core family has no {} default",
          accurate ? "accurate" : "tf32");
#endif
}

bool tc_fits(const GemmProblem& p) {
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  return p.k % 4 == 0 && p.align >= 4 && p.m >= 1 && p.n >= 1 && p.k >= 1 && p.m <= kMax &&
         p.n <= kMax && p.k <= kMax;
}

std::string accurate_fallback_message(int cc_major, int cc_minor, bool compiled) {
  if (cc_major == 9 && cc_minor == 0) {
    if (compiled) return "";
    return "accurate runs the strict path on this GPU (compute capability 9.0, but this build "
           "has no sm_90a code for the tensor-core family)";
  }
  return fmt::format(
      "accurate runs the strict path on this GPU (compute capability {}.{}; the tensor-core "
      "family needs 9.0)",
      cc_major, cc_minor);
}

GemmConfig GemmConfig::cublaslt(int algo_index, int64_t chunk_rows, int64_t tail_rows) {
  GemmConfig c;
  c.impl = GemmImpl::kCublasLt;
  c.cublas_algo_index = algo_index;
  c.chunk_rows = chunk_rows;
  c.tail_rows = tail_rows;
  return c;
}

GemmConfig GemmConfig::cublaslt_tf32(int algo_index, int64_t chunk_rows, int64_t tail_rows) {
  GemmConfig c = cublaslt(algo_index, chunk_rows, tail_rows);
  c.impl = GemmImpl::kCublasLtTf32;
  return c;
}

GemmConfig GemmConfig::default_for(const GemmProblem& p, Precision precision, bool tc_device) {
  switch (precision) {
    case Precision::strict:
      break;
    case Precision::tf32:
      return cublaslt_tf32(0);
    case Precision::accurate:
      if (tc_device && !tc_variants().empty() && tc_fits(p)) return tc_default(true);
      break;
  }
  return cublaslt(0);
}

GemmConfig GemmConfig::own_default_for(const GemmProblem& p) {
  // Large problems: the 128x128 tile with 8x8 per thread; small ones: 64x64 so that
  // more CTAs share the SMs. The VEC 1 rows catch any K and any alignment.
  // "Small" is fewer 128x128 tiles than one wave at two CTAs per SM on a 132-SM H100.
  const int64_t tiles = ((p.m + 127) / 128) * ((p.n + 127) / 128);
  const bool small = tiles < 2 * 132;
  const int vec = p.align >= 4 ? 4 : 1;
  const int tile = small ? 64 : 128;
  return GemmConfig{GemmImpl::kOwn, tile, tile, 8, 8, 8, vec, 2, 0};
}

std::vector<GemmConfig> candidates(const GemmProblem& p, int cublas_candidates) {
  std::vector<GemmConfig> out;
  for (const GemmConfig& c : own_variants()) {
    if (valid(c, p)) out.push_back(c);
  }
  for (int i = 0; i < cublas_candidates; ++i) out.push_back(GemmConfig::cublaslt(i));
  return out;
}

int pointer_align(std::initializer_list<const void*> ptrs) {
  int align = 4;
  for (const void* p : ptrs) {
    if (p == nullptr) continue;
    const auto a = reinterpret_cast<uintptr_t>(p);
    if (a % 16 != 0) align = align < 2 ? align : 2;
    if (a % 8 != 0) align = 1;
  }
  return align;
}

}  // namespace tt::ops::cuda::gemm
