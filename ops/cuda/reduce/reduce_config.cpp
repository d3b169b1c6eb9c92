// The reduction family's configs (reduce.h): the compiled tables, validity, the
// untimed defaults, the parameter spaces the tuner sweeps and the run-time lookups.
#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "autotune/problem_key.h"
#include "core/error.h"
#include "ops/cuda/reduce/reduce.h"
#include "ops/cuda/reduce/reduce_variants.h"
#include "ops/cuda/tuning/choose.h"

namespace tt::ops::cuda::reduce {
namespace {

using autotune::Config;
using autotune::ParamSpace;

int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }
int64_t next_pow2(int64_t v) {
  int64_t p = 1;
  while (p < v) p *= 2;
  return p;
}

// The widest vector (4, 2, 1 floats) that divides `n` and the alignment allows.
int widest_vec(int64_t n, int align) {
  for (int v : {4, 2, 1}) {
    if (n % v == 0 && v <= align) return v;
  }
  return 1;
}

std::string align_text(int align) { return fmt::format("{}B", align * 4); }

template <class C>
std::vector<int64_t> distinct(const std::vector<C>& table, int C::*field) {
  std::set<int64_t> values;
  for (const C& c : table) values.insert(c.*field);
  return {values.begin(), values.end()};
}

template <class C>
bool compiled(const C& c) {
  const auto& t = C::all();
  return std::find(t.begin(), t.end(), c) != t.end();
}

// Variants whose first load already covers far more than the data are left out of
// the spaces: they only waste lanes (the tuner need not time them).
bool inner_oversized(const InnerConfig& c, const InnerProblem& p) {
  return int64_t{c.lanes} * c.vec > std::max<int64_t>(round_up(p.cols, 128), 128);
}
bool outer_oversized(const OuterConfig& c, const OuterProblem& p) {
  return int64_t{c.col_threads} * c.vec > std::max<int64_t>(next_pow2(p.inner), 64);
}
bool row_oversized(const RowConfig& c, const RowProblem& p) {
  const int64_t floor = std::max<int64_t>(p.cols, 128);
  return int64_t{c.lanes} * c.vec > floor || (c.reg && c.capacity() > 4 * floor);
}

void device_threads(ParamSpace& space, const tuning::DeviceLimits& limits) {
  if (!limits.known) return;
  const int max_threads = limits.max_threads_per_block;
  space.constraint(fmt::format("threads must not exceed the device's {} per block", max_threads),
                   [max_threads](const Config& c) { return c.get("threads") <= max_threads; });
}

}  // namespace

// ---- inner ----

const std::vector<InnerConfig>& InnerConfig::all() {
  static const std::vector<InnerConfig> table = [] {
    std::vector<InnerConfig> t;
#define TT_X(T, L, V, I) t.push_back({T, L, V, I});
    TT_REDUCE_INNER_VARIANTS(TT_X)
#undef TT_X
    return t;
  }();
  return table;
}

bool InnerConfig::operator==(const InnerConfig& o) const {
  return std::tie(threads, lanes, vec, items) == std::tie(o.threads, o.lanes, o.vec, o.items);
}

bool InnerConfig::valid(const InnerProblem& p) const {
  return compiled(*this) && p.rows >= 1 && p.cols >= 1 && p.cols % vec == 0 && vec <= p.align;
}

InnerConfig InnerConfig::default_for(const InnerProblem& p) {
  const int v = widest_vec(p.cols, p.align);
  InnerConfig c;
  if (v == 4) {
    c = p.cols >= 8192  ? InnerConfig{256, 256, 4, 4}
        : p.cols >= 256 ? InnerConfig{256, 32, 4, 4}
        : p.cols >= 64  ? InnerConfig{256, 16, 4, 2}
        : p.cols > 16   ? InnerConfig{256, 8, 4, 2}
                        : InnerConfig{256, 4, 4, 1};
  } else if (v == 2) {
    c = p.cols >= 8192 ? InnerConfig{256, 256, 2, 4} : InnerConfig{256, 32, 2, 4};
  } else {
    c = p.cols >= 8192  ? InnerConfig{256, 256, 1, 8}
        : p.cols >= 128 ? InnerConfig{256, 32, 1, 8}
                        : InnerConfig{256, 8, 1, 4};
  }
  return c;
}

Config InnerConfig::to_config() const {
  return Config({{"threads", threads}, {"lanes", lanes}, {"vec", vec}, {"items", items}});
}

InnerConfig InnerConfig::from_config(const Config& c) {
  return {static_cast<int>(c.get("threads")), static_cast<int>(c.get("lanes")),
          static_cast<int>(c.get("vec")), static_cast<int>(c.get("items"))};
}

// ---- outer ----

const std::vector<OuterConfig>& OuterConfig::all() {
  static const std::vector<OuterConfig> table = [] {
    std::vector<OuterConfig> t;
#define TT_X(T, C, V, I) t.push_back({T, C, V, I});
    TT_REDUCE_OUTER_VARIANTS(TT_X)
#undef TT_X
    return t;
  }();
  return table;
}

