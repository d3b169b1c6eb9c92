// The norm launchers' spaces (see the header): axes generated from the compiled
// tables, constraints mirroring valid()/candidates() with reasons, device limits.
#include "ops/cuda/tuning/norm_spaces.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "autotune/problem_key.h"
#include "core/error.h"

namespace tt::ops::cuda::tuning {
namespace {

using autotune::Config;
using autotune::ParamSpace;
using norm::AffineConfig;
using norm::ColumnStatsConfig;
using norm::SegmentConfig;
using norm::SegmentKind;

// The kinds present in the compiled table, in table order of first appearance, so a
// kind added to norm_variants.h joins the space without an edit here.
const std::vector<SegmentKind>& table_kinds() {
  static const std::vector<SegmentKind> kinds = [] {
    std::vector<SegmentKind> out;
    for (const SegmentConfig& c : SegmentConfig::all()) {
      if (std::find(out.begin(), out.end(), c.kind) == out.end()) out.push_back(c.kind);
    }
    return out;
  }();
  return kinds;
}

// The kinds whose table entries use a field beyond its fixed meaning: lanes other
// than threads (subwarp), a cluster of more than one CTA, shared-memory buffers.
// Only those kinds get the axis; for the others the launcher's value is implied.
template <class Uses>
std::vector<SegmentKind> kinds_using(Uses uses) {
  std::vector<SegmentKind> out;
  for (const SegmentConfig& c : SegmentConfig::all()) {
    if (uses(c) && std::find(out.begin(), out.end(), c.kind) == out.end()) out.push_back(c.kind);
  }
  return out;
}
const std::vector<SegmentKind>& lanes_kinds() {
  static const auto k = kinds_using([](const SegmentConfig& c) { return c.lanes != c.threads; });
  return k;
}
const std::vector<SegmentKind>& cluster_kinds() {
  static const auto k = kinds_using([](const SegmentConfig& c) { return c.cluster != 1; });
  return k;
}
const std::vector<SegmentKind>& buffers_kinds() {
  static const auto k = kinds_using([](const SegmentConfig& c) { return c.buffers != 0; });
  return k;
}

bool has_kind(const std::vector<SegmentKind>& kinds, SegmentKind k) {
  return std::find(kinds.begin(), kinds.end(), k) != kinds.end();
}

std::vector<std::string> kind_names(const std::vector<SegmentKind>& kinds) {
  std::vector<std::string> out;
  for (SegmentKind k : kinds) out.push_back(segment_kind_name(k));
  return out;
}

// The distinct values of `field` over `table` entries that `keep` accepts, in order.
template <class C, class Keep>
std::vector<int64_t> values(const std::vector<C>& table, int C::*field, Keep keep) {
  std::vector<int64_t> out;
  for (const C& c : table) {
    if (!keep(c)) continue;
    const int64_t v = c.*field;
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  return out;
}

template <class C>
std::vector<int64_t> values(const std::vector<C>& table, int C::*field) {
  return values(table, field, [](const C&) { return true; });
}

template <class C>
bool in(const std::vector<C>& list, const C& c) {
  return std::find(list.begin(), list.end(), c) != list.end();
}

std::string align_text(int align) { return fmt::format("{}B", 4 * align); }

// The threads-per-block constraint every norm space shares, for a known device.
void add_thread_limit(ParamSpace& space, const DeviceLimits& limits) {
  if (!limits.known) return;
  const int max_threads = limits.max_threads_per_block;
  space.constraint(fmt::format("threads must not exceed the device's {} per block", max_threads),
                   [max_threads](const Config& c) { return c.get("threads") <= max_threads; });
}

}  // namespace

std::string segment_kind_name(SegmentKind kind) {
  // SegmentConfig::str() spells the kind; reusing it keeps one spelling per kind.
  SegmentConfig c;
  c.kind = kind;
  const std::string text = c.str();
  const size_t begin = text.find("kind=") + 5;
  return text.substr(begin, text.find(',', begin) - begin);
}

// ---- problem keys ----
std::string segment_problem_key(const norm::SegmentProblem& p) {
  return autotune::ProblemKey()
      .add("segments", p.segments)
      .add("length", p.length)
      .add("align", align_text(p.align))
      .add("precision", "strict")
      .str();
}

std::string column_problem_key(const norm::ColumnProblem& p) {
  return autotune::ProblemKey()
      .add("rows", p.rows)
      .add("cols", p.cols)
      .add("align", align_text(p.align))
      .add("precision", "strict")
      .str();
}

std::string affine_problem_key(const norm::AffineProblem& p) {
  return autotune::ProblemKey()
      .add("total", p.total)
      .add("channels", p.channels)
      .add("inner", p.inner)
      .add("align", align_text(p.align))
      .add("precision", "strict")
      .str();
}

// ---- segment norm ----
Config segment_to_config(const SegmentConfig& c) {
  Config out;
  out.set_impl(segment_kind_name(c.kind));
  out.set("threads", c.threads);
  if (has_kind(lanes_kinds(), c.kind)) out.set("lanes", c.lanes);
  out.set("vec", c.vec).set("items", c.items);
  if (has_kind(cluster_kinds(), c.kind)) out.set("cluster", c.cluster);
  if (has_kind(buffers_kinds(), c.kind)) out.set("buffers", c.buffers);
  return out;
}

SegmentConfig segment_from_config(const Config& c) {
  SegmentConfig s;
  bool known = false;
  for (SegmentKind k : table_kinds()) {
    if (c.impl() == segment_kind_name(k)) s.kind = k, known = true;
  }
  TT_CHECK(known, "segment norm config {}: impl must name a compiled kind ({})",
           c.str().empty() ? "(empty)" : c.str(), fmt::join(kind_names(table_kinds()), ", "));
  s.threads = static_cast<int>(c.get("threads"));
  s.lanes = static_cast<int>(c.get_or("lanes", s.threads));
  s.vec = static_cast<int>(c.get("vec"));
  s.items = static_cast<int>(c.get("items"));
  s.cluster = static_cast<int>(c.get_or("cluster", 1));
  s.buffers = static_cast<int>(c.get_or("buffers", 0));
  return s;
}

ParamSpace segment_space(const std::string& kernel, const norm::SegmentProblem& p,
                         const DeviceLimits& limits) {
  const auto& table = SegmentConfig::all();
  const auto kind_in = [](const std::vector<SegmentKind>& kinds) {
    return [&kinds](const SegmentConfig& c) { return has_kind(kinds, c.kind); };
  };
  ParamSpace space(kernel);
  space.impls(kind_names(table_kinds()));
  space.axis("threads", values(table, &SegmentConfig::threads))
      .axis("lanes", values(table, &SegmentConfig::lanes, kind_in(lanes_kinds())),
            kind_names(lanes_kinds()))
      .axis("vec", values(table, &SegmentConfig::vec))
      .axis("items", values(table, &SegmentConfig::items))
      .axis("cluster", values(table, &SegmentConfig::cluster, kind_in(cluster_kinds())),
            kind_names(cluster_kinds()))
      .axis("buffers", values(table, &SegmentConfig::buffers, kind_in(buffers_kinds())),
            kind_names(buffers_kinds()));

  space.constraint(
      "the config must be one of the compiled segment variants "
      "(ops/cuda/norm/norm_variants.h)",
      [&table](const Config& c) { return in(table, segment_from_config(c)); });
  space.constraint(fmt::format("vec must divide the segment length {} and not exceed the "
                               "pointers' alignment of {} floats",
                               p.length, p.align),
                   [p](const Config& c) {
                     const int64_t vec = c.get("vec");
                     return vec <= p.align && p.length % vec == 0;
                   });
  space.constraint(fmt::format("a kind that keeps the segment on chip must hold all {} floats in "
                               "lanes*vec*items*cluster",
                               p.length),
                   [p](const Config& c) {
                     const int64_t capacity = segment_from_config(c).capacity();
                     return capacity == 0 || capacity >= p.length;  // 0: a streaming kind
                   });
  space.constraint(
      fmt::format("the config must be valid for {} segments of {} floats (grid limits)", p.segments,
                  p.length),
      [p](const Config& c) { return segment_from_config(c).valid(p); });
  const std::vector<SegmentConfig> candidates = SegmentConfig::candidates(p);
  space.constraint(
      "the config must be one of SegmentConfig::candidates() for the problem: on-chip variants "
      "holding less than 4x the segment (or the tightest per vector width), streaming ones only "
      "for long segments or when nothing fits on chip",
      [candidates](const Config& c) { return in(candidates, segment_from_config(c)); });
  if (limits.known) {
    add_thread_limit(space, limits);
    const int max_cluster = std::max(1, limits.max_cluster);
    space.constraint(
        limits.max_cluster > 0
            ? fmt::format("cluster must not exceed the device's {} CTAs per cluster", max_cluster)
            : std::string("thread-block clusters need compute capability 9.0 or newer"),
        [max_cluster](const Config& c) { return c.get_or("cluster", 1) <= max_cluster; });
    const int64_t max_shared = limits.max_shared_per_block;
    space.constraint(fmt::format("buffers*threads*vec*items floats of shared memory must fit the "
                                 "device's {} bytes per block (pipe)",
                                 max_shared),
                     [max_shared](const Config& c) {
                       // Subwarp buffers are segments held in registers, not shared memory.
                       if (segment_from_config(c).kind != SegmentKind::kPipe) return true;
                       const int64_t floats = c.get_or("buffers", 0) * c.get("threads") *
                                              c.get("vec") * c.get("items");
                       return floats * static_cast<int64_t>(sizeof(float)) <= max_shared;
                     });
  }
  space.set_default(segment_to_config(SegmentConfig::default_for(p)));
  return space;
}

// ---- column statistics ----
Config column_stats_to_config(const ColumnStatsConfig& c) {
  Config out;
  out.set("threads", c.threads).set("col_threads", c.col_threads).set("vec", c.vec);
  out.set("items", c.items).set("chunk_rows", c.chunk_rows);
  return out;
}

ColumnStatsConfig column_stats_from_config(const Config& c) {
  ColumnStatsConfig s;
  s.threads = static_cast<int>(c.get("threads"));
  s.col_threads = static_cast<int>(c.get("col_threads"));
  s.vec = static_cast<int>(c.get("vec"));
  s.items = static_cast<int>(c.get("items"));
  s.chunk_rows = static_cast<int>(c.get("chunk_rows"));
  return s;
}

ParamSpace column_stats_space(const std::string& kernel, const norm::ColumnProblem& p,
                              const DeviceLimits& limits) {
  const auto& table = ColumnStatsConfig::all();
  ParamSpace space(kernel);
  space.axis("threads", values(table, &ColumnStatsConfig::threads))
      .axis("col_threads", values(table, &ColumnStatsConfig::col_threads))
      .axis("vec", values(table, &ColumnStatsConfig::vec))
      .axis("items", values(table, &ColumnStatsConfig::items))
      .axis("chunk_rows", values(table, &ColumnStatsConfig::chunk_rows));
  space.constraint(
      "the config must be one of the compiled column statistics variants "
      "(ops/cuda/norm/norm_variants.h)",
      [&table](const Config& c) { return in(table, column_stats_from_config(c)); });
  space.constraint(fmt::format("vec must divide the {} columns and not exceed the pointers' "
                               "alignment of {} floats",
                               p.cols, p.align),
                   [p](const Config& c) {
                     const int64_t vec = c.get("vec");
                     return vec <= p.align && p.cols % vec == 0;
                   });
  space.constraint(
      fmt::format("the config must be valid for [{}, {}] (grid limits)", p.rows, p.cols),
      [p](const Config& c) { return column_stats_from_config(c).valid(p); });
  add_thread_limit(space, limits);
  space.set_default(column_stats_to_config(ColumnStatsConfig::default_for(p)));
  return space;
}

// ---- channel affine ----
Config affine_to_config(const AffineConfig& c) {
  Config out;
  out.set("threads", c.threads).set("vec", c.vec).set("items", c.items);
  return out;
}

AffineConfig affine_from_config(const Config& c) {
  AffineConfig a;
  a.threads = static_cast<int>(c.get("threads"));
  a.vec = static_cast<int>(c.get("vec"));
  a.items = static_cast<int>(c.get("items"));
  return a;
}

ParamSpace affine_space(const std::string& kernel, const norm::AffineProblem& p,
                        const DeviceLimits& limits) {
  const auto& table = AffineConfig::all();
  ParamSpace space(kernel);
  space.axis("threads", values(table, &AffineConfig::threads))
      .axis("vec", values(table, &AffineConfig::vec))
      .axis("items", values(table, &AffineConfig::items));
  space.constraint(
      "the config must be one of the compiled channel affine variants "
      "(ops/cuda/norm/norm_variants.h)",
      [&table](const Config& c) { return in(table, affine_from_config(c)); });
  const int64_t run = p.inner == 1 ? p.channels : p.inner;
  space.constraint(fmt::format("vec must divide the {} contiguous floats of one channel run and "
                               "not exceed the pointers' alignment of {} floats",
                               run, p.align),
                   [p, run](const Config& c) {
                     const int64_t vec = c.get("vec");
                     return vec <= p.align && run % vec == 0;
                   });
  space.constraint(fmt::format("the config must be valid for {} floats (grid limits)", p.total),
                   [p](const Config& c) { return affine_from_config(c).valid(p); });
  add_thread_limit(space, limits);
  space.set_default(affine_to_config(AffineConfig::default_for(p)));
  return space;
}

}  // namespace tt::ops::cuda::tuning
