// Validation, alignment fallback and dispatch of the own tiled GEMM.
#include "ops/cuda/gemm/tiled_gemm.h"

#include <algorithm>

#include "core/error.h"

namespace tt::ops::cuda::gemm {
namespace {

int variant_index(const GemmConfig& cfg) {
  GemmConfig tile = cfg;
  tile.chunk_rows = 0;
  const auto& table = own_variants();
  for (size_t i = 0; i < table.size(); ++i) {
    if (table[i] == tile) return static_cast<int>(i);
  }
  return -1;
}

// A width-1 variant that can apply the epilogue, preferring cfg's own tile shape.
GemmConfig vec1_fallback(const GemmConfig& cfg, const GemmProblem& p, const Epilogue& e) {
  GemmProblem any = p;
  any.align = 1;
  const GemmConfig* best = nullptr;
  for (const GemmConfig& c : own_variants()) {
    if (c.vec != 1 || !own_epilogue_valid(c, any, e)) continue;
    if (best == nullptr || (c.bm == cfg.bm && c.bn == cfg.bn)) best = &c;
  }
  TT_CHECK(best != nullptr, "gemm: no width-1 own variant can apply this epilogue to {}", p.str());
  return *best;
}

}  // namespace

bool own_epilogue_valid(const GemmConfig& cfg, const GemmProblem& p, const Epilogue& e) {
  if (cfg.impl != GemmImpl::kOwn || !valid(cfg, p)) return false;
  if (e.kind == EpilogueKind::kGroupNorm) {
    const int64_t gs = e.group_size;
    return gs > 0 && gs % 4 == 0 && cfg.bn % gs == 0 && cfg.bn / gs <= 4 && p.n % gs == 0;
  }
  return true;
}

int64_t own_column_stat_parts(const GemmConfig& cfg, int64_t m) {
  TT_CHECK(cfg.impl == GemmImpl::kOwn && cfg.bm > 0, "gemm: {} is not an own config", cfg.str());
  return (m + cfg.bm - 1) / cfg.bm;
}

void launch_tiled_gemm(const GemmConfig& requested, const GemmArgs& a, const Epilogue& e,
                       cudaStream_t stream) {
  TT_CHECK(a.m >= 0 && a.n >= 0 && a.k >= 0, "gemm: sizes must be >= 0 but are m={} n={} k={}", a.m,
           a.n, a.k);
  if (a.m == 0 || a.n == 0) return;
  TT_CHECK(variant_index(requested) >= 0, "gemm: {} is not a compiled own variant",
           requested.str());
  GemmProblem p{a.m, a.n, a.k, pointer_align({a.x, a.w})};
  if (a.k % 4 != 0) p.align = std::min(p.align, a.k % 2 == 0 ? 2 : 1);
  // The requested tile must be able to apply the epilogue whatever the alignment; only
  // then may a width-1 fallback stand in for it.
  GemmProblem as_aligned = p;
  as_aligned.align = requested.vec;
  TT_CHECK(own_epilogue_valid(requested, as_aligned, e),
           "gemm: {} cannot apply the group norm epilogue to groups of {} of {} channels (a "
           "tile must hold whole groups, at most 4, of a multiple of 4 channels)",
           requested.str(), e.group_size, a.n);
  GemmConfig cfg = requested;
  if (cfg.vec > p.align) cfg = vec1_fallback(cfg, p, e);
  if (e.kind == EpilogueKind::kColumnStats) {
    TT_CHECK(e.part_mean != nullptr && e.part_m2 != nullptr,
             "gemm: the column statistics epilogue needs part_mean and part_m2 buffers");
    // The partials are laid out for the config's BM; a fallback must keep it.
    TT_CHECK(cfg.bm == requested.bm, "gemm: fallback {} changes BM of {}", cfg.str(),
             requested.str());
    TT_CHECK(e.row0 % cfg.bm == 0,
             "gemm: the column statistics epilogue needs its first row ({}) to start a band of "
             "{} rows",
             e.row0, cfg.bm);
  }
  const int index = variant_index(cfg);
  switch (e.kind) {
    case EpilogueKind::kPointwise:
      detail::launch_pointwise_variant(index, a, e, stream);
      break;
    case EpilogueKind::kGroupNorm:
      detail::launch_group_norm_variant(index, a, e, stream);
      break;
    case EpilogueKind::kColumnStats:
      detail::launch_column_stats_variant(index, a, e, stream);
      break;
  }
}

}  // namespace tt::ops::cuda::gemm
