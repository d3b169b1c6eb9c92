// Family descriptors: one table gives the text form, the Config conversion,
// validation and the parameter space, and they agree with each other.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <string>
#include <utility>

#include "autotune/descriptor.h"
#include "core/error.h"
#include "support/test_util.h"

namespace tt::autotune {
namespace {

using ::testing::HasSubstr;
using tt::test::error_of;

enum class Kind : int { kWarp = 0, kBlock = 1, kStream = 2 };

// A family shaped like the segment norm: an enum impl, a field only one impl reads
// whose value is implied for the others (lanes == threads), a wide field (int64_t).
struct Cfg {
  Kind kind = Kind::kBlock;
  int threads = 256;
  int lanes = 256;
  int vec = 4;
  int64_t chunk = 0;
};

const Descriptor<Cfg>& desc() {
  static const auto d =
      Descriptor<Cfg>("test norm")
          .impl(&Cfg::kind,
                {{"warp", Kind::kWarp}, {"block", Kind::kBlock}, {"stream", Kind::kStream}})
          .field("threads", &Cfg::threads, {128, 256, 512})
          .field("lanes", &Cfg::lanes, {4, 8}, {"warp"}, [](const Cfg& c) { return c.threads; })
          .field("vec", &Cfg::vec, {1, 2, 4})
          .field("chunk", &Cfg::chunk, {0, int64_t{1} << 40}, {"stream"})
          .constraint("threads*vec must not exceed 1024",
                      [](const Cfg& c) { return c.threads * c.vec <= 1024; })
          .constraint("a warp kind needs threads to be a multiple of 32 lanes' groups",
                      [](const Cfg& c) { return c.threads % (32 / c.lanes * c.lanes) == 0; },
                      {"warp"});
  return d;
}

TEST(Descriptor, TextFormListsTheImplThenTheFieldsItReads) {
  Cfg w{Kind::kWarp, 128, 4, 2, 0};
  EXPECT_EQ(desc().str(w), "impl=warp,threads=128,lanes=4,vec=2");
  Cfg s{Kind::kStream, 512, 512, 1, int64_t{1} << 40};
  EXPECT_EQ(desc().str(s), "impl=stream,threads=512,vec=1,chunk=1099511627776");
  EXPECT_EQ(desc().to_config(w), Config::parse("impl=warp,threads=128,lanes=4,vec=2"));
  EXPECT_EQ(desc().impl_name(s), "stream");
  EXPECT_EQ(desc().fields_of("warp"), (std::vector<std::string>{"threads", "lanes", "vec"}));
  EXPECT_EQ(desc().impls(), (std::vector<std::string>{"warp", "block", "stream"}));
}

TEST(Descriptor, ParseIsTheInverseAndFillsImpliedFields) {
  const Cfg b = desc().parse(" impl=block , vec=2,threads=512");  // any order, spaces
  EXPECT_EQ(b.kind, Kind::kBlock);
  EXPECT_EQ(b.threads, 512);
  EXPECT_EQ(b.lanes, 512);  // implied from threads
  EXPECT_EQ(b.vec, 2);
  EXPECT_EQ(b.chunk, 0);  // implied: the member's value in Cfg{}
  for (const char* text : {"impl=warp,threads=128,lanes=8,vec=4", "impl=block,threads=256,vec=1",
                           "impl=stream,threads=128,vec=4,chunk=0"}) {
    EXPECT_EQ(desc().str(desc().parse(text)), text);
  }
}

TEST(Descriptor, MalformedConfigsThrowSentencesNamingTheConfig) {
  // {text, the message after "test norm config <text>"}
  const std::pair<std::string, std::string> cases[] = {
      {"impl=grid,threads=128,vec=4", ": impl must be one of warp|block|stream but got 'grid'"},
      {"impl=warp,threads=128,vec=4", " has no field 'lanes'"},
      {"impl=block,threads=128,lanes=4,vec=4", ": 'lanes' is not a field of test norm impl=block"},
      {"impl=block,threads=4294967296,vec=4", ": threads=4294967296 is out of range"},
      {"threads=128,vec=4", ": impl must be one of warp|block|stream but got ''"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(error_of([&] { desc().parse(c.first); }), "test norm config " + c.first + c.second);
  }
  EXPECT_THAT(error_of([] { desc().parse("impl=block,threads=x"); }),
              HasSubstr("value of 'threads' must be an integer but got 'x'"));
}

TEST(Descriptor, ValidationNamesTheFirstBrokenRule) {
  EXPECT_EQ(desc().why_invalid(Cfg{Kind::kBlock, 256, 256, 4, 0}), std::nullopt);
  EXPECT_EQ(*desc().why_invalid(Cfg{Kind::kBlock, 64, 64, 4, 0}),
            "threads=64 is not a candidate (128|256|512)");
  EXPECT_EQ(*desc().why_invalid(Cfg{Kind::kBlock, 512, 512, 4, 0}),
            "threads*vec must not exceed 1024");
  // lanes is not read by block: its odd value does not matter.
  EXPECT_EQ(desc().why_invalid(Cfg{Kind::kBlock, 256, 3, 4, 0}), std::nullopt);
  EXPECT_EQ(*desc().why_invalid(Cfg{Kind::kWarp, 256, 3, 4, 0}),
            "lanes=3 is not a candidate (4|8)");
  EXPECT_EQ(*desc().why_invalid(Cfg{static_cast<Kind>(7), 256, 256, 4, 0}),
            "impl is not one of warp|block|stream");
  const std::vector<Descriptor<Cfg>::Constraint> problem = {
      {"vec must divide the length 6", [](const Cfg& c) { return 6 % c.vec == 0; }}};
  EXPECT_EQ(*desc().why_invalid(Cfg{Kind::kBlock, 256, 256, 4, 0}, problem),
            "vec must divide the length 6");
  EXPECT_EQ(error_of([&] {
              desc().check(Cfg{Kind::kBlock, 256, 256, 4, 0}, "my_op", problem);
            }),
            "my_op: config impl=block,threads=256,vec=4 is rejected: vec must divide the length 6");
}

TEST(Descriptor, EqualComparesTheFieldsTheImplReads) {
  EXPECT_TRUE(desc().equal(Cfg{Kind::kBlock, 256, 3, 4, 9}, Cfg{Kind::kBlock, 256, 256, 4, 0}));
  EXPECT_FALSE(desc().equal(Cfg{Kind::kWarp, 256, 4, 4, 0}, Cfg{Kind::kWarp, 256, 8, 4, 0}));
  EXPECT_FALSE(desc().equal(Cfg{Kind::kWarp, 256, 4, 4, 0}, Cfg{Kind::kBlock, 256, 4, 4, 0}));
}

// The space agrees with the typed validation on every point of the product, and its
// enumeration is exactly the valid structs.
TEST(Descriptor, SpaceAgreesWithTypedValidation) {
  const std::vector<Descriptor<Cfg>::Constraint> problem = {
      {"vec must divide the length 6", [](const Cfg& c) { return 6 % c.vec == 0; }},
      {"chunk needs 512 threads",
       [](const Cfg& c) { return c.chunk == 0 || c.threads == 512; },
       {"stream"}}};
  const ParamSpace space = desc().space("my_op", problem, Cfg{Kind::kBlock, 256, 256, 2, 0});
  EXPECT_EQ(space.kernel(), "my_op");
  EXPECT_EQ(space.default_config().str(), "impl=block,threads=256,vec=2");
  // warp 3*2*3, block 3*3, stream 3*3*2.
  EXPECT_EQ(space.unconstrained_size(), 18 + 9 + 18);
  std::set<std::string> valid;
  for (const Config& c : space.enumerate()) valid.insert(c.str());
  int expected = 0;
  for (Kind kind : {Kind::kWarp, Kind::kBlock, Kind::kStream}) {
    for (int threads : {128, 256, 512}) {
      for (int lanes : {4, 8}) {
        for (int vec : {1, 2, 4}) {
          for (int64_t chunk : {int64_t{0}, int64_t{1} << 40}) {
            if (kind != Kind::kWarp && lanes == 8) continue;    // lanes only for warp
            if (kind != Kind::kStream && chunk != 0) continue;  // chunk only for stream
            const Cfg c{kind, threads, kind == Kind::kWarp ? lanes : threads, vec, chunk};
            const auto why = desc().why_invalid(c, problem);
            EXPECT_EQ(space.why_invalid(desc().to_config(c)), why) << desc().str(c);
            EXPECT_EQ(valid.count(desc().str(c)), why ? 0u : 1u) << desc().str(c);
            expected += why ? 0 : 1;
          }
        }
      }
    }
  }
  EXPECT_EQ(static_cast<int>(valid.size()), expected);
  EXPECT_GT(expected, 0);
  const std::vector<Cfg> typed = desc().enumerate(space);
  ASSERT_EQ(typed.size(), valid.size());
  for (const Cfg& c : typed) EXPECT_TRUE(desc().valid(c, problem)) << desc().str(c);
  // A rejected point reports the constraint's reason verbatim.
  EXPECT_EQ(*space.why_invalid(Config::parse("impl=stream,threads=256,vec=2,chunk=1099511627776")),
            "chunk needs 512 threads");
}

TEST(Descriptor, CompiledKeepsTheTableEntries) {
  struct Tile {
    int bm = 0;
    int bn = 0;
  };
  const std::vector<Tile> table = {{64, 64}, {128, 64}, {128, 128}};
  const auto d = Descriptor<Tile>("tile")
                     .field("bm", &Tile::bm, distinct_values(table, &Tile::bm))
                     .field("bn", &Tile::bn, distinct_values(table, &Tile::bn))
                     .compiled("the tile must be compiled", table);
  const ParamSpace space = d.space("gemm", {}, table[0]);
  EXPECT_EQ(space.unconstrained_size(), 4);
  ASSERT_EQ(space.enumerate().size(), 3u);
  EXPECT_EQ(*space.why_invalid(Config::parse("bm=64,bn=128")), "the tile must be compiled");
  EXPECT_EQ(distinct_values(table, &Tile::bn, [](const Tile& t) { return t.bm == 128; }),
            (std::vector<int64_t>{64, 128}));
}

// A plan extends a family's descriptor with its schedule fields; the family's own
// descriptor and the spaces built from it are unchanged.
TEST(Descriptor, ACopyExtendsWithoutChangingTheOriginal) {
  const ParamSpace before = desc().space("op", {}, Cfg{});
  auto scheduled = Descriptor<Cfg>(desc()).compiled("block configs must be compiled",
                                                    {Cfg{Kind::kBlock, 256, 256, 4, 0}}, {"block"});
  EXPECT_EQ(desc().why_invalid(Cfg{Kind::kBlock, 128, 128, 4, 0}), std::nullopt);
  EXPECT_EQ(*scheduled.why_invalid(Cfg{Kind::kBlock, 128, 128, 4, 0}),
            "block configs must be compiled");
  EXPECT_EQ(scheduled.why_invalid(Cfg{Kind::kWarp, 128, 4, 4, 0}), std::nullopt);  // not block
  EXPECT_EQ(before.enumerate().size(), desc().space("op", {}, Cfg{}).enumerate().size());
  const ParamSpace after = scheduled.space("op", {}, Cfg{});
  EXPECT_EQ(*after.why_invalid(Config::parse("impl=block,threads=128,vec=4")),
            "block configs must be compiled");
}

TEST(Descriptor, DeclarationMistakesThrow) {
  EXPECT_EQ(error_of([] {
              Descriptor<Cfg>("d").field("vec", &Cfg::vec, {1}).field("vec", &Cfg::vec, {2});
            }),
            "d: field 'vec' is declared twice");
  EXPECT_EQ(error_of([] { Descriptor<Cfg>("d").field("impl", &Cfg::vec, {1}); }),
            "d: field name 'impl' must be an identifier other than 'impl'");
  EXPECT_EQ(error_of([] { Descriptor<Cfg>("d").field("vec", &Cfg::vec, {1}, {"warp"}); }),
            "d: field 'vec' applies to impl 'warp', which is not declared (declare impl() first)");
  EXPECT_EQ(error_of([] { Descriptor<Cfg>("d").field("vec", &Cfg::vec, {}); }),
            "d: field 'vec' needs at least one candidate value");
  EXPECT_EQ(error_of([] { Descriptor<Cfg>("d").field("vec", &Cfg::vec, {int64_t{1} << 33}); }),
            "d: candidate vec=8589934592 does not fit the member's type");
  EXPECT_EQ(error_of([] {
              Descriptor<Cfg>("d").impl(&Cfg::kind, {{"a", Kind::kWarp}, {"b", Kind::kWarp}});
            }),
            "d: impl 'b' reuses the value of another impl");
}

// A family without an impl member: its configs have no impl.
TEST(Descriptor, FamilyWithoutImpl) {
  struct Affine {
    int threads = 256;
    int vec = 4;
  };
  const auto d = Descriptor<Affine>("affine")
                     .field("threads", &Affine::threads, {128, 256})
                     .field("vec", &Affine::vec, {1, 4});
  EXPECT_EQ(d.str(Affine{128, 1}), "threads=128,vec=1");
  EXPECT_EQ(d.impl_name(Affine{}), "");
  EXPECT_EQ(error_of([&] { d.parse("impl=own,threads=128,vec=1"); }),
            "affine config impl=own,threads=128,vec=1: impl 'own' is given but the family has no "
            "impl");
  EXPECT_EQ(d.space("affine_op", {}, Affine{}).enumerate().size(), 4u);
}

}  // namespace
}  // namespace tt::autotune
