#include "models/gemm_bias_relu.h"

#include "models/check_inputs.h"
#include "models/seed.h"
#include "models/shape_args.h"
#include "ops/ops.h"

namespace tt::models {

GemmBiasReLU::GemmBiasReLU(int64_t in_features, int64_t out_features, const Shape& bias_shape,
                           uint64_t seed) {
  gemm = register_module("gemm", std::make_shared<nn::Linear>(in_features, out_features, false,
                                                              nn::derive_seed(seed, 0)));
  check_per_feature_shape("GemmBiasReLU", "bias_shape", bias_shape, out_features);
  bias = register_parameter("bias", Tensor::randn(bias_shape, nn::derive_seed(seed, 1)));
}

std::vector<Tensor> GemmBiasReLU::forward(const std::vector<Tensor>& inputs) {
  nn::check_input_count(name(), inputs, 1);
  return {ops::relu((*gemm)(inputs[0]) + bias.reshape({-1}))};
}

}  // namespace tt::models
