// The five fused ops' raw-pointer forms (plans.h) as patterns (pattern.h): each names its
// structure, and the one builder makes its plan, as it does for a compiled group of the
// same structure. Their stage names (FusedStages) are the structural names.
#include "core/error.h"
#include "ops/cuda/fused/pattern.h"
#include "ops/cuda/gemm/gemm.h"

namespace tt::ops::cuda {
namespace {

fused::FusedPattern bias_relu(const float* bias) {
  fused::FusedPattern f;
  f.steps.add_column(bias).relu();
  return f;
}

fused::FusedPattern instance_norm_add_mul(const float* b, const float* y, int64_t n, float eps) {
  fused::FusedPattern f;
  f.steps.add_column(b);
  f.norm = fused::NormKind::kSegment;
  // Any operand when y is not given yet (a scratch-size query): the structure is the same.
  const float* yy = y ? y : fused::kAnyOperand;
  f.epilogue.add_residual(yy, n).mul_residual(yy, n);
  f.eps = eps;
  return f;
}

fused::FusedPattern swish_bias_group_norm(const gemm::GemmSwishBiasGroupNormArgs& a) {
  fused::FusedPattern f;
  f.steps.add_column(a.b ? a.b : fused::kAnyOperand)
      .silu()
      .add_column(a.bias ? a.bias : fused::kAnyOperand);
  f.norm = fused::NormKind::kSegment;
  f.epilogue.mul_column(a.gamma).add_column(a.beta);
  f.groups = a.groups, f.eps = a.eps;
  return f;
}

fused::FusedPattern scale_batch_norm(const gemm::GemmScaleBatchNormArgs& a) {
  fused::FusedPattern f;
  f.steps.add_column(a.b ? a.b : fused::kAnyOperand)
      .mul_column(a.scale ? a.scale : fused::kAnyOperand);
  f.norm = a.training ? fused::NormKind::kBatchTrain : fused::NormKind::kBatchEval;
  f.bn_gamma = a.gamma, f.bn_beta = a.beta;
  f.running_mean = a.running_mean, f.running_var = a.running_var;
  f.momentum = a.momentum, f.eps = a.eps;
  return f;
}

gemm::GemmScaleBatchNormArgs batch_norm_mode(bool training) {
  gemm::GemmScaleBatchNormArgs a;
  a.training = training;
  return a;
}

gemm::GemmSwishBiasGroupNormArgs shape_only(int64_t m, int64_t n, int64_t k, int64_t groups) {
  gemm::GemmSwishBiasGroupNormArgs a;
  a.m = m, a.n = n, a.k = k, a.groups = groups;
  return a;
}

}  // namespace

const fused::FusedStages fused::kGemmBiasRelu = bias_relu(fused::kAnyOperand).stages();
const fused::FusedStages fused::kGemmInstanceNormAddMul =
    instance_norm_add_mul(fused::kAnyOperand, fused::kAnyOperand, 0, 1e-5f).stages();
const fused::FusedStages fused::kGemmSwishBiasGroupNorm =
    swish_bias_group_norm(shape_only(0, 0, 0, 1)).stages();
const fused::FusedStages fused::kGemmScaleBatchNormTrain =
    scale_batch_norm(batch_norm_mode(true)).stages();
const fused::FusedStages fused::kGemmScaleBatchNormEval =
    scale_batch_norm(batch_norm_mode(false)).stages();

fused::Plan fused::gemm_bias_relu_plan(const gemm::GemmConfig& cfg,
                                       const gemm::GemmBiasReluArgs& a) {
  return build_plan(bias_relu(a.bias ? a.bias : fused::kAnyOperand), "gemm_bias_relu", cfg, a.x,
                    a.w, a.out, a.m, a.n, a.k, nullptr);
}

fused::Plan fused::gemm_instance_norm_add_mul_plan(const gemm::GemmConfig& cfg,
                                                   const gemm::GemmInstanceNormAddMulArgs& a) {
  return build_plan(instance_norm_add_mul(a.b ? a.b : fused::kAnyOperand, a.y, a.n, a.eps),
                    "gemm_instance_norm_add_mul", cfg, a.x, a.w, a.out, a.m, a.n, a.k, a.passes);
}

fused::Plan fused::gemm_swish_bias_group_norm_plan(const gemm::GemmConfig& cfg,
                                                   const gemm::GemmSwishBiasGroupNormArgs& a) {
  return build_plan(swish_bias_group_norm(a), "gemm_swish_bias_group_norm", cfg, a.x, a.w, a.out,
                    a.m, a.n, a.k, a.passes);
}

fused::Plan fused::gemm_scale_batch_norm_plan(const gemm::GemmConfig& cfg,
                                              const gemm::GemmScaleBatchNormArgs& a) {
  return build_plan(scale_batch_norm(a), "gemm_scale_batch_norm", cfg, a.x, a.w, a.out, a.m, a.n,
                    a.k, a.passes);
}

void gemm::gemm_bias_relu_forward(const GemmConfig& cfg, const GemmBiasReluArgs& a, int device,
                                  cudaStream_t stream) {
  fused::run_plan(fused::gemm_bias_relu_plan(cfg, a), nullptr, device, stream);
}

int64_t gemm::gemm_instance_norm_add_mul_scratch_floats(const GemmConfig& cfg, int64_t m,
                                                        int64_t n) {
  GemmInstanceNormAddMulArgs a;
  a.m = m, a.n = n;
  return fused::gemm_instance_norm_add_mul_plan(cfg, a).scratch_floats();
}

void gemm::gemm_instance_norm_add_mul_forward(const GemmConfig& cfg,
                                              const GemmInstanceNormAddMulArgs& a, int device,
                                              cudaStream_t stream) {
  fused::run_plan(fused::gemm_instance_norm_add_mul_plan(cfg, a), a.scratch, device, stream);
}

bool gemm::gemm_swish_bias_group_norm_fuses(const GemmConfig& cfg, int64_t m, int64_t n, int64_t k,
                                            int64_t groups) {
  if (groups <= 0 || n % groups != 0) return false;
  const fused::Plan p = fused::gemm_swish_bias_group_norm_plan(cfg, shape_only(m, n, k, groups));
  return p.stages.size() == 1;
}

int64_t gemm::gemm_swish_bias_group_norm_scratch_floats(const GemmConfig& cfg, int64_t m, int64_t n,
                                                        int64_t k, int64_t groups) {
  return fused::gemm_swish_bias_group_norm_plan(cfg, shape_only(m, n, k, groups)).scratch_floats();
}

void gemm::gemm_swish_bias_group_norm_forward(const GemmConfig& cfg,
                                              const GemmSwishBiasGroupNormArgs& a, int device,
                                              cudaStream_t stream) {
  if (a.m == 0 || a.n == 0) return;
  fused::run_plan(fused::gemm_swish_bias_group_norm_plan(cfg, a), a.scratch, device, stream);
}

int64_t gemm::gemm_scale_batch_norm_scratch_floats(const GemmConfig& cfg, int64_t m, int64_t n,
                                                   bool training, const PassConfigs* passes) {
  GemmScaleBatchNormArgs a = batch_norm_mode(training);
  a.m = m, a.n = n, a.passes = passes;
  return fused::gemm_scale_batch_norm_plan(cfg, a).scratch_floats();
}

void gemm::gemm_scale_batch_norm_forward(const GemmConfig& cfg, const GemmScaleBatchNormArgs& a,
                                         int device, cudaStream_t stream) {
  if (a.n == 0) return;
  fused::run_plan(fused::gemm_scale_batch_norm_plan(cfg, a), a.scratch, device, stream);
}

}  // namespace tt::ops::cuda
