#include "models/gemm_swish_bias_group_norm.h"

#include "models/check_inputs.h"
#include "models/seed.h"
#include "models/shape_args.h"
#include "ops/ops.h"

namespace tt::models {

GemmSwishBiasGroupNorm::GemmSwishBiasGroupNorm(int64_t in_features, int64_t out_features,
                                               int64_t num_groups, const Shape& bias_shape,
                                               uint64_t seed) {
  matmul = register_module("matmul", std::make_shared<nn::Linear>(in_features, out_features, true,
                                                                  nn::derive_seed(seed, 0)));
  check_per_feature_shape("GemmSwishBiasGroupNorm", "bias_shape", bias_shape, out_features);
  bias = register_parameter("bias", Tensor::randn(bias_shape, nn::derive_seed(seed, 1)));
  group_norm =
      register_module("group_norm", std::make_shared<nn::GroupNorm>(num_groups, out_features));
}

std::vector<Tensor> GemmSwishBiasGroupNorm::forward(const std::vector<Tensor>& inputs) {
  nn::check_input_count(name(), inputs, 1);
  const Tensor h = (*matmul)(inputs[0]);
  return {(*group_norm)(ops::sigmoid(h) * h + bias.reshape({-1}))};
}

}  // namespace tt::models
