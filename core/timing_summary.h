// The summary every timing in tensortune reports (core/cuda/timing.h for `tt bench`
// and `tt compare`, the autotuner's sweep and selection, `tt bench --json`): the
// median and the 10th/90th percentiles of the repetitions' times, each linearly
// interpolated between the closest ranks.
#pragma once

#include <vector>

namespace tt {

struct TimingSummary {
  double median_ms = 0;
  double p10_ms = 0;
  double p90_ms = 0;
  int reps = 0;
};

// q in [0, 1]; NaN for no samples.
double percentile(std::vector<double> samples, double q);
// All 0 for no samples.
TimingSummary summarize(const std::vector<double>& samples_ms);

}  // namespace tt
