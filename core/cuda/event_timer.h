// CUDA events around one run of a function on a stream, optionally after an L2 flush
// (a memset of a buffer larger than L2, its byte varied per run so that no input or
// weight is left in L2): the one timed repetition of core/cuda/timing.cpp and of the
// device harnesses (tools/device/event_timing.h).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <functional>

#include "core/cuda/check.h"

namespace tt::cuda {

// What to overwrite before each timed run; none when data is null.
struct L2Flush {
  void* data = nullptr;
  size_t bytes = 0;
};

class EventTimer {
 public:
  EventTimer() {
    TT_CUDA_CHECK(cudaEventCreate(&start_));
    TT_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~EventTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  // ms of one run of fn on `stream`, the flush (if any) written with byte `salt` first;
  // the host waits for the run, after `drain` (if any: a process group's synchronize(),
  // for collectives queued beside the stream) returns.
  float time(const std::function<void()>& fn, cudaStream_t stream, L2Flush flush = {}, int salt = 0,
             const std::function<void()>& drain = nullptr) {
    if (flush.data) TT_CUDA_CHECK(cudaMemsetAsync(flush.data, salt & 0xff, flush.bytes, stream));
    TT_CUDA_CHECK(cudaEventRecord(start_, stream));
    fn();
    TT_CUDA_CHECK(cudaEventRecord(stop_, stream));
    if (drain) drain();
    TT_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    TT_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

 private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

}  // namespace tt::cuda
