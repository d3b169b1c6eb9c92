// Parameter spaces: how a tunable CUDA kernel declares the choices it can make.
//
// A Config (autotune/config.h) is one point of a space: named integer parameters plus
// an optional string `impl` ("impl=own,bm=128,bn=64").
//
// A ParamSpace declares, in one place per kernel:
//   ParamSpace space("linear");
//   space.impls({"own", "cublas"})                       // optional string axis
//        .axis("threads", {128, 256})
//        .axis("bm", {64, 128}, {"own"})                 // only meaningful for impl=own
//        .axis("vec", {1, 2, 4}, {"own"})
//        .constraint("bm*vec must be divisible by threads",
//                    [](const Config& c) { return c.get("bm") * c.get("vec") % c.get("threads") ==
//                    0; },
//                    {"own"})                            // only checked for impl=own
//        .set_default(Config::parse("impl=own,threads=256,bm=128,vec=4"));
// A config is valid when its impl is declared, it has exactly the axes that apply to
// its impl, each value is a candidate, and every constraint that applies holds.
// why_invalid() names the first reason a config is rejected (for a failed constraint,
// its description verbatim), so that the sweep can record it.
//
// enumerate() lists every valid config (impls in declared order, then the Cartesian
// product of the axes with the last axis varying fastest); sample(n, seed) picks n
// distinct valid configs, the same ones for the same seed on every platform.
// Constraints that depend on the device or the problem (shared memory limits) are
// written as lambdas capturing them: build the space where those are known.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "autotune/config.h"

namespace tt::autotune {

class ParamSpace {
 public:
  using Predicate = std::function<bool(const Config&)>;

  // `kernel` names the space in error messages.
  explicit ParamSpace(std::string kernel);

  // Declares the string axis `impl`. Without it, configs have no impl.
  ParamSpace& impls(std::vector<std::string> names);
  // Declares an integer axis. `only_for_impls` empty: the axis applies to every impl.
  // One name may be declared once per impl: again with other candidates for impls that
  // no earlier declaration of it lists (both lists non-empty).
  ParamSpace& axis(std::string name, std::vector<int64_t> candidates,
                   std::vector<std::string> only_for_impls = {});
  // `description` is the sentence a rejected config reports, so phrase it as the rule
  // ("bm*bk/vec must be divisible by threads"). `only_for_impls` as for axis().
  ParamSpace& constraint(std::string description, Predicate holds,
                         std::vector<std::string> only_for_impls = {});
  ParamSpace& set_default(Config config);

  const std::string& kernel() const { return kernel_; }
  // The declared default; throws tt::Error if none was declared or it is invalid.
  const Config& default_config() const;

  // nullopt when `config` is valid; otherwise the first reason it is rejected.
  std::optional<std::string> why_invalid(const Config& config) const;
  bool is_valid(const Config& config) const { return !why_invalid(config).has_value(); }
  // Throws tt::Error "<kernel>: config <c> is rejected: <reason>" for an invalid config.
  void check(const Config& config) const;

  // Number of points of the product before constraints (over all impls).
  int64_t unconstrained_size() const;
  // Every valid config, in the documented order.
  std::vector<Config> enumerate() const;
  // Every point of the product that a constraint rejects, with the constraint.
  struct Rejected {
    Config config;
    std::string reason;
  };
  std::vector<Rejected> enumerate_rejected() const;
  // min(n, number of valid configs) distinct valid configs, in enumeration order,
  // chosen pseudo-randomly from `seed` (deterministic across platforms). Large
  // products are sampled by drawing random points instead of enumerating them all.
  std::vector<Config> sample(size_t n, uint64_t seed) const;

 private:
  struct Axis {
    std::string name;
    std::vector<int64_t> candidates;
    std::vector<std::string> only_for_impls;
  };
  struct Constraint {
    std::string description;
    Predicate holds;
    std::vector<std::string> only_for_impls;
  };

  std::vector<std::string> impl_names() const;  // {""} when no impl axis
  std::vector<const Axis*> axes_for(const std::string& impl) const;
  int64_t product_size(const std::string& impl) const;
  Config point(int64_t index) const;  // index in [0, unconstrained_size())
  std::optional<std::string> failed_constraint(const Config& config) const;

  std::string kernel_;
  std::vector<std::string> impls_;
  std::vector<Axis> axes_;
  std::vector<Constraint> constraints_;
  std::optional<Config> default_;
};

}  // namespace tt::autotune
