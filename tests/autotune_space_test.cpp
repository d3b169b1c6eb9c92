// Parameter spaces: configs print and parse, enumeration honours constraints and
// names the failed one, defaults are checked, sampling is deterministic.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <string>
#include <utility>

#include "autotune/space.h"
#include "core/error.h"
#include "support/test_util.h"

namespace tt::autotune {
namespace {

using ::testing::HasSubstr;

using tt::test::error_of;

// 3 * 3 * 2 * 3 = 54 points for impl=own; counted independently (Python): 27 break
// the divisibility rule, 1 more (threads=128,bm=64,bk=8,vec=4) breaks the vec rule,
// 26 are valid. impl=cublaslt adds 8 algos.
ParamSpace gemm_space() {
  ParamSpace space("test_gemm");
  space.impls({"own", "cublaslt"})
      .axis("threads", {128, 256, 512}, {"own"})
      .axis("bm", {16, 32, 64}, {"own"})
      .axis("bk", {8, 16}, {"own"})
      .axis("vec", {1, 2, 4}, {"own"})
      .axis("algo", {0, 1, 2, 3, 4, 5, 6, 7}, {"cublaslt"})
      .constraint("bm*bk/vec must be divisible by threads",
                  [](const Config& c) {
                    return (c.get("bm") * c.get("bk") / c.get("vec")) % c.get("threads") == 0;
                  },
                  {"own"})
      .constraint("vec must not exceed bk/4",
                  [](const Config& c) { return c.get("vec") <= c.get("bk") / 4; }, {"own"})
      .set_default(Config::parse("impl=own,threads=128,bm=64,bk=16,vec=4"));
  return space;
}

TEST(AutotuneConfig, PrintsImplFirstThenParametersInOrder) {
  Config c({{"bm", 128}, {"bn", 64}}, "own");
  EXPECT_EQ(c.str(), "impl=own,bm=128,bn=64");
  EXPECT_EQ(Config({{"threads", 256}}).str(), "threads=256");
  EXPECT_EQ(Config().str(), "");
}

TEST(AutotuneConfig, ParsesWhatItPrints) {
  const Config c = Config::parse(" bm = 128, impl=cublaslt#3 ,bn=-2");
  EXPECT_EQ(c.impl(), "cublaslt#3");
  EXPECT_EQ(c.get("bm"), 128);
  EXPECT_EQ(c.get("bn"), -2);
  EXPECT_EQ(c.str(), "impl=cublaslt#3,bm=128,bn=-2");
  EXPECT_EQ(Config::parse(c.str()), c);
  EXPECT_TRUE(Config::parse("").empty());
}

TEST(AutotuneConfig, EqualityIgnoresParameterOrder) {
  EXPECT_EQ(Config::parse("a=1,b=2"), Config::parse("b=2,a=1"));
  EXPECT_NE(Config::parse("a=1,b=2"), Config::parse("a=1,b=3"));
  EXPECT_NE(Config::parse("impl=x,a=1"), Config::parse("a=1"));
  EXPECT_NE(Config::parse("a=1"), Config::parse("a=1,b=2"));
}

TEST(AutotuneConfig, RejectsMalformedText) {
  EXPECT_EQ(error_of([] { Config::parse("bm=12x"); }),
            "config 'bm=12x': value of 'bm' must be an integer but got '12x'");
  EXPECT_EQ(error_of([] { Config::parse("bm"); }), "config 'bm': expected name=value but got 'bm'");
  EXPECT_EQ(error_of([] { Config::parse("bm=1,bm=2"); }),
            "config 'bm=1,bm=2': parameter 'bm' is given twice");
  EXPECT_EQ(error_of([] { Config::parse("impl=a,impl=b"); }),
            "config 'impl=a,impl=b': impl is given twice");
}

TEST(AutotuneConfig, GetNamesTheMissingParameter) {
  const Config c = Config::parse("impl=own,bm=128");
  EXPECT_EQ(error_of([&] { c.get("bn"); }), "config impl=own,bm=128 has no parameter 'bn'");
  EXPECT_EQ(c.get_or("bn", 7), 7);
}

TEST(ParamSpace, EnumeratesTheValidProductInDeclaredOrder) {
  const ParamSpace space = gemm_space();
  EXPECT_EQ(space.unconstrained_size(), 54 + 8);
  const std::vector<Config> all = space.enumerate();
  ASSERT_EQ(all.size(), 26u + 8u);
  // The last axis varies fastest; the first valid own config is the smallest one that
  // satisfies bm*bk/vec % threads == 0.
  EXPECT_EQ(all.front().str(), "impl=own,threads=128,bm=16,bk=8,vec=1");
  EXPECT_EQ(all[1].str(), "impl=own,threads=128,bm=16,bk=16,vec=1");
  EXPECT_EQ(all[26].str(), "impl=cublaslt,algo=0");
  EXPECT_EQ(all.back().str(), "impl=cublaslt,algo=7");
  for (const Config& c : all) EXPECT_TRUE(space.is_valid(c)) << c.str();
}

TEST(ParamSpace, EnumeratesRejectedPointsWithTheirConstraint) {
  const auto rejected = gemm_space().enumerate_rejected();
  ASSERT_EQ(rejected.size(), 28u);
  int divisibility = 0;
  int vec = 0;
  for (const auto& r : rejected) {
    if (r.reason == "bm*bk/vec must be divisible by threads") ++divisibility;
    if (r.reason == "vec must not exceed bk/4") {
      ++vec;
      EXPECT_EQ(r.config.str(), "impl=own,threads=128,bm=64,bk=8,vec=4");
    }
  }
  EXPECT_EQ(divisibility, 27);
  EXPECT_EQ(vec, 1);
}

TEST(ParamSpace, NamesWhyAConfigIsRejected) {
  const ParamSpace space = gemm_space();
  const std::pair<const char*, const char*> cases[] = {
      {"impl=own,threads=128,bm=16,bk=8,vec=2", "bm*bk/vec must be divisible by threads"},
      {"impl=own,threads=128,bm=64,bk=8,vec=4", "vec must not exceed bk/4"},
      {"impl=own,threads=128,bm=48,bk=8,vec=1", "bm=48 is not a candidate (16|32|64)"},
      {"impl=own,threads=128,bm=16,vec=1", "parameter 'bk' is missing"},
      {"impl=cublaslt,algo=1,bm=16", "parameter 'bm' is not an axis of test_gemm impl=cublaslt"},
      {"impl=cublas,algo=1", "impl 'cublas' is not one of own|cublaslt"},
      {"algo=1", "impl is missing (one of own|cublaslt)"},
  };
  for (const auto& [text, why] : cases) {
    EXPECT_EQ(space.why_invalid(Config::parse(text)), std::optional<std::string>(why)) << text;
  }
  EXPECT_EQ(space.why_invalid(Config::parse("impl=cublaslt,algo=3")), std::nullopt);
  EXPECT_EQ(error_of([&] { space.check(Config::parse("impl=own,threads=512,bm=16,bk=8,vec=1")); }),
            "test_gemm: config impl=own,threads=512,bm=16,bk=8,vec=1 is rejected: "
            "bm*bk/vec must be divisible by threads");
}

TEST(ParamSpace, DefaultConfigIsValidatedAgainstTheSpace) {
  const ParamSpace space = gemm_space();
  EXPECT_EQ(space.default_config().str(), "impl=own,threads=128,bm=64,bk=16,vec=4");
  EXPECT_TRUE(space.is_valid(space.default_config()));

  ParamSpace bad = gemm_space();
  bad.set_default(Config::parse("impl=own,threads=512,bm=16,bk=8,vec=1"));
  EXPECT_EQ(error_of([&] { bad.default_config(); }),
            "test_gemm: the default config impl=own,threads=512,bm=16,bk=8,vec=1 is invalid: "
            "bm*bk/vec must be divisible by threads");
  EXPECT_EQ(error_of([] { ParamSpace("empty").default_config(); }),
            "empty: the parameter space declares no default config");
}

TEST(ParamSpace, SpaceWithoutImplsHasNoImplInItsConfigs) {
  ParamSpace space("norm");
  space.axis("threads", {64, 128}).axis("items", {1, 2, 4});
  const auto all = space.enumerate();
  ASSERT_EQ(all.size(), 6u);
  EXPECT_EQ(all[0].str(), "threads=64,items=1");
  EXPECT_EQ(all[5].str(), "threads=128,items=4");
  EXPECT_EQ(space.why_invalid(Config::parse("impl=own,threads=64,items=1")),
            "impl 'own' is given but norm declares no impl axis");
}

TEST(ParamSpace, RejectsBadDeclarations) {
  EXPECT_EQ(error_of([] { ParamSpace("k").axis("bm", {}); }),
            "k: axis 'bm' needs at least one candidate value");
  EXPECT_EQ(error_of([] {
              ParamSpace("k").axis("bm", {1, 2, 1});
            }),
            "k: axis 'bm' lists a candidate value twice (1|2|1)");
  EXPECT_EQ(error_of([] { ParamSpace("k").axis("bm", {1}).axis("bm", {2}); }),
            "k: axis 'bm' is declared twice for the same impl");
  EXPECT_EQ(
      error_of([] {
        ParamSpace("k").impls({"own", "tc"}).axis("bm", {1}, {"own", "tc"}).axis("bm", {2}, {"tc"});
      }),
      "k: axis 'bm' is declared twice for the same impl");
  EXPECT_THAT(error_of([] { ParamSpace("k").axis("bm", {1}, {"own"}); }),
              HasSubstr("axis 'bm' applies to impl 'own', which is not declared"));
}

TEST(ParamSpace, AnAxisMayHaveOtherCandidatesPerImpl) {
  ParamSpace space("k");
  space.impls({"own", "tc"}).axis("bm", {64, 128}, {"own"}).axis("bm", {256}, {"tc"});
  std::vector<std::string> texts;
  for (const Config& c : space.enumerate()) texts.push_back(c.str());
  EXPECT_EQ(texts,
            (std::vector<std::string>{"impl=own,bm=64", "impl=own,bm=128", "impl=tc,bm=256"}));
  EXPECT_EQ(space.why_invalid(Config::parse("impl=tc,bm=128")), "bm=128 is not a candidate (256)");
}

TEST(ParamSpace, SamplingIsDeterministicDistinctAndValid) {
  const ParamSpace space = gemm_space();
  const auto a = space.sample(10, 42);
  const auto b = space.sample(10, 42);
  const auto c = space.sample(10, 43);
  ASSERT_EQ(a.size(), 10u);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  std::set<std::string> distinct;
  for (const Config& cfg : a) {
    EXPECT_TRUE(space.is_valid(cfg)) << cfg.str();
    distinct.insert(cfg.str());
  }
  EXPECT_EQ(distinct.size(), 10u);
  // Asking for more than exists gives every valid config.
  EXPECT_EQ(space.sample(1000, 1), space.enumerate());
}

TEST(ParamSpace, SamplesLargeSpacesWithoutEnumerating) {
  // 5^8 = 390625 points: above the enumeration limit, so points are drawn.
  ParamSpace space("big");
  for (const char* name : {"a", "b", "c", "d", "e", "f", "g", "h"}) {
    space.axis(name, {1, 2, 3, 4, 5});
  }
  space.constraint("a+b must be even",
                   [](const Config& c) { return (c.get("a") + c.get("b")) % 2 == 0; });
  EXPECT_EQ(space.unconstrained_size(), 390625);
  const auto a = space.sample(50, 7);
  ASSERT_EQ(a.size(), 50u);
  EXPECT_EQ(a, space.sample(50, 7));
  EXPECT_NE(a, space.sample(50, 8));
  std::set<std::string> distinct;
  for (const Config& cfg : a) {
    EXPECT_EQ((cfg.get("a") + cfg.get("b")) % 2, 0) << cfg.str();
    distinct.insert(cfg.str());
  }
  EXPECT_EQ(distinct.size(), 50u);
}

}  // namespace
}  // namespace tt::autotune
