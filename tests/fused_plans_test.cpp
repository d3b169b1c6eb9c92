// The GEMM epilogue chain (ops/cuda/gemm/epilogue.h) and the fused family's plans
// (ops/cuda/fused/), checked on the CPU: apply() on host pointers against formulas
// written out in double, the builders' limits and messages, the fixed-function form
// that cuBLASLt and the sm90 kernel express, and which stages the seed groups' plans
// (built from their patterns, support/seed_patterns.h) run under a config. Built with
// CUDA (the plans' code is CUDA-only), run without a GPU.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/tensor.h"
#include "support/test_util.h"

#if TT_CUDA
#include "core/cuda/stream.h"
#include "ops/cuda/fused/plan.h"
#include "ops/cuda/gemm/epilogue.h"
#include "ops/cuda/gemm/gemm.h"
#include "ops/cuda/gemm/gemm_space.h"
#include "ops/cuda/gemm/tiled_gemm.h"
#include "support/seed_patterns.h"

namespace tt::ops::cuda::gemm {
namespace {

double silu(double v) { return v / (1.0 + std::exp(-v)); }

TEST(EpilogueChain, AppliesItsStepsInOrderOnTheHost) {
  // Three columns, two rows; the GEMM's row 0 is row 1 of the per-row operands.
  const std::vector<float> bias{0.5f, -1.f, 2.f}, post{0.25f, 0.f, -0.5f};
  const std::vector<float> per_row{3.f, -2.f, 7.f};
  const std::vector<float> residual{0, 0, 0, 1.f, 2.f, 3.f, 4.f, 5.f, 6.f};  // [3, 3]
  Epilogue e;
  e.add_column(bias.data()).silu().add_column(post.data()).mul_row(per_row.data()).scale(0.5f);
  e.add_residual(residual.data(), 3);
  e.row0 = 1;
  for (int64_t row = 0; row < 2; ++row) {
    for (int64_t col = 0; col < 3; ++col) {
      const float acc = 0.75f * static_cast<float>(row) - 0.3f * static_cast<float>(col);
      const double want = (silu(acc + bias[col]) + post[col]) * per_row[row + 1] * 0.5 +
                          residual[(row + 1) * 3 + col];
      EXPECT_NEAR(apply(e, acc, row, col), want, 1e-5 * (1 + std::fabs(want)))
          << "row " << row << " col " << col;
    }
  }
}

TEST(EpilogueChain, ActivationsFollowPyTorchsFormulas) {
  // Golden values of torch.nn.functional.{relu, silu, gelu, gelu(approximate="tanh"),
  // leaky_relu(0.1)} at -1.5 and 0.8 (float64).
  struct Case {
    Epilogue e;
    double at_neg, at_pos;
  };
  const Case cases[] = {
      {Epilogue().relu(), 0.0, 0.8},
      {Epilogue().silu(), -0.27363829, 0.55197958},
      {Epilogue().gelu(), -0.10021080, 0.63051568},
      {Epilogue().gelu_tanh(), -0.10042842, 0.63043169},
      {Epilogue().leaky_relu(0.1f), -0.15, 0.8},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.e.str());
    EXPECT_NEAR(apply(c.e, -1.5f, 0, 0), c.at_neg, 1e-6);
    EXPECT_NEAR(apply(c.e, 0.8f, 0, 0), c.at_pos, 1e-6);
  }
  // ReLU lets NaN through, as PyTorch does.
  EXPECT_TRUE(std::isnan(apply(Epilogue().relu(), std::nanf(""), 0, 0)));
}

TEST(EpilogueChain, ColumnAffineRoundsLikeTheChannelAffinePass) {
  // (x * pre - shift) * mul + add, in float32, in that order: with |shift| >> the
  // spread, folding it into x * a + b would lose the digits this keeps.
  const int64_t n = 2;
  const std::vector<float> affine{3.f, 0.5f, 3000.f, 1.f, 0.25f, 4.f, -1.f, 0.f};
  const Epilogue e = Epilogue().column_affine(affine.data(), n);
  for (int64_t col = 0; col < n; ++col) {
    const float x = 1000.123f;
    const float want =
        (x * affine[col] - affine[n + col]) * affine[2 * n + col] + affine[3 * n + col];
    EXPECT_EQ(apply(e, x, 5, col), want);
  }
}

TEST(EpilogueChain, BuildersSkipAbsentVectorsAndRefuseTooManySteps) {
  Epilogue e;
  e.add_column(nullptr).mul_row(nullptr).relu();
  EXPECT_EQ(e.count, 1);
  EXPECT_EQ(e.str(), "relu");
  EXPECT_EQ(Epilogue().str(), "none");
  for (int i = 1; i < Epilogue::kMaxSteps; ++i) e.scale(2.f);
  EXPECT_THAT([&] { e.gelu(); },
              testing::ThrowsMessage<tt::Error>(testing::HasSubstr(
                  "gemm epilogue: cannot add gelu to a chain that already has the maximum of 8 "
                  "steps (relu,scale,")));
  const float v = 1.f;
  EXPECT_EQ(
      Epilogue().add_column(&v).silu().add_column(&v).group_norm(16, nullptr, nullptr, 1e-5f).str(),
      "add_column,silu,add_column,group_norm(16)");
  EXPECT_FALSE(Epilogue().add_column(&v).relu().reads_rows());
  EXPECT_TRUE(Epilogue().add_residual(&v, 4).reads_rows());
  EXPECT_EQ(Epilogue().add_row(&v).at_rows(64).at_rows(32).row0, 96);
}

TEST(EpilogueChain, FixedFunctionFormIsScaleBiasActivation) {
  const float s = 2.f, b = 1.f;
  ScaleBiasActivation f = as_scale_bias_activation(Epilogue().mul_column(&s).add_column(&b).gelu());
  EXPECT_TRUE(f.ok);
  EXPECT_EQ(f.scale, &s);
  EXPECT_EQ(f.bias, &b);
  EXPECT_TRUE(f.has_act);
  EXPECT_EQ(f.act, EpilogueOp::kGelu);
  f = as_scale_bias_activation(Epilogue().add_column(&b));
  EXPECT_TRUE(f.ok);
  EXPECT_FALSE(f.has_act);
  EXPECT_TRUE(as_scale_bias_activation(Epilogue()).ok);
  // Not expressible: a step after the activation, a bias before a scale, a tile stage.
  EXPECT_FALSE(as_scale_bias_activation(Epilogue().add_column(&b).silu().add_column(&b)).ok);
  EXPECT_FALSE(as_scale_bias_activation(Epilogue().add_column(&b).mul_column(&s)).ok);
  float part = 0.f;
  EXPECT_FALSE(as_scale_bias_activation(Epilogue().add_column(&b).column_stats(&part, &part)).ok);
}

// ---- the plans: which stages each seed group runs under a config ----

namespace f = tt::ops::cuda::fused;
namespace seed = tt::test::seed;

// Stand-in device pointers: plan construction never dereferences them, but a null
// vector would add no epilogue step.
float g_dummy[8];
float* const kPtr = g_dummy;

// The groups' structural names, which start each plan's text (Plan::str).
const std::string kRelu = "gemm[add_column,relu]";
const std::string kInstance = "gemm[add_column]>segment_norm[add_mul]";
const std::string kSwish = "gemm[add_column,silu,add_column]>segment_norm[affine]";
const std::string kTrain = "gemm[add_column,mul_column]>batch_norm[train]";
const std::string kEval = "gemm[add_column,mul_column]>batch_norm[eval]";

// The own 128 x 128 tile (width 4) and cuBLASLt, whole, in row chunks, with a tail split.
const GemmConfig& own128() {
  for (const GemmConfig& c : own_variants()) {
    if (c.bm == 128 && c.bn == 128 && c.vec == 4) return c;
  }
  throw tt::Error("no own 128x128 variant");
}
const GemmConfig kLt = GemmConfig::cublaslt(0);
const GemmConfig kLtChunks = GemmConfig::cublaslt(0, 4096);
const GemmConfig kLtTail = GemmConfig::cublaslt(0, 0, 64);

f::Plan plan(const f::FusedPattern& p, const GemmConfig& cfg, int64_t m, int64_t n, int64_t k) {
  return seed::plan_of(p, cfg, kPtr, kPtr, kPtr, m, n, k);
}
f::Plan relu_plan(const GemmConfig& cfg, int64_t m, int64_t n) {
  return plan(seed::bias_relu_pattern(kPtr), cfg, m, n, 1024);
}
f::Plan instance_plan(const GemmConfig& cfg, int64_t m, int64_t n) {
  return plan(seed::instance_norm_add_mul_pattern(kPtr, kPtr), cfg, m, n, 1024);
}
f::Plan swish_plan(const GemmConfig& cfg, int64_t m, int64_t n, int64_t groups, int64_t k = 1024) {
  return plan(seed::swish_bias_group_norm_pattern(groups, kPtr, kPtr, kPtr, kPtr), cfg, m, n, k);
}
f::Plan batch_norm_plan(const GemmConfig& cfg, int64_t m, int64_t n, bool training) {
  const f::BatchNormParams bn{kPtr, kPtr, kPtr, kPtr, kPtr};
  return plan(seed::scale_batch_norm_pattern(training, kPtr, bn), cfg, m, n, 4096);
}
// Whether cfg runs the swish + group norm group as one kernel.
bool swish_fuses(const GemmConfig& cfg, int64_t m, int64_t n, int64_t k, int64_t groups) {
  return swish_plan(cfg, m, n, groups, k).stages.size() == 1;
}

// Each group's plan under the configs that change it: its stages (Plan::str) and scratch.
TEST(FusedPlans, EachGroupRunsTheStagesItsConfigAllows) {
  const int64_t m = 16384, n = 4096, mn = m * n;
  const int64_t band = norm::ColumnStatsConfig::default_for({m, n, 4}).chunk_rows;
  const int64_t bands = (m + band - 1) / band;
  struct Case {
    f::Plan plan;
    std::string want;
    int64_t scratch;
  };
  const Case cases[] = {
      // Every GEMM implementation runs bias + ReLU itself.
      {relu_plan(own128(), m, n), kRelu + " chunk=0 tail=0\ngemm[add_column,relu] -> out", 0},
      {relu_plan(kLtChunks, m, n), kRelu + " chunk=0 tail=0\ngemm[add_column,relu] -> out", 0},
      // A row norm needs a whole row: always a pass, never a schedule.
      {instance_plan(kLtChunks, m, n),
       kInstance + " chunk=0 tail=0\ngemm[add_column] -> gemm_out\n"
                   "segment_norm[none | add_residual,mul_residual,groups=1] gemm_out -> out",
       mn},
      // 64 groups of 64 channels: two per 128-wide tile, so the own config is one kernel;
      // 16 groups of 256 do not fit it.
      {swish_plan(own128(), m, n, 64),
       kSwish + " chunk=0 tail=0\ngemm[add_column,silu,add_column,group_norm(64)] -> out", 0},
      {swish_plan(own128(), m, n, 16),
       kSwish + " chunk=0 tail=0\ngemm[add_column] -> gemm_out\n"
                "segment_norm[silu,add_column | mul_column,add_column,groups=16] gemm_out -> out",
       mn},
      // cuBLASLt in row chunks or with a tail split: the pass runs in place in out; a
      // tail as long as the rows is no split.
      {swish_plan(kLtChunks, m, n, 64),
       kSwish + " chunk=4096 tail=0\ngemm[add_column] -> out\n"
                "segment_norm[silu,add_column | mul_column,add_column,groups=64] out -> out",
       0},
      {swish_plan(kLtTail, m, n, 64),
       kSwish + " chunk=0 tail=64\ngemm[add_column] -> out\n"
                "segment_norm[silu,add_column | mul_column,add_column,groups=64] out -> out",
       0},
      {swish_plan(kLtTail, 64, n, 64),
       kSwish + " chunk=0 tail=0\ngemm[add_column] -> gemm_out\n"
                "segment_norm[silu,add_column | mul_column,add_column,groups=64] gemm_out -> out",
       64 * n},
      // Training: the own kernel's epilogue writes the partials, one per 128-row band;
      // with cuBLASLt a statistics pass does.
      {batch_norm_plan(own128(), m, n, true),
       kTrain + " chunk=0 tail=0\ngemm[add_column,column_stats] -> gemm_out\n"
                "finalize part_mean,part_m2 -> affine\nchannel_affine gemm_out -> out",
       mn + 4 * n + 2 * (m / 128) * n},
      {batch_norm_plan(kLtTail, m, n, true),
       kTrain + " chunk=0 tail=64\ngemm[add_column] -> gemm_out\n"
                "column_stats gemm_out -> part_mean,part_m2\nfinalize part_mean,part_m2 -> "
                "affine\nchannel_affine gemm_out -> out",
       mn + 4 * n + 2 * bands * n},
      // Eval: the affine in the own kernel's epilogue; cuBLASLt chunks apply it in place;
      // eval offers no tail split.
      {batch_norm_plan(own128(), m, n, false),
       kEval + " chunk=0 tail=0\neval_affine -> affine\ngemm[add_column,column_affine] -> out",
       4 * n},
      {batch_norm_plan(kLtChunks, m, n, false),
       kEval + " chunk=4096 tail=0\neval_affine -> affine\n"
               "gemm[add_column] -> out\nchannel_affine out -> out",
       4 * n},
      {batch_norm_plan(kLtTail, m, n, false),
       kEval + " chunk=0 tail=0\neval_affine -> affine\n"
               "gemm[add_column] -> gemm_out\nchannel_affine gemm_out -> out",
       mn + 4 * n},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(c.plan.str(), c.want);
    EXPECT_EQ(c.plan.scratch_floats(), c.scratch) << c.want;
  }
}

// The launches and stream events of each schedule, in order (the dry run of run_plan).
TEST(FusedPlans, SchedulesLaunchInTheDocumentedOrder) {
  using V = std::vector<std::string>;
  // Tail split: head and tail GEMMs on the two high-priority streams, each part's pass
  // on the main stream after its GEMM.
  const GemmConfig tail = GemmConfig::cublaslt(1, 0, 2048);
  EXPECT_EQ(
      f::plan_launches(swish_plan(tail, 32768, 4096, 64)),
      (V{"fork first", "fork second", "first: gemm rows 0+30720 impl=cublaslt,algo=1",
         "second: gemm rows 30720+2048 impl=cublaslt,algo=0", "join first",
         "main: segment_norm rows 0+30720", "join second", "main: segment_norm rows 30720+2048"}));
  // Training's head is a whole number of statistics bands: 300 - 44 rows -> 256.
  const int64_t band = norm::ColumnStatsConfig::default_for({300, 64, 4}).chunk_rows;
  ASSERT_EQ(band, 256);
  EXPECT_EQ(f::plan_launches(batch_norm_plan(GemmConfig::cublaslt(0, 0, 44), 300, 64, true)),
            (V{"fork first", "fork second", "first: gemm rows 0+256 impl=cublaslt,algo=0",
               "second: gemm rows 256+44 impl=cublaslt,algo=0", "join first",
               "main: column_stats rows 0+256", "join second", "main: column_stats rows 256+44",
               "main: finalize rows 0+300", "main: channel_affine rows 0+300"}));
  // Row chunks (rounded up to whole bands: 100 -> 256): each chunk's pass on the side
  // stream after its GEMM, the main stream joins at the end.
  EXPECT_EQ(
      f::plan_launches(batch_norm_plan(GemmConfig::cublaslt(0, 100), 300, 64, true)),
      (V{"main: gemm rows 0+256 impl=cublaslt,algo=0,chunk=100", "fork side",
         "side: column_stats rows 0+256", "main: gemm rows 256+44 impl=cublaslt,algo=0,chunk=100",
         "fork side", "side: column_stats rows 256+44", "join side", "main: finalize rows 0+300",
         "main: channel_affine rows 0+300"}));
  // Eval with the own kernel: the affine first, then one GEMM that applies it.
  EXPECT_EQ(f::plan_launches(batch_norm_plan(own128(), 300, 64, false)),
            (V{"main: eval_affine rows 0+300", "main: gemm rows 0+300 " + own128().str()}));
  // No rows: only the stages before the GEMM.
  EXPECT_EQ(f::plan_launches(batch_norm_plan(kLt, 0, 64, false)),
            (V{"main: eval_affine rows 0+0"}));
}

TEST(FusedPlans, StatisticsBandsSetTheScheduleGrain) {
  const int64_t m = 16384, n = 4096;
  EXPECT_EQ(batch_norm_plan(own128(), m, n, true).part_rows, 128);
  const int64_t band = norm::ColumnStatsConfig::default_for({m, n, 4}).chunk_rows;
  const f::Plan p = batch_norm_plan(kLtChunks, m, n, true);
  EXPECT_EQ(p.part_rows, band);
  EXPECT_EQ(p.schedule.row_multiple, band);
}

// stats_pass: the tensor-core kernel's epilogue could write the partials, and the
// config asks for a statistics pass instead (a schedule choice the tuner makes).
TEST(FusedPlans, StatsPassTakesTheStatisticsOutOfTheTensorCoreEpilogue) {
  if (gemm::tc_variants().empty()) GTEST_SKIP() << "this build has no sm_90a code";
  const int64_t m = 16384, n = 4096;
  GemmConfig tc = gemm::tc_default(true);
  const f::Plan in_epilogue = batch_norm_plan(tc, m, n, true);
  EXPECT_EQ(in_epilogue.str(),
            kTrain +
                " chunk=0 tail=0\ngemm[add_column,column_stats] -> gemm_out\n"
                "finalize part_mean,part_m2 -> affine\nchannel_affine gemm_out -> out");
  EXPECT_EQ(in_epilogue.part_rows, 128);
  tc.stats_pass = 1;
  EXPECT_THAT(tc.str(), testing::EndsWith(",stats_pass=1"));
  EXPECT_EQ(gemm::gemm_descriptor(false, false, true).parse(tc.str()), tc);
  const f::Plan by_pass = batch_norm_plan(tc, m, n, true);
  EXPECT_EQ(by_pass.str(),
            kTrain +
                " chunk=0 tail=0\ngemm[add_column] -> gemm_out\n"
                "column_stats gemm_out -> part_mean,part_m2\nfinalize part_mean,part_m2 -> "
                "affine\nchannel_affine gemm_out -> out");
  EXPECT_EQ(by_pass.part_rows, norm::ColumnStatsConfig::default_for({m, n, 4}).chunk_rows);
}

TEST(FusedPlans, GroupNormFusesOnlyInATileThatHoldsWholeGroups) {
  EXPECT_TRUE(swish_fuses(own128(), 32768, 4096, 1024, 64));
  EXPECT_FALSE(swish_fuses(own128(), 32768, 4096, 1024, 16));
  EXPECT_FALSE(swish_fuses(kLt, 32768, 4096, 1024, 64));
  if (!gemm::tc_variants().empty()) {  // the tensor-core family: power-of-two groups, 8 to BN
    for (bool accurate : {false, true}) {
      const GemmConfig tc = gemm::tc_default(accurate);
      EXPECT_TRUE(swish_fuses(tc, 32768, 4096, 1024, 64));     // 64 channels
      EXPECT_TRUE(swish_fuses(tc, 32768, 4096, 1024, 512));    // 8
      EXPECT_FALSE(swish_fuses(tc, 32768, 4096, 1024, 1024));  // 4
      EXPECT_FALSE(swish_fuses(tc, 32768, 4800, 1024, 100));   // 48
      EXPECT_EQ(swish_plan(tc, 32768, 4096, 64).str(),
                kSwish + " chunk=0 tail=0\ngemm[add_column,silu,add_column,group_norm(64)] -> out");
    }
  }
  EXPECT_THAT(
      [] { swish_plan(kLt, 8, 100, 3); },
      testing::ThrowsMessage<tt::Error>(kSwish + ": 100 channels do not split into 3 groups"));
  EXPECT_THAT([] { batch_norm_plan(kLt, 0, 8, true); },
              testing::ThrowsMessage<tt::Error>(kTrain + ": training needs at least one row"));
}

// ---- on the GPU: the own tiled kernel runs any chain ----

// Every own variant with a chain that uses every step (and row0 > 0), against apply()
// on the host over a float64 GEMM, at a shape with partial tiles along M and N.
TEST(EpilogueChainOnGpu, OwnKernelAppliesEveryStep) {
  if (!tt::test::cuda_available()) GTEST_SKIP() << "no CUDA device";
  const int64_t m = 70, n = 36, k = 24, row0 = 3;
  const auto host = [](int64_t count, double lo, double hi, uint64_t seed) {
    return Tensor::uniform({count}, lo, hi, seed).to_vector<float>();
  };
  const auto x = host(m * k, -1, 1, 1), w = host(n * k, -1, 1, 2);
  const auto col = host(n, -0.5, 0.5, 3), col_scale = host(n, 0.5, 1.5, 4);
  const auto rows = host(row0 + m, 0.5, 1.5, 5), res = host((row0 + m) * n, -1, 1, 6);
  const auto affine = host(4 * n, 0.5, 1.5, 7);
  const auto gpu = [](const std::vector<float>& v) {
    return Tensor::from_vector(v, {static_cast<int64_t>(v.size())}).to(Device::cuda(0));
  };
  const Tensor dx = gpu(x), dw = gpu(w), dcol = gpu(col), dscale = gpu(col_scale);
  const Tensor drows = gpu(rows), dres = gpu(res), daff = gpu(affine);
  const auto fp = [](const Tensor& t) { return tt::test::float_ptr(t); };
  // Two chains (a chain holds at most 8 steps) that together use all 13.
  Epilogue a, b;
  a.add_column(fp(dcol)).mul_column(fp(dscale)).gelu().add_row(fp(drows)).leaky_relu(0.2f);
  a.mul_residual(fp(dres), n).silu().column_affine(fp(daff), n);
  b.scale(-0.5f).gelu_tanh().mul_row(fp(drows)).add_residual(fp(dres), n).relu();
  a.row0 = b.row0 = row0;
  // The same chains on host pointers: the reference.
  Epilogue ha, hb;
  ha.add_column(col.data()).mul_column(col_scale.data()).gelu().add_row(rows.data());
  ha.leaky_relu(0.2f).mul_residual(res.data(), n).silu().column_affine(affine.data(), n);
  hb.scale(-0.5f).gelu_tanh().mul_row(rows.data()).add_residual(res.data(), n).relu();
  ha.row0 = hb.row0 = row0;
  for (const auto& [chain, ref_chain] : {std::pair{a, ha}, std::pair{b, hb}}) {
    std::vector<double> ref(m * n);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t q = 0; q < k; ++q) acc += double(x[i * k + q]) * w[j * k + q];
        ref[i * n + j] = apply(ref_chain, static_cast<float>(acc), i, j);
      }
    }
    const Tensor want = Tensor::from_vector(ref, {m, n});
    for (const GemmConfig& cfg : own_variants()) {
      SCOPED_TRACE(cfg.str() + " " + chain.str());
      const Tensor c = tt::test::nan_filled({m, n}, Device::cuda(0));
      launch_tiled_gemm(cfg, {fp(dx), fp(dw), fp(c), m, n, k}, chain, tt::cuda::stream(0));
      EXPECT_LE(tt::test::rel_l2(c, want), 1e-5);
    }
  }
}

}  // namespace
}  // namespace tt::ops::cuda::gemm
#endif
