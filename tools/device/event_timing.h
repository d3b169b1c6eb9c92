// Timing for the device harnesses (tools/device/*_harness.*): the median of timed runs
// (core/cuda/event_timer.h) on the harness's own stream. The library's timing
// (core/cuda/timing.h) is tied to the tt stream and reports a spread; the harnesses
// want one number.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <vector>

#include "core/cuda/check.h"
#include "core/cuda/event_timer.h"

namespace tt::device_tools {

using cuda::EventTimer;
using cuda::L2Flush;

// The median ms of `reps` timed runs after `warm` untimed ones.
inline float median_ms(const std::function<void()>& fn, cudaStream_t stream, int warm, int reps,
                       L2Flush flush = {}) {
  for (int i = 0; i < warm; ++i) fn();
  TT_CUDA_CHECK(cudaStreamSynchronize(stream));
  EventTimer timer;
  std::vector<float> t;
  for (int i = 0; i < reps; ++i) t.push_back(timer.time(fn, stream, flush, i));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace tt::device_tools
