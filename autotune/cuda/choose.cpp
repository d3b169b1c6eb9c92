// choose(): the cached space's lookup for the device's identity (see space_cache.h);
// CUDA-only because the identity is read from the device.
#include <utility>

#include "autotune/device_identity.h"
#include "autotune/lookup.h"
#include "autotune/space_cache.h"

namespace tt::autotune {
namespace {

ChoiceObserver& observer() {
  static ChoiceObserver o;
  return o;
}

}  // namespace

void set_choice_observer(ChoiceObserver o) { observer() = std::move(o); }

Config choose(int device, const std::string& kernel, const std::string& problem, bool swept_first,
              const SpaceBuilder& build) {
  const ParamSpace& space = cached_space(device, kernel, problem, swept_first, build);
  if (observer()) observer()(kernel, problem);
  return lookup(kernel, problem, current_device_identity(device), space).config;
}

}  // namespace tt::autotune