bool OuterConfig::operator==(const OuterConfig& o) const {
  return std::tie(threads, col_threads, vec, items) ==
         std::tie(o.threads, o.col_threads, o.vec, o.items);
}

bool OuterConfig::valid(const OuterProblem& p) const {
  return compiled(*this) && p.outer >= 1 && p.rows >= 1 && p.inner >= 1 && p.inner % vec == 0 &&
         vec <= p.align;
}

OuterConfig OuterConfig::default_for(const OuterProblem& p) {
  const int v = widest_vec(p.inner, p.align);
  if (v == 4) {
    return p.inner >= 128  ? OuterConfig{256, 32, 4, 4}
           : p.inner >= 64 ? OuterConfig{256, 16, 4, 4}
                           : OuterConfig{256, 8, 4, 4};
  }
  if (v == 2) return p.inner >= 128 ? OuterConfig{256, 64, 2, 4} : OuterConfig{256, 32, 2, 4};
  return p.inner >= 128  ? OuterConfig{256, 128, 1, 4}
         : p.inner >= 32 ? OuterConfig{256, 32, 1, 8}
         : p.inner >= 8  ? OuterConfig{256, 8, 1, 8}
                         : OuterConfig{256, 4, 1, 8};
}

Config OuterConfig::to_config() const {
  return Config(
      {{"threads", threads}, {"col_threads", col_threads}, {"vec", vec}, {"items", items}});
}

OuterConfig OuterConfig::from_config(const Config& c) {
  return {static_cast<int>(c.get("threads")), static_cast<int>(c.get("col_threads")),
          static_cast<int>(c.get("vec")), static_cast<int>(c.get("items"))};
}

// ---- row maps ----

const char* row_map_name(RowMap m) {
  switch (m) {
    case RowMap::kSoftmax:
      return "softmax";
    case RowMap::kLogSoftmax:
      return "log_softmax";
    case RowMap::kRmsNorm:
      return "rms_norm";
  }
  return "?";
}

const std::vector<RowConfig>& RowConfig::all() {
  static const std::vector<RowConfig> table = [] {
    std::vector<RowConfig> t;
#define TT_X(R, T, L, V, I) t.push_back({R != 0, T, L, V, I});
    TT_ROW_MAP_VARIANTS(TT_X)
#undef TT_X
    return t;
  }();
  return table;
}

bool RowConfig::operator==(const RowConfig& o) const {
  return std::tie(reg, threads, lanes, vec, items) ==
         std::tie(o.reg, o.threads, o.lanes, o.vec, o.items);
}

bool RowConfig::valid(const RowProblem& p) const {
  return compiled(*this) && p.rows >= 1 && p.cols >= 1 && p.cols % vec == 0 && vec <= p.align &&
         (!reg || capacity() >= p.cols);
}

RowConfig RowConfig::default_for(const RowProblem& p) {
  // The narrowest register variant of the widest vector that holds the row; rows
  // longer than every register variant stream.
  for (int v = widest_vec(p.cols, p.align); v >= 1; v /= 2) {
    const RowConfig* best = nullptr;
    for (const RowConfig& c : all()) {
      if (c.reg && c.vec == v && c.valid(p) && !row_oversized(c, p) &&
          (!best || c.capacity() < best->capacity()))
        best = &c;
    }
    if (best) return *best;
  }
  return p.cols % 4 == 0 && p.align >= 4 ? RowConfig{false, 512, 512, 4, 4}
                                         : RowConfig{false, 1024, 1024, 1, 4};
}

Config RowConfig::to_config() const {
  return Config({{"threads", threads}, {"lanes", lanes}, {"vec", vec}, {"items", items}},
                reg ? "reg" : "stream");
}

RowConfig RowConfig::from_config(const Config& c) {
  TT_CHECK(c.impl() == "reg" || c.impl() == "stream",
           "row map config {} names impl '{}', expected reg or stream", c.str(), c.impl());
  return {c.impl() == "reg", static_cast<int>(c.get("threads")), static_cast<int>(c.get("lanes")),
          static_cast<int>(c.get("vec")), static_cast<int>(c.get("items"))};
}

// ---- problem keys ----

std::string inner_problem_key(Op op, const InnerProblem& p) {
  return autotune::ProblemKey()
      .add("op", op_name(op))
      .add("rows", p.rows)
      .add("cols", p.cols)
      .add("align", align_text(p.align))
      .add("precision", "strict")
      .str();
}

std::string outer_problem_key(Op op, const OuterProblem& p) {
  return autotune::ProblemKey()
      .add("op", op_name(op))
      .add("outer", p.outer)
      .add("rows", p.rows)
      .add("inner", p.inner)
      .add("align", align_text(p.align))
      .add("precision", "strict")
      .str();
}

std::string row_problem_key(const RowProblem& p) {
  return autotune::ProblemKey()
      .add("rows", p.rows)
      .add("cols", p.cols)
      .add("align", align_text(p.align))
      .add("precision", "strict")
      .str();
}

