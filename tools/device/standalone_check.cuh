// For the device programs built by a bare nvcc command, without the library
// (tools/device/attention_kernel_bench.cu, attention_simt_bench.cu): CK(call), which
// prints where a failing CUDA call failed and exits, and the median time of a launch.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                              \
  do {                                                                                     \
    cudaError_t e_ = (x);                                                                  \
    if (e_ != cudaSuccess) {                                                               \
      std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

// The median ms of 10 runs of `run` on the default stream, each after `prep` (untimed)
// and a write of the 256 MB `flush` buffer (its byte varied per run), so no operand is
// left in L2.
template <class Run, class Prep>
float median_of_10_ms(const Run& run, const Prep& prep, void* flush) {
  cudaEvent_t start, stop;
  CK(cudaEventCreate(&start));
  CK(cudaEventCreate(&stop));
  std::vector<float> t;
  for (int r = 0; r < 10; ++r) {
    prep();
    CK(cudaMemsetAsync(flush, r, 256 << 20));
    CK(cudaEventRecord(start));
    run();
    CK(cudaEventRecord(stop));
    CK(cudaEventSynchronize(stop));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, start, stop));
    t.push_back(ms);
  }
  CK(cudaEventDestroy(start));
  CK(cudaEventDestroy(stop));
  std::sort(t.begin(), t.end());
  return t[5];
}
