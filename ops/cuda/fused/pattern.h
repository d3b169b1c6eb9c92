// A fused group as structure: a GEMM, the elementwise steps on its output
// (gemm/epilogue.h), then optionally one norm over its rows or columns, and what that
// norm's output passes through; or a norm alone with the pointwise chains before and after
// it. tt::compile finds such groups in a recorded graph of plain ops (ops/graph/fusion.h);
// one builder, build_plan(), turns any of them into the stages the generic executor runs
// (plan.h), and one name, derived from the structure, keys its tuning: two models with the
// same group share database entries. (Tests and device harnesses build patterns by hand;
// nothing under ops/ names one.)
//
//   norm kNone        the GEMM with the steps in its epilogue;
//   norm kSegment     a norm over segments of each row (`groups` per row: GroupNorm's
//                     groups, or one for a row norm: instance norm of a row, layer_norm,
//                     rms_norm with `rms`), with a prologue chain (the steps before the
//                     statistics) and an epilogue chain (on the normalised value: the
//                     affine mul_column(gamma), add_column(beta), then the steps after the
//                     norm, e.g. ((v + y) * y) as add_residual(y), mul_residual(y)), all of
//                     the GEMM epilogue's vocabulary. After a GEMM: one kernel when the
//                     config's tile holds whole groups and the epilogue is the affine, else
//                     the GEMM (with the leading scale and bias of the steps) and one pass
//                     whose prologue takes the rest;
//   norm kBatchTrain  BatchNorm1d over the columns with batch statistics (running
//                     statistics updated in place); a trailing per-column multiply of the
//                     steps is the statistics' `scale`;
//   norm kBatchEval   the same with the running statistics.
#pragma once

#include <cstdint>
#include <string>

#include "ops/cuda/fused/plan.h"

namespace tt::ops::cuda::fused {

enum class NormKind : uint8_t { kNone, kSegment, kBatchTrain, kBatchEval };

// Any non-null operand, for a pattern built to be named or asked what a config supports:
// those depend on the steps, not on their data.
inline const float* const kAnyOperand = reinterpret_cast<const float*>(16);

struct FusedPattern {
  // false: no GEMM, a kSegment norm alone whose prologue reads the plan's input x [m, n]
  // (build_norm_plan).
  bool gemm = true;
  // The steps on the GEMM's output before the norm; their operands are read only when
  // the plan runs (any non-null pointer serves for naming and support queries).
  gemm::Epilogue steps;
  NormKind norm = NormKind::kNone;
  // kSegment: the chains before the statistics (after `steps`) and after the normalisation
  // (steps only; see the table above).
  int64_t groups = 1;
  bool rms = false;
  gemm::Epilogue prologue;
  gemm::Epilogue epilogue;
  float eps = 1e-5f;
  // kBatchTrain / kBatchEval (scale comes from the steps; eps above)
  const float* bn_gamma = nullptr;
  const float* bn_beta = nullptr;
  float* running_mean = nullptr;
  float* running_var = nullptr;
  float momentum = 0.1f;

  // The structural name, e.g. "gemm[add_column,silu,add_column]>segment_norm[affine]"
  // (the steps and the prologue in gemm[...]; the epilogue as "affine" when it is the
  // affine or part of it, "add_mul" for add_residual, mul_residual, else its steps), or
  // "chain[add_residual]>segment_norm[affine]" without a GEMM: the tuning database's kernel
  // name of the GEMM stage; its passes are tuned as "<name>.segment", ".column_stats" and
  // ".affine".
  std::string name() const;
  // The GEMM stage (its name interned, so the pointer lives as long as the process) and
  // the pass names, with the schedule options the structure offers.
  FusedStages stages() const;
};

// The plan of `f` for GEMM config `cfg`: x [m, k], w [n, k], out [m, n]; `op` names the
// plan in messages (the group's structural name).
Plan build_plan(const FusedPattern& f, const char* op, const gemm::GemmConfig& cfg, const float* x,
                const float* w, float* out, int64_t m, int64_t n, int64_t k,
                const gemm::PassConfigs* passes);

// The plan of a norm without a GEMM (f.gemm false, f.norm kSegment): x [m, n] -> out, and
// the prologue's result -> pre when pre is given.
Plan build_norm_plan(const FusedPattern& f, const char* op, const float* x, float* out, float* pre,
                     int64_t m, int64_t n, const gemm::PassConfigs* passes);

// The affine's parameters when `e` is the affine or part of it (mul_column(gamma),
// add_column(beta), each optional, in this order): the norm's own output form.
bool is_affine(const gemm::Epilogue& e, const float** gamma = nullptr,
               const float** beta = nullptr);

}  // namespace tt::ops::cuda::fused
