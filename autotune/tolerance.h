// How far a variant's output may be from the CPU reference and still count as
// correct: the sweep (autotune/sweep.h) rejects a config whose relative L2 error
// ||out - ref|| / ||ref|| (and that of every buffer it updates) exceeds this.
//
// The rule, for the longest reduction K of the computation (the GEMM's inner
// dimension, a norm's segment length, batch norm's batch; the largest of them):
//   strict:  tol = min(1e-5, max(1e-6, 8 * 2^-24 * sqrt(K)))
// Why: a float32 sum of K terms carries a rounding error that grows like sqrt(K)
// units of 2^-24 when the errors are independent (the usual random-walk model, and
// what both the blocked CPU reference and the tiled GPU kernels give in practice).
// The factor 8 covers two independent implementations (CPU and GPU) and the mild
// amplification of a normalisation; the floor keeps short reductions from rejecting
// correct variants over an ulp or two of the output; the cap is the strict bound of
// SEED_MODELS.md (1e-5 against the reference), which no variant may exceed. A
// variant that picks the wrong row, drops a tile or races is off by far more (1e-2 and
// up), so the rule separates the two classes by orders of magnitude at every K.
// Only the strict precision exists today; another mode brings its own rule here.
#pragma once

#include <cstdint>
#include <string>

namespace tt::autotune {

// Throws tt::Error for a precision mode without a rule. K < 1 counts as 1.
double verification_tolerance(const std::string& precision, int64_t longest_reduction);

}  // namespace tt::autotune
