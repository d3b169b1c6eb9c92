// Seed model 1 (KernelBench "Gemm_InstanceNorm_Sum_ResidualAdd_Multiply"):
//   x = bmm(x); x = InstanceNorm2d(x[B, 1, 1, F]) back to [B, F]; return (x + y) * y.
// With the features as the width of a one-channel image, the instance norm divides
// each row by its own mean and biased variance; it has no parameters and no
// running statistics, so the only parameters are bmm.weight and bmm.bias.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/module.h"
#include "models/layers.h"

namespace tt::models {

class GemmInstanceNormAddMul : public Module {
 public:
  GemmInstanceNormAddMul(int64_t in_features, int64_t out_features, double eps = 1e-5,
                         double momentum = 0.1, uint64_t seed = 0);
  // inputs: x [B, in_features], y [B, out_features]; returns {[B, out_features]}.
  std::vector<Tensor> forward(const std::vector<Tensor>& inputs) override;
  std::string name() const override { return "GemmInstanceNormAddMul"; }

  std::shared_ptr<nn::Linear> bmm;
  const double eps;
  const double momentum;  // kept for PyTorch's signature; nothing uses running statistics
};

}  // namespace tt::models
