#include "models/plain_seed_forwards.h"

#include "core/error.h"
#include "models/models.h"
#include "ops/ops.h"

namespace tt::models {

PlainForward seed_plain_forward(const std::string& name, const std::shared_ptr<Module>& model) {
  using Inputs = std::vector<Tensor>;
  if (name == "GemmInstanceNormAddMul") {
    auto p = std::dynamic_pointer_cast<GemmInstanceNormAddMul>(model);
    TT_CHECK(p, "seed_plain_forward: the model is not a {}", name);
    return [p](const Inputs& in) {
      const Tensor h = (*p->bmm)(in[0]).unsqueeze(1).unsqueeze(1);
      const Tensor n = ops::instance_norm(h, p->eps).squeeze(1).squeeze(1);
      return Inputs{(n + in[1]) * in[1]};
    };
  }
  if (name == "InstanceNorm2dModel") {
    auto p = std::dynamic_pointer_cast<InstanceNorm2dModel>(model);
    TT_CHECK(p, "seed_plain_forward: the model is not a {}", name);
    return [](const Inputs& in) { return Inputs{ops::instance_norm(in[0])}; };
  }
  if (name == "GemmSwishBiasGroupNorm") {
    auto p = std::dynamic_pointer_cast<GemmSwishBiasGroupNorm>(model);
    TT_CHECK(p, "seed_plain_forward: the model is not a {}", name);
    return [p](const Inputs& in) {
      const Tensor h = (*p->matmul)(in[0]);
      const Tensor a = ops::sigmoid(h) * h + p->bias.reshape({-1});
      const auto& gn = p->group_norm;
      return Inputs{ops::group_norm(a, gn->num_groups, gn->weight, gn->bias, gn->eps)};
    };
  }
  if (name == "GemmScaleBatchNorm") {
    auto p = std::dynamic_pointer_cast<GemmScaleBatchNorm>(model);
    TT_CHECK(p, "seed_plain_forward: the model is not a {}", name);
    return [p](const Inputs& in) {
      const auto& bn = p->bn;
      return Inputs{ops::batch_norm((*p->gemm)(in[0]) * p->scale.reshape({-1}), bn->running_mean,
                                    bn->running_var, bn->weight, bn->bias, p->is_training(),
                                    bn->momentum, bn->eps)};
    };
  }
  if (name == "GemmBiasReLU") {
    auto p = std::dynamic_pointer_cast<GemmBiasReLU>(model);
    TT_CHECK(p, "seed_plain_forward: the model is not a {}", name);
    return [p](const Inputs& in) {
      return Inputs{ops::relu((*p->gemm)(in[0]) + p->bias.reshape({-1}))};
    };
  }
  TT_FAIL("seed_plain_forward: '{}' is not one of the five seed models", name);
}

PlainOpsModule::PlainOpsModule(PlainForward forward, std::shared_ptr<Module> owner)
    : forward_(std::move(forward)) {
  register_module("m", std::move(owner));
}

std::vector<Tensor> PlainOpsModule::forward(const std::vector<Tensor>& inputs) {
  return forward_(inputs);
}

}  // namespace tt::models
