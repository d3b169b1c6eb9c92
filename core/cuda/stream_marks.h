// CUDA events recorded on a stream at chosen points of a run, and the GPU time between
// consecutive ones: how a run's stream time splits between its parts (the tuner's share of
// each fused group, `tt compile --profile`'s time per replay step). The host does not wait
// while marking; intervals_ms() waits for the last mark.
#pragma once

#include <cuda_runtime_api.h>

#include <vector>

#include "core/cuda/check.h"

namespace tt::cuda {

class StreamMarks {
 public:
  explicit StreamMarks(cudaStream_t stream) : stream_(stream) {}
  ~StreamMarks() {
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
  }
  StreamMarks(const StreamMarks&) = delete;
  StreamMarks& operator=(const StreamMarks&) = delete;

  // Records the next mark on the stream.
  void mark() {
    cudaEvent_t e = nullptr;
    TT_CUDA_CHECK(cudaEventCreate(&e));
    events_.push_back(e);
    TT_CUDA_CHECK(cudaEventRecord(e, stream_));
  }
  size_t count() const { return events_.size(); }

  // ms from mark i to mark i + 1, for every i (one fewer than the marks).
  std::vector<double> intervals_ms() const {
    std::vector<double> ms;
    if (events_.empty()) return ms;
    TT_CUDA_CHECK(cudaEventSynchronize(events_.back()));
    for (size_t i = 0; i + 1 < events_.size(); ++i) {
      float t = 0;
      TT_CUDA_CHECK(cudaEventElapsedTime(&t, events_[i], events_[i + 1]));
      ms.push_back(t);
    }
    return ms;
  }

 private:
  cudaStream_t stream_;
  std::vector<cudaEvent_t> events_;
};

}  // namespace tt::cuda
