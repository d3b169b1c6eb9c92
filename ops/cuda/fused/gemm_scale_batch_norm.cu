// gemm_scale_batch_norm on CUDA: batch_norm((x W^T + b) * scale). Training: GEMM (+ column
// statistics in the epilogue when the config can, or a statistics pass), finalize
// (which also updates running_mean/running_var in place), one affine pass. Eval: the
// scale and the whole norm as a per-column affine, in the epilogue or in one pass (the
// plans: fused/pattern.h, built from the op's pattern in seed_patterns.cpp).
#include "ops/cuda/cuda_ops.h"
#include "ops/cuda/fused/fused_stages.h"
#include "ops/cuda/gemm/gemm_tensor.h"

namespace tt::ops::cuda {

Tensor gemm_scale_batch_norm(const Tensor& x, const Tensor& weight, const Tensor& b,
                             const Tensor& scale, const Tensor& running_mean,
                             const Tensor& running_var, const Tensor& bn_weight,
                             const Tensor& bn_bias, bool training, double momentum, double eps) {
  const fused::FusedCall call(
      training ? fused::kGemmScaleBatchNormTrain : fused::kGemmScaleBatchNormEval, x, weight);
  const Tensor bd = gemm::dense(b), sd = gemm::dense(scale);
  const Tensor gd = gemm::dense(bn_weight), betad = gemm::dense(bn_bias);
  gemm::InPlace rm(running_mean), rv(running_var);
  auto a = call.args<gemm::GemmScaleBatchNormArgs>();
  a.b = gemm::fp(bd), a.scale = gemm::fp(sd), a.gamma = gemm::fp(gd), a.beta = gemm::fp(betad);
  a.running_mean = rm.data(), a.running_var = rv.data();
  a.training = training;
  a.momentum = static_cast<float>(momentum);
  a.eps = static_cast<float>(eps);
  a.passes = &call.passes;
  fused::run_planned(fused::gemm_scale_batch_norm_plan(call.cfg, a), x.device());
  if (training) {
    rm.write_back();
    rv.write_back();
  }
  return call.out;
}

}  // namespace tt::ops::cuda
