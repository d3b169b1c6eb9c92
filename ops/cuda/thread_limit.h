// The rule every descriptor-built kernel space shares on a known device (the norm,
// reduction, pointwise and chain spaces): a config's `threads` must not exceed the
// device's threads per block.
#pragma once

#include <fmt/format.h>

#include <vector>

#include "autotune/descriptor.h"
#include "core/cuda/device.h"

namespace tt::ops::cuda {

// Appends the rule to `rules` when `limits` is known; C has an int `threads`.
template <class C>
void add_thread_limit(std::vector<typename autotune::Descriptor<C>::Constraint>& rules,
                      const ::tt::cuda::DeviceLimits& limits) {
  if (!limits.known) return;
  const int max_threads = limits.max_threads_per_block;
  rules.push_back({fmt::format("threads must not exceed the device's {} per block", max_threads),
                   [max_threads](const C& c) { return c.threads <= max_threads; }});
}

}  // namespace tt::ops::cuda
