#include "core/timing_summary.h"

#include <algorithm>
#include <cmath>

namespace tt {

double percentile(std::vector<double> samples, double q) {
  if (samples.empty()) return NAN;
  std::sort(samples.begin(), samples.end());
  const double pos = q * static_cast<double>(samples.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(pos));
  const auto hi = static_cast<size_t>(std::ceil(pos));
  return samples[lo] + (samples[hi] - samples[lo]) * (pos - static_cast<double>(lo));
}

TimingSummary summarize(const std::vector<double>& samples_ms) {
  TimingSummary t;
  if (samples_ms.empty()) return t;
  t.median_ms = percentile(samples_ms, 0.5);
  t.p10_ms = percentile(samples_ms, 0.1);
  t.p90_ms = percentile(samples_ms, 0.9);
  t.reps = static_cast<int>(samples_ms.size());
  return t;
}

}  // namespace tt
