// The verification tolerance rule and the winner selection on synthetic timings:
// contenders within 3% of the best, the default kept unless beaten beyond the noise,
// and a winner never slower than the default.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "autotune/select.h"
#include "autotune/tolerance.h"
#include "core/error.h"

namespace tt::autotune {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Timing timing(double median, double spread, int reps = 20) {
  Timing t;
  t.median_ms = median;
  t.p10_ms = median - spread / 2;
  t.p90_ms = median + spread / 2;
  t.reps = reps;
  return t;
}

TEST(Tolerance, StrictRuleFollowsTheSquareRootOfTheReductionBetweenFloorAndCap) {
  const double u = std::ldexp(1.0, -24);
  EXPECT_DOUBLE_EQ(verification_tolerance("strict", 0), 1e-6);  // floor
  EXPECT_DOUBLE_EQ(verification_tolerance("strict", 1), 1e-6);
  EXPECT_DOUBLE_EQ(verification_tolerance("strict", 64), 8 * u * 8);  // 3.8e-6
  EXPECT_DOUBLE_EQ(verification_tolerance("strict", 1024), 1e-5);     // 1.53e-5, capped
  EXPECT_DOUBLE_EQ(verification_tolerance("strict", 8192), 1e-5);
  EXPECT_DOUBLE_EQ(verification_tolerance("strict", 262144), 1e-5);
  EXPECT_LT(verification_tolerance("strict", 100), verification_tolerance("strict", 400));
}

TEST(Tolerance, AccurateMeetsTheStrictRuleAndTf32HasAFixedBound) {
  for (int64_t k : {0, 64, 1024, 262144}) {
    EXPECT_DOUBLE_EQ(verification_tolerance("accurate", k), verification_tolerance("strict", k));
    EXPECT_DOUBLE_EQ(verification_tolerance("tf32", k), std::ldexp(1.0, -9));  // 4 * 2^-11
  }
}

TEST(Tolerance, UnknownPrecisionIsAnError) {
  try {
    verification_tolerance("fast", 64);
    FAIL() << "expected a tt::Error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "unknown precision 'fast'; expected strict, tf32 or accurate");
  }
}

TEST(Summarize, MedianAndPercentilesInterpolate) {
  const Timing t = summarize({5, 1, 4, 2, 3});
  EXPECT_DOUBLE_EQ(t.median_ms, 3);
  EXPECT_DOUBLE_EQ(t.p10_ms, 1.4);
  EXPECT_DOUBLE_EQ(t.p90_ms, 4.6);
  EXPECT_EQ(t.reps, 5);
  EXPECT_EQ(summarize({}).reps, 0);
}

TEST(Contenders, WithinThreePercentFastestFirstPlusTheDefault) {
  const std::vector<double> medians = {1.10, 1.00, 1.02, 1.031, NAN, 1.029, -1.0};
  // 1.00, 1.02, 1.029 are within 3%; 1.031 is not; NaN and negatives never qualify.
  EXPECT_THAT(select_contenders(medians, 0.03, 6, std::nullopt), ElementsAre(1, 2, 5));
  EXPECT_THAT(select_contenders(medians, 0.03, 6, 0), ElementsAre(1, 2, 5, 0));
  EXPECT_THAT(select_contenders(medians, 0.03, 2, 0), ElementsAre(1, 2, 0));
  EXPECT_THAT(select_contenders(medians, 0.03, 6, 1), ElementsAre(1, 2, 5));  // already in
  EXPECT_THAT(select_contenders(medians, 0.03, 6, 4), ElementsAre(1, 2, 5));  // untimed default
  EXPECT_TRUE(select_contenders({NAN}, 0.03, 6, 0).empty());
}

TEST(Winner, ClearlyFasterConfigReplacesTheDefault) {
  const WinnerChoice c = choose_winner({timing(2.0, 0.02), timing(1.8, 0.02)}, 0);
  EXPECT_EQ(c.index, 1u);
  EXPECT_FALSE(c.kept_default);
  EXPECT_THAT(c.why, HasSubstr("beats the default"));
}

TEST(Winner, GainWithinTheNoiseKeepsTheDefault) {
  // 0.5% faster but with a 10% spread over 20 reps: SE ~ 0.0109 each, margin ~ 0.031.
  WinnerChoice c = choose_winner({timing(2.0, 0.2), timing(1.99, 0.2)}, 0);
  EXPECT_EQ(c.index, 0u);
  EXPECT_TRUE(c.kept_default);
  EXPECT_EQ(c.fastest, 1u);
  EXPECT_NEAR(c.margin_ms,
              2 * std::hypot(median_standard_error(timing(2.0, 0.2)),
                             median_standard_error(timing(1.99, 0.2))),
              1e-12);
  // Noise-free timings still need a 0.2% gain.
  c = choose_winner({timing(2.0, 0.0), timing(1.997, 0.0)}, 0);
  EXPECT_TRUE(c.kept_default);
  c = choose_winner({timing(2.0, 0.0), timing(1.99, 0.0)}, 0);
  EXPECT_FALSE(c.kept_default);
}

TEST(Winner, DefaultFastestOrUnmeasured) {
  WinnerChoice c = choose_winner({timing(1.0, 0.01), timing(1.5, 0.01)}, 0);
  EXPECT_EQ(c.index, 0u);
  EXPECT_FALSE(c.kept_default);
  c = choose_winner({timing(1.5, 0.01), timing(1.2, 0.01), timing(1.3, 0.01)}, std::nullopt);
  EXPECT_EQ(c.index, 1u);
  EXPECT_THROW(choose_winner({}, std::nullopt), Error);
  EXPECT_THROW(choose_winner({timing(1, 0)}, 3), Error);
}

TEST(Winner, NeverSlowerThanTheDefaultOnRandomTimings) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> median(0.5, 1.5), spread(0.0, 0.2);
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<Timing> t;
    const int n = 2 + trial % 6;
    for (int i = 0; i < n; ++i) t.push_back(timing(median(rng), spread(rng), 5 + trial % 30));
    const size_t d = static_cast<size_t>(trial) % t.size();
    const WinnerChoice c = choose_winner(t, d);
    if (c.index != d) {
      // A switch happens only when the winner is faster than the default by the margin.
      EXPECT_LT(t[c.index].median_ms, t[d].median_ms - c.margin_ms);
      EXPECT_EQ(c.index, c.fastest);
    }
    EXPECT_LE(t[c.index].median_ms, t[d].median_ms);
  }
}

}  // namespace
}  // namespace tt::autotune
