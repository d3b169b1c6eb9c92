#include "core/cuda/timing.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>

#include "core/cuda/check.h"
#include "core/cuda/event_timer.h"
#include "core/cuda/runtime.h"
#include "core/cuda/stream.h"

namespace tt::cuda {
namespace {

// A scratch buffer twice the L2 size per device, written before each timed
// repetition; kept for the process's lifetime.
void* flush_buffer(int device, size_t* nbytes) {
  static void* buffers[64] = {};
  static size_t sizes[64] = {};
  if (!buffers[device]) {
    int l2 = 0;
    TT_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    sizes[device] = std::max<size_t>(2 * static_cast<size_t>(l2), 64u << 20);
    buffers[device] = allocate(sizes[device], device);
  }
  *nbytes = sizes[device];
  return buffers[device];
}

}  // namespace

TimingStats time_gpu(const std::function<void()>& fn, int device, const TimingOptions& options) {
  DeviceGuard guard(device);
  cudaStream_t s = stream(device);
  for (int i = 0; i < options.warmup; ++i) fn();
  TT_CUDA_CHECK(cudaStreamSynchronize(s));

  size_t flush_bytes = 0;
  void* flush = options.flush_l2 ? flush_buffer(device, &flush_bytes) : nullptr;
  EventTimer timer;
  TimingStats stats;
  double total = 0;
  for (int i = 0; i < options.reps; ++i) {
    // The flush and the wait are queued before the start event, outside the timed run.
    if (flush) TT_CUDA_CHECK(cudaMemsetAsync(flush, i & 0xff, flush_bytes, s));
    gpu_sleep(options.hide_host_us, s);
    const float ms = timer.time(fn, s);
    stats.samples_ms.push_back(ms);
    total += ms;
    if (i >= 4 && total > options.max_total_ms) break;
  }
  static_cast<TimingSummary&>(stats) = summarize(stats.samples_ms);
  stats.min_ms = *std::min_element(stats.samples_ms.begin(), stats.samples_ms.end());
  return stats;
}

}  // namespace tt::cuda
