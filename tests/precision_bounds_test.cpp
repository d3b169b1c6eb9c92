// Each precision mode held to its bound against a float64 reference (README
// "Precision"), on the GPU, for linear, matmul and the four seed models' fused GEMM
// groups (their plain-op forwards under tt::compile, which runs each as one fused plan)
// at awkward and medium shapes (K up to 8192): the reference is the same forward in
// double on the CPU (ops::Float64Scope) on the same float32 inputs, and for every case
//   strict    relative L2 error <= 1e-5 (the strict bound of SEED_MODELS.md),
//   accurate  <= max(strict's error on the same inputs, 2^-22): the split-TF32 kernel's
//             error hardly grows with K; its floor is the tensor core's own truncation of
//             the hi*hi sums between promotions, 2-3e-7 since the corrections have their
//             own accumulator (5-6e-7 before). Measured on an H100 it is below strict's at
//             K = 2048 and 8192 and within 3% of it at K = 1000 (2.0e-7 vs 1.9e-7, where
//             cuBLAS's SGEMM is unusually exact), so 2^-22 = 2.4e-7 covers that case,
//   tf32      <= 2^-9 * alpha, alpha = ||h|| / ||h - mean(h)|| of the normalised
//             activation h (the norm divides by the deviation; alpha = 1 without a norm).
// Until the GEMMs honour the mode, tf32 and accurate run the strict path, which meets
// these bounds too. The GPU test skips without a GPU; on the CPU every mode must give
// the float32 reference's error. Prints every error (the README's table).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "core/precision.h"
#include "models/fixture_check.h"
#include "ops/ops.h"
#include "support/seed_forwards.h"
#include "support/test_util.h"

