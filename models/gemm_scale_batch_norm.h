// Seed model 4 (KernelBench "Gemm_Scale_BatchNorm"):
//   x = gemm(x); x = x * scale; return BatchNorm1d(out, eps, momentum)(x).
// Training mode (the default, as in PyTorch) normalises with the batch mean and
// biased batch variance and updates bn.running_mean/bn.running_var (the latter with
// the unbiased variance); eval mode normalises with the running statistics.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/module.h"
#include "models/layers.h"

namespace tt::models {

class GemmScaleBatchNorm : public Module {
 public:
  // scale_shape is KernelBench's (out_features,); see models/shape_args.h.
  GemmScaleBatchNorm(int64_t in_features, int64_t out_features, const Shape& scale_shape,
                     double eps = 1e-5, double momentum = 0.1, uint64_t seed = 0);
  // inputs: x [B, in_features]; returns {[B, out_features]}.
  std::vector<Tensor> forward(const std::vector<Tensor>& inputs) override;
  std::string name() const override { return "GemmScaleBatchNorm"; }

  std::shared_ptr<nn::Linear> gemm;
  Tensor scale;  // torch.randn(scale_shape)
  std::shared_ptr<nn::BatchNorm1d> bn;
};

}  // namespace tt::models
