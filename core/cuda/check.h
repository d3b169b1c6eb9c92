// Status checks for every CUDA runtime and cuBLAS call and after every kernel
// launch. A failure throws tt::Error naming the call as written in the source, the
// error's name and description, and where it happened, e.g.
//   "CUDA call cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, s) failed with
//    cudaErrorInvalidValue (invalid argument) at core/cuda/copy.cu:31."
// Only included by CUDA-enabled sources (TT_CUDA=1).
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

namespace tt::cuda::detail {

[[noreturn]] void throw_cuda_error(cudaError_t status, const char* call, const char* file,
                                   int line);
[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* call, const char* file,
                                     int line);

}  // namespace tt::cuda::detail

#define TT_CUDA_CHECK(call)                                                             \
  do {                                                                                  \
    cudaError_t tt_cuda_status_ = (call);                                               \
    if (tt_cuda_status_ != cudaSuccess)                                                 \
      ::tt::cuda::detail::throw_cuda_error(tt_cuda_status_, #call, __FILE__, __LINE__); \
  } while (0)

#define TT_CUBLAS_CHECK(call)                                                               \
  do {                                                                                      \
    cublasStatus_t tt_cublas_status_ = (call);                                              \
    if (tt_cublas_status_ != CUBLAS_STATUS_SUCCESS)                                         \
      ::tt::cuda::detail::throw_cublas_error(tt_cublas_status_, #call, __FILE__, __LINE__); \
  } while (0)

// After every <<<...>>> launch: a bad configuration (too many threads, too much
// shared memory) is only reported by cudaGetLastError, and it also clears it so
// that the next check does not blame an innocent call.
#define TT_CUDA_CHECK_LAUNCH() TT_CUDA_CHECK(cudaGetLastError())
