#include "models/instance_norm2d_model.h"

#include "models/check_inputs.h"

namespace tt::models {

// The seed is accepted for a uniform constructor signature; there is nothing to draw.
InstanceNorm2dModel::InstanceNorm2dModel(int64_t num_features, uint64_t /*seed*/) {
  inorm = register_module("inorm", std::make_shared<nn::InstanceNorm2d>(num_features));
}

std::vector<Tensor> InstanceNorm2dModel::forward(const std::vector<Tensor>& inputs) {
  nn::check_input_count(name(), inputs, 1);
  const Tensor& x = inputs[0];
  TT_CHECK(x.dim() == 4 && x.size(1) == inorm->num_features,
           "InstanceNorm2dModel: expected an input [N, {}, H, W] but got {}", inorm->num_features,
           shape_str(x.sizes()));
  return {(*inorm)(x)};
}

}  // namespace tt::models
