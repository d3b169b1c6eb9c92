// The run-time side of every tunable launch, for all kernel families alike: the
// space of each (device, kernel, problem) a launch meets is built once and kept for
// the process, the launch gets autotune::lookup()'s config validated against it (a
// stale stored config falls back to the default), and the tuner later asks which
// spaces the launches of a model used (space_for), with the configs the device
// constraints rule out. Every choose() is recorded by lookup (autotune::configs_used),
// which is how the tuner discovers the (kernel, problem) pairs a model launches.
//
// A family calls it as
//   const Config c = autotune::choose(device, "group_norm", key, /*swept_first=*/false,
//                                     [&](bool device_constraints) {
//                                       return segment_space("group_norm", p,
//                                           device_constraints ? device_limits(device)
//                                                              : DeviceLimits{});
//                                     });
// and converts the Config with its descriptor (autotune/descriptor.h).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "autotune/config.h"
#include "autotune/database.h"
#include "autotune/space.h"

namespace tt::autotune {

// Builds the space with (true) or without (false: the portable space) the device's
// constraints.
using SpaceBuilder = std::function<ParamSpace(bool device_constraints)>;

// The cached space of (device, kernel, problem), built on first use. `swept_first`:
// the tuner sweeps this kernel before the others of its model (a GEMM stage, whose
// choice decides which passes run). The reference stays valid for the process.
const ParamSpace& cached_space(int device, const std::string& kernel, const std::string& problem,
                               bool swept_first, const SpaceBuilder& build);

// The config for a launch on `device`: lookup() of (kernel, problem) for the device's
// identity, validated against cached_space(). Needs CUDA (the device identity).
Config choose(int device, const std::string& kernel, const std::string& problem, bool swept_first,
              const SpaceBuilder& build);

// Called by choose() with each (kernel, problem) it is asked for, in the order a forward
// asks, before the kernel is launched: the tuner marks the stream there to learn each
// kernel's share of the forward. One observer at a time; an empty function removes it.
using ChoiceObserver = std::function<void(const std::string& kernel, const std::string& problem)>;
void set_choice_observer(ChoiceObserver observer);

// What the sweep needs about a (kernel, problem) that a launch in this process looked
// up on `device`: its space (with the device's constraints), the configs of the
// portable space that the device constraints reject (with the reason), and whether
// it is swept first. Throws tt::Error when no launch looked that pair up.
struct TunableSpace {
  const ParamSpace* space = nullptr;
  std::vector<RejectedVariant> unsupported;
  bool swept_first = false;
};
TunableSpace space_for(const std::string& kernel, const std::string& problem, int device);

}  // namespace tt::autotune
