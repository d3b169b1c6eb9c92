// The run-time lookups of the fused ops' passes (see the header).
#include "ops/cuda/fused/fused_stages.h"

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

}  // namespace tt::ops::cuda::fused
