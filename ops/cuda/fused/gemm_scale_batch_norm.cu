// gemm_scale_batch_norm on CUDA: batch_norm((x W^T + b) * scale). Training: GEMM (+ column
// statistics in the epilogue of our own kernel, or a statistics pass), finalize
// (which also updates running_mean/running_var in place), one affine pass. Eval: the
// scale and the whole norm as a per-column affine, in the epilogue or in one pass.
#include "core/cuda/stream.h"
#include "ops/cuda/cuda_ops.h"
#include "ops/cuda/fused/fused_stages.h"
#include "ops/cuda/fused/plans.h"
#include "ops/cuda/gemm/gemm.h"
#include "ops/cuda/gemm/gemm_tensor.h"

namespace tt::ops::cuda {

Tensor gemm_scale_batch_norm(const Tensor& x, const Tensor& weight, const Tensor& b,
                             const Tensor& scale, const Tensor& running_mean,
                             const Tensor& running_var, const Tensor& bn_weight,
                             const Tensor& bn_bias, bool training, double momentum, double eps) {
  using namespace gemm;
  const int device = x.device().index;
  tt::cuda::DeviceGuard guard(device);
  const Tensor xd = dense(x), wd = dense(weight), bd = dense(b), sd = dense(scale);
  const Tensor gd = dense(bn_weight), betad = dense(bn_bias);
  InPlace rm(running_mean), rv(running_var);
  const GemmProblem p = problem_of(xd, wd);
  Tensor out = Tensor::empty({p.m, p.n}, DType::F32, x.device());
  const fused::FusedStages& stages =
      training ? fused::kGemmScaleBatchNormTrain : fused::kGemmScaleBatchNormEval;
  const GemmConfig cfg = choose_gemm(stages.gemm, p, device);
  const PassConfigs passes = fused::tuned_passes(stages, device);
  const Tensor work =
      scratch(gemm_scale_batch_norm_scratch_floats(cfg, p.m, p.n, training, &passes), x.device());
  GemmScaleBatchNormArgs a;
  a.x = fp(xd), a.w = fp(wd), a.b = fp(bd), a.scale = fp(sd);
  a.running_mean = rm.data(), a.running_var = rv.data();
  a.gamma = fp(gd), a.beta = fp(betad), a.out = mfp(out);
  a.m = p.m, a.n = p.n, a.k = p.k;
  a.training = training;
  a.momentum = static_cast<float>(momentum);
  a.eps = static_cast<float>(eps);
  a.scratch = work.defined() ? mfp(work) : nullptr;
  a.passes = &passes;
  gemm_scale_batch_norm_forward(cfg, a, device, tt::cuda::stream(device));
  if (training) {
    rm.write_back();
    rv.write_back();
  }
  return out;
}

}  // namespace tt::ops::cuda
