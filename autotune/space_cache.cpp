// The process-wide cache of parameter spaces (see the header).
#include "autotune/space_cache.h"

#include <map>
#include <memory>
#include <mutex>

#include "core/error.h"

namespace tt::autotune {
namespace {

struct SpaceEntry {
  std::unique_ptr<ParamSpace> space;     // with the device constraints
  std::unique_ptr<ParamSpace> portable;  // without them
  bool swept_first = false;
  bool constrained = true;  // `space` has the device constraints
};

std::string cache_key(int device, const std::string& kernel, const std::string& problem) {
  return std::to_string(device) + '\x1f' + kernel + '\x1f' + problem;
}

std::mutex& cache_mutex() {
  static std::mutex mutex;
  return mutex;
}

std::map<std::string, SpaceEntry>& cache() {
  static std::map<std::string, SpaceEntry> entries;
  return entries;
}

}  // namespace

const ParamSpace& cached_space(int device, const std::string& kernel, const std::string& problem,
                               bool swept_first, const SpaceBuilder& build) {
  const std::string key = cache_key(device, kernel, problem);
  {
    std::lock_guard<std::mutex> lock(cache_mutex());
    auto it = cache().find(key);
    if (it != cache().end()) return *it->second.space;
  }
  // Built outside the lock: building may query cuBLASLt, which has locks of its own.
  SpaceEntry entry;
  entry.swept_first = swept_first;
  entry.portable = std::make_unique<ParamSpace>(build(false));
  entry.space = std::make_unique<ParamSpace>(build(true));
  // A default the device constraints reject would turn every launch into an error;
  // such a device (none we know) keeps the portable space and today's behaviour.
  if (!entry.space->is_valid(entry.portable->default_config())) {
    entry.space = std::make_unique<ParamSpace>(build(false));
    entry.constrained = false;
  }
  std::lock_guard<std::mutex> lock(cache_mutex());
  return *cache().emplace(key, std::move(entry)).first->second.space;
}

TunableSpace space_for(const std::string& kernel, const std::string& problem, int device) {
  std::lock_guard<std::mutex> lock(cache_mutex());
  const auto it = cache().find(cache_key(device, kernel, problem));
  TT_CHECK(it != cache().end(),
           "no launch of {} for problem {} on device {} was looked up in this process, so its "
           "parameter space is unknown",
           kernel, problem, device);
  TunableSpace out;
  out.space = it->second.space.get();
  out.swept_first = it->second.swept_first;
  if (it->second.constrained) {
    for (const Config& c : it->second.portable->enumerate()) {
      if (auto why = it->second.space->why_invalid(c)) {
        out.unsupported.push_back({c, "unsupported", *why});
      }
    }
  }
  return out;
}

}  // namespace tt::autotune
