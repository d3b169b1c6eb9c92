// Choosing a winner from noisy timings, apart from any GPU so that the rule is tested
// on synthetic numbers.
//
// The sweep screens every config with a few repetitions, then re-measures the
// contenders (select_contenders: every config whose screening median is within 3% of
// the best, fastest first, plus the default) interleaved with more repetitions, and
// picks with choose_winner:
//   - the fastest re-measured median wins, unless it is not the default and does not
//     beat the default's median by the margin, in which case the default is kept;
//   - margin = max(0.2% of the default's median, 2 standard errors of the difference
//     of the two medians), a median's standard error estimated from the p10-p90
//     spread of its samples as 1.2533 * ((p90 - p10) / 2.5631) / sqrt(reps) (normal
//     samples: p90 - p10 = 2.5631 sigma; the median's error is 1.2533 sigma / sqrt(n)).
// So a tuned config is never slower than the default beyond the measured spread, and
// noise alone does not replace the default.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/timing_summary.h"

namespace tt::autotune {

// Median and p10/p90 of a config's repetitions (core/timing_summary.h; summarize()
// gives all 0 for no samples).
using Timing = TimingSummary;
using ::tt::summarize;
// The standard error of t's median estimated from its spread (see above).
double median_standard_error(const Timing& t);

// Indices into `medians` within (1 + window) of the smallest, fastest first, at most
// max_count of them; `always` is appended when it is not among them. Negative or NaN
// medians (configs that were not timed) never qualify.
std::vector<size_t> select_contenders(const std::vector<double>& medians, double window,
                                      size_t max_count, std::optional<size_t> always);

struct WinnerChoice {
  size_t index = 0;           // the winner
  size_t fastest = 0;         // the smallest median
  bool kept_default = false;  // the fastest was not the default and did not beat it enough
  double margin_ms = 0;       // what the fastest had to gain over the default
  std::string why;            // one sentence for the report
};

// `timings` of the re-measured contenders; `default_index` the default's position
// among them (nullopt when the default could not be measured: the fastest wins).
// Throws tt::Error for an empty list.
WinnerChoice choose_winner(const std::vector<Timing>& timings, std::optional<size_t> default_index);

}  // namespace tt::autotune
