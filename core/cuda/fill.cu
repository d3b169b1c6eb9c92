// Fill kernels: Philox uniform/normal (bit-identical to the CPU fill in
// core/tensor.cpp, since element i is a pure function of (seed, i)) and a constant.
#include <cstdint>
#include <cstring>

#include "core/convert.h"
#include "core/cuda/check.h"
#include "core/cuda/launch.h"
#include "core/cuda/runtime.h"
#include "core/cuda/stream.h"
#include "core/error.h"
#include "core/philox.h"

namespace tt::cuda {
namespace {

// lo + span * u as one explicit fma (philox::uniform_in), exactly as the CPU
// computes it.
__global__ void fill_uniform_kernel(float* __restrict__ dst, int64_t n, uint64_t seed, float lo,
                                    float span) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    dst[i] = philox::uniform_in(seed, static_cast<uint64_t>(i), lo, span);
  }
}

__global__ void fill_normal_kernel(float* __restrict__ dst, int64_t n, uint64_t seed) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    dst[i] = philox::normal(seed, static_cast<uint64_t>(i));
  }
}

__global__ void fill_randint_kernel(int64_t* __restrict__ dst, int64_t n, uint64_t seed,
                                    int64_t low, uint64_t range) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    dst[i] = philox::randint(seed, static_cast<uint64_t>(i), low, range);
  }
}

template <typename Word>
__global__ void fill_value_kernel(Word* __restrict__ dst, int64_t n, Word value) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    dst[i] = value;
  }
}

template <typename Word>
void launch_fill_value(void* dst, int64_t n, const void* value, cudaStream_t s) {
  Word word;
  std::memcpy(&word, value, sizeof word);
  fill_value_kernel<Word>
      <<<grid_size(n), kElementwiseThreads, 0, s>>>(static_cast<Word*>(dst), n, word);
  TT_CUDA_CHECK_LAUNCH();
}

}  // namespace

void fill_uniform(float* dst, int64_t n, uint64_t seed, double lo, double hi, int device) {
  if (n == 0) return;
  DeviceGuard guard(device);
  // The same float32 bound and span as the CPU fill, so the values match bit for bit.
  const float flo = static_cast<float>(lo), span = static_cast<float>(hi - lo);
  fill_uniform_kernel<<<grid_size(n), kElementwiseThreads, 0, stream(device)>>>(dst, n, seed, flo,
                                                                                span);
  TT_CUDA_CHECK_LAUNCH();
}

void fill_normal(float* dst, int64_t n, uint64_t seed, int device) {
  if (n == 0) return;
  DeviceGuard guard(device);
  fill_normal_kernel<<<grid_size(n), kElementwiseThreads, 0, stream(device)>>>(dst, n, seed);
  TT_CUDA_CHECK_LAUNCH();
}

void fill_randint(int64_t* dst, int64_t n, uint64_t seed, int64_t low, uint64_t range, int device) {
  if (n == 0) return;
  DeviceGuard guard(device);
  fill_randint_kernel<<<grid_size(n), kElementwiseThreads, 0, stream(device)>>>(dst, n, seed, low,
                                                                                range);
  TT_CUDA_CHECK_LAUNCH();
}

void fill_value(void* dst, int64_t n, size_t elem_size, const void* value, int device) {
  if (n == 0) return;
  DeviceGuard guard(device);
  cudaStream_t s = stream(device);
  visit_word(elem_size, "fill_value",
             [&](auto word) { launch_fill_value<decltype(word)>(dst, n, value, s); });
}

}  // namespace tt::cuda
