// Forcing configs through lookup scopes: an override wins for its kernel (one problem
// or all), force-defaults ignores every database, the newest scope wins, an invalid
// override is an error naming the reason, and every forced lookup is recorded.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>

#include "autotune/database.h"
#include "autotune/lookup.h"
#include "core/error.h"

namespace tt::autotune {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

DeviceIdentity test_gpu() { return make_device_identity("Override Test GPU", 9, 0, 4, 1 << 30); }

const Config kDefault = Config::parse("threads=256");
const char* const kProblem = "n=4096,precision=strict";

class ConfigOverride : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           fmt::format("tt_autotune_override_{}_{}", info->name(), getpid());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    setenv("XDG_CACHE_HOME", (dir_ / "cache").c_str(), 1);
    unsetenv("TT_TUNING_DB");
    // A database whose exact entry the scopes must be able to overrule.
    TuningEntry e;
    e.config = Config::parse("threads=128");
    e.median_ms = 1;
    e.default_ms = 2;
    e.variants_tried = 3;
    e.tuned_at = "2026-01-01T00:00:00Z";
    Database db;
    db.put(test_gpu(), "norm", kProblem, e);
    save_database((dir_ / "db.yaml").string(), db);
    set_database_path((dir_ / "db.yaml").string());
    clear_configs_used();
  }
  void TearDown() override {
    set_database_path("");
    fs::remove_all(dir_);
  }
  fs::path dir_;
};

TEST_F(ConfigOverride, WithoutScopesTheDatabaseAnswers) {
  const LookupResult r = lookup("norm", kProblem, test_gpu(), kDefault);
  EXPECT_EQ(r.source, ConfigSource::Exact);
  EXPECT_EQ(r.config.str(), "threads=128");
}

TEST_F(ConfigOverride, OverrideWinsForItsKernelOnlyAndEndsWithItsScope) {
  {
    ScopedConfigOverride o("norm", Config::parse("threads=64"));
    LookupResult r = lookup("norm", kProblem, test_gpu(), kDefault);
    EXPECT_EQ(r.source, ConfigSource::Override);
    EXPECT_EQ(r.config.str(), "threads=64");
    r = lookup("norm", "n=8,precision=strict", test_gpu(), kDefault);  // every problem
    EXPECT_EQ(r.config.str(), "threads=64");
    r = lookup("relu", kProblem, test_gpu(), kDefault);  // another kernel
    EXPECT_EQ(r.source, ConfigSource::Default);
  }
  EXPECT_EQ(lookup("norm", kProblem, test_gpu(), kDefault).source, ConfigSource::Exact);
}

TEST_F(ConfigOverride, OverrideForOneProblemLeavesTheOthers) {
  // Spelled with spaces: problems are compared as keys.
  ScopedConfigOverride o("norm", Config::parse("threads=64"), "n = 8, precision = strict");
  EXPECT_EQ(lookup("norm", "n=8,precision=strict", test_gpu(), kDefault).config.str(),
            "threads=64");
  EXPECT_EQ(lookup("norm", kProblem, test_gpu(), kDefault).config.str(), "threads=128");
}

TEST_F(ConfigOverride, ForceDefaultsIgnoresTheDatabaseAndNewerOverridesWin) {
  ScopedForceDefaults defaults;
  LookupResult r = lookup("norm", kProblem, test_gpu(), kDefault);
  EXPECT_EQ(r.source, ConfigSource::Default);
  EXPECT_EQ(r.config, kDefault);
  {
    ScopedConfigOverride o("norm", Config::parse("threads=32"));
    EXPECT_EQ(lookup("norm", kProblem, test_gpu(), kDefault).config.str(), "threads=32");
    // A force-defaults scope opened inside the override wins in turn.
    ScopedForceDefaults inner;
    EXPECT_EQ(lookup("norm", kProblem, test_gpu(), kDefault).config, kDefault);
  }
  EXPECT_EQ(lookup("norm", kProblem, test_gpu(), kDefault).config, kDefault);
}

TEST_F(ConfigOverride, ScopesMayEndOutOfOrder) {
  auto outer = std::make_unique<ScopedConfigOverride>("norm", Config::parse("threads=32"));
  auto inner = std::make_unique<ScopedConfigOverride>("norm", Config::parse("threads=64"));
  outer.reset();
  EXPECT_EQ(lookup("norm", kProblem, test_gpu(), kDefault).config.str(), "threads=64");
  inner.reset();
  EXPECT_EQ(lookup("norm", kProblem, test_gpu(), kDefault).source, ConfigSource::Exact);
}

TEST_F(ConfigOverride, WithASpaceAnInvalidOverrideIsAnError) {
  ParamSpace space("norm");
  space.axis("threads", {64, 128, 256}).set_default(kDefault);
  ScopedConfigOverride o("norm", Config::parse("threads=96"));
  try {
    lookup("norm", kProblem, test_gpu(), space);
    FAIL() << "expected a tt::Error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("norm: config threads=96 is rejected: threads=96 is not a "
                                    "candidate (64|128|256)"));
  }
  ScopedConfigOverride valid("norm", Config::parse("threads=64"));
  EXPECT_EQ(lookup("norm", kProblem, test_gpu(), space).config.str(), "threads=64");
}

TEST_F(ConfigOverride, ForcedLookupsAreRecorded) {
  {
    ScopedForceDefaults defaults;
    ScopedConfigOverride o("norm", Config::parse("threads=64"));
    lookup("norm", kProblem, test_gpu(), kDefault);
    lookup("relu", "n=7", test_gpu(), Config::parse("threads=128"));
  }
  EXPECT_EQ(format_configs_used(),
            "norm n=4096,precision=strict -> threads=64 (override)\n"
            "relu n=7 -> threads=128 (default)\n");
  EXPECT_STREQ(to_string(ConfigSource::Override), "override");
}

}  // namespace
}  // namespace tt::autotune
