// The configuration spaces of the normalisation launchers (ops/cuda/norm/norm_passes.h):
// the tables generated from ops/cuda/norm/norm_variants.h, validity, defaults,
// candidates, and the text form the autotuner stores.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "core/error.h"
#include "ops/cuda/norm/norm_passes.h"
#include "ops/cuda/norm/norm_variants.h"
#include "ops/cuda/norm/segment_kernels.cuh"

namespace tt::ops::cuda::norm {
namespace {

// The compiled variants valid for p, in table order.
template <class C, class P>
std::vector<C> valid_entries(const P& p) {
  std::vector<C> out;
  for (const auto& c : C::all())
    if (valid(c, p)) out.push_back(c);
  return out;
}

// The first valid variant of the widest vector (nullptr when none is valid).
template <class C, class P>
const C* first_widest(const P& p) {
  const C* best = nullptr;
  for (const auto& c : C::all()) {
    if (!valid(c, p)) continue;
    if (!best || c.vec > best->vec) best = &c;
  }
  return best;
}

}  // namespace

int vec_align(std::initializer_list<const void*> ptrs) {
  int vec = 4;
  for (const void* p : ptrs) {
    if (!p) continue;
    const auto a = reinterpret_cast<uintptr_t>(p);
    while (vec > 1 && a % (vec * sizeof(float)) != 0) vec /= 2;
  }
  return vec;
}

// ---------------------------------------------------------------------------
int64_t SegmentConfig::capacity() const {
  if (kind == SegmentKind::kStream || kind == SegmentKind::kSplit) return 0;
  return int64_t(lanes) * vec * items * cluster;
}

const std::vector<SegmentConfig>& SegmentConfig::all() {
  static const std::vector<SegmentConfig> table = {
#define TT_NORM_X(kind, threads, lanes, vec, items, cluster, buffers) \
  SegmentConfig{SegmentKind::kind, threads, lanes, vec, items, cluster, buffers},
      TT_NORM_SEGMENT_VARIANTS(TT_NORM_X)
#undef TT_NORM_X
  };
  return table;
}

std::vector<SegmentConfig> SegmentConfig::candidates(const SegmentProblem& p) {
  // On-chip variants are kept when they hold less than 4x the segment (beyond that
  // threads only idle), or, per vector width, the tightest ones when none does.
  // Streaming variants only pay off for long segments, or when nothing else fits.
  int64_t tightest[5] = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
  for (const auto& c : all())
    if (valid(c, p) && c.kind != SegmentKind::kStream && c.kind != SegmentKind::kSplit)
      tightest[c.vec] = std::min(tightest[c.vec], c.capacity());
  const bool on_chip = *std::min_element(tightest, tightest + 5) != INT64_MAX;
  std::vector<SegmentConfig> out;
  for (const auto& c : all()) {
    if (!valid(c, p)) continue;
    if (c.kind == SegmentKind::kStream) {
      if (p.length >= 1024 || !on_chip) out.push_back(c);
    } else if (c.kind == SegmentKind::kSplit) {
      // Only worth a cluster when every CTA gets at least one full tile.
      if (p.length >= int64_t(c.cluster) * c.threads * c.vec * c.items) out.push_back(c);
    } else if (c.capacity() < 4 * p.length || c.capacity() == tightest[c.vec]) {
      out.push_back(c);
    }
  }
  return out;
}

SegmentConfig SegmentConfig::default_for(const SegmentProblem& p) {
  // Preferred kind by length: a few lanes for short segments, a block while a segment
  // fits one block's registers, else streaming. Within a kind: widest vector,
  // tightest fit, then the table's order, which lists the measured favourites first.
  // Register clusters are slower than streaming at 1 MiB slices (their loads and
  // stores do not overlap; docs/performance.md), so clusters are not a default. The
  // pipe kind needs clusters: segment_space() makes it the default where the device's
  // limits allow it (norm_space.cpp); this is the portable default.
  struct Pref {
    SegmentKind kind;
    int64_t max_length;
  };
  const Pref order[] = {{SegmentKind::kSubwarp, 1024},
                        {SegmentKind::kBlock, 32768},
                        {SegmentKind::kStream, INT64_MAX}};
  const auto table = candidates(p);  // in the order of all()
  for (const auto& pref : order) {
    if (p.length > pref.max_length) continue;
    int best = -1;
    for (int i = 0; i < static_cast<int>(table.size()); ++i) {
      const auto& c = table[i];
      if (c.kind != pref.kind) continue;
      const auto key = [&](int j) {
        return std::make_tuple(-table[j].vec, table[j].capacity(), j);
      };
      if (best < 0 || key(i) < key(best)) best = i;
    }
    if (best >= 0) return table[best];
  }
  // Unreachable for a valid problem: stream variants with vec 1 fit everything.
  TT_FAIL("segment norm: no compiled variant fits {} segments of length {} (alignment {})",
          p.segments, p.length, p.align);
}

// ---------------------------------------------------------------------------
const std::vector<ColumnStatsConfig>& ColumnStatsConfig::all() {
  static const std::vector<ColumnStatsConfig> table = {
#define TT_NORM_X(threads, col_threads, vec, items, chunk_rows) \
  ColumnStatsConfig{threads, col_threads, vec, items, chunk_rows},
      TT_NORM_COLUMN_STATS_VARIANTS(TT_NORM_X)
#undef TT_NORM_X
  };
  return table;
}

std::vector<ColumnStatsConfig> ColumnStatsConfig::candidates(const ColumnProblem& p) {
  return valid_entries<ColumnStatsConfig>(p);
}

ColumnStatsConfig ColumnStatsConfig::default_for(const ColumnProblem& p) {
  const ColumnStatsConfig* best = first_widest<ColumnStatsConfig>(p);
  TT_CHECK(best, "column stats: no compiled variant fits [{}, {}] (alignment {})", p.rows, p.cols,
           p.align);
  return *best;
}

int64_t column_stats_parts(const ColumnStatsConfig& cfg, int64_t rows) {
  return (rows + cfg.chunk_rows - 1) / cfg.chunk_rows;
}

// ---------------------------------------------------------------------------
const std::vector<AffineConfig>& AffineConfig::all() {
  static const std::vector<AffineConfig> table = {
#define TT_NORM_X(threads, vec, items) AffineConfig{threads, vec, items},
      TT_NORM_AFFINE_VARIANTS(TT_NORM_X)
#undef TT_NORM_X
  };
  return table;
}

std::vector<AffineConfig> AffineConfig::candidates(const AffineProblem& p) {
  return valid_entries<AffineConfig>(p);
}

AffineConfig AffineConfig::default_for(const AffineProblem& p) {
  const AffineConfig* best = first_widest<AffineConfig>(p);
  TT_CHECK(best, "channel affine: no compiled variant fits {} floats of {} channels x {}", p.total,
           p.channels, p.inner);
  return *best;
}

// ---------------------------------------------------------------------------
void check_segment_launch(const char* what, const SegmentConfig& cfg, const SegmentProblem& p,
                          std::initializer_list<const void*> ptrs) {
  TT_CHECK(p.length >= 1 && p.segments >= 0,
           "{}: expected a positive segment length and a non-negative count but got {} "
           "segments of length {}",
           what, p.segments, p.length);
  TT_CHECK(vec_align(ptrs) >= cfg.vec,
           "{}: config {} loads {} floats at a time but a pointer is only aligned to {}", what,
           cfg.str(), cfg.vec, vec_align(ptrs));
  TT_CHECK(valid(cfg, p), "{}: config {} is not valid for {} segments of length {} (alignment {})",
           what, cfg.str(), p.segments, p.length, p.align);
}

}  // namespace tt::ops::cuda::norm
