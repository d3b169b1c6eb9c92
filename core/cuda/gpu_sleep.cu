// A kernel that only waits: queued ahead of a timed region, it keeps the GPU busy while
// the host enqueues the region's work, so the events time the GPU's work alone.
#include "core/cuda/check.h"
#include "core/cuda/timing.h"

namespace tt::cuda {
namespace {

__global__ void sleep_kernel(unsigned long long ns) {
  unsigned long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

}  // namespace

void gpu_sleep(double microseconds, cudaStream_t stream) {
  if (microseconds <= 0) return;
  sleep_kernel<<<1, 1, 0, stream>>>(static_cast<unsigned long long>(microseconds * 1000));
  TT_CUDA_CHECK(cudaGetLastError());
}

}  // namespace tt::cuda
