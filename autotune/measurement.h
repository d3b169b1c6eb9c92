// One row of a sweep's record: what happened to one config of one (kernel, problem).
// The sweep (autotune/sweep.h) produces them, `tt tune --report` writes them as CSV
// and SVG (autotune/report.h).
#pragma once

#include <cmath>
#include <string>

#include "autotune/config.h"

namespace tt::autotune {

// Measurement::status values. The rejection categories are also the reasons counted
// in a TuningEntry's variants_rejected.
inline constexpr const char* kStatusOk = "ok";                       // verified and timed
inline constexpr const char* kStatusWrongResult = "wrong_result";    // verification failed
inline constexpr const char* kStatusLaunchFailed = "launch_failed";  // threw when run or timed
inline constexpr const char* kStatusUnsupported = "unsupported";     // device limits; not run
inline constexpr const char* kStatusSkipped = "skipped";             // not reached (time budget)

struct Measurement {
  std::string kernel;
  std::string problem;
  Config config;
  std::string status;
  double median_ms = NAN;  // NaN when not timed
  double p10_ms = NAN;
  double p90_ms = NAN;
  int reps = 0;
  double rel_err = NAN;  // NaN when not verified
  std::string reason;    // why rejected or skipped ("" for ok)
  bool is_default = false;
  bool is_winner = false;
  bool remeasured = false;  // timings are from the interleaved re-measurement

  bool ok() const { return status == kStatusOk; }
  bool rejected() const {
    return status == kStatusWrongResult || status == kStatusLaunchFailed ||
           status == kStatusUnsupported;
  }
};

}  // namespace tt::autotune
