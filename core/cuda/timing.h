// GPU timing shared by `tt bench`, `tt compare` and the autotuner's sweep: CUDA
// events on the device's tt stream around each repetition, warm-up first, and the
// L2 cache flushed (a write larger than L2) before every repetition so that inputs
// and weights come from HBM as they would in a real model. Reports the median and
// the spread (10th/90th percentiles) of the repetitions.
#pragma once

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
  // Stop adding repetitions once this much GPU time was spent (after at least 5).
  double max_total_ms = 5000;
};

// `fn` enqueues work on tt::cuda::stream(device) (as every tt op does).
TimingStats time_gpu(const std::function<void()>& fn, int device,
                     const TimingOptions& options = {});

}  // namespace tt::cuda
