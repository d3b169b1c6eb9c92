// The precision modes in the GEMM family and its tuner (issue 10): the tc and
// cublaslt_tf32 configs' text and validation, which impls each precision's space offers
// with and without an sm_90 GPU (injected as DeviceLimits, no GPU needed), that problem
// keys carry the precision while strict keys stay those of the shipped databases, the
// accurate fallback sentence, the plan-facing queries, and that the accurate spaces of the
// seed GEMM stages hold at least 100 valid variants. On a GPU: run_gemm with each impl in
// each mode, linear and matmul under each precision, and the bias + ReLU seed group in
// accurate on the tc family (its plan, and compiled), against the CPU float32 reference at the
// mode's tolerance (autotune/tolerance.h); tc cases skip without an sm_90 GPU.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "autotune/tolerance.h"
#include "core/precision.h"
#include "core/tensor.h"
#include "ops/ops.h"
#include "support/test_util.h"

#if TT_CUDA
#include "autotune/database.h"
#include "autotune/lookup.h"
#include "core/cuda/device.h"
#include "core/cuda/stream.h"
#include "ops/cuda/fused/plan.h"
#include "ops/cuda/gemm/gemm.h"
#include "ops/cuda/gemm/gemm_config.h"
#include "ops/cuda/gemm/gemm_space.h"
#include "ops/cuda/gemm/tc_config.h"
#include "support/fn_module.h"
#include "support/seed_forwards.h"
#include "support/seed_patterns.h"

