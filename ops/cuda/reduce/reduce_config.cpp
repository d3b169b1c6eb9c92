// The reduction family's configs (reduce.h): the compiled tables, validity, the
// untimed defaults, the parameter spaces the tuner sweeps and the run-time lookups.
#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "autotune/descriptor.h"
#include "autotune/problem_key.h"
#include "autotune/space_cache.h"
#include "core/cuda/device.h"
#include "core/error.h"
#include "ops/cuda/reduce/reduce.h"
#include "ops/cuda/reduce/reduce_variants.h"
#include "ops/cuda/thread_limit.h"

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

template <class C>
using Rule = typename autotune::Descriptor<C>::Constraint;

// The load policy is a run-time argument of every compiled variant: the table the
// descriptor checks holds each variant with each policy.
template <class C>
std::vector<C> with_load_policies(const std::vector<C>& compiled) {
  std::vector<C> t;
  for (int e : {0, 1}) {
    for (C c : compiled) {
      c.evict_first = e;
      t.push_back(c);
    }
  }
  return t;
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
  return std::tie(threads, lanes, vec, items, evict_first) ==
         std::tie(o.threads, o.lanes, o.vec, o.items, o.evict_first);
}

const autotune::Descriptor<InnerConfig>& InnerConfig::descriptor() {
  static const auto d = [] {
    const auto& t = all();
    return autotune::Descriptor<InnerConfig>("reduce.inner")
        .field("threads", &InnerConfig::threads,
               autotune::distinct_values(t, &InnerConfig::threads))
        .field("lanes", &InnerConfig::lanes, autotune::distinct_values(t, &InnerConfig::lanes))
        .field("vec", &InnerConfig::vec, autotune::distinct_values(t, &InnerConfig::vec))
        .field("items", &InnerConfig::items, autotune::distinct_values(t, &InnerConfig::items))
        .field("evict_first", &InnerConfig::evict_first, {0, 1})
        .compiled("the variant must be compiled (ops/cuda/reduce/reduce_variants.h)",
                  with_load_policies(t));
  }();
  return d;
}

bool InnerConfig::valid(const InnerProblem& p) const {
  return descriptor().valid(*this) && p.rows >= 1 && p.cols >= 1 && p.cols % vec == 0 &&
         vec <= p.align;
}

// Untuned defaults, from the sweeps of ops_bench (docs/performance.md): a block per
// row from 2048 floats, 512 threads for a row of a million floats or more (split over
// every SM), and evict-first loads everywhere.
InnerConfig InnerConfig::default_for(const InnerProblem& p) {
  const int v = widest_vec(p.cols, p.align);
  InnerConfig c;
  if (v == 4) {
    c = p.cols >= (1 << 20) ? InnerConfig{512, 512, 4, 4}
        : p.cols >= 2048    ? InnerConfig{256, 256, 4, 4}
        : p.cols >= 256     ? InnerConfig{256, 32, 4, 4}
        : p.cols >= 64      ? InnerConfig{256, 16, 4, 2}
        : p.cols > 16       ? InnerConfig{256, 8, 4, 2}
                            : InnerConfig{256, 4, 4, 1};
  } else if (v == 2) {
    c = p.cols >= 2048 ? InnerConfig{256, 256, 2, 4} : InnerConfig{256, 32, 2, 4};
  } else {
    c = p.cols >= 2048  ? InnerConfig{256, 256, 1, 8}
        : p.cols >= 128 ? InnerConfig{256, 32, 1, 8}
                        : InnerConfig{256, 8, 1, 4};
  }
  c.evict_first = 1;
  return c;
}

Config InnerConfig::to_config() const { return descriptor().to_config(*this); }
InnerConfig InnerConfig::from_config(const Config& c) { return descriptor().from_config(c); }

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
  return std::tie(threads, col_threads, vec, items, evict_first) ==
         std::tie(o.threads, o.col_threads, o.vec, o.items, o.evict_first);
}

