// gemm_bias_relu on CUDA: relu(x W^T + bias) as one GEMM with a bias + ReLU epilogue
// (the plan: built from its pattern, seed_patterns.cpp).
#include "ops/cuda/cuda_ops.h"
#include "ops/cuda/fused/fused_stages.h"
#include "ops/cuda/gemm/gemm_tensor.h"

namespace tt::ops::cuda {

Tensor gemm_bias_relu(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  const fused::FusedCall call(fused::kGemmBiasRelu, x, weight);
  const Tensor bd = gemm::dense(bias);
  auto a = call.args<gemm::GemmBiasReluArgs>();
  a.bias = gemm::fp(bd);
  fused::run_planned(fused::gemm_bias_relu_plan(call.cfg, a), x.device());
  return call.out;
}

}  // namespace tt::ops::cuda
