// gemm_instance_norm_add_mul's plan: GEMM + bias into scratch, then one segment-norm
// pass over each row (one segment per row) whose epilogue functor computes
// ((v - mean) * rstd + y) * y. The row norm needs the whole row of N values, more than a
// GEMM tile holds, so it is always a pass; the GEMM stage offers no schedule options.
#include "ops/cuda/fused/plan.h"

namespace tt::ops::cuda {

fused::Plan fused::gemm_instance_norm_add_mul_plan(const gemm::GemmConfig& cfg,
                                                   const gemm::GemmInstanceNormAddMulArgs& a) {
  Plan p = plan_for("gemm_instance_norm_add_mul", cfg, a.x, a.w, a.out, a.m, a.n, a.k, a.passes);
  p.add(gemm_stage(gemm::Epilogue().add_column(a.b), Slot::kGemmOut));
  Stage norm = segment_norm_stage(Slot::kGemmOut, Slot::kOut, 1, SegmentPrologue::kIdentity,
                                  SegmentEpilogue::kAddMul, a.eps);
  norm.y = a.y;
  p.add(norm);
  return p;
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

// The tuning names and schedule options of this op's stages.
const fused::FusedStages fused::kGemmInstanceNormAddMul{
    {"gemm_instance_norm_add_mul.gemm", false, false, false, false},
    "gemm_instance_norm_add_mul.row_norm_add_mul"};

}  // namespace tt::ops::cuda
