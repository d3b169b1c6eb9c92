// The sweep over one tunable kernel's parameter space for one problem: which configs
// run correctly on this device and which is fastest. The device-side work (running
// the model with a config forced, comparing with the CPU reference, CUDA-event
// timing) is behind SweepTarget, so that the search, the budget, the verification
// verdicts and the winner selection are plain C++ and tested without a GPU
// (models/tune_model.h implements the target on a GPU).
//
// For each (kernel, problem):
//   1. The default config first: verified, then screened (timed with a few reps).
//      Its wall-clock cost sets how many configs the budget affords.
//   2. Every other valid config of the space when the budget affords them all,
//      otherwise a seeded random sample of the space (ParamSpace::sample, the same
//      configs for the same seed) of the size it affords, grown (same seed, larger
//      sample) while screening time is left. Each is run once and
//      compared with the reference: an exception is `launch_failed` (the message is
//      the detail), an error above the tolerance (autotune/tolerance.h) or a NaN is
//      `wrong_result`; only verified configs are screened. Configs the device cannot
//      run (SweepOptions::unsupported, from the space's device constraints) are
//      recorded as `unsupported` without running. Configs the screening budget did
//      not reach are recorded as `skipped`.
//   3. The contenders (autotune/select.h: within 3% of the best screening median,
//      at most 6, plus the default) are re-measured interleaved (round r times them
//      in an order rotated by r, so drift hits all alike) and choose_winner() picks.
// The budget is wall-clock seconds for the whole (kernel, problem); a quarter is kept
// for step 3, which always completes at least one round.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "autotune/config.h"
#include "autotune/database.h"
#include "autotune/measurement.h"
#include "autotune/select.h"
#include "autotune/space.h"

namespace tt::autotune {

struct VerifyResult {
  double rel_err = 0;  // the largest relative L2 error over everything compared
  std::string what;    // where it was largest ("output", "bn.running_var", ...)
};

class SweepTarget {
 public:
  virtual ~SweepTarget() = default;
  // Runs the workload once with `config` forced and compares it with the reference.
  // Throws tt::Error when the config cannot run.
  virtual VerifyResult verify(const Config& config) = 0;
  // `warmup` untimed runs, then `reps` timed ones; returns their times in ms. Throws
  // tt::Error when the config cannot run.
  virtual std::vector<double> time(const Config& config, int warmup, int reps) = 0;
  // What time() times, in a few words; recorded as the database entry's `measured`.
  virtual std::string measured() const { return "the kernel alone"; }
};

struct SweepProgress {
  std::string kernel;
  std::string problem;
  std::string phase;  // "screen" or "re-measure"
  size_t index = 0;   // 1-based position in the phase
  size_t total = 0;
  Config config;       // the config being run
  double best_ms = 0;  // best verified median so far (0: none yet)
  Config best_config;
  double seconds_left = 0;  // of this sweep's budget
};

struct SweepOptions {
  double tolerance = 1e-5;  // relative L2 error a verified config may have
  double budget_s = 30;
  uint64_t seed = 0;
  int screen_warmup = 1;
  int screen_reps = 5;
  int final_rounds = 4;
  int final_reps = 5;  // per contender per round
  double contender_window = 0.03;
  size_t max_contenders = 6;
  double final_share = 0.25;  // of the budget kept for the re-measurement
  // Configs the device cannot run, recorded as `unsupported` (reason = the detail).
  std::vector<RejectedVariant> unsupported;
  std::function<void(const SweepProgress&)> progress;  // optional
  std::function<double()> now_s;  // the clock in seconds; default: std::chrono::steady_clock
};

struct SweepResult {
  std::string kernel;
  std::string problem;
  // Every config tried, then those skipped, then those unsupported.
  std::vector<Measurement> measurements;
  bool has_winner = false;
  Config winner;
  WinnerChoice choice;
  // Ready to save: config, times, counts and rejections (provenance not stamped).
  TuningEntry entry;
  size_t space_size = 0;  // valid configs in the space
  size_t planned = 0;     // configs the sweep set out to run (all, or the sample)
  bool sampled = false;   // the space was larger than the budget
  std::string error;      // set when no config could be verified (no winner)
};

SweepResult run_sweep(const std::string& kernel, const std::string& problem,
                      const ParamSpace& space, SweepTarget& target, const SweepOptions& options);

// The seconds of `left_s` that the next of a model's pending kernels gets, by its share of
// the forward: `next_ms` of the pending kernels' `pending_ms` (its GPU time in one forward;
// a negative time, not measured, counts as the mean of the measured ones). Each share is at
// least a quarter of an equal split, so a kernel too short to time is still swept.
double budget_share(double left_s, double next_ms, const std::vector<double>& pending_ms);

}  // namespace tt::autotune