const autotune::Descriptor<OuterConfig>& OuterConfig::descriptor() {
  static const auto d = [] {
    const auto& t = all();
    return autotune::Descriptor<OuterConfig>("reduce.outer")
        .field("threads", &OuterConfig::threads,
               autotune::distinct_values(t, &OuterConfig::threads))
        .field("col_threads", &OuterConfig::col_threads,
               autotune::distinct_values(t, &OuterConfig::col_threads))
        .field("vec", &OuterConfig::vec, autotune::distinct_values(t, &OuterConfig::vec))
        .field("items", &OuterConfig::items, autotune::distinct_values(t, &OuterConfig::items))
        .field("evict_first", &OuterConfig::evict_first, {0, 1})
        .compiled("the variant must be compiled (ops/cuda/reduce/reduce_variants.h)",
                  with_load_policies(t));
  }();
  return d;
}

bool OuterConfig::valid(const OuterProblem& p) const {
  return descriptor().valid(*this) && p.outer >= 1 && p.rows >= 1 && p.inner >= 1 &&
         p.inner % vec == 0 && vec <= p.align;
}

OuterConfig OuterConfig::default_for(const OuterProblem& p) {
  const int v = widest_vec(p.inner, p.align);
  OuterConfig c;
  if (v == 4) {
    c = p.inner >= 128  ? OuterConfig{256, 32, 4, 4}
        : p.inner >= 64 ? OuterConfig{256, 16, 4, 4}
                        : OuterConfig{256, 8, 4, 4};
  } else if (v == 2) {
    c = p.inner >= 128 ? OuterConfig{256, 64, 2, 4} : OuterConfig{256, 32, 2, 4};
  } else {
    c = p.inner >= 128  ? OuterConfig{256, 128, 1, 4}
        : p.inner >= 32 ? OuterConfig{256, 32, 1, 8}
        : p.inner >= 8  ? OuterConfig{256, 8, 1, 8}
                        : OuterConfig{256, 4, 1, 8};
  }
  c.evict_first = 1;  // as the inner defaults'
  return c;
}

Config OuterConfig::to_config() const { return descriptor().to_config(*this); }
OuterConfig OuterConfig::from_config(const Config& c) { return descriptor().from_config(c); }

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

const autotune::Descriptor<RowConfig>& RowConfig::descriptor() {
  static const auto d = [] {
    const auto& t = all();
    return autotune::Descriptor<RowConfig>("row map")
        .impl(&RowConfig::reg, {{"reg", true}, {"stream", false}})
        .field("threads", &RowConfig::threads, autotune::distinct_values(t, &RowConfig::threads))
        .field("lanes", &RowConfig::lanes, autotune::distinct_values(t, &RowConfig::lanes))
        .field("vec", &RowConfig::vec, autotune::distinct_values(t, &RowConfig::vec))
        .field("items", &RowConfig::items, autotune::distinct_values(t, &RowConfig::items))
        .compiled("the variant must be compiled (ops/cuda/reduce/reduce_variants.h)", t);
  }();
  return d;
}

