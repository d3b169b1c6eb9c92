// The plan of a fused GEMM group, built from its structure (see pattern.h).
#include "ops/cuda/fused/pattern.h"

#include <fmt/format.h>

#include <mutex>
#include <set>

#include "core/error.h"
#include "ops/cuda/gemm/gemm.h"

namespace tt::ops::cuda::fused {
namespace {

bool ends_with(const gemm::Epilogue& e, std::initializer_list<gemm::EpilogueOp> ops) {
  const int n = static_cast<int>(ops.size());
  if (e.count < n) return false;
  int i = e.count - n;
  for (gemm::EpilogueOp op : ops)
    if (e.steps[i++].op != op) return false;
  return true;
}

gemm::Epilogue without_last(const gemm::Epilogue& e, int drop) {
  gemm::Epilogue r = e;
  r.count -= drop;
  return r;
}

// The segment pass's prologue functors take a trailing silu + column bias (model 3's
// swish(v) + bias[c]); every other step stays in the GEMM's epilogue.
bool swish_bias_prologue(const FusedPattern& f) {
  return f.norm_epilogue == SegmentEpilogue::kAffine &&
         ends_with(f.steps, {gemm::EpilogueOp::kSilu, gemm::EpilogueOp::kAddColumn});
}

// Batch norm's statistics are of z = v * scale[c] when the steps end with a per-column
// multiply.
bool scale_folds(const FusedPattern& f) {
  return (f.norm == NormKind::kBatchTrain || f.norm == NormKind::kBatchEval) &&
         ends_with(f.steps, {gemm::EpilogueOp::kMulColumn});
}

const char* intern(const std::string& s) {
  static std::mutex mu;
  static std::set<std::string> names;
  const std::lock_guard<std::mutex> lock(mu);
  return names.insert(s).first->c_str();
}

Plan segment_plan(const FusedPattern& f, const gemm::GemmStage& offers, Plan p) {
  const int64_t n = p.n;
  TT_CHECK(f.groups > 0 && n % f.groups == 0, "{}: {} channels do not split into {} groups", p.op,
           n, f.groups);
  TT_CHECK(f.norm_epilogue != SegmentEpilogue::kAddMul || f.groups == 1,
           "{}: the norm's add-mul output needs one segment per row, not {}", p.op, f.groups);
  if (f.norm_epilogue == SegmentEpilogue::kAffine && !p.gemm.stats_pass) {
    // The whole chain in the GEMM's epilogue (stats_pass, tc's choice, keeps the
    // statistics out of it: in the cooperative tensor-core kernels the epilogue's norm
    // stalls the tensor cores longer than the pass takes).
    gemm::Epilogue one = f.steps;
    one.group_norm(n / f.groups, f.gamma, f.beta, f.eps);
    if (gemm::epilogue_supported(p.gemm, {p.m, n, p.k}, one)) {
      p.add(gemm_stage(one, Slot::kOut));
      return p;
    }
  }
  if (offers.chunks || offers.tails) p.schedule = schedule_of(p.gemm, p.m, offers);
  const Slot y = in_parts(p.schedule) ? Slot::kOut : Slot::kGemmOut;
  const bool swish = swish_bias_prologue(f);
  p.add(gemm_stage(swish ? without_last(f.steps, 2) : f.steps, y));
  Stage norm = segment_norm_stage(y, Slot::kOut, f.groups,
                                  swish ? SegmentPrologue::kSwishBias : SegmentPrologue::kIdentity,
                                  f.norm_epilogue, f.eps);
  if (swish) norm.bias = f.steps.steps[f.steps.count - 1].data;
  norm.gamma = f.gamma, norm.beta = f.beta, norm.y = f.y;
  p.add(norm);
  return p;
}

Plan batch_norm_plan(const FusedPattern& f, const gemm::GemmStage& offers, Plan p) {
  const bool fold = scale_folds(f);
  const gemm::Epilogue steps = fold ? without_last(f.steps, 1) : f.steps;
  const BatchNormParams bn{fold ? f.steps.steps[f.steps.count - 1].data : nullptr,
                           f.bn_gamma,
                           f.bn_beta,
                           f.running_mean,
                           f.running_var,
                           f.momentum,
                           f.eps};
  const gemm::GemmProblem problem{p.m, p.n, p.k};
  if (f.norm == NormKind::kBatchEval) {
    // The affine from the running statistics first; then the GEMM applies it in its
    // epilogue when the config can (the support query looks at the steps, not at their
    // data: any affine pointer does), else one affine pass, in place per row chunk.
    p.add(eval_affine_stage(bn));
    gemm::Epilogue with_affine = steps;
    with_affine.column_affine(kAnyOperand, p.n);
    if (gemm::epilogue_supported(p.gemm, problem, with_affine)) {
      Stage g = gemm_stage(steps, Slot::kOut);
      g.append_affine = Slot::kAffine;
      p.add(g);
      return p;
    }
    p.schedule = schedule_of(p.gemm, p.m, offers);
    const Slot y = in_parts(p.schedule) ? Slot::kOut : Slot::kGemmOut;
    p.add(gemm_stage(steps, y));
    p.add(channel_affine_stage(y, Slot::kOut));
    return p;
  }
  TT_CHECK(p.m > 0, "{}: training needs at least one row", p.op);
  p.schedule = schedule_of(p.gemm, p.m, offers);
  // The column statistics from the GEMM's epilogue when the config can write them and
  // does not ask for a pass (stats_pass); else a statistics pass, whose config fixes the
  // number of partials, so it must be the same when the scratch is sized (no pointer
  // yet) and when it runs (the same PassConfigs): the scratch is 16-byte aligned, so
  // width 4 is allowed.
  gemm::Epilogue with_stats = steps;
  with_stats.column_stats(nullptr, nullptr);  // the executor points them at the partials
  const int64_t gemm_rows = gemm::column_stat_rows(p.gemm);
  if (!p.gemm.stats_pass && gemm_rows > 0 &&
      gemm::epilogue_supported(p.gemm, problem, with_stats)) {
    p.part_rows = gemm_rows;
    p.add(gemm_stage(with_stats, Slot::kGemmOut));
  } else {
    const norm::ColumnProblem cp{p.m, p.n, 4};
    p.column_stats = p.passes && p.passes->column_stats ? p.passes->column_stats(cp)
                                                        : norm::ColumnStatsConfig::default_for(cp);
    p.part_rows = p.column_stats.chunk_rows;
    p.add(gemm_stage(steps, Slot::kGemmOut));
    p.add(column_stats_stage(Slot::kGemmOut));
  }
  // Chunks and the head of a tail split are whole statistics bands, so the partials land
  // where one pass over all rows would put them.
  p.schedule.row_multiple = p.part_rows;
  p.add(finalize_stage(bn));
  p.add(channel_affine_stage(Slot::kGemmOut, Slot::kOut));
  return p;
}

}  // namespace

std::string FusedPattern::name() const {
  gemm::Epilogue shown = steps;
  shown.kind = gemm::EpilogueKind::kPointwise;
  const std::string gemm_part = fmt::format("gemm[{}]", shown.str());
  switch (norm) {
    case NormKind::kNone:
      return gemm_part;
    case NormKind::kSegment:
      return gemm_part + (norm_epilogue == SegmentEpilogue::kAffine ? ">segment_norm[affine]"
                                                                    : ">segment_norm[add_mul]");
    case NormKind::kBatchTrain:
      return gemm_part + ">batch_norm[train]";
    case NormKind::kBatchEval:
      return gemm_part + ">batch_norm[eval]";
  }
  return gemm_part;
}

namespace {

// The GEMM stage's options (what the tuner sweeps and the schedule the plan may take),
// from the structure alone: what build_plan needs on every call, without the names.
gemm::GemmStage stage_options(const FusedPattern& f) {
  gemm::GemmStage g;
  g.bias = f.steps.count > 0 && f.steps.steps[0].op == gemm::EpilogueOp::kAddColumn;
  switch (f.norm) {
    case NormKind::kNone:
      // cuBLASLt's algorithms differ with its RELU_BIAS epilogue.
      g.relu = f.steps.count == 2 && ends_with(f.steps, {gemm::EpilogueOp::kRelu}) && g.bias;
      break;
    case NormKind::kSegment:
      if (f.norm_epilogue == SegmentEpilogue::kAffine) {
        // Whether a tile holds whole groups decides whether the group is one kernel, so
        // the problem key has groups=G; the pass may run in row chunks or a tail split.
        g.chunks = g.tails = g.groups_in_key = g.stats_pass = true;
      }
      break;
    case NormKind::kBatchTrain:
      g.chunks = g.tails = g.stats_pass = true;
      break;
    case NormKind::kBatchEval:
      // The affine is known before the GEMM, so chunks apply it in place; no tail split.
      g.chunks = true;
      break;
  }
  return g;
}

}  // namespace

FusedStages FusedPattern::stages() const {
  const std::string base = name();
  FusedStages s;
  s.gemm = stage_options(*this);
  s.gemm.name = intern(base);
  if (norm == NormKind::kSegment) s.segment = intern(base + ".segment");
  if (norm == NormKind::kBatchTrain) s.column_stats = intern(base + ".column_stats");
  if (norm == NormKind::kBatchTrain || norm == NormKind::kBatchEval)
    s.affine = intern(base + ".affine");
  return s;
}

Plan build_plan(const FusedPattern& f, const char* op, const gemm::GemmConfig& cfg, const float* x,
                const float* w, float* out, int64_t m, int64_t n, int64_t k,
                const gemm::PassConfigs* passes) {
  Plan p = plan_for(op, cfg, x, w, out, m, n, k, passes);
  switch (f.norm) {
    case NormKind::kNone:
      p.add(gemm_stage(f.steps, Slot::kOut));
      return p;
    case NormKind::kSegment:
      return segment_plan(f, stage_options(f), p);
    case NormKind::kBatchTrain:
    case NormKind::kBatchEval:
      return batch_norm_plan(f, stage_options(f), p);
  }
  return p;
}

}  // namespace tt::ops::cuda::fused
