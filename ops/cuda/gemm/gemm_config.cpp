// The GEMM config table and the untuned defaults.
#include "ops/cuda/gemm/gemm_config.h"

#include <fmt/format.h>

#include <cstdint>

#include "core/error.h"
#include "ops/cuda/gemm/gemm_space.h"
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

GemmConfig GemmConfig::cublaslt(int algo_index, int64_t chunk_rows, int64_t tail_rows) {
  GemmConfig c;
  c.impl = GemmImpl::kCublasLt;
  c.cublas_algo_index = algo_index;
  c.chunk_rows = chunk_rows;
  c.tail_rows = tail_rows;
  return c;
}

GemmConfig GemmConfig::default_for(const GemmProblem&) { return cublaslt(0); }

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
