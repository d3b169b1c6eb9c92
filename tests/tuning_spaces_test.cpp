// The parameter spaces of every tunable CUDA kernel family (ops/cuda/gemm/gemm_space.h,
// ops/cuda/norm/norm_space.h), checked on the CPU: each enumerates, has at least three axes, its
// default is valid and is today's default_for(), Config <-> launcher config round trips, the space
// holds exactly the launcher's candidates, constraints name their reason, device limits prune, and
// the problem keys are spelled as documented. Built with CUDA (the launchers' config code is
// CUDA-only), run without a GPU.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "autotune/space.h"
#include "core/error.h"

#if TT_CUDA
#include "core/cuda/device.h"
#include "ops/cuda/fused/pattern.h"
#include "ops/cuda/gemm/gemm.h"
#include "ops/cuda/gemm/gemm_config.h"
#include "ops/cuda/gemm/gemm_space.h"
#include "ops/cuda/norm/norm_space.h"
#include "support/seed_patterns.h"

namespace tt::ops::cuda {
namespace {

using autotune::Config;
using autotune::ParamSpace;
using gemm::GemmConfig;
using gemm::GemmImpl;
using gemm::GemmProblem;
using gemm::GemmStage;
using norm::kBatchNormAffine;
using norm::kBatchNormColumnStats;
using norm::kInstanceNorm;
using ::testing::HasSubstr;
using tt::cuda::DeviceLimits;
using tt::cuda::hopper_limits;
using namespace gemm;
using namespace norm;

// The seed groups' tunable stages (their structural names; support/seed_patterns.h).
const fused::FusedStages kBiasReluStages = test::seed::bias_relu_pattern().stages();
const fused::FusedStages kInstanceNormAddMulStages =
    test::seed::instance_norm_add_mul_pattern().stages();
const fused::FusedStages kSwishBiasGroupNormStages =
    test::seed::swish_bias_group_norm_pattern(64).stages();
const fused::FusedStages kScaleBatchNormTrainStages =
    test::seed::scale_batch_norm_pattern(true).stages();
const fused::FusedStages kScaleBatchNormEvalStages =
    test::seed::scale_batch_norm_pattern(false).stages();
const GemmStage& kBiasRelu = kBiasReluStages.gemm;
const GemmStage& kInstanceNormAddMul = kInstanceNormAddMulStages.gemm;
const GemmStage& kSwishBiasGroupNorm = kSwishBiasGroupNormStages.gemm;
const GemmStage& kScaleBatchNormTrain = kScaleBatchNormTrainStages.gemm;
const GemmStage& kScaleBatchNormEval = kScaleBatchNormEvalStages.gemm;
const GemmStage* const kGemmStages[] = {&kBiasRelu, &kInstanceNormAddMul, &kSwishBiasGroupNorm,
                                        &kScaleBatchNormTrain, &kScaleBatchNormEval};
const char* row_norm_add_mul() { return kInstanceNormAddMulStages.segment; }

Config gemm_to_config(const GemmConfig& g, bool chunks, bool tails = false,
                      bool stats_pass = false) {
  return gemm_descriptor(chunks, tails, stats_pass).to_config(g);
}
GemmConfig gemm_from_config(const Config& c) {
  return gemm_descriptor(c.has("chunk"), c.has("tail"), c.has("stats_pass")).from_config(c);
}
Config segment_to_config(const SegmentConfig& c) { return segment_descriptor().to_config(c); }
SegmentConfig segment_from_config(const Config& c) { return segment_descriptor().from_config(c); }
Config column_stats_to_config(const ColumnStatsConfig& c) {
  return column_stats_descriptor().to_config(c);
}
ColumnStatsConfig column_stats_from_config(const Config& c) {
  return column_stats_descriptor().from_config(c);
}
Config affine_to_config(const AffineConfig& c) { return affine_descriptor().to_config(c); }
AffineConfig affine_from_config(const Config& c) { return affine_descriptor().from_config(c); }

// The seed models' GEMM problems at the small and full shapes, and awkward ones.
const GemmProblem kGemmProblems[] = {
    {16, 80, 64, 4}, {1024, 8192, 8192, 4},  {32, 128, 48, 4},  {32768, 4096, 1024, 4},
    {64, 72, 40, 4}, {16384, 4096, 4096, 4}, {100, 100, 63, 4}, {7, 9, 6, 2}};

std::string reason(const ParamSpace& space, const std::string& config) {
  const auto why = space.why_invalid(Config::parse(config));
  return why ? *why : "(valid)";
}

size_t axis_count(const Config& c) { return c.values().size() + (c.impl().empty() ? 0 : 1); }

// ---- GEMM stages ----

TEST(GemmSpace, NamesAndKeys) {
  // The shipped databases' kernel names.
  EXPECT_STREQ(kBiasRelu.name, "gemm[add_column,relu]");
  EXPECT_STREQ(kInstanceNormAddMul.name, "gemm[add_column]>segment_norm[add_mul]");
  EXPECT_STREQ(kSwishBiasGroupNorm.name, "gemm[add_column,silu,add_column]>segment_norm[affine]");
  EXPECT_STREQ(kScaleBatchNormTrain.name, "gemm[add_column,mul_column]>batch_norm[train]");
  EXPECT_STREQ(kScaleBatchNormEval.name, "gemm[add_column,mul_column]>batch_norm[eval]");
  EXPECT_STREQ(row_norm_add_mul(), "gemm[add_column]>segment_norm[add_mul].segment");
  EXPECT_STREQ(kSwishBiasGroupNormStages.segment,
               "gemm[add_column,silu,add_column]>segment_norm[affine].segment");
  EXPECT_STREQ(kScaleBatchNormTrainStages.column_stats,
               "gemm[add_column,mul_column]>batch_norm[train].column_stats");
  EXPECT_STREQ(kScaleBatchNormTrainStages.affine,
               "gemm[add_column,mul_column]>batch_norm[train].affine");
  EXPECT_STREQ(kScaleBatchNormEvalStages.affine,
               "gemm[add_column,mul_column]>batch_norm[eval].affine");
  EXPECT_EQ(gemm_problem_key(kBiasRelu, {1024, 8192, 8192, 4}),
            "m=1024,n=8192,k=8192,align=16B,precision=strict");
  EXPECT_EQ(gemm_problem_key(kSwishBiasGroupNorm, {32768, 4096, 1024, 4}, 64),
            "m=32768,n=4096,k=1024,groups=64,align=16B,precision=strict");
  // K = 63 allows no vector loads whatever the pointers; K = 6 allows pairs.
  EXPECT_EQ(gemm_problem_key(kBiasRelu, {100, 100, 63, 4}),
            "m=100,n=100,k=63,align=4B,precision=strict");
  EXPECT_EQ(gemm_load_align({7, 9, 6, 4}), 2);
  EXPECT_EQ(gemm_load_align({7, 9, 8, 1}), 1);
}

TEST(GemmSpace, EverySpaceEnumeratesTheCompiledVariantsAndCublasLtWithTodaysDefault) {
  for (const GemmStage* stage : kGemmStages) {
    const GemmStage& kernel = *stage;
    for (const GemmProblem& p : kGemmProblems) {
      const ParamSpace space = gemm_space(kernel, p, DeviceLimits{});
      const std::string what = std::string(kernel.name) + " " + p.str();
      const bool chunks_axis = kernel.chunks, tails_axis = kernel.tails;
      EXPECT_EQ(space.default_config(), gemm_to_config(GemmConfig::default_for(p), chunks_axis,
                                                       tails_axis, kernel.stats_pass))
          << what;
      const std::vector<Config> all = space.enumerate();
      size_t own = 0, lt = 0;
      std::set<std::string> seen;
      for (const Config& c : all) {
        EXPECT_TRUE(seen.insert(c.str()).second) << what;
        const GemmConfig g = gemm_from_config(c);
        EXPECT_TRUE(valid(g, p)) << what << " " << c.str();
        EXPECT_EQ(gemm_to_config(g, chunks_axis, tails_axis, kernel.stats_pass), c) << what;
        if (g.impl == GemmImpl::kOwn) {
          ++own;
          EXPECT_EQ(axis_count(c), 8u);  // impl + 7 tile parameters
          EXPECT_LE(g.vec, gemm_load_align(p));
        } else {
          ++lt;
          EXPECT_GE(axis_count(c), 2u);
        }
      }
      size_t own_expected = 0;
      for (const GemmConfig& g : gemm::own_variants()) own_expected += g.vec <= gemm_load_align(p);
      EXPECT_EQ(own, own_expected) << what;
      // One GEMM, each chunk size that splits the rows 2 to 16 ways, each tail of at
      // most half the rows (model 3).
      size_t plans = 1;
      if (chunks_axis) {
        for (int64_t c : {1024, 2048, 4096, 8192}) plans += 2 * c <= p.m && c * 16 >= p.m;
      }
      if (tails_axis) {
        for (int64_t t : {64, 2048, 4096, 8192}) plans += 2 * t <= p.m;
      }
      EXPECT_EQ(lt, kCublasAlgoCandidates * plans) << what;
    }
  }
}

TEST(GemmSpace, EveryOwnVariantRoundTrips) {
  for (const GemmConfig& g : gemm::own_variants()) {
    EXPECT_EQ(gemm_from_config(gemm_to_config(g, false)), g) << g.str();
  }
  EXPECT_EQ(gemm_from_config(Config::parse("impl=cublaslt,algo=3,chunk=4096")),
            GemmConfig::cublaslt(3, 4096));
  EXPECT_EQ(gemm_to_config(GemmConfig::cublaslt(3, 4096), true).str(),
            "impl=cublaslt,algo=3,chunk=4096");
  EXPECT_EQ(gemm_to_config(GemmConfig::cublaslt(3), false).str(), "impl=cublaslt,algo=3");
  EXPECT_EQ(gemm_to_config(GemmConfig::cublaslt(1, 0, 64), true, true).str(),
            "impl=cublaslt,algo=1,chunk=0,tail=64");
  EXPECT_EQ(gemm_from_config(Config::parse("impl=cublaslt,algo=1,chunk=0,tail=64")),
            GemmConfig::cublaslt(1, 0, 64));
  EXPECT_THROW(gemm_from_config(Config::parse("impl=tf32,algo=0")), Error);
  EXPECT_THROW(gemm_from_config(Config::parse("impl=own,bm=128")), Error);
}

TEST(GemmSpace, ConstraintsNameTheirReason) {
  const ParamSpace aligned =
      gemm_space(kScaleBatchNormTrain, {16384, 4096, 4096, 4}, DeviceLimits{});
  EXPECT_EQ(reason(aligned, "impl=own,bm=64,bn=256,bk=8,tm=8,tn=8,vec=4,stages=2"),
            "the tile must be one of the compiled own variants "
            "(ops/cuda/gemm/tiled_gemm_variants.h)");
  EXPECT_EQ(reason(aligned, "impl=cublaslt,algo=0,chunk=8192,tail=0"), "(valid)");
  EXPECT_EQ(reason(aligned, "impl=cublaslt,algo=9,chunk=0"),
            "algo=9 is not a candidate (0|1|2|3|4|5|6|7)");
  const ParamSpace odd = gemm_space(kScaleBatchNormTrain, {1024, 64, 63, 4}, {});
  EXPECT_EQ(reason(odd, "impl=own,bm=128,bn=128,bk=8,tm=8,tn=8,vec=4,stages=2"),
            "vec must not exceed the 1 floats that the addresses of X and W and K = 63 allow");
  EXPECT_EQ(reason(odd, "impl=own,bm=128,bn=128,bk=8,tm=8,tn=8,vec=1,stages=2"), "(valid)");
  EXPECT_EQ(reason(odd, "impl=cublaslt,algo=0,chunk=1024,tail=0"),
            "chunk must be 0 or split the 1024 rows into 2 to 16 chunks");
  const ParamSpace swish = gemm_space(kSwishBiasGroupNorm, {32768, 4096, 1024, 4}, DeviceLimits{});
  EXPECT_EQ(reason(swish, "impl=cublaslt,algo=1,chunk=0,tail=64"), "(valid)");
  EXPECT_EQ(reason(swish, "impl=cublaslt,algo=1,chunk=2048,tail=64"),
            "tail must be 0 or at most half the 32768 rows, and not combined with chunk");
  const ParamSpace short_swish = gemm_space(kSwishBiasGroupNorm, {100, 64, 32, 4}, DeviceLimits{});
  EXPECT_EQ(reason(short_swish, "impl=cublaslt,algo=0,chunk=0,tail=64"),
            "tail must be 0 or at most half the 100 rows, and not combined with chunk");
  const ParamSpace relu = gemm_space(kBiasRelu, {1024, 64, 64, 4}, {});
  EXPECT_THAT(reason(relu, "impl=cublaslt,algo=0,chunk=0"),
              HasSubstr("parameter 'chunk' is not an axis"));
}

TEST(GemmSpace, DeviceLimitsPrune) {
  DeviceLimits small = hopper_limits();
  small.max_threads_per_block = 128;
  small.max_shared_per_block = 12 * 1024;
  const auto count = [](int64_t rows) { return rows >= 4096 ? 5 : 2; };
  const ParamSpace space = gemm_space(kScaleBatchNormTrain, {16384, 4096, 4096, 4}, small, count);
  EXPECT_EQ(reason(space, "impl=own,bm=128,bn=128,bk=8,tm=8,tn=8,vec=4,stages=2"),
            "(bm/tm)*(bn/tn) threads must not exceed the device's 128 per block");
  EXPECT_EQ(reason(space, "impl=own,bm=64,bn=64,bk=8,tm=8,tn=8,vec=4,stages=2"), "(valid)");
  // 128 threads, but 2 * 8 * (128 + 64 + 8) floats = 12800 bytes of shared memory.
  EXPECT_EQ(reason(space, "impl=own,bm=128,bn=64,bk=8,tm=8,tn=8,vec=4,stages=2"),
            "the tile's 2*bk*(bm+bn+8) floats of shared memory must fit the device's 12288 "
            "bytes per block");
  EXPECT_EQ(reason(space, "impl=cublaslt,algo=4,chunk=0,tail=0"), "(valid)");
  EXPECT_EQ(reason(space, "impl=cublaslt,algo=5,chunk=0,tail=0"),
            "algo must index cuBLASLt's heuristic list for the GEMM (or chunk) shape on this "
            "device (5 algorithms for m=16384)");
  EXPECT_THAT(reason(space, "impl=cublaslt,algo=4,chunk=2048,tail=0"), HasSubstr("heuristic list"));
  EXPECT_EQ(reason(space, "impl=cublaslt,algo=4,chunk=4096,tail=0"), "(valid)");
  // A tail split indexes the head's list (16384 - 64 rows: 5) and runs the tail's first.
  EXPECT_EQ(reason(space, "impl=cublaslt,algo=4,chunk=0,tail=64"), "(valid)");
  DeviceLimits tiny = hopper_limits();
  tiny.max_shared_per_block = 16 * 1024;
  const ParamSpace shared = gemm_space(kBiasRelu, {1024, 64, 64, 4}, tiny);
  EXPECT_THAT(reason(shared, "impl=own,bm=128,bn=256,bk=8,tm=8,tn=16,vec=4,stages=2"),
              HasSubstr("shared memory must fit the device's 16384 bytes"));
  // On a real H100/H200 nothing compiled is out of reach.
  const ParamSpace hopper =
      gemm_space(kBiasRelu, {1024, 8192, 8192, 4}, hopper_limits(), [](int64_t) { return 8; });
  EXPECT_EQ(hopper.enumerate().size(),
            gemm_space(kBiasRelu, {1024, 8192, 8192, 4}, {}).enumerate().size());
}

// ---- segment norm ----

const SegmentProblem kSegmentProblems[] = {{16, 96, 4},   {1024, 8192, 4},    // model 1's pass
                                           {32, 1024, 4}, {7168, 262144, 4},  // model 2
                                           {256, 16, 4},  {2097152, 64, 4},   // model 3's pass
                                           {10, 7, 1},    {3, 100000, 2}};

template <class C>
std::set<std::string> texts(const std::vector<C>& configs) {
  std::set<std::string> out;
  for (const C& c : configs) out.insert(c.str());
  return out;
}

// The space offers exactly the family's candidates for p (as many, the same texts),
// its default is the family's default_for(p), and each config has `axes` axes (or at
// least that many where variants add their own).
template <class C, class P, class ToConfig, class FromConfig>
void expect_the_candidates(const ParamSpace& space, const P& p, ToConfig to_config,
                           FromConfig from_config, size_t axes, bool at_least,
                           const std::string& what) {
  EXPECT_EQ(space.default_config(), to_config(C::default_for(p))) << what;
  std::vector<C> got;
  for (const Config& c : space.enumerate()) {
    got.push_back(from_config(c));
    if (at_least) {
      EXPECT_GE(axis_count(c), axes) << c.str();
    } else {
      EXPECT_EQ(axis_count(c), axes) << c.str();
    }
  }
  EXPECT_EQ(texts(got), texts(C::candidates(p))) << what;
  EXPECT_EQ(got.size(), C::candidates(p).size()) << what;
}

TEST(SegmentSpace, HoldsExactlyTheCandidatesWithTodaysDefault) {
  for (const SegmentProblem& p : kSegmentProblems) {
    // kind, threads, vec, items (+ lanes, ...)
    expect_the_candidates<norm::SegmentConfig>(segment_space(kInstanceNorm, p, DeviceLimits{}), p,
                                               segment_to_config, segment_from_config, 4, true,
                                               segment_problem_key(p));
  }
}

TEST(SegmentSpace, EveryCompiledVariantRoundTripsAndEveryKindIsNamed) {
  for (const norm::SegmentConfig& c : norm::SegmentConfig::all()) {
    const Config config = segment_to_config(c);
    EXPECT_EQ(segment_from_config(config), c) << c.str();
    EXPECT_THAT(c.str(), HasSubstr("impl=" + config.impl() + ",")) << c.str();
  }
  EXPECT_EQ(segment_kind_name(norm::SegmentKind::kBlock), "block");
  EXPECT_THROW(segment_from_config(Config::parse("impl=warp,threads=256,vec=4,items=1")), Error);
}

TEST(SegmentSpace, ConstraintsNameTheirReason) {
  const ParamSpace space = segment_space(row_norm_add_mul(), {1024, 8192, 4}, DeviceLimits{});
  EXPECT_EQ(reason(space, "impl=block,threads=256,vec=4,items=8"), "(valid)");
  EXPECT_EQ(reason(space, "impl=block,threads=256,vec=4,items=4"),
            "a kind that keeps the segment on chip must hold all 8192 floats in "
            "lanes*vec*items*cluster");
  EXPECT_EQ(reason(space, "impl=block,threads=128,vec=4,items=16"),
            "the config must be one of the compiled segment variants "
            "(ops/cuda/norm/norm_variants.h)");
  EXPECT_THAT(reason(space, "impl=block,threads=1024,vec=4,items=8"),
              HasSubstr("the config must be one of SegmentConfig::candidates()"));  // 4x too big
  const ParamSpace odd = segment_space(kInstanceNorm, {10, 7, 1}, DeviceLimits{});
  EXPECT_EQ(reason(odd, "impl=stream,threads=256,vec=4,items=4"),
            "vec must divide the segment length 7 and not exceed the pointers' alignment of 1 "
            "floats");
}

TEST(SegmentSpace, DeviceLimitsPruneClustersAndSharedMemory) {
  const SegmentProblem p{7168, 262144, 4};
  const ParamSpace portable = segment_space(kInstanceNorm, p, DeviceLimits{});
  std::string clustered;  // a cluster-16 config the problem allows
  for (const Config& c : portable.enumerate()) {
    if (c.get_or("cluster", 1) == 16) clustered = c.str();
  }
  ASSERT_FALSE(clustered.empty());
  EXPECT_EQ(reason(segment_space(kInstanceNorm, p, hopper_limits()), clustered), "(valid)");
  DeviceLimits eight = hopper_limits();
  eight.max_cluster = 8;
  EXPECT_EQ(reason(segment_space(kInstanceNorm, p, eight), clustered),
            "cluster must not exceed the device's 8 CTAs per cluster");
  DeviceLimits ampere = hopper_limits();
  ampere.cc_major = 8;
  ampere.max_cluster = 0;
  ampere.max_shared_per_block = 163 * 1024;
  const ParamSpace old = segment_space(kInstanceNorm, p, ampere);
  EXPECT_EQ(reason(old, clustered), "thread-block clusters need compute capability 9.0 or newer");
  EXPECT_TRUE(old.is_valid(old.default_config()));
  for (const Config& c : old.enumerate()) EXPECT_EQ(c.get_or("cluster", 1), 1) << c.str();
  DeviceLimits little = hopper_limits();
  little.max_shared_per_block = 64 * 1024;
  const ParamSpace small_shared = segment_space(kInstanceNorm, p, little);
  for (const Config& c : portable.enumerate()) {
    if (c.get_or("buffers", 0) * c.get("threads") * c.get("vec") * c.get("items") * 4 > 64 * 1024) {
      EXPECT_THAT(reason(small_shared, c.str()), HasSubstr("floats of shared memory must fit"));
    }
  }
}

// A segment past a block's registers defaults to the pipe kind where the device's limits
// allow its cluster (read once from HBM instead of twice), else to streaming.
TEST(SegmentSpace, LongSegmentsDefaultToThePipeWhereClustersAllowIt) {
  const SegmentProblem p{7168, 262144, 4};
  EXPECT_EQ(segment_space(kInstanceNorm, p, hopper_limits()).default_config().str(),
            "impl=pipe,threads=512,vec=4,items=16,cluster=8,buffers=1");
  EXPECT_EQ(segment_space(kInstanceNorm, p, DeviceLimits{}).default_config().str(),
            "impl=stream,threads=512,vec=4,items=4");
  DeviceLimits ampere = hopper_limits();
  ampere.cc_major = 8;
  ampere.max_cluster = 0;
  EXPECT_EQ(segment_space(kInstanceNorm, p, ampere).default_config().str(),
            "impl=stream,threads=512,vec=4,items=4");
  // A segment a block holds keeps the block kind, on any device.
  EXPECT_EQ(segment_space(kInstanceNorm, {1024, 8192, 4}, hopper_limits()).default_config().impl(),
            "block");
}

// ---- column statistics and channel affine ----

TEST(ColumnStatsSpace, HoldsExactlyTheCandidatesWithTodaysDefault) {
  for (const norm::ColumnProblem& p :
       {norm::ColumnProblem{64, 72, 4}, norm::ColumnProblem{16384, 4096, 4},
        norm::ColumnProblem{5, 3, 1}, norm::ColumnProblem{1000, 6, 2}}) {
    expect_the_candidates<norm::ColumnStatsConfig>(
        column_stats_space(kBatchNormColumnStats, p, hopper_limits()), p, column_stats_to_config,
        column_stats_from_config, 5, false, column_problem_key(p));
  }
  for (const norm::ColumnStatsConfig& c : norm::ColumnStatsConfig::all()) {
    EXPECT_EQ(column_stats_from_config(column_stats_to_config(c)), c) << c.str();
  }
  EXPECT_EQ(column_problem_key({16384, 4096, 4}),
            "rows=16384,cols=4096,align=16B,precision=strict");
  const ParamSpace odd = column_stats_space(kBatchNormColumnStats, {5, 3, 1}, DeviceLimits{});
  EXPECT_EQ(reason(odd, "threads=256,col_threads=32,vec=4,items=4,chunk_rows=256"),
            "vec must divide the 3 columns and not exceed the pointers' alignment of 1 floats");
  DeviceLimits few = hopper_limits();
  few.max_threads_per_block = 256;
  EXPECT_EQ(reason(column_stats_space(kBatchNormColumnStats, {64, 72, 4}, few),
                   "threads=512,col_threads=32,vec=4,items=4,chunk_rows=512"),
            "threads must not exceed the device's 256 per block");
}

TEST(AffineSpace, HoldsExactlyTheCandidatesWithTodaysDefault) {
  for (const norm::AffineProblem& p :
       {norm::AffineProblem{64 * 72, 72, 1, 4}, norm::AffineProblem{16384 * 4096, 4096, 1, 4},
        norm::AffineProblem{2 * 3 * 5, 3, 5, 1}, norm::AffineProblem{4 * 6 * 10, 6, 10, 2}}) {
    expect_the_candidates<norm::AffineConfig>(affine_space(kBatchNormAffine, p, hopper_limits()), p,
                                              affine_to_config, affine_from_config, 3, false,
                                              affine_problem_key(p));
  }
  for (const norm::AffineConfig& c : norm::AffineConfig::all()) {
    EXPECT_EQ(affine_from_config(affine_to_config(c)), c) << c.str();
  }
  EXPECT_EQ(affine_problem_key({30, 3, 5, 1}),
            "total=30,channels=3,inner=5,align=4B,precision=strict");
  const ParamSpace odd = affine_space(kBatchNormAffine, {30, 3, 5, 4}, DeviceLimits{});
  EXPECT_EQ(reason(odd, "threads=256,vec=4,items=4"),
            "vec must divide the 5 contiguous floats of one channel run and not exceed the "
            "pointers' alignment of 4 floats");
}

}  // namespace
}  // namespace tt::ops::cuda

#else

TEST(TuningSpaces, NeedCuda) { GTEST_SKIP() << "built without CUDA"; }

#endif
