// gemm_swish_bias_group_norm's plan. When the GEMM config can apply the whole chain
// (bias, silu, bias, group norm) in its epilogue, which needs whole groups in a tile,
// and does not ask for a pass (stats_pass), the op is that one GEMM. Otherwise: GEMM + bias, then
// one segment-norm pass (one segment per row and group) with the swish-bias prologue functor and
// the affine epilogue functor, under the config's schedule: in row chunks that overlap the next
// chunk's GEMM, or as a head and a tail split (plan.h), both in place in `out`; or
// whole, through scratch.
#include "core/error.h"
#include "ops/cuda/fused/plan.h"
#include "ops/cuda/gemm/gemm.h"

namespace tt::ops::cuda {

namespace {

gemm::Epilogue one_kernel_epilogue(const gemm::GemmSwishBiasGroupNormArgs& a) {
  return gemm::Epilogue().add_column(a.b).silu().add_column(a.bias).group_norm(
      a.n / a.groups, a.gamma, a.beta, a.eps);
}

// stats_pass (tc's choice) keeps the group norm's statistics out of the epilogue: in the
// cooperative tensor-core kernels the epilogue's silu and group norm stall the tensor
// cores longer than the pass takes.
bool fuses(const gemm::GemmConfig& cfg, const gemm::GemmSwishBiasGroupNormArgs& a) {
  return !cfg.stats_pass && gemm::epilogue_supported(cfg, {a.m, a.n, a.k}, one_kernel_epilogue(a));
}

}  // namespace

fused::Plan fused::gemm_swish_bias_group_norm_plan(const gemm::GemmConfig& cfg,
                                                   const gemm::GemmSwishBiasGroupNormArgs& a) {
  TT_CHECK(a.groups > 0 && a.n % a.groups == 0,
           "gemm_swish_bias_group_norm: {} channels do not split into {} groups", a.n, a.groups);
  Plan p = plan_for("gemm_swish_bias_group_norm", cfg, a.x, a.w, a.out, a.m, a.n, a.k, a.passes);
  if (fuses(cfg, a)) {
    p.add(gemm_stage(one_kernel_epilogue(a), Slot::kOut));
    return p;
  }
  p.schedule = schedule_of(cfg, a.m, kGemmSwishBiasGroupNorm.gemm);
  const Slot y = in_parts(p.schedule) ? Slot::kOut : Slot::kGemmOut;
  p.add(gemm_stage(gemm::Epilogue().add_column(a.b), y));
  Stage norm = segment_norm_stage(y, Slot::kOut, a.groups, SegmentPrologue::kSwishBias,
                                  SegmentEpilogue::kAffine, a.eps);
  norm.bias = a.bias, norm.gamma = a.gamma, norm.beta = a.beta;
  p.add(norm);
  return p;
}

namespace {

gemm::GemmSwishBiasGroupNormArgs shape_only(int64_t m, int64_t n, int64_t k, int64_t groups) {
  gemm::GemmSwishBiasGroupNormArgs a;
  a.m = m, a.n = n, a.k = k, a.groups = groups;
  return a;
}

}  // namespace

bool gemm::gemm_swish_bias_group_norm_fuses(const GemmConfig& cfg, int64_t m, int64_t n, int64_t k,
                                            int64_t groups) {
  return groups > 0 && n % groups == 0 && fuses(cfg, shape_only(m, n, k, groups));
}

int64_t gemm::gemm_swish_bias_group_norm_scratch_floats(const GemmConfig& cfg, int64_t m, int64_t n,
                                                        int64_t k, int64_t groups) {
  return fused::gemm_swish_bias_group_norm_plan(cfg, shape_only(m, n, k, groups)).scratch_floats();
}

void gemm::gemm_swish_bias_group_norm_forward(const GemmConfig& cfg,
                                              const GemmSwishBiasGroupNormArgs& a, int device,
                                              cudaStream_t stream) {
  if (a.m == 0 || a.n == 0) return;
  fused::run_plan(fused::gemm_swish_bias_group_norm_plan(cfg, a), a.scratch, device, stream);
}

// The tuning names and schedule options of this op's stages.
// The GEMM stage's key has groups=G: whether a tile holds whole groups decides whether
// the op is one kernel.
const fused::FusedStages fused::kGemmSwishBiasGroupNorm{
    {"gemm_swish_bias_group_norm.gemm", true, true, false, true, true, true},
    "gemm_swish_bias_group_norm.swish_bias_group_norm"};

}  // namespace tt::ops::cuda
