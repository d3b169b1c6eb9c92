// gemm_swish_bias_group_norm on CUDA: one kernel (GEMM, swish, bias and GroupNorm in the
// epilogue) when the config's tile holds whole groups, else GEMM + bias and one pass,
// possibly in row chunks or a tail split (the plan: built from its pattern, seed_patterns.cpp).
#include "ops/cuda/cuda_ops.h"
#include "ops/cuda/fused/fused_stages.h"
#include "ops/cuda/gemm/gemm_tensor.h"

namespace tt::ops::cuda {

Tensor gemm_swish_bias_group_norm(const Tensor& x, const Tensor& weight, const Tensor& b,
                                  const Tensor& bias, int64_t groups, const Tensor& gn_weight,
                                  const Tensor& gn_bias, double eps) {
  const fused::FusedCall call(fused::kGemmSwishBiasGroupNorm, x, weight, groups);
  const Tensor bd = gemm::dense(b), biasd = gemm::dense(bias);
  const Tensor gd = gemm::dense(gn_weight), betad = gemm::dense(gn_bias);
  auto a = call.args<gemm::GemmSwishBiasGroupNormArgs>();
  a.b = gemm::fp(bd), a.bias = gemm::fp(biasd), a.gamma = gemm::fp(gd), a.beta = gemm::fp(betad);
  a.groups = groups, a.eps = static_cast<float>(eps);
  a.passes = &call.passes;
  fused::run_planned(fused::gemm_swish_bias_group_norm_plan(call.cfg, a), x.device());
  return call.out;
}

}  // namespace tt::ops::cuda
