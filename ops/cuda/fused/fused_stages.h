// The Tensor-level side of the fused ops: the tuning lookups of a plan's passes (by the
// names in its FusedStages, plan.h) and the glue every Tensor-level fused op shares.
#pragma once

#include "core/cuda/stream.h"
#include "core/device.h"
#include "core/tensor.h"
#include "ops/cuda/fused/plan.h"
#include "ops/cuda/fused/plans.h"

namespace tt::ops::cuda::fused {

// The passes' configs from the tuning database (norm_space.h: choose_*), per pass
// problem; a pass the stages do not name keeps its launcher's default.
gemm::PassConfigs tuned_passes(const FusedStages& stages, int device);

// What every Tensor-level fused op does first: the device guard, X and W dense and
// aligned, the [m, n] output, the GEMM stage's config and the passes' tuning lookups.
// args<A>() fills an op's argument struct with those (the op adds its own operands).
struct FusedCall {
  FusedCall(const FusedStages& stages, const Tensor& x, const Tensor& weight, int64_t groups = 0);
  tt::cuda::DeviceGuard guard;
  Tensor x, w, out;
  gemm::GemmProblem problem;
  gemm::GemmConfig cfg;
  gemm::PassConfigs passes;

  template <class Args>
  Args args() const {
    Args a;
    a.x = x.data<float>(), a.w = w.data<float>(), a.out = out.data<float>();
    a.m = problem.m, a.n = problem.n, a.k = problem.k;
    return a;
  }
};

// Runs a Tensor-level fused op's plan on `device`'s stream with a scratch tensor of the
// size the plan asks for (freed by the caching allocator after the queued work).
void run_planned(const Plan& plan, Device device);

}  // namespace tt::ops::cuda::fused
