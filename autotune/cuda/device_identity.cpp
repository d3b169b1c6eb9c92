// current_device_identity() through the CUDA runtime (compiled only with TT_CUDA).
#include "autotune/device_identity.h"

#include <cuda_runtime.h>

#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "core/error.h"

namespace tt::autotune {
namespace {

void check_cuda(cudaError_t status, const char* what) {
  TT_CHECK(status == cudaSuccess, "{} failed: {}", what, cudaGetErrorString(status));
}

// The kernel driver version ("580.159.04") is not exposed by the CUDA runtime; the
// Linux driver publishes it here. Empty when unavailable (another OS, a container
// without /proc/driver).
std::string kernel_driver_version() {
  std::ifstream file("/proc/driver/nvidia/version");
  std::string line;
  if (!file || !std::getline(file, line)) return "";
  std::istringstream words(line);
  std::string word;
  bool after_module = false;
  while (words >> word) {
    if (word == "Module") after_module = true;
    const bool looks_like_version = word.find('.') != std::string::npos &&
                                    word.find_first_not_of("0123456789.") == std::string::npos;
    if (after_module && looks_like_version) return word;
  }
  return "";
}

DeviceIdentity query(int device) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
  TT_CHECK(device >= 0 && device < count,
           "cannot identify CUDA device {}: {} CUDA device(s) are visible", device, count);
  cudaDeviceProp props{};
  check_cuda(cudaGetDeviceProperties(&props, device), "cudaGetDeviceProperties");
  DeviceIdentity identity =
      make_device_identity(props.name, props.major, props.minor, props.multiProcessorCount,
                           static_cast<uint64_t>(props.totalGlobalMem));
  identity.driver = kernel_driver_version();
  check_cuda(cudaDriverGetVersion(&identity.cuda_driver), "cudaDriverGetVersion");
  check_cuda(cudaRuntimeGetVersion(&identity.cuda_runtime), "cudaRuntimeGetVersion");
  return identity;
}

}  // namespace

const DeviceIdentity& current_device_identity(int device) {
  static std::mutex mutex;
  static std::map<int, DeviceIdentity> cache;  // map: references stay valid on insert
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(device);
  if (it == cache.end()) it = cache.emplace(device, query(device)).first;
  return it->second;
}

}  // namespace tt::autotune
