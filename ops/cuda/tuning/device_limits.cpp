#include "ops/cuda/tuning/device_limits.h"

#include <cuda_runtime_api.h>

#include <map>
#include <mutex>

#include "core/cuda/check.h"
#include "core/cuda/stream.h"

namespace tt::ops::cuda::tuning {

DeviceLimits hopper_limits() {
  DeviceLimits l;
  l.known = true;
  l.cc_major = 9;
  l.cc_minor = 0;
  l.max_threads_per_block = 1024;
  l.max_shared_per_block = 227 * 1024;
  l.max_cluster = 16;
  return l;
}

const DeviceLimits& device_limits(int device) {
  static std::mutex mutex;
  static std::map<int, DeviceLimits> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(device);
  if (it != cache.end()) return it->second;
  tt::cuda::check_device(device);
  cudaDeviceProp prop{};
  TT_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  DeviceLimits l;
  l.known = true;
  l.cc_major = prop.major;
  l.cc_minor = prop.minor;
  l.max_threads_per_block = prop.maxThreadsPerBlock;
  l.max_shared_per_block = static_cast<int64_t>(prop.sharedMemPerBlockOptin);
  // sm_90 launches clusters of 8 CTAs portably and 16 with the non-portable attribute
  // that the norm launcher sets; earlier GPUs have no clusters.
  l.max_cluster = prop.major >= 9 ? 16 : 0;
  return cache.emplace(device, l).first->second;
}

}  // namespace tt::ops::cuda::tuning
