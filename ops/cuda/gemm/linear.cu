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
#include <optional>

#include "core/cuda/check.h"
#include "core/cuda/stream.h"
#include "core/precision.h"
#include "ops/cuda/cuda_ops.h"
#include "ops/cuda/gemm/gemm.h"
#include "ops/cuda/gemm/gemm_space.h"
#include "ops/linear_problem.h"

namespace tt::ops::cuda {

namespace {

gemm::GemmProblem problem_of(const LinearProblem& p, const float* x, const float* w) {
  return {p.rows, p.out_features, p.in_features, gemm::pointer_align({x, w})};
}

const gemm::GemmStage& stage_of(bool bias) {
  return bias ? gemm::kLinearStage : gemm::kLinearNoBiasStage;
}

}  // namespace

Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  const Tensor bc = bias.defined() ? bias.contiguous() : Tensor();
  gemm::Epilogue e;
  e.add_column(bc.defined() ? bc.data<float>() : nullptr);  // a null bias adds no step
  return linear_epilogue(x, weight, e, bc.defined());
}

Tensor linear_epilogue(const Tensor& x, const Tensor& weight, const gemm::Epilogue& e, bool bias,
                       std::optional<gemm::GemmConfig> config) {
  const LinearProblem p = linear_problem(x, weight);
  Tensor out = Tensor::empty(p.out_shape, DType::F32, x.device());
  if (out.numel() == 0) return out;

  constexpr int64_t kIntMax = std::numeric_limits<int>::max();
  TT_CHECK(p.rows <= kIntMax && p.in_features <= kIntMax && p.out_features <= kIntMax,
           "linear: cuBLAS takes matrix sizes below 2^31, but the input has {} rows of {} "
           "features and the weight {} output features.",
           p.rows, p.in_features, p.out_features);

  const int device = x.device().index;
  tt::cuda::DeviceGuard guard(device);
  gemm::GemmArgs args;
  args.x = p.x.data<float>();
  args.w = p.weight.data<float>();
  args.c = out.data<float>();
  args.m = p.rows;
  args.n = p.out_features;
  args.k = p.in_features;
  const gemm::GemmConfig cfg =
      config ? *config : gemm::choose_gemm(stage_of(bias), problem_of(p, args.x, args.w), device);
  gemm::run_gemm(cfg, args, e, device, tt::cuda::stream(device));
  return out;
}

std::optional<gemm::GemmConfig> linear_epilogue_config(const Shape& x, const Shape& weight,
                                                       const gemm::Epilogue& e, bool bias,
                                                       int device) {
  LinearProblem p;
  p.in_features = weight.at(1);
  p.out_features = weight.at(0);
  p.rows = shape_numel(Shape(x.begin(), x.end() - 1));
  // Our allocations are 16-byte aligned; linear_epilogue makes both operands contiguous.
  const gemm::GemmProblem problem{p.rows, p.out_features, p.in_features,
                                  p.in_features % 4 == 0 ? 4 : (p.in_features % 2 == 0 ? 2 : 1)};
  const gemm::GemmConfig chosen = gemm::choose_gemm(stage_of(bias), problem, device);
  if (gemm::epilogue_supported(chosen, problem, e)) return chosen;
  // The tuned pick cannot apply the chain: the tc family's default for the mode can (the
  // steps that read nothing or one value per column, and trailing residuals with
  // N % 4 == 0), at no loss of precision.
  const Precision mode = current_precision();
  if (mode != Precision::strict && gemm::tc_device_supported(device) &&
      !gemm::tc_variants().empty()) {
    const gemm::GemmConfig tc = gemm::tc_default(mode == Precision::accurate);
    if (gemm::tc_fits(problem) && gemm::epilogue_supported(tc, problem, e)) return tc;
  }
  return std::nullopt;
}

}  // namespace tt::ops::cuda
