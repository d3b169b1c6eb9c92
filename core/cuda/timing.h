// GPU timing shared by `tt bench`, `tt compare` and the autotuner's sweep: CUDA
// events on the device's tt stream around each repetition, warm-up first, and the
// L2 cache flushed (a write larger than L2) before every repetition so that inputs
// and weights come from HBM as they would in a real model. Reports the median and
// the spread (10th/90th percentiles) of the repetitions.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <vector>

#include "core/timing_summary.h"

namespace tt::cuda {

// The summary (core/timing_summary.h), the fastest repetition and every repetition.
struct TimingStats : TimingSummary {
  double min_ms = 0;
  std::vector<double> samples_ms;
};

struct TimingOptions {
  int warmup = 3;
  int reps = 20;
  bool flush_l2 = true;
  // A GPU wait of this many microseconds after the flush and before the start event: it
  // hides the host's enqueueing of `fn`, so the events time the GPU's work alone (as in a
  // pipeline whose host runs ahead). 0 times what a caller that synchronizes sees.
  double hide_host_us = 0;
  // Stop adding repetitions once this much GPU time was spent (after at least 5).
  double max_total_ms = 5000;
};

// `fn` enqueues work on tt::cuda::stream(device) (as every tt op does).
TimingStats time_gpu(const std::function<void()>& fn, int device,
                     const TimingOptions& options = {});

// Queues a kernel that keeps the GPU waiting for `microseconds` on `stream`.
void gpu_sleep(double microseconds, cudaStream_t stream);

}  // namespace tt::cuda
