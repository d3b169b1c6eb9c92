// Seed model 2 (KernelBench "InstanceNorm"): return InstanceNorm2d(num_features)(x)
// for x [N, C, H, W]. No parameters (affine=False) and no running statistics.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/module.h"
#include "models/layers.h"

namespace tt::models {

class InstanceNorm2dModel : public Module {
 public:
  explicit InstanceNorm2dModel(int64_t num_features, uint64_t seed = 0);
  // inputs: x [N, num_features, H, W]; returns {x normalised per (n, c) slice}.
  std::vector<Tensor> forward(const std::vector<Tensor>& inputs) override;
  std::string name() const override { return "InstanceNorm2dModel"; }

  std::shared_ptr<nn::InstanceNorm2d> inorm;
};

}  // namespace tt::models
