// Device discovery, the per-device streams, the current-device guard and the device
// limits the parameter spaces need.
#include <fmt/format.h>

#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "core/cuda/check.h"
#include "core/cuda/device.h"
#include "core/cuda/runtime.h"
#include "core/cuda/stream.h"
#include "core/error.h"

namespace tt::cuda {

int device_count() {
  // Asked once: the answer cannot change while the process runs, and a machine
  // without a driver must keep answering 0 cheaply rather than failing each time.
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      cudaGetLastError();  // no driver / no device: not an error for us
      return 0;
    }
    return n;
  }();
  return count;
}

bool is_available() { return device_count() > 0; }

void check_device(int device) {
  int count = device_count();
  TT_CHECK(count > 0,
           "CUDA device cuda:{} was requested but this machine has no usable CUDA device.", device);
  TT_CHECK(device >= 0 && device < count,
           "CUDA device cuda:{} does not exist: this machine has {} CUDA device{}.", device, count,
           count == 1 ? "" : "s");
}

cudaStream_t stream(int device) {
  check_device(device);
  // Created lazily and never destroyed: destroying streams from a static destructor
  // races with the CUDA runtime's own teardown at exit.
  static std::mutex mutex;
  static std::vector<cudaStream_t>* streams = new std::vector<cudaStream_t>(device_count());
  std::lock_guard<std::mutex> lock(mutex);
  cudaStream_t& s = (*streams)[device];
  if (s == nullptr) {
    DeviceGuard guard(device);
    TT_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  }
  return s;
}

DeviceGuard::DeviceGuard(int device) : device_(device) {
  TT_CUDA_CHECK(cudaGetDevice(&previous_));
  if (previous_ != device_) TT_CUDA_CHECK(cudaSetDevice(device_));
}

DeviceGuard::~DeviceGuard() {
  // A destructor must not throw; restoring a device that was current a moment ago
  // cannot fail in practice.
  if (previous_ != device_ && previous_ >= 0) cudaSetDevice(previous_);
}

namespace {

cudaDeviceProp properties(int device) {
  check_device(device);
  cudaDeviceProp prop{};
  TT_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  return prop;
}

}  // namespace

DeviceInfo device_info(int device) {
  const cudaDeviceProp prop = properties(device);
  DeviceGuard guard(device);
  DeviceInfo info;
  info.index = device;
  info.name = prop.name;
  info.sm_count = prop.multiProcessorCount;
  info.cc_major = prop.major;
  info.cc_minor = prop.minor;
  TT_CUDA_CHECK(cudaMemGetInfo(&info.free_memory, &info.total_memory));
  TT_CUDA_CHECK(cudaDriverGetVersion(&info.driver_version));
  TT_CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version));
  return info;
}

void synchronize(int device) {
  check_device(device);
  DeviceGuard guard(device);
  TT_CUDA_CHECK(cudaStreamSynchronize(stream(device)));
}

DeviceLimits hopper_limits() {
  DeviceLimits l;
  l.known = true;
  l.cc_major = 9;
  l.cc_minor = 0;
  l.max_threads_per_block = 1024;
  l.max_shared_per_block = 227 * 1024;
  l.max_cluster = 16;
  l.sm_count = 132;
  return l;
}

const DeviceLimits& device_limits(int device) {
  static std::mutex mutex;
  static std::map<int, DeviceLimits> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(device);
  if (it != cache.end()) return it->second;
  const cudaDeviceProp prop = properties(device);
  DeviceLimits l;
  l.known = true;
  l.cc_major = prop.major;
  l.cc_minor = prop.minor;
  l.max_threads_per_block = prop.maxThreadsPerBlock;
  l.max_shared_per_block = static_cast<int64_t>(prop.sharedMemPerBlockOptin);
  // sm_90 launches clusters of 8 CTAs portably and 16 with the non-portable attribute
  // that the norm launcher sets; earlier GPUs have no clusters.
  l.max_cluster = prop.major >= 9 ? 16 : 0;
  l.sm_count = prop.multiProcessorCount;
  return cache.emplace(device, l).first->second;
}

}  // namespace tt::cuda
