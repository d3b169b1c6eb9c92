// gemm_bias_relu on CUDA: relu(x W^T + bias) as one GEMM with a bias + ReLU epilogue.
#include "core/cuda/stream.h"
#include "ops/cuda/cuda_ops.h"
#include "ops/cuda/fused/fused_stages.h"
#include "ops/cuda/fused/plans.h"
#include "ops/cuda/gemm/gemm.h"
#include "ops/cuda/gemm/gemm_tensor.h"

namespace tt::ops::cuda {

Tensor gemm_bias_relu(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  using namespace gemm;
  const int device = x.device().index;
  tt::cuda::DeviceGuard guard(device);
  const Tensor xd = dense(x), wd = dense(weight), bd = dense(bias);
  const GemmProblem p = problem_of(xd, wd);
  Tensor out = Tensor::empty({p.m, p.n}, DType::F32, x.device());
  const GemmConfig cfg = choose_gemm(fused::kGemmBiasRelu.gemm, p, device);
  gemm_bias_relu_forward(cfg, {fp(xd), fp(wd), fp(bd), mfp(out), p.m, p.n, p.k}, device,
                         tt::cuda::stream(device));
  return out;
}

}  // namespace tt::ops::cuda
