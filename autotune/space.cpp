#include "autotune/space.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "core/error.h"

namespace tt::autotune {
namespace {

// Products above this are sampled by drawing random points rather than by listing
// every valid config first.
constexpr int64_t kEnumerateLimit = int64_t{1} << 16;

// SplitMix64: a tiny generator whose output is fixed by its definition, so that a
// seed picks the same sample with every standard library.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform enough in [0, n) for sampling (n is far below 2^64).
  uint64_t below(uint64_t n) { return next() % n; }

 private:
  uint64_t state_;
};

bool applies_to(const std::vector<std::string>& only_for_impls, const std::string& impl) {
  return only_for_impls.empty() ||
         std::find(only_for_impls.begin(), only_for_impls.end(), impl) != only_for_impls.end();
}

}  // namespace

ParamSpace::ParamSpace(std::string kernel) : kernel_(std::move(kernel)) {}

ParamSpace& ParamSpace::impls(std::vector<std::string> names) {
  TT_CHECK(!names.empty(), "{}: impls() needs at least one implementation name", kernel_);
  for (size_t i = 0; i < names.size(); ++i) {
    TT_CHECK(!names[i].empty() && names[i].find_first_of(",=") == std::string::npos,
             "{}: impl name '{}' must be non-empty and contain no ',' or '='", kernel_, names[i]);
    TT_CHECK(std::find(names.begin(), names.begin() + i, names[i]) == names.begin() + i,
             "{}: impl '{}' is declared twice", kernel_, names[i]);
  }
  impls_ = std::move(names);
  return *this;
}

ParamSpace& ParamSpace::axis(std::string name, std::vector<int64_t> candidates,
                             std::vector<std::string> only_for_impls) {
  TT_CHECK(!candidates.empty(), "{}: axis '{}' needs at least one candidate value", kernel_, name);
  // A name may be declared again for other impls (its candidates differ per impl): the
  // declarations' impl lists must be non-empty and disjoint.
  const auto overlaps = [&](const Axis& a) {
    if (a.name != name) return false;
    if (a.only_for_impls.empty() || only_for_impls.empty()) return true;
    return std::any_of(only_for_impls.begin(), only_for_impls.end(),
                       [&](const std::string& i) { return applies_to(a.only_for_impls, i); });
  };
  TT_CHECK(std::none_of(axes_.begin(), axes_.end(), overlaps),
           "{}: axis '{}' is declared twice for the same impl", kernel_, name);
  std::vector<int64_t> sorted = candidates;
  std::sort(sorted.begin(), sorted.end());
  TT_CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end(),
           "{}: axis '{}' lists a candidate value twice ({})", kernel_, name,
           fmt::join(candidates, "|"));
  for (const auto& impl : only_for_impls) {
    TT_CHECK(std::find(impls_.begin(), impls_.end(), impl) != impls_.end(),
             "{}: axis '{}' applies to impl '{}', which is not declared (declare impls() first)",
             kernel_, name, impl);
  }
  Config probe;
  probe.set(name, 0);  // rejects names that are not identifiers, or "impl"
  axes_.push_back({std::move(name), std::move(candidates), std::move(only_for_impls)});
  return *this;
}

ParamSpace& ParamSpace::constraint(std::string description, Predicate holds,
                                   std::vector<std::string> only_for_impls) {
  TT_CHECK(!description.empty() && holds, "{}: a constraint needs a description and a predicate",
           kernel_);
  for (const auto& impl : only_for_impls) {
    TT_CHECK(std::find(impls_.begin(), impls_.end(), impl) != impls_.end(),
             "{}: constraint '{}' applies to impl '{}', which is not declared", kernel_,
             description, impl);
  }
  constraints_.push_back({std::move(description), std::move(holds), std::move(only_for_impls)});
  return *this;
}

ParamSpace& ParamSpace::set_default(Config config) {
  default_ = std::move(config);
  return *this;
}

const Config& ParamSpace::default_config() const {
  TT_CHECK(default_.has_value(), "{}: the parameter space declares no default config", kernel_);
  if (auto reason = why_invalid(*default_)) {
    TT_FAIL("{}: the default config {} is invalid: {}", kernel_, default_->str(), *reason);
  }
  return *default_;
}

std::vector<std::string> ParamSpace::impl_names() const {
  return impls_.empty() ? std::vector<std::string>{""} : impls_;
}

std::vector<const ParamSpace::Axis*> ParamSpace::axes_for(const std::string& impl) const {
  std::vector<const Axis*> out;
  for (const auto& a : axes_) {
    if (applies_to(a.only_for_impls, impl)) out.push_back(&a);
  }
  return out;
}

std::optional<std::string> ParamSpace::why_invalid(const Config& config) const {
  const std::string& impl = config.impl();
  if (impls_.empty()) {
    if (!impl.empty()) {
      return fmt::format("impl '{}' is given but {} declares no impl axis", impl, kernel_);
    }
  } else if (std::find(impls_.begin(), impls_.end(), impl) == impls_.end()) {
    return impl.empty() ? fmt::format("impl is missing (one of {})", fmt::join(impls_, "|"))
                        : fmt::format("impl '{}' is not one of {}", impl, fmt::join(impls_, "|"));
  }
  const auto axes = axes_for(impl);
  for (const Axis* a : axes) {
    if (!config.has(a->name)) return fmt::format("parameter '{}' is missing", a->name);
    const int64_t v = config.get(a->name);
    if (std::find(a->candidates.begin(), a->candidates.end(), v) == a->candidates.end()) {
      return fmt::format("{}={} is not a candidate ({})", a->name, v,
                         fmt::join(a->candidates, "|"));
    }
  }
  for (const auto& value : config.values()) {
    // A named copy, not a structured binding: clang before 16 cannot capture those.
    const std::string& name = value.first;
    if (std::none_of(axes.begin(), axes.end(), [&](const Axis* a) { return a->name == name; })) {
      return impl.empty()
                 ? fmt::format("parameter '{}' is not an axis of {}", name, kernel_)
                 : fmt::format("parameter '{}' is not an axis of {} impl={}", name, kernel_, impl);
    }
  }
  return failed_constraint(config);
}

