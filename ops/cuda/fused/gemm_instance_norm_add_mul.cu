// gemm_instance_norm_add_mul on CUDA: GEMM + bias, then one pass for the row norm and (x + y) * y.
#include "core/cuda/stream.h"
#include "ops/cuda/cuda_ops.h"
#include "ops/cuda/fused/fused_stages.h"
#include "ops/cuda/fused/plans.h"
#include "ops/cuda/gemm/gemm.h"
#include "ops/cuda/gemm/gemm_tensor.h"

namespace tt::ops::cuda {

Tensor gemm_instance_norm_add_mul(const Tensor& x, const Tensor& y, const Tensor& weight,
                                  const Tensor& b, double eps) {
  using namespace gemm;
  const int device = x.device().index;
  tt::cuda::DeviceGuard guard(device);
  const Tensor xd = dense(x), yd = dense(y), wd = dense(weight), bd = dense(b);
  const GemmProblem p = problem_of(xd, wd);
  Tensor out = Tensor::empty({p.m, p.n}, DType::F32, x.device());
  const GemmConfig cfg = choose_gemm(fused::kGemmInstanceNormAddMul.gemm, p, device);
  const Tensor work = scratch(gemm_instance_norm_add_mul_scratch_floats(cfg, p.m, p.n), x.device());
  GemmInstanceNormAddMulArgs a;
  a.x = fp(xd), a.y = fp(yd), a.w = fp(wd), a.b = fp(bd), a.out = mfp(out);
  a.m = p.m, a.n = p.n, a.k = p.k;
  a.eps = static_cast<float>(eps);
  a.scratch = work.defined() ? mfp(work) : nullptr;
  const PassConfigs passes = fused::tuned_passes(fused::kGemmInstanceNormAddMul, device);
  a.passes = &passes;
  gemm_instance_norm_add_mul_forward(cfg, a, device, tt::cuda::stream(device));
  return out;
}

}  // namespace tt::ops::cuda
