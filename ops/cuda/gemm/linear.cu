// y = x W^T + b on CUDA as a stage of the GEMM family (ops/cuda/gemm/gemm.h): x viewed
// as a [rows, in] matrix (contiguous, K = in contiguous), W [out, in] (contiguous), the
// bias in the GEMM's epilogue (cuBLASLt's BIAS epilogue: the float32 product rounded,
// then the bias added, the CPU reference's rounding order). The config is the tuned one
// for kernel "linear" ("linear_nobias" without a bias) and the GEMM stage's problem key
// in the calling thread's precision (gemm_space.h: choose_gemm), so `tt tune` tunes
// it and every precision mode applies:
//   strict    cuBLASLt CUBLAS_COMPUTE_32F (default: its first pick) or our own kernel;
//   tf32      also cuBLASLt CUBLAS_COMPUTE_32F_FAST_TF32 (the default) and the tc
//             family's tf32 variants;
//   accurate  also the tc family's accurate variants (the default on an sm_90 GPU)
//             where the TMA's rules hold (in % 4 == 0, x and W 16-byte aligned),
//             else the strict path (GemmConfig::default_for).
#include <cuda_runtime.h>

#include <cstdint>
#include <limits>

#include "core/cuda/check.h"
#include "core/cuda/stream.h"
#include "ops/cuda/cuda_ops.h"
#include "ops/cuda/gemm/gemm.h"
#include "ops/cuda/gemm/gemm_space.h"
#include "ops/linear_problem.h"

namespace tt::ops::cuda {

Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  const LinearProblem p = linear_problem(x, weight);
  const Tensor& xc = p.x;
  const Tensor& wc = p.weight;
  const int64_t in_features = p.in_features, out_features = p.out_features, rows = p.rows;

  Tensor out = Tensor::empty(p.out_shape, DType::F32, x.device());
  if (out.numel() == 0) return out;

  constexpr int64_t kIntMax = std::numeric_limits<int>::max();
  TT_CHECK(rows <= kIntMax && in_features <= kIntMax && out_features <= kIntMax,
           "linear: cuBLAS takes matrix sizes below 2^31, but the input has {} rows of {} "
           "features and the weight {} output features.",
           rows, in_features, out_features);

  const int device = x.device().index;
  tt::cuda::DeviceGuard guard(device);
  const Tensor bc = bias.defined() ? bias.contiguous() : Tensor();
  gemm::GemmArgs args;
  args.x = xc.data<float>();
  args.w = wc.data<float>();
  args.c = out.data<float>();
  args.m = rows;
  args.n = out_features;
  args.k = in_features;
  const float* bias_data = bc.defined() ? bc.data<float>() : nullptr;
  gemm::Epilogue e;
  e.add_column(bias_data);  // a null bias adds no step
  const gemm::GemmProblem problem{rows, out_features, in_features,
                                  gemm::pointer_align({args.x, args.w})};
  const gemm::GemmConfig cfg =
      gemm::choose_gemm(bias_data ? gemm::kLinearStage : gemm::kLinearNoBiasStage, problem, device);
  gemm::run_gemm(cfg, args, e, device, tt::cuda::stream(device));
  return out;
}

}  // namespace tt::ops::cuda
