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

// The steps a = steps followed by b (the steps before a norm's statistics).
gemm::Epilogue joined(const gemm::Epilogue& a, const gemm::Epilogue& b, const char* op) {
  TT_CHECK(a.count + b.count <= gemm::Epilogue::kMaxSteps,
           "{}: {} steps before the norm, more than the {} a chain holds", op, a.count + b.count,
           gemm::Epilogue::kMaxSteps);
  gemm::Epilogue r = a;
  for (int i = 0; i < b.count; ++i) r.steps[r.count++] = b.steps[i];
  return r;
}

// How many leading steps the GEMM applies when a pass follows: its scale and bias
// (mul_column, add_column), which every implementation applies (cuBLASLt's BIAS epilogue
// included); the pass, memory-bound, applies the rest in its prologue at no cost, and
// the GEMM keeps the fixed-function epilogues that the other steps would exclude.
int gemm_share(const gemm::Epilogue& e) {
  int i = 0;
  if (i < e.count && e.steps[i].op == gemm::EpilogueOp::kMulColumn) ++i;
  if (i < e.count && e.steps[i].op == gemm::EpilogueOp::kAddColumn) ++i;
  return i;
}

gemm::Epilogue steps_from(const gemm::Epilogue& e, int first) {
  gemm::Epilogue r;
  for (int i = first; i < e.count; ++i) r.steps[r.count++] = e.steps[i];
  return r;
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
  const gemm::Epilogue all = joined(f.steps, f.prologue, p.op);
  const float* gamma = nullptr;
  const float* beta = nullptr;
  if (!f.rms && is_affine(f.epilogue, &gamma, &beta) && !p.gemm.stats_pass) {
    // The whole chain in the GEMM's epilogue (stats_pass, tc's choice, keeps the
    // statistics out of it: in the cooperative tensor-core kernels the epilogue's norm
    // stalls the tensor cores longer than the pass takes).
    gemm::Epilogue one = all;
    one.group_norm(n / f.groups, gamma, beta, f.eps);
    if (gemm::epilogue_supported(p.gemm, {p.m, n, p.k}, one)) {
      p.add(gemm_stage(one, Slot::kOut));
      return p;
    }
  }
  if (offers.chunks || offers.tails) p.schedule = schedule_of(p.gemm, p.m, offers);
  const Slot y = in_parts(p.schedule) ? Slot::kOut : Slot::kGemmOut;
  const int share = gemm_share(all);
  gemm::Epilogue head = all;
  head.count = share;
  p.add(gemm_stage(head, y));
  p.add(segment_norm_stage(y, Slot::kOut, f.groups, steps_from(all, share), f.epilogue, f.rms,
                           f.eps));
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

namespace {

bool is_add_mul(const gemm::Epilogue& e) {
  return e.count == 2 && e.steps[0].op == gemm::EpilogueOp::kAddResidual &&
         e.steps[1].op == gemm::EpilogueOp::kMulResidual;
}

}  // namespace

bool is_affine(const gemm::Epilogue& e, const float** gamma, const float** beta) {
  if (e.kind != gemm::EpilogueKind::kPointwise) return false;
  int i = 0;
  const float* g = nullptr;
  const float* b = nullptr;
  if (i < e.count && e.steps[i].op == gemm::EpilogueOp::kMulColumn) g = e.steps[i++].data;
  if (i < e.count && e.steps[i].op == gemm::EpilogueOp::kAddColumn) b = e.steps[i++].data;
  if (i != e.count) return false;
  if (gamma) *gamma = g;
  if (beta) *beta = b;
  return true;
}

std::string FusedPattern::name() const {
  gemm::Epilogue shown = gemm ? joined(steps, prologue, "a fused pattern") : prologue;
  shown.kind = gemm::EpilogueKind::kPointwise;
  const std::string gemm_part = fmt::format("{}[{}]", gemm ? "gemm" : "chain", shown.str());
  switch (norm) {
    case NormKind::kNone:
      return gemm_part;
    case NormKind::kSegment:
      return fmt::format("{}>{}[{}]", gemm_part, rms ? "rms_norm" : "segment_norm",
                         is_affine(epilogue)    ? "affine"
                         : is_add_mul(epilogue) ? "add_mul"
                                                : epilogue.str());
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
      // The GEMM applies the whole chain, residual steps included.
      g.residual = f.steps.has(gemm::EpilogueOp::kAddResidual) ||
                   f.steps.has(gemm::EpilogueOp::kMulResidual);
      break;
    case NormKind::kSegment:
      if (!f.rms && is_affine(f.epilogue)) {
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
  TT_CHECK(f.gemm, "{}: a norm without a GEMM is built by build_norm_plan", op);
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

Plan build_norm_plan(const FusedPattern& f, const char* op, const float* x, float* out, float* pre,
                     int64_t m, int64_t n, const gemm::PassConfigs* passes) {
  TT_CHECK(!f.gemm && f.norm == NormKind::kSegment,
           "{}: build_norm_plan builds a segment norm without a GEMM", op);
  TT_CHECK(f.groups > 0 && n % f.groups == 0, "{}: {} channels do not split into {} groups", op, n,
           f.groups);
  Plan p = plan_for(op, gemm::GemmConfig{}, x, nullptr, out, m, n, 0, passes);
  p.pre = pre;
  Stage st =
      segment_norm_stage(Slot::kIn, Slot::kOut, f.groups, f.prologue, f.epilogue, f.rms, f.eps);
  if (pre) st.pre = Slot::kPre;
  p.add(st);
  return p;
}

}  // namespace tt::ops::cuda::fused
