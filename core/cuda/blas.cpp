// One cuBLAS handle per device, bound to the device's stream.
#include "core/cuda/blas.h"

#include <mutex>
#include <vector>

#include "core/cuda/check.h"
#include "core/cuda/runtime.h"
#include "core/cuda/stream.h"

namespace tt::cuda {

cublasHandle_t cublas_handle(int device) {
  check_device(device);
  // Never destroyed, like the streams: cublasDestroy from a static destructor can
  // run after the CUDA runtime has shut down.
  static std::mutex mutex;
  static auto* handles = new std::vector<cublasHandle_t>(device_count(), nullptr);
  std::lock_guard<std::mutex> lock(mutex);
  cublasHandle_t& handle = (*handles)[device];
  if (handle == nullptr) {
    DeviceGuard guard(device);
    cublasHandle_t created = nullptr;
    TT_CUBLAS_CHECK(cublasCreate(&created));
    TT_CUBLAS_CHECK(cublasSetStream(created, stream(device)));
    TT_CUBLAS_CHECK(cublasSetMathMode(created, CUBLAS_DEFAULT_MATH));
    handle = created;
  }
  return handle;
}

}  // namespace tt::cuda
