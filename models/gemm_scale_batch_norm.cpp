#include "models/gemm_scale_batch_norm.h"

#include "models/check_inputs.h"
#include "models/seed.h"
#include "models/shape_args.h"
#include "ops/ops.h"

namespace tt::models {

GemmScaleBatchNorm::GemmScaleBatchNorm(int64_t in_features, int64_t out_features,
                                       const Shape& scale_shape, double eps, double momentum,
                                       uint64_t seed) {
  gemm = register_module("gemm", std::make_shared<nn::Linear>(in_features, out_features, true,
                                                              nn::derive_seed(seed, 0)));
  check_per_feature_shape("GemmScaleBatchNorm", "scale_shape", scale_shape, out_features);
  scale = register_parameter("scale", Tensor::randn(scale_shape, nn::derive_seed(seed, 1)));
  bn = register_module("bn", std::make_shared<nn::BatchNorm1d>(out_features, eps, momentum));
}

std::vector<Tensor> GemmScaleBatchNorm::forward(const std::vector<Tensor>& inputs) {
  nn::check_input_count(name(), inputs, 1);
  // The batch norm child follows the model's mode through Module::train(), but the
  // model's own flag is the one a caller sets, so it decides.
  return {ops::batch_norm((*gemm)(inputs[0]) * scale.reshape({-1}), bn->running_mean,
                          bn->running_var, bn->weight, bn->bias, is_training(), bn->momentum,
                          bn->eps)};
}

}  // namespace tt::models