bool RowConfig::valid(const RowProblem& p) const {
  return descriptor().valid(*this) && p.rows >= 1 && p.cols >= 1 && p.cols % vec == 0 &&
         vec <= p.align && (!reg || capacity() >= p.cols);
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

Config RowConfig::to_config() const { return descriptor().to_config(*this); }
RowConfig RowConfig::from_config(const Config& c) { return descriptor().from_config(c); }

// ---- problem keys ----

std::string inner_problem_key(Op op, const InnerProblem& p) {
  return autotune::ProblemKey()
      .add("op", op_name(op))
      .add("rows", p.rows)
      .add("cols", p.cols)
      .str_aligned(p.align);
}

std::string outer_problem_key(Op op, const OuterProblem& p) {
  return autotune::ProblemKey()
      .add("op", op_name(op))
      .add("outer", p.outer)
      .add("rows", p.rows)
      .add("inner", p.inner)
      .str_aligned(p.align);
}

std::string row_problem_key(const RowProblem& p) {
  return autotune::ProblemKey().add("rows", p.rows).add("cols", p.cols).str_aligned(p.align);
}

// ---- spaces: the descriptor's axes and compiled table, the problem's rules ----

ParamSpace inner_space(const InnerProblem& p, const tt::cuda::DeviceLimits& limits) {
  std::vector<Rule<InnerConfig>> rules = {
      {fmt::format("vec must divide the row length {} and not exceed the pointer's alignment of "
                   "{} floats",
                   p.cols, p.align),
       [p](const InnerConfig& c) { return p.cols % c.vec == 0 && c.vec <= p.align; }},
      {fmt::format("lanes*vec must not exceed the row length {} rounded up to 128", p.cols),
       [p](const InnerConfig& c) { return !inner_oversized(c, p); }},
  };
  add_thread_limit<InnerConfig>(rules, limits);
  return InnerConfig::descriptor().space(kInnerKernel, rules, InnerConfig::default_for(p));
}

ParamSpace outer_space(const OuterProblem& p, const tt::cuda::DeviceLimits& limits) {
  std::vector<Rule<OuterConfig>> rules = {
      {fmt::format("vec must divide the inner size {} and not exceed the pointer's alignment of "
                   "{} floats",
                   p.inner, p.align),
       [p](const OuterConfig& c) { return p.inner % c.vec == 0 && c.vec <= p.align; }},
      {fmt::format("col_threads*vec must not exceed the inner size {} rounded up to a power of "
                   "two (at least 64)",
                   p.inner),
       [p](const OuterConfig& c) { return !outer_oversized(c, p); }},
  };
  add_thread_limit<OuterConfig>(rules, limits);
  return OuterConfig::descriptor().space(kOuterKernel, rules, OuterConfig::default_for(p));
}

ParamSpace row_space(RowMap m, const RowProblem& p, const tt::cuda::DeviceLimits& limits) {
  std::vector<Rule<RowConfig>> rules = {
      {fmt::format("vec must divide the row length {} and not exceed the pointers' alignment of "
                   "{} floats",
                   p.cols, p.align),
       [p](const RowConfig& c) { return p.cols % c.vec == 0 && c.vec <= p.align; }},
      {fmt::format("lanes*vec*items must hold the whole row of {} floats", p.cols),
       [p](const RowConfig& c) { return c.capacity() >= p.cols; },
       {"reg"}},
      {fmt::format("lanes*vec must not exceed the row of {} floats (at least 128) nor a held row "
                   "4 times that",
                   p.cols),
       [p](const RowConfig& c) { return !row_oversized(c, p); }},
  };
  add_thread_limit<RowConfig>(rules, limits);
  return RowConfig::descriptor().space(row_map_name(m), rules, RowConfig::default_for(p));
}

// ---- lookups ----

InnerConfig choose_inner(Op op, const InnerProblem& p, int device) {
  return InnerConfig::from_config(autotune::choose(
      device, kInnerKernel, inner_problem_key(op, p), /*swept_first=*/false, [&](bool constrained) {
        const tt::cuda::DeviceLimits limits =
            constrained ? tt::cuda::device_limits(device) : tt::cuda::DeviceLimits{};
        return inner_space(p, limits);
      }));
}

OuterConfig choose_outer(Op op, const OuterProblem& p, int device) {
  return OuterConfig::from_config(autotune::choose(
      device, kOuterKernel, outer_problem_key(op, p), /*swept_first=*/false, [&](bool constrained) {
        const tt::cuda::DeviceLimits limits =
            constrained ? tt::cuda::device_limits(device) : tt::cuda::DeviceLimits{};
        return outer_space(p, limits);
      }));
}

RowConfig choose_row(RowMap m, const RowProblem& p, int device) {
  return RowConfig::from_config(autotune::choose(
      device, row_map_name(m), row_problem_key(p), /*swept_first=*/false, [&](bool constrained) {
        const tt::cuda::DeviceLimits limits =
            constrained ? tt::cuda::device_limits(device) : tt::cuda::DeviceLimits{};
        return row_space(m, p, limits);
      }));
}

}  // namespace tt::ops::cuda::reduce
