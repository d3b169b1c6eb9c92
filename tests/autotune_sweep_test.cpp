// The sweep's search on a fake device: every config verified or rejected with its
// reason, wrong results never win, launch failures recorded, the winner re-measured,
// the default kept within the noise, a seeded sample when the budget is short,
// skipped and unsupported configs recorded, and the database entry it produces.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <string_view>

#include "autotune/sweep.h"
#include "core/error.h"

namespace tt::autotune {
namespace {

using ::testing::HasSubstr;

// 3 * 4 = 12 configs; the default is threads=256,vec=4.
ParamSpace test_space() {
  ParamSpace space("test_kernel");
  space.axis("threads", {128, 256, 512}).axis("vec", {1, 2, 4, 8});
  space.set_default(Config::parse("threads=256,vec=4"));
  return space;
}

// A device whose configs take `ms` (0.1% jitter), give `err`, or throw; configs
// without a stated behaviour take 5 ms and are exact.
class FakeTarget : public SweepTarget {
 public:
  struct Behaviour {
    double ms = 5.0;
    double err = 0.0;
    bool fails = false;
    bool fails_when_timed = false;
  };
  std::map<std::string, Behaviour> behaviour;  // by config text
  double* clock = nullptr;                     // advanced per call when set
  double seconds_per_verify = 0;
  double seconds_per_time = 0;
  double seconds_per_later_verify = -1;  // >= 0: what verifies after the first cost
  std::vector<std::string> verified, timed;

