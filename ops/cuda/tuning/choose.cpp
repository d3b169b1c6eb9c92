// The run-time lookup of every tunable launch (see the header) and the cache of the
// spaces it validates against.
#include "ops/cuda/tuning/choose.h"

#include <map>
#include <memory>
#include <mutex>

#include "autotune/device_identity.h"
#include "autotune/lookup.h"
#include "core/error.h"
#include "ops/cuda/gemm/cublaslt_gemm.h"
#include "ops/cuda/pointwise/pointwise_space.h"
#include "ops/cuda/tuning/device_limits.h"
#include "ops/cuda/tuning/gemm_space.h"
#include "ops/cuda/tuning/norm_spaces.h"

namespace tt::ops::cuda::tuning {
namespace {

using autotune::Config;
using autotune::ParamSpace;

struct SpaceEntry {
  std::unique_ptr<ParamSpace> space;     // with the device constraints
  std::unique_ptr<ParamSpace> portable;  // without them
  bool gemm_stage = false;
  bool constrained = true;  // `space` has the device constraints
};

std::string cache_key(int device, const std::string& kernel, const std::string& problem) {
  return std::to_string(device) + '\x1f' + kernel + '\x1f' + problem;
}

std::mutex& cache_mutex() {
  static std::mutex mutex;
  return mutex;
}

std::map<std::string, SpaceEntry>& cache() {
  static std::map<std::string, SpaceEntry> entries;
  return entries;
}

// The cached space of (device, kernel, problem), built by `build(limits)` on first use.
// Entries are never removed, so the reference stays valid.
template <class Build>
const ParamSpace& cached_space(int device, const std::string& kernel, const std::string& problem,
                               bool gemm_stage, Build build) {
  const std::string key = cache_key(device, kernel, problem);
  {
    std::lock_guard<std::mutex> lock(cache_mutex());
    auto it = cache().find(key);
    if (it != cache().end()) return *it->second.space;
  }
  // Built outside the lock: building may query cuBLASLt, which has locks of its own.
  SpaceEntry entry;
  entry.gemm_stage = gemm_stage;
  entry.portable = std::make_unique<ParamSpace>(build(DeviceLimits{}));
  entry.space = std::make_unique<ParamSpace>(build(device_limits(device)));
  // A default the device constraints reject would turn every launch into an error;
  // such a device (none we know) keeps the portable space and today's behaviour.
  if (!entry.space->is_valid(entry.portable->default_config())) {
    entry.space = std::make_unique<ParamSpace>(build(DeviceLimits{}));
    entry.constrained = false;
  }
  std::lock_guard<std::mutex> lock(cache_mutex());
  return *cache().emplace(key, std::move(entry)).first->second.space;
}

Config lookup_config(int device, const std::string& kernel, const std::string& problem,
                     const ParamSpace& space) {
  return autotune::lookup(kernel, problem, autotune::current_device_identity(device), space).config;
}

// How many algorithms cuBLASLt's heuristic offers for the stage's GEMM with `rows`
// rows, memoized. Buffers from the caching allocator are 256-byte aligned, which is
// what the launch passes when the stage runs on whole tensors.
AlgoCount cublas_algo_count(gemm::GemmKernel kernel, const gemm::GemmProblem& p, int device) {
  struct Memo {
    std::mutex mutex;
    std::map<int64_t, int> counts;
  };
  auto memo = std::make_shared<Memo>();
  const gemm::LtEpilogue epilogue =
      kernel == gemm::GemmKernel::kBiasRelu ? gemm::LtEpilogue::kReluBias : gemm::LtEpilogue::kBias;
  return [memo, epilogue, p, device](int64_t rows) {
    std::lock_guard<std::mutex> lock(memo->mutex);
    auto it = memo->counts.find(rows);
    if (it != memo->counts.end()) return it->second;
    int count = 0;
    try {
      gemm::LtProblem lp;
      lp.m = rows;
      lp.n = p.n;
      lp.k = p.k;
      lp.epilogue = epilogue;
      lp.device = device;
      lp.align_bytes = 256;
      count = static_cast<int>(gemm::heuristic_algorithms(lp, kCublasAlgoCandidates).size());
    } catch (const Error&) {
      count = 0;  // no algorithm: every cuBLASLt config is unsupported here
    }
    memo->counts.emplace(rows, count);
    return count;
  };
}

}  // namespace

gemm::GemmConfig choose_gemm(gemm::GemmKernel kernel, const gemm::GemmProblem& p, int device,
                             int64_t groups) {
  const std::string name = gemm_stage_name(kernel);
  const std::string problem = gemm_problem_key(kernel, p, groups);
  const ParamSpace& space =
      cached_space(device, name, problem, true, [&](const DeviceLimits& limits) {
        return gemm_space(kernel, p, limits,
                          limits.known ? cublas_algo_count(kernel, p, device) : nullptr);
      });
  return gemm_from_config(lookup_config(device, name, problem, space));
}

gemm::PassConfigs pass_configs(gemm::GemmKernel kernel, int device) {
  gemm::PassConfigs passes;
  const auto segment = [device](const char* name) {
    return
        [name, device](const norm::SegmentProblem& p) { return choose_segment(name, p, device); };
  };
  const auto affine = [device](const char* name) {
    return [name, device](const norm::AffineProblem& p) { return choose_affine(name, p, device); };
  };
  switch (kernel) {
    case gemm::GemmKernel::kBiasRelu:
      break;
    case gemm::GemmKernel::kInstanceNormAddMul:
      passes.segment = segment(kRowNormAddMul);
      break;
    case gemm::GemmKernel::kSwishBiasGroupNorm:
      passes.segment = segment(kSwishBiasGroupNorm);
      break;
    case gemm::GemmKernel::kScaleBatchNormTrain:
      passes.column_stats = [device](const norm::ColumnProblem& p) {
        return choose_column_stats(kScaleBatchNormTrainColumnStats, p, device);
      };
      passes.affine = affine(kScaleBatchNormTrainAffine);
      break;
    case gemm::GemmKernel::kScaleBatchNormEval:
      passes.affine = affine(kScaleBatchNormEvalAffine);
      break;
  }
  return passes;
}

norm::SegmentConfig choose_segment(const char* kernel, const norm::SegmentProblem& p, int device) {
  const std::string problem = segment_problem_key(p);
  const ParamSpace& space =
      cached_space(device, kernel, problem, false,
                   [&](const DeviceLimits& limits) { return segment_space(kernel, p, limits); });
  return segment_from_config(lookup_config(device, kernel, problem, space));
}

norm::ColumnStatsConfig choose_column_stats(const char* kernel, const norm::ColumnProblem& p,
                                            int device) {
  const std::string problem = column_problem_key(p);
  const ParamSpace& space = cached_space(
      device, kernel, problem, false,
      [&](const DeviceLimits& limits) { return column_stats_space(kernel, p, limits); });
  return column_stats_from_config(lookup_config(device, kernel, problem, space));
}

norm::AffineConfig choose_affine(const char* kernel, const norm::AffineProblem& p, int device) {
  const std::string problem = affine_problem_key(p);
  const ParamSpace& space =
      cached_space(device, kernel, problem, false,
                   [&](const DeviceLimits& limits) { return affine_space(kernel, p, limits); });
  return affine_from_config(lookup_config(device, kernel, problem, space));
}

pointwise_tuning::PointwiseConfig choose_pointwise(const std::string& kernel,
                                                   const pointwise_tuning::PointwiseProblem& p,
                                                   int device) {
  const std::string problem = pointwise_tuning::problem_key(p);
  const ParamSpace& space = cached_space(
      device, kernel, problem, false,
      [&](const DeviceLimits& limits) { return pointwise_tuning::space(kernel, p, limits); });
  return pointwise_tuning::descriptor().from_config(lookup_config(device, kernel, problem, space));
}

TunableSpace space_for(const std::string& kernel, const std::string& problem, int device) {
  std::lock_guard<std::mutex> lock(cache_mutex());
  const auto it = cache().find(cache_key(device, kernel, problem));
  TT_CHECK(it != cache().end(),
           "no launch of {} for problem {} on device {} was looked up in this process, so its "
           "parameter space is unknown",
           kernel, problem, device);
  TunableSpace out;
  out.space = it->second.space.get();
  out.gemm_stage = it->second.gemm_stage;
  if (it->second.constrained) {
    for (const Config& c : it->second.portable->enumerate()) {
      if (auto why = it->second.space->why_invalid(c)) {
        out.unsupported.push_back({c, "unsupported", *why});
      }
    }
  }
  return out;
}

autotune::Config choose_config(const std::string& kernel, const std::string& problem, int device,
                               const SpaceBuilder& build, bool gemm_stage) {
  const ParamSpace& space = cached_space(device, kernel, problem, gemm_stage, build);
  return lookup_config(device, kernel, problem, space);
}

}  // namespace tt::ops::cuda::tuning

namespace tt::ops::cuda::gemm {

GemmConfig choose_config(GemmKernel kernel, const GemmProblem& p, int device, int64_t groups) {
  return tuning::choose_gemm(kernel, p, device, groups);
}

}  // namespace tt::ops::cuda::gemm
