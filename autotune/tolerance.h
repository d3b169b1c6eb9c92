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
//   accurate: the strict rule. Split TF32 with float32 promotion is at least as close
//            to float64 as strict float32 (core/precision.h), so it must meet the
//            same bound against the CPU float32 reference.
//   tf32:     tol = 2^-9 (about 2e-3) whatever K. A TF32 operand carries a relative
//            rounding error of up to u = 2^-11, a product of two up to 2u; over K
//            terms the independent errors add like the terms themselves, so the
//            relative L2 error of a GEMM output stays near u (measured: 2.9e-4 on the
//            1024x8192x8192 seed GEMM, 0.6u) rather than growing with K. A norm that
//            follows divides by the row's deviation and can amplify it a few times
//            (seed-model outputs measured 5e-5 to 4e-4); 4u leaves room for that and
//            for the CPU reference's own error, and stays an order of magnitude
//            below what a wrong tile or row gives (1e-2 and up).
#pragma once

#include <cstdint>
#include <string>

namespace tt::autotune {

// `precision` is a precision_name() ("strict", "tf32", "accurate"); anything else
// is a tt::Error. K < 1 counts as 1.
double verification_tolerance(const std::string& precision, int64_t longest_reduction);

}  // namespace tt::autotune