  Behaviour of(const Config& c) const {
    auto it = behaviour.find(c.str());
    return it == behaviour.end() ? Behaviour{} : it->second;
  }
  VerifyResult verify(const Config& c) override {
    if (clock) {
      *clock += verified.empty() || seconds_per_later_verify < 0 ? seconds_per_verify
                                                                 : seconds_per_later_verify;
    }
    verified.push_back(c.str());
    const Behaviour b = of(c);
    if (b.fails) throw Error("too many resources requested for launch");
    return {b.err, "the output"};
  }
  std::vector<double> time(const Config& c, int, int reps) override {
    if (clock) *clock += seconds_per_time;
    timed.push_back(c.str());
    const Behaviour b = of(c);
    if (b.fails_when_timed) throw Error("an illegal memory access was encountered");
    std::vector<double> s;
    for (int i = 0; i < reps; ++i) s.push_back(b.ms * (1.0 + 0.001 * ((i % 3) - 1)));
    return s;
  }
};

SweepOptions options(double* clock = nullptr) {
  SweepOptions o;
  o.tolerance = 1e-5;
  o.budget_s = 100;
  if (clock) o.now_s = [clock] { return *clock; };
  return o;
}

const Measurement& row(const SweepResult& r, std::string_view config) {
  for (const Measurement& m : r.measurements) {
    if (m.config.str() == config) return m;
  }
  throw Error("no row for " + std::string(config));
}

TEST(Sweep, EveryConfigIsVerifiedOrRejectedAndTheFastestCorrectOneWins) {
  FakeTarget t;
  t.behaviour["threads=256,vec=4"] = {2.0, 1e-7};               // the default
  t.behaviour["threads=512,vec=8"] = {0.5, 3e-2};               // fastest, but wrong
  t.behaviour["threads=128,vec=8"] = {0.4, 0, /*fails=*/true};  // cannot launch
  t.behaviour["threads=512,vec=4"] = {1.2, 2e-6};               // the right winner
  t.behaviour["threads=512,vec=2"] = {0.3, NAN};                // NaN output
  t.behaviour["threads=128,vec=1"] = {0.2, 0, false, /*fails_when_timed=*/true};
  const ParamSpace space = test_space();
  const SweepResult r = run_sweep("test_kernel", "n=64", space, t, options());

  ASSERT_TRUE(r.has_winner);
  EXPECT_EQ(r.winner.str(), "threads=512,vec=4");
  EXPECT_EQ(r.space_size, 12u);
  EXPECT_EQ(r.planned, 12u);
  EXPECT_FALSE(r.sampled);
  ASSERT_EQ(r.measurements.size(), 12u);
  EXPECT_EQ(r.measurements.front().config.str(), "threads=256,vec=4");  // default first
  EXPECT_TRUE(r.measurements.front().is_default);
  for (const Measurement& m : r.measurements) {
    EXPECT_TRUE(m.ok() || m.rejected()) << m.config.str() << " " << m.status;
    if (m.rejected()) {
      EXPECT_FALSE(m.reason.empty()) << m.config.str();
    }
    if (m.ok()) {
      EXPECT_LE(m.rel_err, 1e-5) << m.config.str();
    }
    EXPECT_EQ(m.kernel, "test_kernel");
    EXPECT_EQ(m.problem, "n=64");
  }
  EXPECT_EQ(row(r, "threads=512,vec=8").status, kStatusWrongResult);
  EXPECT_THAT(
      row(r, "threads=512,vec=8").reason,
      HasSubstr("relative L2 error 3.000e-02 of the output exceeds the tolerance 1.00e-05"));
  EXPECT_EQ(row(r, "threads=512,vec=2").status, kStatusWrongResult);
  EXPECT_EQ(row(r, "threads=128,vec=8").status, kStatusLaunchFailed);
  EXPECT_EQ(row(r, "threads=128,vec=8").reason, "too many resources requested for launch");
  EXPECT_EQ(row(r, "threads=128,vec=1").status, kStatusLaunchFailed);
  EXPECT_THAT(row(r, "threads=128,vec=1").reason, HasSubstr("failed when timed"));
  // Wrong and failing configs are never timed.
  for (const std::string& c : t.timed) {
    EXPECT_NE(c, "threads=512,vec=8");
    EXPECT_NE(c, "threads=128,vec=8");
  }
  const Measurement& w = row(r, "threads=512,vec=4");
  EXPECT_TRUE(w.is_winner);
  EXPECT_TRUE(w.remeasured);
  EXPECT_EQ(w.reps, 4 * 5);  // 4 interleaved rounds of 5

  const TuningEntry& e = r.entry;
  EXPECT_EQ(e.config.str(), "threads=512,vec=4");
  EXPECT_NEAR(e.median_ms, 1.2, 1e-9);
  EXPECT_NEAR(e.default_ms, 2.0, 1e-9);
  EXPECT_GT(e.p90_ms, e.p10_ms);
  EXPECT_EQ(e.variants_tried, 12);
  EXPECT_EQ(e.variants_rejected.at(kStatusWrongResult), 2);
  EXPECT_EQ(e.variants_rejected.at(kStatusLaunchFailed), 2);
  EXPECT_EQ(e.rejected.size(), 4u);
}

TEST(Sweep, ContendersWithinThreePercentAreReMeasuredInterleaved) {
  FakeTarget t;
  t.behaviour["threads=256,vec=4"] = {2.0};
  t.behaviour["threads=128,vec=2"] = {1.00};
  t.behaviour["threads=512,vec=1"] = {1.02};
  const ParamSpace space = test_space();
  const SweepResult r = run_sweep("test_kernel", "n=64", space, t, options());
  EXPECT_EQ(r.winner.str(), "threads=128,vec=2");
  int remeasured = 0;
  for (const Measurement& m : r.measurements) remeasured += m.remeasured;
  EXPECT_EQ(remeasured, 3);  // the two within 3%, and the default
  // After the screening (12 timings), 4 rounds over 3 contenders, each round in an order
  // rotated by one.
  ASSERT_EQ(t.timed.size(), 12u + 12u);
  EXPECT_NE(t.timed[12], t.timed[15]);
}

TEST(Sweep, ASampleSizedByASlowFirstRunGrowsWhileScreeningTimeIsLeft) {
  double clock = 0;
  FakeTarget t;
  t.clock = &clock;
  t.seconds_per_verify = 3.0;  // the default's first run: one-time costs
  t.seconds_per_later_verify = 0.5;
  SweepOptions o = options(&clock);
  o.budget_s = 8;  // 6 s to screen: the default's 3 s leave room for 1 more by its cost
  const SweepResult r = run_sweep("test_kernel", "n=64", test_space(), t, o);
  EXPECT_TRUE(r.sampled);
  // 3 s of screening left at 0.5 s each: 6 more than the default, not the 1 it sized.
  EXPECT_EQ(r.entry.variants_tried, 7);
  EXPECT_EQ(r.planned, 7u);
  std::set<std::string> seen;
  for (const Measurement& m : r.measurements) {
    EXPECT_TRUE(seen.insert(m.config.str()).second) << m.config.str();
    EXPECT_NE(m.status, kStatusSkipped);
  }
  EXPECT_TRUE(r.has_winner);
}

TEST(Sweep, TheDefaultIsKeptWhenNothingBeatsItBeyondTheNoise) {
  FakeTarget t;
  t.behaviour["threads=256,vec=4"] = {1.000};
  t.behaviour["threads=512,vec=4"] = {0.999};
  const ParamSpace space = test_space();
  const SweepResult r = run_sweep("test_kernel", "n=64", space, t, options());
  EXPECT_EQ(r.winner.str(), "threads=256,vec=4");
  EXPECT_TRUE(r.choice.kept_default);
  EXPECT_TRUE(row(r, "threads=256,vec=4").is_winner);
  EXPECT_DOUBLE_EQ(r.entry.median_ms, r.entry.default_ms);
  // What the winner was chosen against, for the lookup's check that the default moved.
  EXPECT_EQ(r.entry.default_config.str(), "threads=256,vec=4");
}

TEST(Sweep, AShortBudgetScreensASeededSampleAndRecordsWhatItSkips) {
  double clock = 0;
  FakeTarget t;
  t.clock = &clock;
  t.seconds_per_verify = 1.0;  // every config costs 1 s to screen
  SweepOptions o = options(&clock);
  o.budget_s = 8;  // 6 s to screen: the default and 5 more
  const ParamSpace space = test_space();
  const SweepResult a = run_sweep("test_kernel", "n=64", space, t, o);
  EXPECT_TRUE(a.sampled);
  EXPECT_EQ(a.planned, 6u);
  std::vector<std::string> first;
  for (const Measurement& m : a.measurements) first.push_back(m.config.str());
  EXPECT_EQ(std::set<std::string>(first.begin(), first.end()).size(), first.size());
  EXPECT_TRUE(a.has_winner);

  clock = 0;
  FakeTarget again;
  again.clock = &clock;
  again.seconds_per_verify = 1.0;
  const SweepResult b = run_sweep("test_kernel", "n=64", space, again, o);
  std::vector<std::string> second;
  for (const Measurement& m : b.measurements) second.push_back(m.config.str());
  EXPECT_EQ(first, second);  // the same seed, the same sample

  // Screening slower than the default suggested: what the screening deadline does not
  // reach is recorded as skipped.
  clock = 0;
  FakeTarget slow;
  slow.clock = &clock;
  slow.seconds_per_verify = 1.0;
  slow.seconds_per_later_verify = 5.0;
  o.budget_s = 40;  // 30 s to screen: the plan is all 12, but only 6 more fit
  const SweepResult c = run_sweep("test_kernel", "n=64", space, slow, o);
  EXPECT_FALSE(c.sampled);
  EXPECT_EQ(c.planned, 12u);
  ASSERT_EQ(c.measurements.size(), 12u);
  int skipped = 0;
  for (const Measurement& m : c.measurements) {
    if (m.status != kStatusSkipped) continue;
    ++skipped;
    EXPECT_EQ(m.reason, "not reached within the time budget");
  }
  EXPECT_EQ(skipped, 5);
  EXPECT_EQ(c.entry.variants_tried, 7);
  EXPECT_TRUE(c.has_winner);
}

TEST(Sweep, UnsupportedConfigsAreRecordedWithoutRunning) {
  FakeTarget t;
  SweepOptions o = options();
  o.unsupported = {{Config::parse("threads=1024,vec=4"), "unsupported",
                    "threads must not exceed the device's 512 per block"}};
  const ParamSpace space = test_space();
  const SweepResult r = run_sweep("test_kernel", "n=64", space, t, o);
  const Measurement& u = row(r, "threads=1024,vec=4");
  EXPECT_EQ(u.status, kStatusUnsupported);
  EXPECT_EQ(u.reason, "threads must not exceed the device's 512 per block");
  EXPECT_EQ(r.entry.variants_rejected.at(kStatusUnsupported), 1);
  EXPECT_EQ(r.entry.variants_tried, 12);  // only what ran
  for (const std::string& c : t.verified) EXPECT_NE(c, "threads=1024,vec=4");
}

TEST(Sweep, AWrongDefaultLosesToAVerifiedConfigAndNothingVerifiedIsAnError) {
  FakeTarget t;
  t.behaviour["threads=256,vec=4"] = {1.0, 1.0};  // the default is wrong
  t.behaviour["threads=128,vec=1"] = {3.0};
  const ParamSpace space = test_space();
  SweepResult r = run_sweep("test_kernel", "n=64", space, t, options());
  ASSERT_TRUE(r.has_winner);
  EXPECT_NE(r.winner.str(), "threads=256,vec=4");
  EXPECT_EQ(r.entry.default_ms, 0.0);

  FakeTarget broken;
  for (const Config& c : space.enumerate()) broken.behaviour[c.str()] = {1.0, 0, true};
  r = run_sweep("test_kernel", "n=64", space, broken, options());
  EXPECT_FALSE(r.has_winner);
  EXPECT_THAT(r.error, HasSubstr("no config of test_kernel for n=64 could be verified; the "
                                 "default threads=256,vec=4 was rejected (launch_failed: too many "
                                 "resources requested for launch)"));
}

TEST(Sweep, ProgressReportsEveryStep) {
  FakeTarget t;
  std::vector<SweepProgress> steps;
  SweepOptions o = options();
  o.progress = [&](const SweepProgress& p) { steps.push_back(p); };
  const ParamSpace space = test_space();
  run_sweep("test_kernel", "n=64", space, t, o);
  ASSERT_GE(steps.size(), 12u);
  EXPECT_EQ(steps[0].phase, "screen");
  EXPECT_EQ(steps[0].index, 1u);
  EXPECT_EQ(steps[0].total, 12u);
  EXPECT_EQ(steps[0].best_ms, 0.0);
  EXPECT_GT(steps[1].best_ms, 0.0);  // the default was timed
  EXPECT_EQ(steps.back().phase, "re-measure");
  EXPECT_GT(steps[5].seconds_left, 0.0);
}

TEST(Sweep, RejectsABadBudget) {
  FakeTarget t;
  SweepOptions o = options();
  o.budget_s = 0;
  const ParamSpace space = test_space();
  EXPECT_THROW(run_sweep("test_kernel", "n=64", space, t, o), Error);
}

// A model's budget left is split by each pending kernel's share of the forward.
TEST(SweepBudget, SplitsByShareOfTheForward) {
  EXPECT_DOUBLE_EQ(budget_share(10, 1, {1, 1}), 5);
  EXPECT_DOUBLE_EQ(budget_share(10, 3, {3, 1}), 7.5);
  EXPECT_DOUBLE_EQ(budget_share(10, 1, {3, 1}), 2.5);
}

TEST(SweepBudget, AShortKernelGetsAQuarterOfAnEqualSplit) {
  // total 10.01 ms over two kernels: the floor is 0.25 * 10.01 / 2 ms.
  const double floor = 0.25 * 10.01 / 2;
  EXPECT_DOUBLE_EQ(budget_share(10, 0.01, {0.01, 10}), 10 * floor / (floor + 10));
  EXPECT_DOUBLE_EQ(budget_share(10, 10, {0.01, 10}), 10 * 10 / (floor + 10));
}

TEST(SweepBudget, AnUnmeasuredKernelCountsAsTheMean) {
  EXPECT_DOUBLE_EQ(budget_share(12, -1, {-1, 2, 4}), 4);  // mean 3 of 9
  EXPECT_DOUBLE_EQ(budget_share(12, -1, {-1, -1}), 6);    // nothing measured: equal
  EXPECT_DOUBLE_EQ(budget_share(12, 0, {0, 0}), 6);       // too short to time: equal
}

TEST(SweepBudget, NoPendingKernelIsAnError) {
  try {
    budget_share(10, 1, {});
    FAIL() << "expected tt::Error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "tune: no pending kernel to share the budget between");
  }
}

}  // namespace
}  // namespace tt::autotune
