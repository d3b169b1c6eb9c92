// tt::Precision: names, parsing, the scoped guard and a module's own mode.
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "core/error.h"
#include "core/module.h"
#include "core/precision.h"

namespace tt {
namespace {

TEST(Precision, NamesRoundTrip) {
  for (Precision p : {Precision::strict, Precision::tf32, Precision::accurate}) {
    EXPECT_EQ(parse_precision(precision_name(p)), p);
  }
  EXPECT_STREQ(precision_name(Precision::accurate), "accurate");
}

TEST(Precision, UnknownNameIsAnErrorWithAShortExcerpt) {
  try {
    parse_precision("TF32");
    FAIL() << "expected a tt::Error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "unknown precision 'TF32'; expected strict, tf32 or accurate");
  }
  try {
    parse_precision(std::string(5000, 'x'));
    FAIL() << "expected a tt::Error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "unknown precision '" + std::string(32, 'x') +
                                         "...'; expected strict, tf32 or accurate");
  }
}

TEST(Precision, GuardsNestAndRestore) {
  EXPECT_EQ(current_precision(), Precision::strict);
  {
    PrecisionGuard outer(Precision::accurate);
    EXPECT_EQ(current_precision(), Precision::accurate);
    {
      PrecisionGuard inner(Precision::tf32);
      EXPECT_EQ(current_precision(), Precision::tf32);
    }
    EXPECT_EQ(current_precision(), Precision::accurate);
  }
  EXPECT_EQ(current_precision(), Precision::strict);
}

TEST(Precision, IsPerThread) {
  PrecisionGuard g(Precision::tf32);
  Precision seen = Precision::tf32;
  std::thread([&] { seen = current_precision(); }).join();
  EXPECT_EQ(seen, Precision::strict);
  EXPECT_EQ(current_precision(), Precision::tf32);
}

// Records the mode its forward ran under.
class ProbeModule : public Module {
 public:
  std::vector<Tensor> forward(const std::vector<Tensor>& in) override {
    seen = current_precision();
    return in;
  }
  std::string name() const override { return "Probe"; }
  Precision seen = Precision::strict;
};

TEST(Precision, ModuleCallRunsForwardUnderItsOwnMode) {
  ProbeModule m;
  PrecisionGuard g(Precision::tf32);
  m({});
  EXPECT_EQ(m.seen, Precision::tf32);  // unset: the caller's scope
  m.set_precision(Precision::accurate);
  m({});
  EXPECT_EQ(m.seen, Precision::accurate);
  EXPECT_EQ(current_precision(), Precision::tf32);  // restored after the call
  m.clear_precision();
  EXPECT_FALSE(m.precision().has_value());
}

}  // namespace
}  // namespace tt