namespace {

namespace g = tt::ops::cuda::gemm;
namespace fused = tt::ops::cuda::fused;
namespace seed = tt::test::seed;
using ::testing::HasSubstr;
using tt::Precision;
using tt::PrecisionGuard;
using tt::Tensor;
using tt::autotune::Config;
using tt::autotune::ParamSpace;
using tt::cuda::DeviceLimits;

// The seed models' GEMM stages (their groups' structural stages) at their full shapes
// (SEED_MODELS.md).
struct SeedStage {
  g::GemmStage stage;
  g::GemmProblem problem;
  int64_t groups;
};
const g::GemmStage kBiasRelu = seed::bias_relu_pattern().stages().gemm;
const SeedStage kSeedStages[] = {
    {seed::instance_norm_add_mul_pattern().stages().gemm, {1024, 8192, 8192, 4}, 0},
    {seed::swish_bias_group_norm_pattern(64).stages().gemm, {32768, 4096, 1024, 4}, 64},
    {seed::scale_batch_norm_pattern(true).stages().gemm, {16384, 4096, 4096, 4}, 0},
    {kBiasRelu, {1024, 8192, 8192, 4}, 0}};

bool have_tc() { return !g::tc_variants().empty(); }

// An sm_90 GPU as the space sees it, with cuBLASLt offering 3 algorithms per compute
// type (what the H100 database records at m=1024).
g::GemmSpaceOptions hopper_options(Precision p) {
  g::GemmSpaceOptions o;
  o.precision = p;
  o.algo_count = [](int64_t) { return 3; };
  o.tf32_algo_count = [](int64_t) { return 3; };
  o.tc_device = have_tc();
  return o;
}

DeviceLimits ampere_limits() {
  DeviceLimits l = tt::cuda::hopper_limits();
  l.cc_major = 8;
  l.cc_minor = 0;
  l.max_shared_per_block = 163 * 1024;
  return l;
}

std::set<std::string> impls_in(const ParamSpace& space) {
  std::set<std::string> out;
  for (const Config& c : space.enumerate()) out.insert(c.impl());
  return out;
}

std::string reason(const ParamSpace& space, const std::string& config) {
  const auto why = space.why_invalid(Config::parse(config));
  return why ? *why : "(valid)";
}

const std::string kTcAccurate =
    "impl=tc,accurate=1,a_regs=1,bm=128,bn=128,bk=32,stages=4,wg=2,pingpong=0,cluster=1,promote=64,"
    "group=8,raster_n=0,persistent=1,store_vec=2";

// ---- configs ----

TEST(GemmPrecisionConfig, TcAndTf32ConfigsRoundTripThroughText) {
  const auto& plain = g::gemm_descriptor(false, false);
  EXPECT_EQ(g::GemmConfig::cublaslt_tf32(2).str(), "impl=cublaslt_tf32,algo=2");
  EXPECT_EQ(g::GemmConfig::cublaslt_tf32(1, 0, 64).str(), "impl=cublaslt_tf32,algo=1,tail=64");
  EXPECT_EQ(plain.parse("impl=cublaslt_tf32,algo=2"), g::GemmConfig::cublaslt_tf32(2));
  EXPECT_NE(g::GemmConfig::cublaslt_tf32(0), g::GemmConfig::cublaslt(0));
  // Strict texts are what the shipped databases hold.
  EXPECT_EQ(g::GemmConfig::cublaslt(0).str(), "impl=cublaslt,algo=0");
  if (!have_tc()) GTEST_SKIP() << "this build has no sm_90a code (TT_SM90_GEMM == 0)";
  const g::GemmConfig tc = plain.parse(kTcAccurate);
  EXPECT_EQ(tc.impl, g::GemmImpl::kTc);
  EXPECT_EQ(tc.str(), kTcAccurate);
  EXPECT_EQ(g::from_tc_config(g::to_tc_config(tc)), tc);
  for (const g::GemmConfig& v : g::tc_variants()) {
    SCOPED_TRACE(v.str());
    EXPECT_EQ(plain.parse(v.str()), v);
    EXPECT_TRUE(g::tc_runnable(v));
    EXPECT_TRUE(g::valid(v, {1024, 8192, 8192, 4}));
    EXPECT_EQ(g::from_tc_config(g::to_tc_config(v)), v);
    EXPECT_THAT(v.str(), ::testing::StartsWith("impl=tc,accurate="));
  }
  EXPECT_EQ(g::gemm_descriptor(true, true).parse(kTcAccurate + ",chunk=2048,tail=0").chunk_rows,
            2048);
  EXPECT_EQ(g::tc_default(true).tc_accurate, 1);
  EXPECT_EQ(g::tc_default(false).tc_accurate, 0);
}

TEST(GemmPrecisionConfig, TcValidationNamesTheRule) {
  if (!have_tc()) GTEST_SKIP() << "this build has no sm_90a code (TT_SM90_GEMM == 0)";
  const auto& plain = g::gemm_descriptor(false, false);
  // A compile-time field off the table, or a run-time field the kernel refuses; the run-time
  // fields are otherwise free within their candidates.
  const std::string runnable =
      "the tensor-core variant must be runnable: accurate, a_regs, bm, bn, bk, stages, wg, "
      "pingpong and cluster a row of the compiled table (ops/cuda/gemm/sm90/tc_gemm_variants.h), "
      "promote a "
      "multiple of bk in accurate and 0 in tf32";
  const auto why = [&](const std::string& text) {
    const auto r = plain.why_invalid(plain.parse(text));
    return r ? *r : "(valid)";
  };
  EXPECT_EQ(
      why("impl=tc,accurate=1,a_regs=1,bm=128,bn=256,bk=32,stages=4,wg=2,pingpong=0,cluster=1,"
          "promote=64,group=8,raster_n=0,persistent=1,store_vec=2"),
      runnable);
  EXPECT_EQ(
      why("impl=tc,accurate=0,a_regs=0,bm=128,bn=256,bk=32,stages=4,wg=2,pingpong=0,cluster=1,"
          "promote=64,group=8,raster_n=0,persistent=1,store_vec=2"),
      runnable);
  EXPECT_EQ(
      why("impl=tc,accurate=0,a_regs=0,bm=128,bn=256,bk=32,stages=4,wg=2,pingpong=0,cluster=1,"
          "promote=0,group=1,raster_n=1,persistent=0,store_vec=1"),
      "(valid)");
  EXPECT_EQ(
      why("impl=tc,accurate=1,a_regs=1,bm=128,bn=128,bk=32,stages=4,wg=2,pingpong=0,cluster=1,"
          "promote=64,group=3,raster_n=0,persistent=1,store_vec=2"),
      "group=3 is not a candidate (1|2|4|8|16)");
  // Own fields are not tc fields, and the reverse.
  EXPECT_EQ(tt::test::error_of([&] { plain.parse(kTcAccurate + ",tm=8"); }),
            "gemm config " + kTcAccurate + ",tm=8: 'tm' is not a field of gemm impl=tc");
  // The TMA's rules: K % 4 == 0 and 16-byte aligned X and W.
  const g::GemmConfig tc = plain.parse(kTcAccurate);
  EXPECT_FALSE(g::valid(tc, {128, 128, 66, 2}));
  EXPECT_FALSE(g::valid(tc, {128, 128, 64, 1}));
  EXPECT_TRUE(g::valid(tc, {1, 1, 4, 4}));
}

// ---- spaces per precision ----

// A GEMM group ending in a residual add (the block's proj and fc2): tc runs it only with its
// TMA store epilogue, so the space keeps tc's other store widths out, with the reason, and
// keeps tc out entirely where N % 4 != 0.
TEST(GemmPrecisionSpace, AResidualStageOffersTcOnlyWithTmaStores) {
  if (!have_tc()) GTEST_SKIP() << "this build has no sm_90a code (TT_SM90_GEMM == 0)";
  tt::ops::cuda::fused::FusedPattern f;
  f.steps.add_column(seed::kAnyOperand).add_residual(seed::kAnyOperand, 1024);
  const g::GemmStage stage = f.stages().gemm;
  EXPECT_STREQ(stage.name, "gemm[add_column,add_residual]");
  EXPECT_TRUE(stage.residual);
  EXPECT_FALSE(seed::bias_relu_pattern().stages().gemm.residual);
  const DeviceLimits hopper = tt::cuda::hopper_limits();
  for (Precision mode : {Precision::tf32, Precision::accurate}) {
    const ParamSpace space =
        g::gemm_space(stage, {8192, 1024, 1024, 4}, hopper, hopper_options(mode));
    size_t tc = 0;
    for (const Config& c : space.enumerate()) {
      if (c.impl() != "tc") continue;
      EXPECT_EQ(c.get("store_vec"), 4) << c.str();
      ++tc;
    }
    EXPECT_GT(tc, 0u);
    size_t refused = 0;
    for (const auto& r : space.enumerate_rejected()) {
      if (r.reason !=
          "the tensor-core kernel combines the residual in its TMA store epilogue: "
          "store_vec must be 4 and N a multiple of 4; N = 1024")
        continue;
      EXPECT_EQ(r.config.impl(), "tc");
      EXPECT_NE(r.config.get("store_vec"), 4) << r.config.str();
      ++refused;
    }
    EXPECT_GT(refused, 0u);
    const ParamSpace odd =
        g::gemm_space(stage, {8192, 1026, 1024, 4}, hopper, hopper_options(mode));
    for (const Config& c : odd.enumerate()) EXPECT_NE(c.impl(), "tc") << c.str();
    EXPECT_NE(odd.default_config().impl(), "tc");
  }
}

TEST(GemmPrecisionSpace, EachPrecisionOffersItsImpls) {
  const g::GemmStage& stage = kBiasRelu;
  const g::GemmProblem p{1024, 8192, 8192, 4};
  const DeviceLimits hopper = tt::cuda::hopper_limits();
  const ParamSpace strict = g::gemm_space(stage, p, hopper, hopper_options(Precision::strict));
  EXPECT_EQ(impls_in(strict), (std::set<std::string>{"own", "cublaslt"}));
  // Strict is what it was before the modes existed: the legacy form gives the same space.
  EXPECT_EQ(strict.enumerate(),
            g::gemm_space(stage, p, hopper, [](int64_t) { return 3; }).enumerate());
  EXPECT_EQ(strict.default_config().str(), "impl=cublaslt,algo=0");

  const ParamSpace tf32 = g::gemm_space(stage, p, hopper, hopper_options(Precision::tf32));
  const ParamSpace accurate = g::gemm_space(stage, p, hopper, hopper_options(Precision::accurate));
  EXPECT_EQ(tf32.default_config().str(), "impl=cublaslt_tf32,algo=0");
  if (have_tc()) {
    EXPECT_EQ(impls_in(tf32), (std::set<std::string>{"own", "cublaslt", "cublaslt_tf32", "tc"}));
    EXPECT_EQ(impls_in(accurate), (std::set<std::string>{"own", "cublaslt", "tc"}));
    EXPECT_EQ(accurate.default_config(),
              g::gemm_descriptor(false, false).to_config(g::tc_default(true)));
  } else {
    EXPECT_EQ(impls_in(tf32), (std::set<std::string>{"own", "cublaslt", "cublaslt_tf32"}));
    EXPECT_EQ(impls_in(accurate), (std::set<std::string>{"own", "cublaslt"}));
  }
  size_t tc_tf32 = 0, tc_accurate = 0;
  for (const Config& c : tf32.enumerate()) {
    if (c.impl() != "tc") continue;
    EXPECT_EQ(c.get("accurate"), 0) << c.str();
    ++tc_tf32;
  }
  for (const Config& c : accurate.enumerate()) {
    EXPECT_NE(c.impl(), "cublaslt_tf32") << c.str();
    if (c.impl() != "tc") continue;
    EXPECT_EQ(c.get("accurate"), 1) << c.str();
    ++tc_accurate;
  }
  size_t rows_tf32 = 0, rows_accurate = 0;
  for (const g::GemmConfig& v : g::tc_variants()) (v.tc_accurate ? rows_accurate : rows_tf32)++;
  // Each row x the run-time fields: promote (accurate: 32|64; tf32: 0) x group (5) x
  // raster_n (2) x persistent (2) x store_vec (3: every row has room for the TMA stores).
  const size_t runtime = 5 * 2 * 2 * 3;
  EXPECT_EQ(tc_tf32, rows_tf32 * runtime);
  EXPECT_EQ(tc_accurate, rows_accurate * 2 * runtime);
  if (have_tc()) {
    EXPECT_EQ(reason(tf32, kTcAccurate), "accurate=1 is not a candidate (0)");
  }
  EXPECT_THAT(reason(strict, kTcAccurate), HasSubstr("impl 'tc' is not one of own|cublaslt"));
  EXPECT_THAT(reason(accurate, "impl=cublaslt_tf32,algo=0"),
              HasSubstr("impl 'cublaslt_tf32' is not one of own|cublaslt"));
}

TEST(GemmPrecisionSpace, WithoutSm90TheTcCandidatesAreDroppedAndAccurateIsTheStrictPath) {
  const g::GemmStage& stage = kBiasRelu;
  const g::GemmProblem p{1024, 8192, 8192, 4};
  g::GemmSpaceOptions o = hopper_options(Precision::accurate);
  o.tc_device = false;
  const ParamSpace ampere = g::gemm_space(stage, p, ampere_limits(), o);
  EXPECT_EQ(impls_in(ampere), (std::set<std::string>{"own", "cublaslt"}));
  EXPECT_EQ(ampere.default_config().str(), "impl=cublaslt,algo=0");
  EXPECT_EQ(ampere.enumerate().size(),
            g::gemm_space(stage, p, ampere_limits(), [](int64_t) { return 3; }).enumerate().size());
  if (have_tc()) {
    EXPECT_EQ(reason(ampere, kTcAccurate),
              "the tensor-core family (impl=tc) needs compute capability 9.0 and this build's "
              "sm_90a code; this GPU has compute capability 8.0");
    // The portable space still lists them, so the tuner records them as unsupported.
    EXPECT_EQ(impls_in(g::gemm_space(stage, p, DeviceLimits{}, o)),
              (std::set<std::string>{"own", "cublaslt", "tc"}));
  }
  // tf32 keeps cuBLASLt's FAST_TF32 (TF32 runs on any tensor-core GPU).
  o.precision = Precision::tf32;
  EXPECT_EQ(impls_in(g::gemm_space(stage, p, ampere_limits(), o)),
            (std::set<std::string>{"own", "cublaslt", "cublaslt_tf32"}));
  // Outside the TMA's rules accurate is the strict path on any GPU.
  const g::GemmProblem odd{1024, 64, 63, 4};
  const ParamSpace odd_space =
      g::gemm_space(stage, odd, tt::cuda::hopper_limits(), hopper_options(Precision::accurate));
  EXPECT_EQ(impls_in(odd_space), (std::set<std::string>{"own", "cublaslt"}));
  EXPECT_EQ(odd_space.default_config().str(), "impl=cublaslt,algo=0");
  if (have_tc()) {
    EXPECT_EQ(reason(odd_space, kTcAccurate),
              "the tensor-core family needs K % 4 == 0 and 16-byte aligned X and W (the TMA's "
              "rules); K = 63, alignment 16 bytes");
  }
}

TEST(GemmPrecisionSpace, AccurateSpacesOfTheSeedStagesHoldAtLeast100ValidVariants) {
  if (!have_tc()) GTEST_SKIP() << "this build has no sm_90a code (TT_SM90_GEMM == 0)";
  size_t total = 0;
  for (const SeedStage& s : kSeedStages) {
    const ParamSpace space = g::gemm_space(s.stage, s.problem, tt::cuda::hopper_limits(),
                                           hopper_options(Precision::accurate));
    size_t tc = 0;
    for (const Config& c : space.enumerate()) {
      const g::GemmConfig cfg =
          g::gemm_descriptor(s.stage.chunks, s.stage.tails, s.stage.stats_pass).from_config(c);
      EXPECT_TRUE(g::valid(cfg, s.problem)) << c.str();
      tc += cfg.impl == g::GemmImpl::kTc;
      ++total;
    }
    EXPECT_GE(tc, 160u) << s.stage.name;  // 2 accurate rows x 80 run-time combinations
  }
  EXPECT_GE(total, 100u);
}

// ---- keys ----

TEST(GemmPrecisionKeys, KeysCarryThePrecisionAndStrictKeysAreTheShippedOnes) {
  // The shipped H100 database's GEMM-stage keys, written before the modes existed.
  const tt::autotune::Database db =
      tt::autotune::load_database(std::string(TT_SOURCE_DIR) + "/autotune/db/h100.yaml");
  ASSERT_EQ(db.devices().size(), 1u);
  const auto& kernels = db.devices().begin()->second.kernels;
  for (const SeedStage& s : kSeedStages) {
    SCOPED_TRACE(s.stage.name);
    const std::string key = g::gemm_problem_key(s.stage, s.problem, s.groups);
    ASSERT_TRUE(kernels.count(s.stage.name));
    const auto& entries = kernels.at(s.stage.name);
    ASSERT_TRUE(entries.count(key)) << key;
    // Its config is still a valid strict config of the stage.
    const ParamSpace space = g::gemm_space(s.stage, s.problem, DeviceLimits{});
    EXPECT_TRUE(space.is_valid(entries.at(key).config)) << entries.at(key).config.str();
  }
  // Every tf32 and accurate entry the database ships reads as a config of its stage (a
  // new axis such as stats_pass must reach the shipped entries: a lookup throws otherwise).
  for (Precision precision : {Precision::tf32, Precision::accurate}) {
    PrecisionGuard guard(precision);
    for (const SeedStage& s : kSeedStages) {
      SCOPED_TRACE(s.stage.name);
      const std::string key = g::gemm_problem_key(s.stage, s.problem, s.groups);
      const auto& entries = kernels.at(s.stage.name);
      ASSERT_TRUE(entries.count(key)) << key;
      const tt::autotune::Descriptor<g::GemmConfig>& d =
          g::gemm_descriptor(s.stage.chunks, s.stage.tails, s.stage.stats_pass);
      EXPECT_NO_THROW(d.from_config(entries.at(key).config))
          << key << ": " << entries.at(key).config.str();
    }
  }
  EXPECT_EQ(g::gemm_problem_key(kBiasRelu, {1024, 8192, 8192, 4}),
            "m=1024,n=8192,k=8192,align=16B,precision=strict");
  {
    PrecisionGuard guard(Precision::tf32);
    EXPECT_EQ(g::gemm_problem_key(kBiasRelu, {1024, 8192, 8192, 4}),
              "m=1024,n=8192,k=8192,align=16B,precision=tf32");
  }
  PrecisionGuard guard(Precision::accurate);
  EXPECT_EQ(g::gemm_problem_key(kSeedStages[1].stage, {32768, 4096, 1024, 4}, 64),
            "m=32768,n=4096,k=1024,groups=64,align=16B,precision=accurate");
}

TEST(GemmPrecisionKeys, AccurateFallbackSentence) {
  EXPECT_EQ(g::accurate_fallback_message(8, 0, true),
            "accurate runs the strict path on this GPU (compute capability 8.0; the tensor-core "
            "family needs 9.0)");
  EXPECT_EQ(g::accurate_fallback_message(10, 0, true),
            "accurate runs the strict path on this GPU (compute capability 10.0; the "
            "tensor-core family needs 9.0)");
  EXPECT_EQ(g::accurate_fallback_message(9, 0, true), "");
  EXPECT_EQ(g::accurate_fallback_message(9, 0, false),
            "accurate runs the strict path on this GPU (compute capability 9.0, but this build "
            "has no sm_90a code for the tensor-core family)");
}

// ---- plan-facing queries ----

TEST(GemmPrecisionQueries, EpilogueSupportAndColumnStatRowsForEveryImpl) {
  const g::GemmProblem p{1024, 4096, 1024, 4};
  const float fake = 0.f;
  float part = 0.f;
  g::Epilogue bias_relu, swish, affine, stats, group_norm, per_row, residual, relu_residual,
      strided_residual;
  bias_relu.add_column(&fake).relu();
  residual.add_column(&fake).add_residual(&fake, p.n);              // cuBLASLt's C, beta = 1
  relu_residual.add_column(&fake).relu().add_residual(&fake, p.n);  // C would precede the relu
  strided_residual.add_column(&fake).add_residual(&fake, p.n + 4);  // C's rows are n apart
  swish.add_column(&fake).silu();
  affine.add_column(&fake).column_affine(&fake, p.n);
  stats.add_column(&fake).column_stats(&part, &part);
  group_norm.silu().group_norm(64, nullptr, nullptr, 1e-5f);
  per_row.add_row(&fake);
  const g::GemmConfig own = g::own_variants().front();
  for (const g::GemmConfig& lt : {g::GemmConfig::cublaslt(0), g::GemmConfig::cublaslt_tf32(0)}) {
    EXPECT_TRUE(g::epilogue_supported(lt, p, bias_relu));
    EXPECT_TRUE(g::epilogue_supported(lt, p, residual));
    EXPECT_FALSE(g::epilogue_supported(lt, p, relu_residual));
    EXPECT_FALSE(g::epilogue_supported(lt, p, strided_residual));
    EXPECT_FALSE(g::epilogue_supported(lt, p, swish));
    EXPECT_FALSE(g::epilogue_supported(lt, p, stats));
    EXPECT_EQ(g::column_stat_rows(lt), 0);
  }
  EXPECT_TRUE(g::epilogue_supported(own, p, affine));
  EXPECT_TRUE(g::epilogue_supported(own, p, stats));
  EXPECT_TRUE(g::epilogue_supported(own, p, group_norm));
  EXPECT_EQ(g::column_stat_rows(own), own.bm);
  EXPECT_EQ(g::split_tail_config(g::GemmConfig::cublaslt(3, 0, 64)), g::GemmConfig::cublaslt(0));
  EXPECT_EQ(g::split_tail_config(g::GemmConfig::cublaslt_tf32(3, 0, 64)),
            g::GemmConfig::cublaslt_tf32(0));
  if (!have_tc()) return;
  const g::GemmConfig tc = g::tc_default(true);
  EXPECT_TRUE(g::epilogue_supported(tc, p, bias_relu));
  EXPECT_TRUE(g::epilogue_supported(tc, p, swish));
  EXPECT_TRUE(g::epilogue_supported(tc, p, affine));
  EXPECT_TRUE(g::epilogue_supported(tc, p, stats));
  EXPECT_TRUE(g::epilogue_supported(tc, p, group_norm));
  EXPECT_FALSE(
      g::epilogue_supported(tc, {1024, 4000, 1024, 4}, group_norm));  // 64 does not divide N
  g::Epilogue odd_groups;
  odd_groups.group_norm(48, nullptr, nullptr, 1e-5f);
  EXPECT_FALSE(g::epilogue_supported(tc, {1024, 4800, 1024, 4}, odd_groups));
  EXPECT_FALSE(g::epilogue_supported(tc, p, per_row));
  EXPECT_FALSE(g::epilogue_supported(tc, {1024, 4096, 1022, 2}, bias_relu));  // K % 4 != 0
  // Trailing residuals, combined in the TMA store epilogue (vec=4): a 16-byte aligned
  // tensor whose rows are a multiple of 4 floats apart, N % 4 == 0.
  alignas(16) static const float rows[8] = {};
  g::Epilogue tc_residual, tc_relu_residual, tc_strided, tc_misaligned, tc_odd_ld;
  tc_residual.add_column(&fake).add_residual(rows, p.n);
  tc_relu_residual.add_column(&fake).relu().add_residual(rows, p.n).mul_residual(rows, p.n);
  tc_strided.add_column(&fake).add_residual(rows, p.n + 4);
  tc_misaligned.add_residual(rows + 1, p.n);
  tc_odd_ld.add_residual(rows, p.n + 2);
  EXPECT_TRUE(g::epilogue_supported(tc, p, tc_residual));
  EXPECT_TRUE(g::epilogue_supported(tc, p, tc_relu_residual));
  EXPECT_TRUE(g::epilogue_supported(tc, p, tc_strided));
  EXPECT_FALSE(g::epilogue_supported(tc, p, tc_misaligned));
  EXPECT_FALSE(g::epilogue_supported(tc, p, tc_odd_ld));
  EXPECT_FALSE(g::epilogue_supported(tc, {1024, 4098, 1024, 4}, tc_strided));  // N % 4 != 0
  g::GemmConfig tc_regs = tc;
  tc_regs.tc_vec = 2;
  EXPECT_FALSE(g::epilogue_supported(tc_regs, p, tc_residual));  // no TMA stores
  EXPECT_EQ(g::column_stat_rows(tc), tc.bm);
  g::GemmConfig tc_tail = tc;
  tc_tail.tail_rows = 64;
  EXPECT_EQ(g::split_tail_config(tc_tail), tc);
}

// ---- on the GPU ----

const tt::Device kGpu = tt::Device::cuda(0);

bool tc_gpu() { return tt::test::cuda_available() && g::tc_device_supported(0); }

double tolerance_of(const g::GemmConfig& cfg, int64_t k) {
  const bool tf32 = cfg.impl == g::GemmImpl::kCublasLtTf32 ||
                    (cfg.impl == g::GemmImpl::kTc && cfg.tc_accurate == 0);
  return tt::autotune::verification_tolerance(tf32 ? "tf32" : "strict", k);
}

struct Operands {
  Tensor x, w, b;  // CPU
};
Operands make_operands(int64_t m, int64_t n, int64_t k, uint64_t seed) {
  const double bound = 1.0 / std::sqrt(double(k));
  return {Tensor::rand({m, k}, seed), Tensor::uniform({n, k}, -bound, bound, seed + 1),
          Tensor::uniform({n}, -bound, bound, seed + 2)};
}

TEST(GemmPrecisionGpu, RunGemmWithEachImplInEachModeMatchesTheCpuReference) {
  TT_REQUIRE_CUDA();
  std::vector<g::GemmConfig> configs = {g::GemmConfig::own_default_for({256, 256, 256, 4}),
                                        g::GemmConfig::cublaslt(0),
                                        g::GemmConfig::cublaslt_tf32(0)};
  if (tc_gpu()) {
    for (const g::GemmConfig& v : g::tc_variants()) configs.push_back(v);
  }
  struct Mnk {
    int64_t m, n, k;
  };
  for (const Mnk& s : {Mnk{1, 8, 4}, Mnk{129, 257, 1024}, Mnk{300, 200, 68}}) {
    const Operands o = make_operands(s.m, s.n, s.k, 7 + s.m);
    const Tensor ref = seed::bias_relu(o.x, o.w, o.b);  // CPU float32
    const Tensor x = o.x.to(kGpu), w = o.w.to(kGpu), b = o.b.to(kGpu);
    for (const g::GemmConfig& cfg : configs) {
      SCOPED_TRACE(cfg.str() + " m=" + std::to_string(s.m) + " k=" + std::to_string(s.k));
      const Tensor out = tt::test::nan_filled({s.m, s.n}, kGpu);
      g::Epilogue e;
      e.add_column(tt::test::float_ptr(b)).relu();
      g::run_gemm(
          cfg,
          {tt::test::float_ptr(x), tt::test::float_ptr(w), tt::test::float_ptr(out), s.m, s.n, s.k},
          e, 0, tt::cuda::stream(0));
      EXPECT_LE(tt::test::rel_l2(out, ref), tolerance_of(cfg, s.k));
    }
  }
}

TEST(GemmPrecisionGpu, LinearAndMatmulHonourEachPrecision) {
  TT_REQUIRE_CUDA();
  const int64_t m = 96, n = 160, k = 512;
  const Operands o = make_operands(m, n, k, 31);
  const Tensor ref_linear = tt::ops::linear(o.x, o.w, o.b);
  const Tensor ref_matmul = tt::ops::matmul(o.x, o.w.transpose(0, 1));
  const Tensor x = o.x.to(kGpu), w = o.w.to(kGpu), b = o.b.to(kGpu);
  for (Precision p : {Precision::strict, Precision::tf32, Precision::accurate}) {
    SCOPED_TRACE(tt::precision_name(p));
    PrecisionGuard guard(p);
    const double tol =
        tt::autotune::verification_tolerance(p == Precision::tf32 ? "tf32" : "strict", k);
    tt::autotune::clear_configs_used();
    EXPECT_LE(tt::test::rel_l2(tt::ops::linear(x, w, b), ref_linear), tol);
    EXPECT_LE(tt::test::rel_l2(tt::ops::linear(x, w), tt::ops::linear(o.x, o.w)), tol);
    EXPECT_LE(tt::test::rel_l2(tt::ops::matmul(x, w.transpose(0, 1)), ref_matmul), tol);
    // Each looked up its config under a key with this precision.
    const std::string suffix = std::string("precision=") + tt::precision_name(p);
    std::set<std::string> kernels;
    for (const auto& u : tt::autotune::configs_used()) {
      kernels.insert(u.kernel);
      EXPECT_THAT(u.problem, ::testing::EndsWith(suffix)) << u.kernel;
    }
    EXPECT_TRUE(kernels.count("linear"));
    EXPECT_TRUE(kernels.count("linear_nobias"));
    EXPECT_TRUE(kernels.count(p == Precision::strict ? "bmm" : "matmul"));
    // A batched product that is not one GEMM of the family's layout stays cuBLASLt's
    // batched path (FAST_TF32 in tf32).
    tt::autotune::clear_configs_used();
    const Tensor a = Tensor::rand({3, 33, 64}, 41), bb = Tensor::rand({3, 64, 17}, 42);
    EXPECT_LE(tt::test::rel_l2(tt::ops::bmm(a.to(kGpu), bb.to(kGpu)), tt::ops::bmm(a, bb)), tol);
    ASSERT_EQ(tt::autotune::configs_used().size(), 1u);
    EXPECT_EQ(tt::autotune::configs_used()[0].kernel, "bmm");
    EXPECT_THAT(tt::autotune::configs_used()[0].problem, ::testing::EndsWith(suffix));
  }
}

TEST(GemmPrecisionGpu, BiasReluInAccurateRunsTheTcFamily) {
  if (!tc_gpu()) GTEST_SKIP() << "no sm_90 (Hopper) GPU with the tc family";
  const int64_t m = 257, n = 384, k = 2048;
  const Operands o = make_operands(m, n, k, 5);
  const Tensor ref = seed::bias_relu(o.x, o.w, o.b);
  const Tensor x = o.x.to(kGpu), w = o.w.to(kGpu), b = o.b.to(kGpu);
  const double tol = tt::autotune::verification_tolerance("accurate", k);
  // The group's plan with the tc config, and the compiled forward in accurate (the
  // group's untuned default is tc).
  const Tensor out = tt::test::nan_filled({m, n}, kGpu);
  fused::run_plan(seed::plan_of(seed::bias_relu_pattern(tt::test::float_ptr(b)),
                                g::tc_default(true), tt::test::float_ptr(x), tt::test::float_ptr(w),
                                tt::test::float_ptr(out), m, n, k),
                  nullptr, 0, tt::cuda::stream(0));
  EXPECT_LE(tt::test::rel_l2(out, ref), tol);
  PrecisionGuard guard(Precision::accurate);
  tt::autotune::ScopedForceDefaults defaults;  // the untuned default, whatever a database holds
  EXPECT_EQ(g::choose_gemm(kBiasRelu, {m, n, k, 4}, 0).impl, g::GemmImpl::kTc);
  tt::autotune::clear_configs_used();
  const auto fn = [](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{seed::bias_relu(in[0], in[1], in[2])};
  };
  EXPECT_LE(tt::test::rel_l2(seed::compiled_replay(fn, {x, w, b})[0], ref), tol);
  bool tuned_as_group = false;  // the replay looked its GEMM up under the group's name
  for (const auto& u : tt::autotune::configs_used())
    tuned_as_group |= u.kernel == std::string(kBiasRelu.name) && u.result.config.impl() == "tc";
  EXPECT_TRUE(tuned_as_group) << tt::autotune::format_configs_used();
}

}  // namespace
#endif  // TT_CUDA
