// gemm_bias_relu's plan: relu(x W^T + bias) as one GEMM stage whose epilogue adds the
// bias and applies ReLU. Every GEMM implementation runs that chain itself (cuBLASLt's
// RELU_BIAS, the own kernel's chain; run_gemm moves a config that cannot onto the own
// kernel), so the plan never needs a pass.
#include "core/error.h"
#include "ops/cuda/fused/plan.h"

namespace tt::ops::cuda {

fused::Plan fused::gemm_bias_relu_plan(const gemm::GemmConfig& cfg,
                                       const gemm::GemmBiasReluArgs& a) {
  Plan p = plan_for("gemm_bias_relu", cfg, a.x, a.w, a.out, a.m, a.n, a.k, nullptr);
  p.add(gemm_stage(gemm::Epilogue().add_column(a.bias).relu(), Slot::kOut));
  return p;
}

void gemm::gemm_bias_relu_forward(const GemmConfig& cfg, const GemmBiasReluArgs& a, int device,
                                  cudaStream_t stream) {
  fused::run_plan(fused::gemm_bias_relu_plan(cfg, a), nullptr, device, stream);
}

// The tuning names and schedule options of this op's stages.
// Tuned as "gemm_bias_relu"; cuBLASLt's algorithms differ with the ReLU epilogue.
const fused::FusedStages fused::kGemmBiasRelu{{"gemm_bias_relu", false, false, true, false}};

}  // namespace tt::ops::cuda
