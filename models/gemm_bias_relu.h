// Seed model 5 (KernelBench "Gemm_Add_ReLU"):
//   x = gemm(x) (a Linear without bias of its own); return relu(x + bias).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/module.h"
#include "models/layers.h"

namespace tt::models {

class GemmBiasReLU : public Module {
 public:
  // bias_shape is KernelBench's (out_features,); see models/shape_args.h.
  GemmBiasReLU(int64_t in_features, int64_t out_features, const Shape& bias_shape,
               uint64_t seed = 0);
  // inputs: x [B, in_features]; returns {[B, out_features]}.
  std::vector<Tensor> forward(const std::vector<Tensor>& inputs) override;
  std::string name() const override { return "GemmBiasReLU"; }

  std::shared_ptr<nn::Linear> gemm;  // bias=False
  Tensor bias;                       // torch.randn(bias_shape)
};

}  // namespace tt::models
