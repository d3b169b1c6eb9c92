// Internal to the lookup: the stack of forcing scopes (ScopedConfigOverride,
// ScopedForceDefaults in autotune/lookup.h) that lookup() consults first.
#pragma once

#include <string>

#include "autotune/config.h"

namespace tt::autotune::detail {

struct ForcedConfig {
  enum class Kind { kNone, kDefault, kConfig };
  Kind kind = Kind::kNone;
  Config config;  // for kConfig
};

// What the newest scope that matches (kernel, problem) forces; kNone when no scope does.
ForcedConfig forced_config(const std::string& kernel, const std::string& problem);

}  // namespace tt::autotune::detail
