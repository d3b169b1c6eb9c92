// gemm_instance_norm_add_mul on CUDA: GEMM + bias, then one pass for the row norm and
// (x + y) * y (the plan: built from its pattern, seed_patterns.cpp).
#include "ops/cuda/cuda_ops.h"
#include "ops/cuda/fused/fused_stages.h"
#include "ops/cuda/gemm/gemm_tensor.h"

namespace tt::ops::cuda {

Tensor gemm_instance_norm_add_mul(const Tensor& x, const Tensor& y, const Tensor& weight,
                                  const Tensor& b, double eps) {
  const fused::FusedCall call(fused::kGemmInstanceNormAddMul, x, weight);
  const Tensor yd = gemm::dense(y), bd = gemm::dense(b);
  auto a = call.args<gemm::GemmInstanceNormAddMulArgs>();
  a.y = gemm::fp(yd), a.b = gemm::fp(bd), a.eps = static_cast<float>(eps);
  a.passes = &call.passes;
  fused::run_planned(fused::gemm_instance_norm_add_mul_plan(call.cfg, a), x.device());
  return call.out;
}

}  // namespace tt::ops::cuda
