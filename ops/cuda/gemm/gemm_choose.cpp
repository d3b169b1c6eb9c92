// The GEMM stage's run-time choice (gemm_space.h): the database lookup through the
// space cache in the calling thread's precision, with cuBLASLt's algorithm counts and
// the device's support of the tc family as device constraints.
#include <fmt/format.h>

#include <cstdio>
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
// rows in the compute type (tf32: FAST_TF32), memoized. Buffers from the caching
// allocator are 256-byte aligned, which is what the launch passes when the stage runs
// on whole tensors.
AlgoCount cublas_algo_count(const GemmStage& stage, const GemmProblem& p, int device, bool tf32) {
  struct Memo {
    std::mutex mutex;
    std::map<int64_t, int> counts;
  };
  auto memo = std::make_shared<Memo>();
  const LtEpilogue epilogue = stage.relu   ? LtEpilogue::kReluBias
                              : stage.bias ? LtEpilogue::kBias
                                           : LtEpilogue::kDefault;
  return [memo, epilogue, p, device, tf32](int64_t rows) {
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
      lp.tf32 = tf32;
      count = static_cast<int>(heuristic_algorithms(lp, kCublasAlgoCandidates).size());
    } catch (const Error&) {
      count = 0;  // no algorithm: every cuBLASLt config is unsupported here
    }
    memo->counts.emplace(rows, count);
    return count;
  };
}

}  // namespace

bool tc_device_supported(int device) {
  if (tc_variants().empty()) return false;
  const tt::cuda::DeviceLimits& l = tt::cuda::device_limits(device);
  return l.cc_major == 9 && l.cc_minor == 0;
}

void note_accurate_fallback(int device) {
  if (current_precision() != Precision::accurate || tc_device_supported(device)) return;
  static std::once_flag once;
  std::call_once(once, [device] {
    const tt::cuda::DeviceLimits& l = tt::cuda::device_limits(device);
    const std::string line =
        accurate_fallback_message(l.cc_major, l.cc_minor, !tc_variants().empty());
    std::fprintf(stderr, "tensortune: %s\n", line.c_str());
  });
}

GemmConfig choose_gemm(const GemmStage& stage, const GemmProblem& p, int device, int64_t groups) {
  const Precision precision = current_precision();
  const std::string problem = gemm_problem_key(stage, p, groups, precision);
  const bool tc_device = precision != Precision::strict && tc_device_supported(device);
  if (precision == Precision::accurate) note_accurate_fallback(device);
  const autotune::Config c =
      autotune::choose(device, stage.name, problem, /*swept_first=*/true, [&](bool constrained) {
        GemmSpaceOptions options;
        options.precision = precision;
        options.tc_device = tc_device;
        if (!constrained) return gemm_space(stage, p, tt::cuda::DeviceLimits{}, options);
        options.algo_count = cublas_algo_count(stage, p, device, false);
        if (precision == Precision::tf32) {
          options.tf32_algo_count = cublas_algo_count(stage, p, device, true);
        }
        return gemm_space(stage, p, tt::cuda::device_limits(device), options);
      });
  return gemm_descriptor(stage.chunks, stage.tails, stage.stats_pass).from_config(c);
}

}  // namespace tt::ops::cuda::gemm
