// Seed model 3 (KernelBench "Matmul_Swish_Sum_GroupNorm"):
//   x = matmul(x); x = sigmoid(x) * x; x = x + bias; return GroupNorm(num_groups, out)(x).
// The order is swish, then the extra bias, then the group norm (eps 1e-5, affine).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/module.h"
#include "models/layers.h"

namespace tt::models {

class GemmSwishBiasGroupNorm : public Module {
 public:
  // bias_shape is KernelBench's (out_features,); see models/shape_args.h.
  GemmSwishBiasGroupNorm(int64_t in_features, int64_t out_features, int64_t num_groups,
                         const Shape& bias_shape, uint64_t seed = 0);
  // inputs: x [B, in_features]; returns {[B, out_features]}.
  std::vector<Tensor> forward(const std::vector<Tensor>& inputs) override;
  std::string name() const override { return "GemmSwishBiasGroupNorm"; }

  std::shared_ptr<nn::Linear> matmul;
  Tensor bias;  // torch.randn(bias_shape)
  std::shared_ptr<nn::GroupNorm> group_norm;
};

}  // namespace tt::models
