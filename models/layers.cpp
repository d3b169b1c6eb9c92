#include "models/layers.h"

#include <cmath>

#include "models/check_inputs.h"
#include "models/seed.h"
#include "ops/ops.h"

namespace tt::nn {
namespace {

void check_positive(const char* layer, const char* what, int64_t value) {
  TT_CHECK(value > 0, "{}: {} must be positive but got {}", layer, what, value);
}

void check_eps(const char* layer, double eps) {
  TT_CHECK(eps > 0 && std::isfinite(eps), "{}: eps must be a positive number but got {}", layer,
           eps);
}

}  // namespace

Linear::Linear(int64_t in_features, int64_t out_features, bool bias, uint64_t seed)
    : in_features(in_features), out_features(out_features) {
  check_positive("Linear", "in_features", in_features);
  check_positive("Linear", "out_features", out_features);
  const double bound = 1.0 / std::sqrt(static_cast<double>(in_features));
  weight = register_parameter(
      "weight", Tensor::uniform({out_features, in_features}, -bound, bound, derive_seed(seed, 0)));
  if (bias)
    this->bias = register_parameter(
        "bias", Tensor::uniform({out_features}, -bound, bound, derive_seed(seed, 1)));
}

Tensor Linear::operator()(const Tensor& x) const { return ops::linear(x, weight, bias); }

std::vector<Tensor> Linear::forward(const std::vector<Tensor>& inputs) {
  check_input_count(name(), inputs, 1);
  return {(*this)(inputs[0])};
}

BatchNorm1d::BatchNorm1d(int64_t num_features, double eps, double momentum)
    : num_features(num_features), eps(eps), momentum(momentum) {
  check_positive("BatchNorm1d", "num_features", num_features);
  check_eps("BatchNorm1d", eps);
  TT_CHECK(momentum >= 0 && momentum <= 1, "BatchNorm1d: momentum must be in [0, 1] but got {}",
           momentum);
  weight = register_parameter("weight", Tensor::ones({num_features}));
  bias = register_parameter("bias", Tensor::zeros({num_features}));
  running_mean = register_buffer("running_mean", Tensor::zeros({num_features}));
  running_var = register_buffer("running_var", Tensor::ones({num_features}));
}

Tensor BatchNorm1d::operator()(const Tensor& x) const {
  return ops::batch_norm(x, running_mean, running_var, weight, bias, is_training(), momentum, eps);
}

std::vector<Tensor> BatchNorm1d::forward(const std::vector<Tensor>& inputs) {
  check_input_count(name(), inputs, 1);
  return {(*this)(inputs[0])};
}

GroupNorm::GroupNorm(int64_t num_groups, int64_t num_channels, double eps, bool affine)
    : num_groups(num_groups), num_channels(num_channels), eps(eps) {
  check_positive("GroupNorm", "num_groups", num_groups);
  check_positive("GroupNorm", "num_channels", num_channels);
  check_eps("GroupNorm", eps);
  TT_CHECK(num_channels % num_groups == 0,
           "GroupNorm: num_channels must be divisible by num_groups but got {} channels and {} "
           "groups",
           num_channels, num_groups);
  if (affine) {
    weight = register_parameter("weight", Tensor::ones({num_channels}));
    bias = register_parameter("bias", Tensor::zeros({num_channels}));
  }
}

Tensor GroupNorm::operator()(const Tensor& x) const {
  TT_CHECK(x.dim() >= 2 && x.size(1) == num_channels,
           "GroupNorm: expected an input [N, {}, ...] but got {}", num_channels,
           shape_str(x.sizes()));
  return ops::group_norm(x, num_groups, weight, bias, eps);
}

std::vector<Tensor> GroupNorm::forward(const std::vector<Tensor>& inputs) {
  check_input_count(name(), inputs, 1);
  return {(*this)(inputs[0])};
}

InstanceNorm2d::InstanceNorm2d(int64_t num_features, double eps, double momentum, bool affine)
    : num_features(num_features), eps(eps), momentum(momentum) {
  check_positive("InstanceNorm2d", "num_features", num_features);
  check_eps("InstanceNorm2d", eps);
  if (affine) {
    weight = register_parameter("weight", Tensor::ones({num_features}));
    bias = register_parameter("bias", Tensor::zeros({num_features}));
  }
}

Tensor InstanceNorm2d::operator()(const Tensor& x) const {
  TT_CHECK(x.dim() == 4, "InstanceNorm2d: expected a 4-D input [N, C, H, W] but got {}",
           shape_str(x.sizes()));
  // Without affine parameters PyTorch only warns when C differs from num_features
  // (model 1 relies on that); with them the channel count must match.
  TT_CHECK(!weight.defined() || x.size(1) == num_features,
           "InstanceNorm2d: input has {} channels but the layer was built for {}", x.size(1),
           num_features);
  return ops::instance_norm(x, eps, weight, bias);
}

std::vector<Tensor> InstanceNorm2d::forward(const std::vector<Tensor>& inputs) {
  check_input_count(name(), inputs, 1);
  return {(*this)(inputs[0])};
}

}  // namespace tt::nn
