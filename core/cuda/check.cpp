// Formats the messages of TT_CUDA_CHECK / TT_CUBLAS_CHECK failures.
#include "core/cuda/check.h"

#include <fmt/format.h>

#include <cstring>
#include <string>

#include "core/error.h"

namespace tt::cuda::detail {
namespace {

// __FILE__ is an absolute path in CMake builds; the part from the repository's
// top-level folder on is what a reader can find.
std::string source_location(const char* file, int line) {
  std::string path(file);
  size_t start = 0;
  for (const char* root : {"/core/", "/ops/", "/autotune/", "/models/", "/tools/", "/tests/"}) {
    size_t at = path.rfind(root);
    if (at != std::string::npos && at + 1 > start) start = at + 1;
  }
  return fmt::format("{}:{}", path.substr(start), line);
}

}  // namespace

void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  // Clear a non-sticky error so that the next, unrelated check does not see it again.
  cudaGetLastError();
  throw Error(fmt::format("CUDA call {} failed with {} ({}) at {}.", call, cudaGetErrorName(status),
                          cudaGetErrorString(status), source_location(file, line)));
}

void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) {
  throw Error(fmt::format("cuBLAS call {} failed with {} ({}) at {}.", call,
                          cublasGetStatusName(status), cublasGetStatusString(status),
                          source_location(file, line)));
}

}  // namespace tt::cuda::detail
