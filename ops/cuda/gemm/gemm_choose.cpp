// The GEMM stage's run-time choice (gemm_space.h): the database lookup through the
// space cache, with cuBLASLt's algorithm count as a device constraint.
#include <map>
#include <memory>
#include <mutex>

#include "autotune/space_cache.h"
#include "core/error.h"
#include "ops/cuda/gemm/cublaslt_gemm.h"
#include "ops/cuda/gemm/gemm_space.h"

namespace tt::ops::cuda::gemm {
namespace {

// How many algorithms cuBLASLt's heuristic offers for the stage's GEMM with `rows`
// rows, memoized. Buffers from the caching allocator are 256-byte aligned, which is
// what the launch passes when the stage runs on whole tensors.
AlgoCount cublas_algo_count(const GemmStage& stage, const GemmProblem& p, int device) {
  struct Memo {
    std::mutex mutex;
    std::map<int64_t, int> counts;
  };
  auto memo = std::make_shared<Memo>();
  const LtEpilogue epilogue = stage.relu ? LtEpilogue::kReluBias : LtEpilogue::kBias;
  return [memo, epilogue, p, device](int64_t rows) {
    std::lock_guard<std::mutex> lock(memo->mutex);
    auto it = memo->counts.find(rows);
    if (it != memo->counts.end()) return it->second;
    int count = 0;
    try {
      LtProblem lp;
      lp.m = rows;
      lp.n = p.n;
      lp.k = p.k;
      lp.epilogue = epilogue;
      lp.device = device;
      lp.align_bytes = 256;
      count = static_cast<int>(heuristic_algorithms(lp, kCublasAlgoCandidates).size());
    } catch (const Error&) {
      count = 0;  // no algorithm: every cuBLASLt config is unsupported here
    }
    memo->counts.emplace(rows, count);
    return count;
  };
}

}  // namespace

GemmConfig choose_gemm(const GemmStage& stage, const GemmProblem& p, int device, int64_t groups) {
  const std::string problem = gemm_problem_key(stage, p, groups);
  const autotune::Config c =
      autotune::choose(device, stage.name, problem, /*swept_first=*/true, [&](bool constrained) {
        return constrained ? gemm_space(stage, p, tt::cuda::device_limits(device),
                                        cublas_algo_count(stage, p, device))
                           : gemm_space(stage, p, tt::cuda::DeviceLimits{});
      });
  return gemm_descriptor(stage.chunks, stage.tails).from_config(c);
}

}  // namespace tt::ops::cuda::gemm
