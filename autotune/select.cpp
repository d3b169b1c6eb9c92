#include "autotune/select.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.h"

namespace tt::autotune {
namespace {

constexpr double kMinGain = 0.002;            // the default is kept unless beaten by 0.2%
constexpr double kP10P90Sigmas = 2.5631;      // p90 - p10 of a normal distribution
constexpr double kMedianEfficiency = 1.2533;  // sqrt(pi / 2)

bool timed(double median) { return std::isfinite(median) && median > 0; }

}  // namespace

double median_standard_error(const Timing& t) {
  if (t.reps < 1) return 0;
  const double sigma = std::max(0.0, t.p90_ms - t.p10_ms) / kP10P90Sigmas;
  return kMedianEfficiency * sigma / std::sqrt(static_cast<double>(t.reps));
}

std::vector<size_t> select_contenders(const std::vector<double>& medians, double window,
                                      size_t max_count, std::optional<size_t> always) {
  std::vector<size_t> order;
  for (size_t i = 0; i < medians.size(); ++i) {
    if (timed(medians[i])) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return medians[a] < medians[b]; });
  std::vector<size_t> out;
  if (!order.empty()) {
    const double limit = medians[order.front()] * (1.0 + window);
    for (size_t i : order) {
      if (medians[i] > limit || out.size() >= max_count) break;
      out.push_back(i);
    }
  }
  if (always && *always < medians.size() && timed(medians[*always]) &&
      std::find(out.begin(), out.end(), *always) == out.end()) {
    out.push_back(*always);
  }
  return out;
}

WinnerChoice choose_winner(const std::vector<Timing>& timings,
                           std::optional<size_t> default_index) {
  TT_CHECK(!timings.empty(), "choose_winner: there are no timings to choose from");
  WinnerChoice c;
  c.fastest = 0;
  for (size_t i = 1; i < timings.size(); ++i) {
    if (timings[i].median_ms < timings[c.fastest].median_ms) c.fastest = i;
  }
  c.index = c.fastest;
  if (!default_index) {
    c.why = "the default could not be measured; the fastest verified config wins";
    return c;
  }
  TT_CHECK(*default_index < timings.size(), "choose_winner: the default index {} is out of range",
           *default_index);
  if (c.fastest == *default_index) {
    c.why = "the default is the fastest";
    return c;
  }
  const Timing& d = timings[*default_index];
  const Timing& w = timings[c.fastest];
  const double se = std::hypot(median_standard_error(d), median_standard_error(w));
  c.margin_ms = std::max(kMinGain * d.median_ms, 2.0 * se);
  if (w.median_ms < d.median_ms - c.margin_ms) {
    c.why = fmt::format("{:.4f} ms beats the default's {:.4f} ms by more than the {:.4f} ms margin",
                        w.median_ms, d.median_ms, c.margin_ms);
  } else {
    c.index = *default_index;
    c.kept_default = true;
    c.why = fmt::format(
        "the fastest ({:.4f} ms) is within the {:.4f} ms noise margin of the default's {:.4f} ms, "
        "so the default is kept",
        w.median_ms, c.margin_ms, d.median_ms);
  }
  return c;
}

}  // namespace tt::autotune
