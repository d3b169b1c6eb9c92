// The one CUDA stream per device that every tensortune op, copy and fill runs on,
// and a guard that makes a device current for a scope.
//
// One stream per device is a deliberate simplification: work on a device is
// executed in the order it was issued, so a kernel never needs an event to wait for
// the kernel that produced its input, and a memory block that the caching allocator
// hands out again after a tensor died cannot be overwritten while an earlier kernel
// still reads it (the new owner's work is queued behind the old owner's on the same
// stream). The streams are non-blocking, so they do not synchronise with work other
// libraries put on the legacy default stream; code that mixes the two must
// synchronise itself (tt::cuda::synchronize).
#pragma once

#include <cuda_runtime_api.h>

namespace tt::cuda {

// The device's stream, created on first use. Throws tt::Error for a device that
// does not exist.
cudaStream_t stream(int device);

// Makes `device` current for the lifetime of the guard and restores the previous
// current device afterwards (CUDA's current device is per host thread).
class DeviceGuard {
 public:
  explicit DeviceGuard(int device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;
  int device_ = -1;
};

// Throws tt::Error unless 0 <= device < device_count(), e.g. "CUDA device cuda:3
// does not exist: this machine has 1 CUDA device.".
void check_device(int device);

}  // namespace tt::cuda