namespace tt {
namespace {

constexpr double kStrictBound = 1e-5;
// accurate's error floor (promotion into float32 every 64 elements at most, corrections
// in their own accumulator): 1.6-3.0e-7 on an H100 at every K measured; 2^-22 = 2.4e-7.
const double kAccurateFloor = std::ldexp(1.0, -22);
const double kTf32Bound = std::ldexp(1.0, -9);

struct Shape3 {
  int64_t m, n, k, groups;  // groups divides n (group norm)
};

// Awkward (odd, not multiples of any tile) and medium; K up to 8192.
const std::vector<Shape3> kShapes = {
    {37, 65, 127, 5}, {100, 257, 1000, 1}, {256, 512, 8192, 16}, {1024, 1024, 2048, 32}};

// The op on its tensors (x first); the inputs live on the device of the call.
struct Case {
  std::string name;
  std::function<Tensor(const std::vector<Tensor>&, const Shape3&)> run;
  // The activation a norm divides (computed in float64), or undefined when none.
  std::function<Tensor(const std::vector<Tensor>&, const Shape3&)> normalised;
  // On CUDA, run compiled (a seed group: its fused plan) rather than op by op.
  bool compiled = false;
};

// x uniform [0, 1) as the models' inputs; weights and vectors as PyTorch's Linear
// initialises them (uniform +-1/sqrt(K)); norm affine around 1 and 0; fresh running
// statistics (zeros, ones), which training's batch statistics do not read.
std::vector<Tensor> inputs_for(const Shape3& s, uint64_t seed) {
  const double bound = 1.0 / std::sqrt(static_cast<double>(s.k));
  return {Tensor::uniform({s.m, s.k}, 0.0, 1.0, seed),
          Tensor::uniform({s.n, s.k}, -bound, bound, seed + 1),
          Tensor::uniform({s.n}, -bound, bound, seed + 2),
          Tensor::uniform({s.n}, -bound, bound, seed + 3),
          Tensor::uniform({s.n}, 0.5, 1.5, seed + 4),
          Tensor::uniform({s.n}, -0.5, 0.5, seed + 5),
          Tensor::uniform({s.m, s.n}, 0.0, 1.0, seed + 6),
          Tensor::zeros({s.n}),
          Tensor::ones({s.n})};
}

// ||h|| / ||h - mean||, the mean over each normalised segment (h viewed [rows, segs, len]).
Tensor deviation_ratio(const Tensor& h, int64_t rows, int64_t segments, int64_t len) {
  const Tensor v = h.reshape({rows, segments, len});
  const Tensor centred = v - ops::mean(v, {2}, true);
  return ops::sqrt(ops::sum(v * v) / ops::sum(centred * centred));
}

std::vector<Case> cases() {
  using In = const std::vector<Tensor>&;
  return {
      {"linear", [](In t, const Shape3&) { return ops::linear(t[0], t[1], t[2]); }, nullptr},
      {"matmul", [](In t, const Shape3&) { return ops::matmul(t[0], t[1].transpose(0, 1)); },
       nullptr},
      {"relu(linear + bias)",
       [](In t, const Shape3&) { return test::seed::bias_relu(t[0], t[1], t[2]); }, nullptr, true},
      {"group_norm(swish(linear) + bias)",
       [](In t, const Shape3& s) {
         return test::seed::swish_bias_group_norm(t[0], t[1], t[2], t[3], s.groups, t[4], t[5]);
       },
       [](In t, const Shape3& s) {
         const Tensor h = ops::swish(ops::linear(t[0], t[1], t[2])) + t[3];
         return deviation_ratio(h, s.m, s.groups, s.n / s.groups);
       },
       true},
      {"batch_norm(linear * scale), training",
       [](In t, const Shape3&) {
         // Batch statistics normalise; the running statistics (t[7], t[8]) are updated
         // in place and read by nothing.
         return test::seed::scale_batch_norm(t[0], t[1], t[2], t[4], t[7], t[8], t[4], t[5],
                                             /*training=*/true);
       },
       [](In t, const Shape3& s) {
         const Tensor h = ops::linear(t[0], t[1], t[2]) * t[4];
         return deviation_ratio(h.transpose(0, 1).contiguous(), s.n, 1, s.m);
       },
       true},
      {"(instance_norm(linear) + y) * y",
       [](In t, const Shape3&) {
         return test::seed::instance_norm_add_mul(t[0], t[6], t[1], t[2]);
       },
       [](In t, const Shape3& s) {
         return deviation_ratio(ops::linear(t[0], t[1], t[2]), s.m, 1, s.n);
       },
       true},
  };
}

std::vector<Tensor> to_device(const std::vector<Tensor>& in, Device d) {
  std::vector<Tensor> out;
  for (const Tensor& t : in) out.push_back(t.to(d));
  return out;
}

std::vector<Tensor> to_float64(const std::vector<Tensor>& in) {
  std::vector<Tensor> out;
  for (const Tensor& t : in) out.push_back(t.to(DType::F64));
  return out;
}

struct Errors {
  double strict, accurate, tf32, alpha;
};

// The three modes' errors of case c at shape s on `device`.
Errors errors_of(const Case& c, const Shape3& s, const std::vector<Tensor>& in, Device device) {
  const std::vector<Tensor> wide = to_float64(in);
  const std::vector<Tensor> on_device = to_device(in, device);
  Tensor reference;
  double alpha = 1.0;
  {
    ops::Float64Scope scope;
    reference = c.run(wide, s);
    if (c.normalised) alpha = std::max(1.0, c.normalised(wide, s).item());
  }
  const auto error_in = [&](Precision p) {
    PrecisionGuard guard(p);
    if (!c.compiled || device.is_cpu())
      return models::relative_l2_error(c.run(on_device, s), reference);
    const auto forward = [&c, s](const std::vector<Tensor>& t) {
      return std::vector<Tensor>{c.run(t, s)};
    };
    return models::relative_l2_error(test::seed::compiled_replay(forward, on_device)[0], reference);
  };
  return {error_in(Precision::strict), error_in(Precision::accurate), error_in(Precision::tf32),
          alpha};
}

void expect_within_bounds(const std::string& what, const Errors& e) {
  std::printf("%-60s strict %.3e  accurate %.3e  tf32 %.3e  (tf32 bound %.3e)\n", what.c_str(),
              e.strict, e.accurate, e.tf32, kTf32Bound * e.alpha);
  // Written so that NaN fails every one.
  EXPECT_LE(e.strict, kStrictBound);
  EXPECT_LE(e.accurate, std::max(e.strict, kAccurateFloor)) << "strict " << e.strict;
  EXPECT_LE(e.tf32, kTf32Bound * e.alpha);
}

TEST(PrecisionBounds, EachModeMeetsItsBoundAgainstFloat64) {
  TT_REQUIRE_CUDA();
  uint64_t seed = 100;
  for (const Shape3& s : kShapes) {
    const std::vector<Tensor> in = inputs_for(s, seed += 10);
    for (const Case& c : cases()) {
      const std::string what =
          fmt::format("{} m={} n={} k={} groups={}", c.name, s.m, s.n, s.k, s.groups);
      SCOPED_TRACE(what);
      expect_within_bounds(what, errors_of(c, s, in, Device::cuda(0)));
    }
  }
}

// On the CPU every mode computes the float32 reference: the three errors are the same
// number, and within the bounds (the awkward shapes only, for CI's time).
TEST(PrecisionBounds, OnTheCpuEveryModeIsTheFloat32Reference) {
  uint64_t seed = 100;
  for (const Shape3& s : {kShapes[0], kShapes[1]}) {
    const std::vector<Tensor> in = inputs_for(s, seed += 10);
    for (const Case& c : cases()) {
      const std::string what =
          fmt::format("{} m={} n={} k={} groups={} (cpu)", c.name, s.m, s.n, s.k, s.groups);
      SCOPED_TRACE(what);
      const Errors e = errors_of(c, s, in, Device::cpu());
      expect_within_bounds(what, e);
      EXPECT_EQ(e.accurate, e.strict);
      EXPECT_EQ(e.tf32, e.strict);
      EXPECT_GT(e.strict, 0.0);  // float32, not float64
    }
  }
}

}  // namespace
}  // namespace tt
