// The four seed models' fused GEMM groups as plain-op forwards (shared/SEED_MODELS.md,
// as the registered models write them): what a user writes instead of a fused op, and
// what tt::compile fuses into one plan of the fused family on CUDA. Tests run them
// eagerly (on the CPU: the reference) and compiled (compiled_replay); the operands are
// arguments, so one forward serves every shape. The matching patterns, for tests that
// build plans by hand, are support/seed_patterns.h.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "ops/graph/compile.h"
#include "ops/ops.h"
#include "support/fn_module.h"

namespace tt::test::seed {

// relu(x W^T + bias), the Linear without its own bias (GemmBiasReLU).
inline Tensor bias_relu(const Tensor& x, const Tensor& w, const Tensor& bias) {
  return ops::relu(ops::linear(x, w) + bias);
}

// group_norm(swish(x W^T + b) + bias) (GemmSwishBiasGroupNorm).
inline Tensor swish_bias_group_norm(const Tensor& x, const Tensor& w, const Tensor& b,
                                    const Tensor& bias, int64_t groups, const Tensor& gamma,
                                    const Tensor& beta, double eps = 1e-5) {
  const Tensor h = ops::linear(x, w, b);
  return ops::group_norm(ops::sigmoid(h) * h + bias, groups, gamma, beta, eps);
}

// batch_norm((x W^T + b) * scale) (GemmScaleBatchNorm); training updates the running
// statistics in place.
inline Tensor scale_batch_norm(const Tensor& x, const Tensor& w, const Tensor& b,
                               const Tensor& scale, const Tensor& running_mean,
                               const Tensor& running_var, const Tensor& gamma, const Tensor& beta,
                               bool training, double momentum = 0.1, double eps = 1e-5) {
  return ops::batch_norm(ops::linear(x, w, b) * scale, running_mean, running_var, gamma, beta,
                         training, momentum, eps);
}

// (instance_norm(x W^T + b) + y) * y, each row one instance (GemmInstanceNormAddMul).
inline Tensor instance_norm_add_mul(const Tensor& x, const Tensor& y, const Tensor& w,
                                    const Tensor& b, double eps = 1e-5) {
  const Tensor h = ops::linear(x, w, b).unsqueeze(1).unsqueeze(1);
  const Tensor n = ops::instance_norm(h, eps).squeeze(1).squeeze(1);
  return (n + y) * y;
}

// `fn` under tt::compile: a recording call on copies of `in` (it runs eagerly), then the
// replay, which runs the fused groups, on `in` itself, so that in-place updates
// (running statistics) are the replay's alone. `explain` gets the compiled report.
inline std::vector<Tensor> compiled_replay(const FnModule::Fn& fn, const std::vector<Tensor>& in,
                                           std::string* explain = nullptr) {
  auto compiled = compile(std::make_shared<FnModule>(fn));
  std::vector<Tensor> copies;
  for (const Tensor& t : in) copies.push_back(t.clone());
  (*compiled)(copies);
  std::vector<Tensor> out = (*compiled)(in);
  if (explain) *explain = compiled->explain();
  return out;
}

}  // namespace tt::test::seed
