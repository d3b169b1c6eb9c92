// What the GPU tests of raw kernels and CUDA ops share (cuda_gemm_test, cuda_norm_test,
// cuda_reduce_test, cuda_ops_test): the strict-precision bound, the device they run
// on and its tt stream, and NaN-poisoned outputs there (support/test_util.h). The
// files say `using namespace tt::test;`.
#pragma once

#include "core/tensor.h"
#include "support/test_util.h"
#if TT_CUDA
#include <cuda_runtime.h>

#include "core/cuda/stream.h"
#endif

namespace tt::test {

// Relative L2 error bound of strict float32 against the reference.
constexpr double kStrictTol = 1e-5;
inline const Device kGpu = Device::cuda(0);

#if TT_CUDA
inline cudaStream_t gpu_stream() { return cuda::stream(0); }
inline Tensor nan_gpu(const Shape& s) { return nan_filled(s, kGpu); }
#endif

}  // namespace tt::test
