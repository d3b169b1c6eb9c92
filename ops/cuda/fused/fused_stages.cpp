// The run-time lookups of the fused ops' passes (see the header).
#include "ops/cuda/fused/fused_stages.h"

#include "core/cuda/stream.h"
#include "core/tensor.h"
#include "ops/cuda/gemm/gemm_tensor.h"
#include "ops/cuda/norm/norm_space.h"

namespace tt::ops::cuda::fused {

gemm::PassConfigs tuned_passes(const FusedStages& stages, int device) {
  gemm::PassConfigs passes;
  if (stages.segment != nullptr) {
    passes.segment = [name = std::string(stages.segment), device](const norm::SegmentProblem& p) {
      return norm::choose_segment(name, p, device);
    };
  }
  if (stages.column_stats != nullptr) {
    passes.column_stats = [name = std::string(stages.column_stats),
                           device](const norm::ColumnProblem& p) {
      return norm::choose_column_stats(name, p, device);
    };
  }
  if (stages.affine != nullptr) {
    passes.affine = [name = std::string(stages.affine), device](const norm::AffineProblem& p) {
      return norm::choose_affine(name, p, device);
    };
  }
  return passes;
}

FusedCall::FusedCall(const FusedStages& stages, const Tensor& x_in, const Tensor& weight,
                     int64_t groups)
    : guard(x_in.device().index),
      x(gemm::dense(x_in)),
      w(gemm::dense(weight)),
      problem(gemm::problem_of(x, w)),
      cfg(gemm::choose_gemm(stages.gemm, problem, x_in.device().index, groups)),
      passes(tuned_passes(stages, x_in.device().index)) {
  out = Tensor::empty({problem.m, problem.n}, DType::F32, x_in.device());
}

void run_planned(const Plan& plan, Device device) {
  const int64_t floats = plan.scratch_floats();
  const Tensor work = floats > 0 ? Tensor::empty({floats}, DType::F32, device) : Tensor();
  run_plan(plan, work.defined() ? work.data<float>() : nullptr, device.index,
           tt::cuda::stream(device.index));
}

}  // namespace tt::ops::cuda::fused
