// gemm_scale_batch_norm's plans: batch_norm((x W^T + b) * scale), scale folded into the
// statistics and the per-column affine [scale | mean | rstd * gamma | beta].
//   training: the GEMM writes Y into scratch; the column statistics come from its
//             epilogue when the config can write them (column_stat_rows) and does not
//             ask for a pass (stats_pass), else from a statistics pass under the config's schedule
//             (chunks and the head of a tail split are whole statistics bands, so the partials land
//             where one pass over all rows would put them); then finalize (which also updates the
//             running statistics in place) and one affine pass Y -> out.
//   eval:     the affine from the running statistics first; then the GEMM applies it in
//             its epilogue when the config can (one kernel after a tiny [N] prologue),
//             else one affine pass, in place per row chunk when the config chunks.
#include "core/error.h"
#include "ops/cuda/fused/plan.h"
#include "ops/cuda/gemm/gemm.h"

namespace tt::ops::cuda {

fused::Plan fused::gemm_scale_batch_norm_plan(const gemm::GemmConfig& cfg,
                                              const gemm::GemmScaleBatchNormArgs& a) {
  Plan p = plan_for("gemm_scale_batch_norm", cfg, a.x, a.w, a.out, a.m, a.n, a.k, a.passes);
  const BatchNormParams bn{a.scale,       a.gamma,    a.beta, a.running_mean,
                           a.running_var, a.momentum, a.eps};
  const gemm::GemmProblem problem{a.m, a.n, a.k};
  const gemm::Epilogue bias = gemm::Epilogue().add_column(a.b);
  if (!a.training) {
    p.add(eval_affine_stage(bn));
    // The support query looks at the steps, not at their data: any affine pointer does.
    static const float kAnyAffine = 0.f;
    gemm::Epilogue with_affine = bias;
    with_affine.column_affine(&kAnyAffine, a.n);
    if (gemm::epilogue_supported(cfg, problem, with_affine)) {
      Stage g = gemm_stage(bias, Slot::kOut);
      g.append_affine = Slot::kAffine;
      p.add(g);
      return p;
    }
    p.schedule = schedule_of(cfg, a.m, kGemmScaleBatchNormEval.gemm);
    const Slot y = in_parts(p.schedule) ? Slot::kOut : Slot::kGemmOut;
    p.add(gemm_stage(bias, y));
    p.add(channel_affine_stage(y, Slot::kOut));
    return p;
  }
  TT_CHECK(a.m > 0, "gemm_scale_batch_norm: training needs at least one row");
  p.schedule = schedule_of(cfg, a.m, kGemmScaleBatchNormTrain.gemm);
  gemm::Epilogue with_stats = bias;
  with_stats.column_stats(nullptr, nullptr);  // the executor points them at the partials
  const int64_t gemm_rows = gemm::column_stat_rows(cfg);
  if (!cfg.stats_pass && gemm_rows > 0 && gemm::epilogue_supported(cfg, problem, with_stats)) {
    p.part_rows = gemm_rows;
    p.add(gemm_stage(with_stats, Slot::kGemmOut));
  } else {
    // The statistics pass's config fixes the number of partials, so it must be the same
    // when the scratch is sized (no pointer yet) and when it runs (the same
    // PassConfigs): the scratch is 16-byte aligned (checked), so width 4 is allowed.
    const norm::ColumnProblem cp{a.m, a.n, 4};
    p.column_stats = a.passes && a.passes->column_stats ? a.passes->column_stats(cp)
                                                        : norm::ColumnStatsConfig::default_for(cp);
    p.part_rows = p.column_stats.chunk_rows;
    p.add(gemm_stage(bias, Slot::kGemmOut));
    p.add(column_stats_stage(Slot::kGemmOut));
  }
  p.schedule.row_multiple = p.part_rows;
  p.add(finalize_stage(bn));
  p.add(channel_affine_stage(Slot::kGemmOut, Slot::kOut));
  return p;
}

int64_t gemm::gemm_scale_batch_norm_scratch_floats(const GemmConfig& cfg, int64_t m, int64_t n,
                                                   bool training, const PassConfigs* passes) {
  GemmScaleBatchNormArgs a;
  a.m = m, a.n = n, a.training = training, a.passes = passes;
  return fused::gemm_scale_batch_norm_plan(cfg, a).scratch_floats();
}

void gemm::gemm_scale_batch_norm_forward(const GemmConfig& cfg, const GemmScaleBatchNormArgs& a,
                                         int device, cudaStream_t stream) {
  if (a.n == 0) return;
  fused::run_plan(fused::gemm_scale_batch_norm_plan(cfg, a), a.scratch, device, stream);
}

// The tuning names and schedule options of this op's stages.
const fused::FusedStages fused::kGemmScaleBatchNormTrain{
    {"gemm_scale_batch_norm_train.gemm", true, true, false, false, true, true},
    /*segment=*/nullptr,
    "gemm_scale_batch_norm_train.column_stats",
    "gemm_scale_batch_norm_train.affine"};
// The affine is known before the GEMM, so chunks apply it in place; no tail split.
const fused::FusedStages fused::kGemmScaleBatchNormEval{
    {"gemm_scale_batch_norm_eval.gemm", true, false, false, false},
    /*segment=*/nullptr,
    /*column_stats=*/nullptr,
    "gemm_scale_batch_norm_eval.affine"};

}  // namespace tt::ops::cuda
