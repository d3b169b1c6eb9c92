// What a CUDA device allows a kernel launch (threads per block, shared memory per
// block, thread-block clusters), as the kernel families' parameter spaces need it for
// their device constraints. A plain struct, so that CPU tests can state a device by
// hand; `known == false` means "no device constraints" (the portable space).
#pragma once

#include <cstdint>

namespace tt::cuda {

struct DeviceLimits {
  bool known = false;
  int cc_major = 0;
  int cc_minor = 0;
  int max_threads_per_block = 1024;
  int64_t max_shared_per_block = 48 * 1024;  // bytes, with the opt-in for large carve-outs
  int max_cluster = 0;                       // CTAs per cluster; 0: no clusters (before sm_90)
  int sm_count = 0;                          // streaming multiprocessors (0 where not known)
};

// The limits of CUDA device `device`, read once and cached. Throws tt::Error for a
// device that does not exist.
const DeviceLimits& device_limits(int device);

// An H100/H200 (sm_90: 1024 threads, 227 KiB opt-in shared memory, clusters of up
// to 16 CTAs with the non-portable size), for tests.
DeviceLimits hopper_limits();

}  // namespace tt::cuda
