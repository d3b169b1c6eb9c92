#include "models/gemm_instance_norm_add_mul.h"

#include "models/check_inputs.h"
#include "models/seed.h"
#include "ops/ops.h"

namespace tt::models {

GemmInstanceNormAddMul::GemmInstanceNormAddMul(int64_t in_features, int64_t out_features,
                                               double eps, double momentum, uint64_t seed)
    : eps(eps), momentum(momentum) {
  TT_CHECK(eps > 0, "GemmInstanceNormAddMul: eps must be positive but got {}", eps);
  bmm = register_module("bmm", std::make_shared<nn::Linear>(in_features, out_features, true,
                                                            nn::derive_seed(seed, 0)));
}

std::vector<Tensor> GemmInstanceNormAddMul::forward(const std::vector<Tensor>& inputs) {
  nn::check_input_count(name(), inputs, 2);
  // InstanceNorm2d over the [N, 1, 1, out] view of the product, as PyTorch's module does.
  const Tensor& y = inputs[1];
  const Tensor h = (*bmm)(inputs[0]).unsqueeze(1).unsqueeze(1);
  const Tensor n = ops::instance_norm(h, eps).squeeze(1).squeeze(1);
  return {(n + y) * y};
}

}  // namespace tt::models
