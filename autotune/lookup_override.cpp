// The forcing scopes of autotune/lookup.h: a process-wide stack, newest last, so that
// a sweep's override inside a `force defaults` scope wins for its kernel while every
// other kernel keeps its default.
#include <algorithm>
#include <mutex>
#include <vector>

#include "autotune/lookup.h"
#include "autotune/lookup_override.h"
#include "autotune/problem_key.h"
#include "core/error.h"

namespace tt::autotune {
namespace {

struct Scope {
  uint64_t id = 0;
  bool force_defaults = false;
  std::string kernel;   // overrides only
  std::string problem;  // normalised; "" = every problem
  Config config;
};

// "m=1, n=2" and "m=1,n=2" name the same problem.
std::string normalized(const std::string& problem) {
  if (problem.empty()) return problem;
  try {
    return ProblemKey::parse(problem).str();
  } catch (const Error&) {
    return problem;
  }
}

class ScopeStack {
 public:
  static ScopeStack& instance() {
    static ScopeStack stack;
    return stack;
  }

  uint64_t push(Scope scope) {
    std::lock_guard<std::mutex> lock(mutex_);
    scope.id = ++next_id_;
    scopes_.push_back(std::move(scope));
    return scopes_.back().id;
  }

  // Scopes usually end in reverse order, but a scope held by an object that outlives
  // a younger one must still remove exactly itself.
  void pop(uint64_t id) {
    std::lock_guard<std::mutex> lock(mutex_);
    scopes_.erase(
        std::remove_if(scopes_.begin(), scopes_.end(), [id](const Scope& s) { return s.id == id; }),
        scopes_.end());
  }

  detail::ForcedConfig find(const std::string& kernel, const std::string& problem) {
    std::lock_guard<std::mutex> lock(mutex_);
    detail::ForcedConfig forced;
    if (scopes_.empty()) return forced;
    const std::string wanted = normalized(problem);
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      if (it->force_defaults) {
        forced.kind = detail::ForcedConfig::Kind::kDefault;
        return forced;
      }
      if (it->kernel == kernel && (it->problem.empty() || it->problem == wanted)) {
        forced.kind = detail::ForcedConfig::Kind::kConfig;
        forced.config = it->config;
        return forced;
      }
    }
    return forced;
  }

 private:
  std::mutex mutex_;
  uint64_t next_id_ = 0;
  std::vector<Scope> scopes_;
};

}  // namespace

namespace detail {

ForcedConfig forced_config(const std::string& kernel, const std::string& problem) {
  return ScopeStack::instance().find(kernel, problem);
}

}  // namespace detail

ScopedConfigOverride::ScopedConfigOverride(std::string kernel, Config config, std::string problem) {
  TT_CHECK(!kernel.empty(), "a config override needs a kernel name");
  Scope scope;
  scope.kernel = std::move(kernel);
  scope.problem = normalized(problem);
  scope.config = std::move(config);
  id_ = ScopeStack::instance().push(std::move(scope));
}

ScopedConfigOverride::~ScopedConfigOverride() { ScopeStack::instance().pop(id_); }

ScopedForceDefaults::ScopedForceDefaults() {
  Scope scope;
  scope.force_defaults = true;
  id_ = ScopeStack::instance().push(std::move(scope));
}

ScopedForceDefaults::~ScopedForceDefaults() { ScopeStack::instance().pop(id_); }

}  // namespace tt::autotune
