// The norm family's descriptors, spaces and run-time choice (see the header): axes
// generated from the compiled tables, the problem's rules shared by the launch-time
// check (valid) and the spaces, device limits.
#include "ops/cuda/norm/norm_space.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <optional>
#include <tuple>

#include "autotune/problem_key.h"
#include "core/error.h"
#include "ops/cuda/thread_limit.h"

namespace tt::ops::cuda::norm {
namespace {

using autotune::Config;
using autotune::Descriptor;
using autotune::distinct_values;
using autotune::ParamSpace;
using tt::cuda::DeviceLimits;
template <class C>
using Rules = std::vector<typename Descriptor<C>::Constraint>;

// The kinds present in the compiled table, in table order of first appearance, so a
// kind added to norm_variants.h joins the space without an edit here.
std::vector<SegmentKind> table_kinds() {
  std::vector<SegmentKind> out;
  for (const SegmentConfig& c : SegmentConfig::all()) {
    if (std::find(out.begin(), out.end(), c.kind) == out.end()) out.push_back(c.kind);
  }
  return out;
}

// The kinds whose table entries use a field beyond its fixed meaning: lanes other
// than threads (subwarp), a cluster of more than one CTA, shared-memory buffers.
// Only those kinds read the field; for the others the launcher's value is implied.
template <class Uses>
std::vector<SegmentKind> kinds_using(Uses uses) {
  std::vector<SegmentKind> out;
  for (const SegmentConfig& c : SegmentConfig::all()) {
    if (uses(c) && std::find(out.begin(), out.end(), c.kind) == out.end()) out.push_back(c.kind);
  }
  return out;
}

std::vector<std::string> kind_names(const std::vector<SegmentKind>& kinds) {
  std::vector<std::string> out;
  for (SegmentKind k : kinds) out.push_back(segment_kind_name(k));
  return out;
}

Descriptor<SegmentConfig> make_segment_descriptor() {
  const auto& table = SegmentConfig::all();
  const auto kind_in = [](std::vector<SegmentKind> kinds) {
    return [kinds](const SegmentConfig& c) {
      return std::find(kinds.begin(), kinds.end(), c.kind) != kinds.end();
    };
  };
  const auto lanes = kinds_using([](const SegmentConfig& c) { return c.lanes != c.threads; });
  const auto cluster = kinds_using([](const SegmentConfig& c) { return c.cluster != 1; });
  const auto buffers = kinds_using([](const SegmentConfig& c) { return c.buffers != 0; });
  std::vector<std::pair<std::string, SegmentKind>> impls;
  for (SegmentKind k : table_kinds()) impls.emplace_back(segment_kind_name(k), k);
  Descriptor<SegmentConfig> d("segment norm");
  d.impl(&SegmentConfig::kind, impls)
      .field("threads", &SegmentConfig::threads, distinct_values(table, &SegmentConfig::threads))
      .field("lanes", &SegmentConfig::lanes,
             distinct_values(table, &SegmentConfig::lanes, kind_in(lanes)), kind_names(lanes),
             [](const SegmentConfig& c) { return c.threads; })
      .field("vec", &SegmentConfig::vec, distinct_values(table, &SegmentConfig::vec))
      .field("items", &SegmentConfig::items, distinct_values(table, &SegmentConfig::items))
      .field("cluster", &SegmentConfig::cluster,
             distinct_values(table, &SegmentConfig::cluster, kind_in(cluster)), kind_names(cluster),
             [](const SegmentConfig&) { return 1; })
      .field("buffers", &SegmentConfig::buffers,
             distinct_values(table, &SegmentConfig::buffers, kind_in(buffers)), kind_names(buffers),
             [](const SegmentConfig&) { return 0; })
      .compiled(
          "the config must be one of the compiled segment variants "
          "(ops/cuda/norm/norm_variants.h)",
          table);
  return d;
}

// ---- the problems' rules: launch-time check and spaces alike ----
bool segment_vec_fits(const SegmentConfig& c, const SegmentProblem& p) {
  return c.vec <= p.align && p.length % c.vec == 0;
}
bool segment_holds(const SegmentConfig& c, const SegmentProblem& p) {
  const int64_t capacity = c.capacity();
  return capacity == 0 || capacity >= p.length;  // 0: a streaming kind
}
bool segment_grid_fits(const SegmentConfig& c, const SegmentProblem& p) {
  int64_t blocks = p.segments;
  if (c.kind == SegmentKind::kSubwarp) {
    const int64_t per_block = int64_t(c.threads / c.lanes) * std::max(c.buffers, 1);
    blocks = (p.segments + per_block - 1) / per_block;
  }
  if (c.kind == SegmentKind::kCluster || c.kind == SegmentKind::kSplit) {
    blocks = p.segments * c.cluster;
  }
  if (c.kind == SegmentKind::kPipe) blocks = 0;  // persistent: one cluster per free GPC slot
  return blocks <= INT_MAX;
}

bool column_vec_fits(const ColumnStatsConfig& c, const ColumnProblem& p) {
  return c.vec <= p.align && p.cols % c.vec == 0;
}
bool column_grid_fits(const ColumnStatsConfig& c, const ColumnProblem& p) {
  const int64_t col_blocks =
      (p.cols + int64_t(c.col_threads) * c.vec - 1) / (int64_t(c.col_threads) * c.vec);
  const int64_t parts = (p.rows + c.chunk_rows - 1) / c.chunk_rows;
  return col_blocks <= 65535 && parts <= INT_MAX;
}

// The contiguous run of one channel: the channels of a row ([N, C]) or one plane.
int64_t affine_run(const AffineProblem& p) { return p.inner == 1 ? p.channels : p.inner; }
bool affine_vec_fits(const AffineConfig& c, const AffineProblem& p) {
  return c.vec <= p.align && affine_run(p) % c.vec == 0;
}
bool affine_grid_fits(const AffineConfig& c, const AffineProblem& p) {
  const int64_t per_block = int64_t(c.threads) * c.vec * c.items;
  return (p.total + per_block - 1) / per_block <= INT_MAX;
}

template <class C>
Rules<C> one_of(const Descriptor<C>& d, std::string reason, std::vector<C> list) {
  return {{std::move(reason), [d, list = std::move(list)](const C& c) {
             return std::any_of(list.begin(), list.end(),
                                [&](const C& x) { return d.equal(c, x); });
           }}};
}

}  // namespace

std::string segment_kind_name(SegmentKind kind) {
  // Indexed by the enum's values (norm_passes.h), in its order.
  static const char* const names[] = {"subwarp", "block", "stream", "cluster", "pipe", "split"};
  const auto i = static_cast<size_t>(kind);
  return i < sizeof(names) / sizeof(names[0]) ? names[i] : "?";
}

// ---- descriptors ----
const Descriptor<SegmentConfig>& segment_descriptor() {
  static const Descriptor<SegmentConfig> d = make_segment_descriptor();
  return d;
}

const Descriptor<ColumnStatsConfig>& column_stats_descriptor() {
  static const Descriptor<ColumnStatsConfig> d = [] {
    const auto& table = ColumnStatsConfig::all();
    using C = ColumnStatsConfig;
    return Descriptor<C>("column stats")
        .field("threads", &C::threads, distinct_values(table, &C::threads))
        .field("col_threads", &C::col_threads, distinct_values(table, &C::col_threads))
        .field("vec", &C::vec, distinct_values(table, &C::vec))
        .field("items", &C::items, distinct_values(table, &C::items))
        .field("chunk_rows", &C::chunk_rows, distinct_values(table, &C::chunk_rows))
        .compiled(
            "the config must be one of the compiled column statistics variants "
            "(ops/cuda/norm/norm_variants.h)",
            table);
  }();
  return d;
}

const Descriptor<AffineConfig>& affine_descriptor() {
  static const Descriptor<AffineConfig> d = [] {
    const auto& table = AffineConfig::all();
    using C = AffineConfig;
    return Descriptor<C>("channel affine")
        .field("threads", &C::threads, distinct_values(table, &C::threads))
        .field("vec", &C::vec, distinct_values(table, &C::vec))
        .field("items", &C::items, distinct_values(table, &C::items))
        .compiled(
            "the config must be one of the compiled channel affine variants "
            "(ops/cuda/norm/norm_variants.h)",
            table);
  }();
  return d;
}

// The configs' text form and equality: their descriptors'.
std::string SegmentConfig::str() const { return segment_descriptor().str(*this); }
bool SegmentConfig::operator==(const SegmentConfig& o) const {
  return segment_descriptor().equal(*this, o);
}
std::string ColumnStatsConfig::str() const { return column_stats_descriptor().str(*this); }
bool ColumnStatsConfig::operator==(const ColumnStatsConfig& o) const {
  return column_stats_descriptor().equal(*this, o);
}
std::string AffineConfig::str() const { return affine_descriptor().str(*this); }
bool AffineConfig::operator==(const AffineConfig& o) const {
  return affine_descriptor().equal(*this, o);
}

// ---- launch-time validity ----
bool valid(const SegmentConfig& c, const SegmentProblem& p) {
  return p.length >= 1 && p.segments >= 0 && segment_descriptor().valid(c) &&
         segment_vec_fits(c, p) && segment_grid_fits(c, p) && segment_holds(c, p);
}

bool valid(const ColumnStatsConfig& c, const ColumnProblem& p) {
  return p.rows >= 1 && p.cols >= 1 && column_stats_descriptor().valid(c) &&
         column_vec_fits(c, p) && column_grid_fits(c, p);
}

bool valid(const AffineConfig& c, const AffineProblem& p) {
  return p.total >= 0 && p.channels >= 1 && p.inner >= 1 && affine_descriptor().valid(c) &&
         affine_vec_fits(c, p) && affine_grid_fits(c, p);
}

// ---- problem keys ----
std::string segment_problem_key(const SegmentProblem& p) {
  return autotune::ProblemKey()
      .add("segments", p.segments)
      .add("length", p.length)
      .str_aligned(p.align);
}

std::string column_problem_key(const ColumnProblem& p) {
  return autotune::ProblemKey().add("rows", p.rows).add("cols", p.cols).str_aligned(p.align);
}

std::string affine_problem_key(const AffineProblem& p) {
  return autotune::ProblemKey()
      .add("total", p.total)
      .add("channels", p.channels)
      .add("inner", p.inner)
      .str_aligned(p.align);
}

namespace {

// A segment past a block's registers is streamed from HBM twice (statistics, then the
// normalisation) unless a cluster's shared memory holds it: the pipe kind reads it once,
// 1.42x faster on the H100 at InstanceNorm2d's 1 MiB slices (docs/performance.md). It
// needs clusters and the opt-in shared memory, so it is the default only where the
// device's limits are known and the space (its device rules) accepts it: the tightest
// pipe variant that holds the segment, then the smallest cluster and the fewest buffers.
void prefer_the_pipe(ParamSpace& space, const SegmentProblem& p) {
  const auto& d = segment_descriptor();
  if (d.from_config(space.default_config()).kind != SegmentKind::kStream) return;
  const auto order = [](const SegmentConfig& c) {
    return std::make_tuple(c.capacity(), c.cluster, c.buffers, -c.vec);
  };
  std::optional<SegmentConfig> best;
  for (const SegmentConfig& c : SegmentConfig::candidates(p)) {
    if (c.kind == SegmentKind::kPipe && space.is_valid(d.to_config(c)) &&
        (!best || order(c) < order(*best)))
      best = c;
  }
  if (best) space.set_default(d.to_config(*best));
}

}  // namespace

// ---- spaces ----
ParamSpace segment_space(const std::string& kernel, const SegmentProblem& p,
                         const DeviceLimits& limits) {
  const auto& d = segment_descriptor();
  Rules<SegmentConfig> rules = {
      {fmt::format("vec must divide the segment length {} and not exceed the pointers' alignment "
                   "of {} floats",
                   p.length, p.align),
       [p](const SegmentConfig& c) { return segment_vec_fits(c, p); }},
      {fmt::format("a kind that keeps the segment on chip must hold all {} floats in "
                   "lanes*vec*items*cluster",
                   p.length),
       [p](const SegmentConfig& c) { return segment_holds(c, p); }},
      {fmt::format("the config must be valid for {} segments of {} floats (grid limits)",
                   p.segments, p.length),
       [p](const SegmentConfig& c) { return valid(c, p); }}};
  for (auto& rule :
       one_of(d,
              "the config must be one of SegmentConfig::candidates() for the problem: on-chip "
              "variants holding less than 4x the segment (or the tightest per vector width), "
              "streaming ones only for long segments or when nothing fits on chip",
              SegmentConfig::candidates(p))) {
    rules.push_back(std::move(rule));
  }
  if (limits.known) {
    add_thread_limit<SegmentConfig>(rules, limits);
    const int max_cluster = std::max(1, limits.max_cluster);
    rules.push_back(
        {limits.max_cluster > 0
             ? fmt::format("cluster must not exceed the device's {} CTAs per cluster", max_cluster)
             : std::string("thread-block clusters need compute capability 9.0 or newer"),
         [max_cluster](const SegmentConfig& c) { return c.cluster <= max_cluster; }});
    const int64_t max_shared = limits.max_shared_per_block;
    rules.push_back({fmt::format("buffers*threads*vec*items floats of shared memory must fit the "
                                 "device's {} bytes per block (pipe)",
                                 max_shared),
                     [max_shared](const SegmentConfig& c) {
                       // Subwarp buffers are segments held in registers, not shared memory.
                       if (c.kind != SegmentKind::kPipe) return true;
                       const int64_t floats = int64_t{c.buffers} * c.threads * c.vec * c.items;
                       return floats * static_cast<int64_t>(sizeof(float)) <= max_shared;
                     }});
  }
  ParamSpace space = d.space(kernel, std::move(rules), SegmentConfig::default_for(p));
  if (limits.known) prefer_the_pipe(space, p);
  return space;
}

ParamSpace column_stats_space(const std::string& kernel, const ColumnProblem& p,
                              const DeviceLimits& limits) {
  Rules<ColumnStatsConfig> rules = {
      {fmt::format("vec must divide the {} columns and not exceed the pointers' alignment of {} "
                   "floats",
                   p.cols, p.align),
       [p](const ColumnStatsConfig& c) { return column_vec_fits(c, p); }},
      {fmt::format("the config must be valid for [{}, {}] (grid limits)", p.rows, p.cols),
       [p](const ColumnStatsConfig& c) { return valid(c, p); }}};
  add_thread_limit<ColumnStatsConfig>(rules, limits);
  return column_stats_descriptor().space(kernel, std::move(rules),
                                         ColumnStatsConfig::default_for(p));
}

ParamSpace affine_space(const std::string& kernel, const AffineProblem& p,
                        const DeviceLimits& limits) {
  Rules<AffineConfig> rules = {
      {fmt::format("vec must divide the {} contiguous floats of one channel run and not exceed "
                   "the pointers' alignment of {} floats",
                   affine_run(p), p.align),
       [p](const AffineConfig& c) { return affine_vec_fits(c, p); }},
      {fmt::format("the config must be valid for {} floats (grid limits)", p.total),
       [p](const AffineConfig& c) { return valid(c, p); }}};
  add_thread_limit<AffineConfig>(rules, limits);
  return affine_descriptor().space(kernel, std::move(rules), AffineConfig::default_for(p));
}

}  // namespace tt::ops::cuda::norm
