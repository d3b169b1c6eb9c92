// Tuning a registered model on a GPU: the device side of the sweep (autotune/sweep.h)
// for `tt tune` and the GPU tests.
//
// tune_model() builds the model on the GPU with seeded weights and inputs
// (models/registry.h), computes the CPU reference output once (same seeds, CPU
// model; in training mode batch norm's running statistics too) and moves it to the
// GPU. It then discovers which (kernel, problem) pairs the forward looks up (one
// forward with every kernel at its default, autotune::configs_used) and sweeps them
// one at a time, GEMM stages first, because the GEMM's config decides which passes
// run; every later discovery runs with the winners so far forced, so a pass is tuned
// for the problem it really gets. During a sweep every kernel not yet tuned runs its
// default (autotune::ScopedForceDefaults), tuned ones their winner, and the swept
// kernel the candidate (autotune::ScopedConfigOverride); an old database never
// influences the result.
//
// Verification of a candidate: the model's buffers are reset to their initial state,
// the output's likely memory block is poisoned with NaN (the caching allocator hands
// the most recently freed block of a size out first), one forward runs, and its
// output is compared on the GPU (autotune/relative_error.h) and its buffers on the
// CPU with the reference; the tolerance is autotune/tolerance.h's rule for the
// model's longest reduction. Timing: core/cuda/timing.h (L2 flushed before each
// repetition, CUDA events on the tt stream).
//
// Budget: options.budget_s of wall clock for the whole model, the CPU reference
// included; each pair gets a part of the time left by its share of the forward
// (autotune::budget_share): the GPU time of the fused group (or op) that looks it up,
// split evenly between the pairs of that group, measured in one forward with the
// winners so far before each sweep. Pairs the budget
// does not reach are listed as untuned. At the end one forward with every winner
// forced is verified again, and the entries of the pairs that forward still uses are
// put into `updates` (provenance stamped for this device).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "autotune/database.h"
#include "autotune/sweep.h"
#include "models/registry.h"

namespace tt::models {

struct TuneOptions {
  std::string shape = "small";
  double budget_s = 34;
  uint64_t seed = 0;
  int device = 0;
  // The precision mode (precision_name()) the forwards run in (a tt::PrecisionGuard
  // over the whole tuning): it picks the tolerance (autotune/tolerance.h) and the
  // problem keys the winners are saved under. The CPU reference is float32 in every mode.
  std::string precision = "strict";
  // Tune the model compiled with tt::compile: its fused groups' kernels (looked up when
  // they run, under their structural names); false: the eager ops' kernels.
  bool compile = true;
  // Called for every step of every sweep (the model's name first).
  std::function<void(const std::string& model, const autotune::SweepProgress&)> progress;
  // Called with one line per phase ("computing the CPU reference", ...).
  std::function<void(const std::string& line)> log;
};

struct ModelTuneResult {
  std::string model;
  std::string shape;
  std::string precision;  // TuneOptions::precision
  int64_t longest_reduction = 0;
  double tolerance = 0;
  std::vector<autotune::SweepResult> kernels;  // in the order swept
  std::vector<std::string> untuned;            // "kernel problem" of pairs the budget did not reach
  double combined_rel_err = 0;                 // the final forward with every winner forced
  bool saved = false;                          // entries went into `updates`
  std::string error;                           // what stopped the model ("" when it finished)
  double seconds = 0;
};

// The longest reduction of the model's computation at the preset's shapes (K of the
// tolerance rule): ModelInfo::longest_reduction, the rule the model registered with.
int64_t longest_reduction(const ModelInfo& info, const ShapePreset& preset);

// Tunes the model as described above. A failure inside (a CUDA error, out of memory)
// is caught and returned in `error`; tt::Error is thrown only without CUDA or for a
// device that does not exist.
ModelTuneResult tune_model(const ModelInfo& info, const TuneOptions& options,
                           autotune::Database& updates);

}  // namespace tt::models