std::optional<std::string> ParamSpace::failed_constraint(const Config& config) const {
  for (const auto& c : constraints_) {
    if (!applies_to(c.only_for_impls, config.impl())) continue;
    bool holds = false;
    try {
      holds = c.holds(config);
    } catch (const Error& e) {
      TT_FAIL("{}: constraint '{}' could not be evaluated on config {}: {}", kernel_, c.description,
              config.str(), e.what());
    }
    if (!holds) return c.description;
  }
  return std::nullopt;
}

void ParamSpace::check(const Config& config) const {
  if (auto reason = why_invalid(config)) {
    TT_FAIL("{}: config {} is rejected: {}", kernel_,
            config.str().empty() ? "(empty)" : config.str(), *reason);
  }
}

int64_t ParamSpace::product_size(const std::string& impl) const {
  int64_t size = 1;
  for (const Axis* a : axes_for(impl)) {
    const auto n = static_cast<int64_t>(a->candidates.size());
    TT_CHECK(size <= (int64_t{1} << 62) / n, "{}: the parameter space has more than 2^62 points",
             kernel_);
    size *= n;
  }
  return size;
}

int64_t ParamSpace::unconstrained_size() const {
  int64_t total = 0;
  for (const auto& impl : impl_names()) {
    const int64_t size = product_size(impl);
    TT_CHECK(total <= (int64_t{1} << 62) - size,
             "{}: the parameter space has more than 2^62 points", kernel_);
    total += size;
  }
  return total;
}

Config ParamSpace::point(int64_t index) const {
  for (const auto& impl : impl_names()) {
    const int64_t size = product_size(impl);
    if (index >= size) {
      index -= size;
      continue;
    }
    const auto axes = axes_for(impl);
    std::vector<int64_t> digits(axes.size());
    for (size_t i = axes.size(); i-- > 0;) {  // the last axis varies fastest
      const auto n = static_cast<int64_t>(axes[i]->candidates.size());
      digits[i] = index % n;
      index /= n;
    }
    Config config;
    config.set_impl(impl);
    for (size_t i = 0; i < axes.size(); ++i) {
      config.set(axes[i]->name, axes[i]->candidates[static_cast<size_t>(digits[i])]);
    }
    return config;
  }
  TT_FAIL("{}: point index out of range", kernel_);
}

std::vector<Config> ParamSpace::enumerate() const {
  std::vector<Config> out;
  const int64_t total = unconstrained_size();
  for (int64_t i = 0; i < total; ++i) {
    Config config = point(i);
    if (!failed_constraint(config)) out.push_back(std::move(config));
  }
  return out;
}

std::vector<ParamSpace::Rejected> ParamSpace::enumerate_rejected() const {
  std::vector<Rejected> out;
  const int64_t total = unconstrained_size();
  for (int64_t i = 0; i < total; ++i) {
    Config config = point(i);
    if (auto reason = failed_constraint(config)) out.push_back({std::move(config), *reason});
  }
  return out;
}

std::vector<Config> ParamSpace::sample(size_t n, uint64_t seed) const {
  SplitMix64 rng(seed);
  const int64_t total = unconstrained_size();
  if (total > kEnumerateLimit) {
    // Draw points until n valid ones are found; the bound on attempts only matters
    // for spaces whose valid configs are rare, which then take the exact path below.
    std::set<int64_t> chosen;
    std::set<int64_t> rejected;
    const uint64_t max_attempts = 64 * static_cast<uint64_t>(n) + 4096;
    for (uint64_t attempt = 0; attempt < max_attempts && chosen.size() < n; ++attempt) {
      const auto index = static_cast<int64_t>(rng.below(static_cast<uint64_t>(total)));
      if (chosen.count(index) || rejected.count(index)) continue;
      if (failed_constraint(point(index))) {
        rejected.insert(index);
      } else {
        chosen.insert(index);
      }
    }
    if (chosen.size() == n) {
      std::vector<Config> out;
      for (int64_t index : chosen) out.push_back(point(index));
      return out;
    }
  }
  std::vector<Config> valid = enumerate();
  if (n >= valid.size()) return valid;
  // Partial Fisher-Yates over positions, then back to enumeration order.
  std::vector<size_t> order(valid.size());
  std::iota(order.begin(), order.end(), size_t{0});
  for (size_t i = 0; i < n; ++i) {
    const size_t j = i + static_cast<size_t>(rng.below(order.size() - i));
    std::swap(order[i], order[j]);
  }
  order.resize(n);
  std::sort(order.begin(), order.end());
  std::vector<Config> out;
  out.reserve(n);
  for (size_t i : order) out.push_back(std::move(valid[i]));
  return out;
}

}  // namespace tt::autotune
