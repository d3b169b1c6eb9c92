// gemm_swish_bias_group_norm on CUDA: one fused kernel (GEMM, swish, bias and GroupNorm in the
// epilogue) when the config is an own tile that holds whole groups, else GEMM + bias and one pass
// (chunked so that each chunk's pass overlaps the next chunk's GEMM when the config says so).
#include "core/cuda/stream.h"
#include "ops/cuda/cuda_ops.h"
#include "ops/cuda/fused/fused_stages.h"
#include "ops/cuda/fused/plans.h"
#include "ops/cuda/gemm/gemm.h"
#include "ops/cuda/gemm/gemm_tensor.h"

namespace tt::ops::cuda {

Tensor gemm_swish_bias_group_norm(const Tensor& x, const Tensor& weight, const Tensor& b,
                                  const Tensor& bias, int64_t groups, const Tensor& gn_weight,
                                  const Tensor& gn_bias, double eps) {
  using namespace gemm;
  const int device = x.device().index;
  tt::cuda::DeviceGuard guard(device);
  const Tensor xd = dense(x), wd = dense(weight), bd = dense(b), biasd = dense(bias);
  const Tensor gd = dense(gn_weight), betad = dense(gn_bias);
  const GemmProblem p = problem_of(xd, wd);
  Tensor out = Tensor::empty({p.m, p.n}, DType::F32, x.device());
  const GemmConfig cfg = choose_gemm(fused::kGemmSwishBiasGroupNorm.gemm, p, device, groups);
  const Tensor work =
      scratch(gemm_swish_bias_group_norm_scratch_floats(cfg, p.m, p.n, p.k, groups), x.device());
  GemmSwishBiasGroupNormArgs a;
  a.x = fp(xd), a.w = fp(wd), a.b = fp(bd), a.bias = fp(biasd);
  a.gamma = fp(gd), a.beta = fp(betad), a.out = mfp(out);
  a.m = p.m, a.n = p.n, a.k = p.k;
  a.groups = groups;
  a.eps = static_cast<float>(eps);
  a.scratch = work.defined() ? mfp(work) : nullptr;
  const PassConfigs passes = fused::tuned_passes(fused::kGemmSwishBiasGroupNorm, device);
  a.passes = &passes;
  gemm_swish_bias_group_norm_forward(cfg, a, device, tt::cuda::stream(device));
  return out;
}

}  // namespace tt::ops::cuda