// ---- spaces ----

ParamSpace inner_space(const InnerProblem& p, const tuning::DeviceLimits& limits) {
  const auto& t = InnerConfig::all();
  ParamSpace space(kInnerKernel);
  space.axis("threads", distinct(t, &InnerConfig::threads))
      .axis("lanes", distinct(t, &InnerConfig::lanes))
      .axis("vec", distinct(t, &InnerConfig::vec))
      .axis("items", distinct(t, &InnerConfig::items));
  space.constraint("the variant must be compiled (ops/cuda/reduce/reduce_variants.h)",
                   [](const Config& c) { return compiled(InnerConfig::from_config(c)); });
  space.constraint(
      fmt::format("vec must divide the row length {} and not exceed the pointer's "
                  "alignment of {} floats",
                  p.cols, p.align),
      [p](const Config& c) { return p.cols % c.get("vec") == 0 && c.get("vec") <= p.align; });
  space.constraint(
      fmt::format("lanes*vec must not exceed the row length {} rounded up to 128", p.cols),
      [p](const Config& c) { return !inner_oversized(InnerConfig::from_config(c), p); });
  device_threads(space, limits);
  space.set_default(InnerConfig::default_for(p).to_config());
  return space;
}

ParamSpace outer_space(const OuterProblem& p, const tuning::DeviceLimits& limits) {
  const auto& t = OuterConfig::all();
  ParamSpace space(kOuterKernel);
  space.axis("threads", distinct(t, &OuterConfig::threads))
      .axis("col_threads", distinct(t, &OuterConfig::col_threads))
      .axis("vec", distinct(t, &OuterConfig::vec))
      .axis("items", distinct(t, &OuterConfig::items));
  space.constraint("the variant must be compiled (ops/cuda/reduce/reduce_variants.h)",
                   [](const Config& c) { return compiled(OuterConfig::from_config(c)); });
  space.constraint(
      fmt::format("vec must divide the inner size {} and not exceed the pointer's "
                  "alignment of {} floats",
                  p.inner, p.align),
      [p](const Config& c) { return p.inner % c.get("vec") == 0 && c.get("vec") <= p.align; });
  space.constraint(
      fmt::format("col_threads*vec must not exceed the inner size {} rounded up to a power of "
                  "two (at least 64)",
                  p.inner),
      [p](const Config& c) { return !outer_oversized(OuterConfig::from_config(c), p); });
  device_threads(space, limits);
  space.set_default(OuterConfig::default_for(p).to_config());
  return space;
}

ParamSpace row_space(RowMap m, const RowProblem& p, const tuning::DeviceLimits& limits) {
  const auto& t = RowConfig::all();
  ParamSpace space(row_map_name(m));
  space.impls({"reg", "stream"})
      .axis("threads", distinct(t, &RowConfig::threads))
      .axis("lanes", distinct(t, &RowConfig::lanes))
      .axis("vec", distinct(t, &RowConfig::vec))
      .axis("items", distinct(t, &RowConfig::items));
  space.constraint("the variant must be compiled (ops/cuda/reduce/reduce_variants.h)",
                   [](const Config& c) { return compiled(RowConfig::from_config(c)); });
  space.constraint(
      fmt::format("vec must divide the row length {} and not exceed the pointers' "
                  "alignment of {} floats",
                  p.cols, p.align),
      [p](const Config& c) { return p.cols % c.get("vec") == 0 && c.get("vec") <= p.align; });
  space.constraint(fmt::format("lanes*vec*items must hold the whole row of {} floats", p.cols),
                   [p](const Config& c) { return RowConfig::from_config(c).capacity() >= p.cols; },
                   {"reg"});
  space.constraint(fmt::format("lanes*vec must not exceed the row of {} floats (at least 128) "
                               "nor a held row 4 times that",
                               p.cols),
                   [p](const Config& c) { return !row_oversized(RowConfig::from_config(c), p); });
  device_threads(space, limits);
  space.set_default(RowConfig::default_for(p).to_config());
  return space;
}

// ---- lookups ----

InnerConfig choose_inner(Op op, const InnerProblem& p, int device) {
  return InnerConfig::from_config(tuning::choose_config(
      kInnerKernel, inner_problem_key(op, p), device,
      [&](const tuning::DeviceLimits& limits) { return inner_space(p, limits); }));
}

OuterConfig choose_outer(Op op, const OuterProblem& p, int device) {
  return OuterConfig::from_config(tuning::choose_config(
      kOuterKernel, outer_problem_key(op, p), device,
      [&](const tuning::DeviceLimits& limits) { return outer_space(p, limits); }));
}

RowConfig choose_row(RowMap m, const RowProblem& p, int device) {
  return RowConfig::from_config(tuning::choose_config(
      row_map_name(m), row_problem_key(p), device,
      [&](const tuning::DeviceLimits& limits) { return row_space(m, p, limits); }));
}

}  // namespace tt::ops::cuda::reduce
