// y = x W^T + b on CUDA through cuBLAS, in strict float32 (CUBLAS_COMPUTE_32F on the
// device's handle, which stays in CUBLAS_DEFAULT_MATH: no TF32).
//
// cuBLAS is column-major. A row-major [rows, cols] buffer is the column-major
// [cols, rows] matrix, its transpose, so the row-major product Y = X W^T is computed
// as the column-major Y^T = W X^T: A = W read as column-major [in, out] and
// transposed (op T), B = X read as column-major [in, rows] (op N), C = Y^T as
// column-major [out, rows]. No operand is copied or transposed in memory.
//
// The bias is added afterwards by its own kernel, matching the CPU reference's
// rounding (round the product, then round the sum), rather than through beta = 1
// on a pre-broadcast output, which would fuse the two roundings differently.
#include <cuda_runtime.h>

#include <cstdint>
#include <limits>

#include "core/cuda/blas.h"
#include "core/cuda/check.h"
#include "core/cuda/elementwise.cuh"
#include "core/cuda/launch.h"
#include "core/cuda/stream.h"
#include "ops/cuda/cuda_ops.h"
#include "ops/linear_problem.h"

namespace tt::ops::cuda {
namespace {

// y[r, c] += bias[c] over a row-major [rows, cols] output.
__global__ void add_bias_rows_kernel(float* __restrict__ y, const float* __restrict__ bias,
                                     int64_t n, int64_t cols) {
  for (int64_t i = tt::cuda::global_thread_index(); i < n; i += tt::cuda::global_thread_count()) {
    y[i] += bias[i % cols];
  }
}

// The same with float4 accesses; needs cols % 4 == 0 and both pointers 16-byte
// aligned, so that each vector lies inside one row and starts at a column that is a
// multiple of 4.
__global__ void add_bias_rows_vec4_kernel(float* __restrict__ y, const float* __restrict__ bias,
                                          int64_t n4, int64_t cols4) {
  float4* y4 = reinterpret_cast<float4*>(y);
  const float4* b4 = reinterpret_cast<const float4*>(bias);
  for (int64_t i = tt::cuda::global_thread_index(); i < n4; i += tt::cuda::global_thread_count()) {
    float4 v = y4[i];
    const float4 b = b4[i % cols4];
    v.x += b.x;
    v.y += b.y;
    v.z += b.z;
    v.w += b.w;
    y4[i] = v;
  }
}

void add_bias_rows(float* y, const float* bias, int64_t rows, int64_t cols, cudaStream_t s) {
  const int64_t n = rows * cols;
  if (cols % 4 == 0 && tt::cuda::is_aligned_16(y) && tt::cuda::is_aligned_16(bias)) {
    add_bias_rows_vec4_kernel<<<tt::cuda::grid_size(n / 4), tt::cuda::kElementwiseThreads, 0, s>>>(
        y, bias, n / 4, cols / 4);
  } else {
    add_bias_rows_kernel<<<tt::cuda::grid_size(n), tt::cuda::kElementwiseThreads, 0, s>>>(y, bias,
                                                                                          n, cols);
  }
  TT_CUDA_CHECK_LAUNCH();
}

}  // namespace

Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  const LinearProblem p = linear_problem(x, weight);
  const Tensor& xc = p.x;
  const Tensor& wc = p.weight;
  const int64_t in_features = p.in_features, out_features = p.out_features, rows = p.rows;

  Tensor out = Tensor::empty(p.out_shape, DType::F32, x.device());
  if (out.numel() == 0) return out;

  constexpr int64_t kIntMax = std::numeric_limits<int>::max();
  TT_CHECK(rows <= kIntMax && in_features <= kIntMax && out_features <= kIntMax,
           "linear: cuBLAS takes matrix sizes below 2^31, but the input has {} rows of {} "
           "features and the weight {} output features.",
           rows, in_features, out_features);

  const int device = x.device().index;
  tt::cuda::DeviceGuard guard(device);
  cudaStream_t s = tt::cuda::stream(device);
  float* y = out.data<float>();
  if (in_features == 0) {
    // An empty sum is 0; cuBLAS with k = 0 is not documented to write C.
    TT_CUDA_CHECK(cudaMemsetAsync(y, 0, out.numel() * sizeof(float), s));
  } else {
    cublasHandle_t handle = tt::cuda::cublas_handle(device);
    const float alpha = 1.0f, beta = 0.0f;
    const int m = static_cast<int>(out_features), n = static_cast<int>(rows),
              k = static_cast<int>(in_features);
    TT_CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha,
                                 wc.data<float>(), CUDA_R_32F, k, xc.data<float>(), CUDA_R_32F, k,
                                 &beta, y, CUDA_R_32F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }
  if (bias.defined()) {
    const Tensor bc = bias.contiguous();
    add_bias_rows(y, bc.data<float>(), rows, out_features, s);
  }
  return out;
}

}  // namespace tt::ops::cuda
