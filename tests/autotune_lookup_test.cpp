// Run-time lookup: exact, nearest (the documented rule), default on a miss, other
// devices ignored, source priority, TT_TUNING_DB, malformed files skipped with a warning.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "autotune/database.h"
#include "autotune/lookup.h"
#include "autotune/problem_key.h"

namespace tt::autotune {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// Device names that no shipped database will ever hold, so that the shipped files
// in autotune/db/ cannot change these results.
DeviceIdentity test_gpu() { return make_device_identity("Lookup Test GPU", 9, 0, 4, 1 << 30); }
DeviceIdentity other_gpu() { return make_device_identity("Lookup Other GPU", 9, 0, 4, 1 << 30); }

const Config kDefault = Config::parse("impl=own,threads=256");

TuningEntry entry(const std::string& config) {
  TuningEntry e;
  e.config = Config::parse(config);
  e.median_ms = 1.0;
  e.default_ms = 2.0;
  e.variants_tried = 4;
  e.tuned_at = "2026-01-01T00:00:00Z";
  return e;
}

class ConfigLookup : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ =
        fs::temp_directory_path() / fmt::format("tt_autotune_lookup_{}_{}", info->name(), getpid());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    // Keep the real user cache out of the test.
    setenv("XDG_CACHE_HOME", (dir_ / "cache").c_str(), 1);
    unsetenv("TT_TUNING_DB");
    set_database_path("");
    clear_configs_used();
  }
  void TearDown() override {
    set_database_path("");
    unsetenv("TT_TUNING_DB");
    fs::remove_all(dir_);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

Database gemm_database() {
  Database db;
  db.put(test_gpu(), "gemm", "m=1024,n=1024,k=1024,precision=strict", entry("impl=own,threads=64"));
  db.put(test_gpu(), "gemm", "m=4096,n=4096,k=4096,precision=strict",
         entry("impl=own,threads=128"));
  db.put(test_gpu(), "gemm", "m=1024,n=1024,k=1024,precision=tf32", entry("impl=cublas"));
  db.put(other_gpu(), "gemm", "m=2048,n=2048,k=2048,precision=strict",
         entry("impl=own,threads=512"));
  return db;
}

TEST(ProblemKey, AlignmentAndPrecisionHaveOneSpelling) {
  EXPECT_EQ(ProblemKey().add("rows", 8).add_align_floats(4).add_precision().str(),
            "rows=8,align=16B,precision=strict");
  EXPECT_EQ(ProblemKey().add_align_floats(1).add_precision(Precision::accurate).str(),
            "align=4B,precision=accurate");
  EXPECT_FALSE(ProblemKey().add_align_floats(2).find("align")->number.has_value());
}

TEST(ProblemKey, BuildsParsesAndMeasuresDistance) {
  const ProblemKey key = ProblemKey().add("m", 1024).add("n", 64).add("precision", "strict");
  EXPECT_EQ(key.str(), "m=1024,n=64,precision=strict");
  EXPECT_EQ(ProblemKey::parse(" m = 1024 ,n=64, precision=strict").str(), key.str());
  EXPECT_EQ(key.size(), 1024.0 * 64.0);
  // |log2(1024/4096)| + |log2(64/16)| = 2 + 2
  EXPECT_EQ(problem_distance(key, ProblemKey::parse("n=16,m=4096,precision=strict")), 4.0);
  EXPECT_EQ(problem_distance(key, ProblemKey::parse("m=1024,n=64,precision=tf32")), std::nullopt);
  EXPECT_EQ(problem_distance(key, ProblemKey::parse("m=1024,k=64,precision=strict")), std::nullopt);
  EXPECT_EQ(problem_distance(key, ProblemKey::parse("m=1024,precision=strict")), std::nullopt);
  EXPECT_EQ(problem_distance(ProblemKey::parse("m=0"), ProblemKey::parse("m=1")), std::nullopt);
  EXPECT_EQ(problem_distance(ProblemKey::parse("m=0"), ProblemKey::parse("m=0")), 0.0);
}

TEST_F(ConfigLookup, ExactMatch) {
  save_database(path("db.yaml"), gemm_database());
  set_database_path(path("db.yaml"));
  const LookupResult r =
      lookup("gemm", "m=4096,n=4096,k=4096,precision=strict", test_gpu(), kDefault);
  EXPECT_EQ(r.source, ConfigSource::Exact);
  EXPECT_EQ(r.config.str(), "impl=own,threads=128");
  EXPECT_EQ(r.problem, "m=4096,n=4096,k=4096,precision=strict");
  EXPECT_EQ(r.database, path("db.yaml"));
}

TEST_F(ConfigLookup, NearestUsesSumOfLog2RatiosWithinTheSamePrecision) {
  save_database(path("db.yaml"), gemm_database());
  set_database_path(path("db.yaml"));
  // Distance to 1024^3: 1 + 0 + 0 = 1; to 4096^3: 1 + 2 + 2 = 5.
  LookupResult r = lookup("gemm", "m=2048,n=1024,k=1024,precision=strict", test_gpu(), kDefault);
  EXPECT_EQ(r.source, ConfigSource::Nearest);
  EXPECT_EQ(r.config.str(), "impl=own,threads=64");
  EXPECT_EQ(r.problem, "m=1024,n=1024,k=1024,precision=strict");
  // Distance to 1024^3: 3 * 1 = 3; to 4096^3: 3 * 1 = 3; the tie goes to the larger one.
  r = lookup("gemm", "m=2048,n=2048,k=2048,precision=strict", test_gpu(), kDefault);
  EXPECT_EQ(r.source, ConfigSource::Nearest);
  EXPECT_EQ(r.config.str(), "impl=own,threads=128");
  // The tf32 entry is the only one of its precision, however far.
  r = lookup("gemm", "m=8,n=8,k=8,precision=tf32", test_gpu(), kDefault);
  EXPECT_EQ(r.source, ConfigSource::Nearest);
  EXPECT_EQ(r.config.str(), "impl=cublas");
  // No entry of that precision, or of that set of fields: the default.
  r = lookup("gemm", "m=1024,n=1024,k=1024,precision=fp16", test_gpu(), kDefault);
  EXPECT_EQ(r.source, ConfigSource::Default);
  EXPECT_EQ(r.config, kDefault);
  r = lookup("gemm", "m=1024,n=1024,precision=strict", test_gpu(), kDefault);
  EXPECT_EQ(r.source, ConfigSource::Default);
}

TEST_F(ConfigLookup, MissGivesTheDefaultAndOtherDevicesAreIgnored) {
  save_database(path("db.yaml"), gemm_database());
  set_database_path(path("db.yaml"));
  // other_gpu holds an exact entry for this problem; test_gpu's nearest wins instead.
  LookupResult r = lookup("gemm", "m=2048,n=2048,k=2048,precision=strict", test_gpu(), kDefault);
  EXPECT_EQ(r.config.str(), "impl=own,threads=128");
  const DeviceIdentity unknown = make_device_identity("Lookup Unknown GPU", 8, 0, 2, 0);
  r = lookup("gemm", "m=2048,n=2048,k=2048,precision=strict", unknown, kDefault);
  EXPECT_EQ(r.source, ConfigSource::Default);
  EXPECT_EQ(r.config, kDefault);
  EXPECT_EQ(r.problem, "");
  EXPECT_EQ(r.database, "");
  r = lookup("no_such_kernel", "m=1", test_gpu(), kDefault);
  EXPECT_EQ(r.source, ConfigSource::Default);
  // A key that does not parse is a miss, not an error.
  r = lookup("gemm", "garbage", test_gpu(), kDefault);
  EXPECT_EQ(r.source, ConfigSource::Default);
}

TEST_F(ConfigLookup, ADeviceWithNoEntryStartsFromTheNearestDeviceOfItsArchitecture) {
  Database db = gemm_database();  // test_gpu and other_gpu: sm_90, 4 SMs
  const DeviceIdentity big = make_device_identity("Lookup Big GPU", 9, 0, 132, 0);
  const DeviceIdentity other_arch = make_device_identity("Lookup Ampere GPU", 8, 0, 108, 0);
  db.put(big, "gemm", "m=1024,n=1024,k=1024,precision=strict", entry("impl=own,threads=32"));
  db.put(other_arch, "gemm", "m=1024,n=1024,k=1024,precision=strict", entry("impl=cublas"));
  save_database(path("db.yaml"), db);
  set_database_path(path("db.yaml"));

  // 114 SMs: `big` (132) is 0.2 doublings away, the 4-SM ones 4.8; the sm_80 device,
  // closer in SMs, is another architecture and never used.
  const DeviceIdentity fresh = make_device_identity("Lookup Fresh GPU", 9, 0, 114, 0);
  LookupResult r = lookup("gemm", "m=1024,n=1024,k=1024,precision=strict", fresh, kDefault);
  EXPECT_EQ(r.source, ConfigSource::NearestDevice);
  EXPECT_EQ(r.config.str(), "impl=own,threads=32");
  EXPECT_EQ(r.device, big.key());
  EXPECT_EQ(r.problem, "m=1024,n=1024,k=1024,precision=strict");
  EXPECT_EQ(r.database, path("db.yaml"));
  EXPECT_STREQ(to_string(r.source), "nearest device");
  // The sibling's nearest problem serves too.
  r = lookup("gemm", "m=1024,n=1024,k=2048,precision=strict", fresh, kDefault);
  EXPECT_EQ(r.source, ConfigSource::NearestDevice);
  EXPECT_EQ(r.problem, "m=1024,n=1024,k=1024,precision=strict");
  // A small sm_90 part starts from the 4-SM devices (the larger key wins the tie).
  const DeviceIdentity small = make_device_identity("Lookup Small GPU", 9, 0, 8, 0);
  r = lookup("gemm", "m=2048,n=2048,k=2048,precision=strict", small, kDefault);
  EXPECT_EQ(r.source, ConfigSource::NearestDevice);
  EXPECT_EQ(r.device, test_gpu().key());
  // No device of the architecture: the default.
  const DeviceIdentity blackwell = make_device_identity("Lookup Blackwell GPU", 10, 0, 148, 0);
  r = lookup("gemm", "m=1024,n=1024,k=1024,precision=strict", blackwell, kDefault);
  EXPECT_EQ(r.source, ConfigSource::Default);
  EXPECT_THAT(format_configs_used(),
              HasSubstr("gemm m=1024,n=1024,k=2048,precision=strict -> impl=own,threads=32 "
                        "(nearest device Lookup Big GPU|sm_90|132sm: "
                        "m=1024,n=1024,k=1024,precision=strict from "));
}

TEST_F(ConfigLookup, ANearestDeviceConfigThatThisDeviceRejectsIsNotUsed) {
  Database db;
  const DeviceIdentity big = make_device_identity("Lookup Big GPU", 9, 0, 132, 0);
  db.put(big, "norm", "rows=64,cols=4096,precision=strict", entry("threads=1024"));
  save_database(path("db.yaml"), db);
  set_database_path(path("db.yaml"));
  // This device's space allows at most 512 threads: the sibling's config is not valid
  // here, so the default runs.
  ParamSpace space("norm");
  space.axis("threads", {256, 512}).set_default(Config::parse("threads=256"));
  const DeviceIdentity fresh = make_device_identity("Lookup Fresh GPU", 9, 0, 114, 0);
  const LookupResult r = lookup("norm", "rows=64,cols=4096,precision=strict", fresh, space);
  EXPECT_EQ(r.source, ConfigSource::Default);
  EXPECT_EQ(r.config.str(), "threads=256");
}

TEST_F(ConfigLookup, EnvironmentVariableSelectsTheDatabase) {
  save_database(path("env.yaml"), gemm_database());
  setenv("TT_TUNING_DB", path("env.yaml").c_str(), 1);
  reload_databases();
  const LookupResult r =
      lookup("gemm", "m=1024,n=1024,k=1024,precision=strict", test_gpu(), kDefault);
  EXPECT_EQ(r.source, ConfigSource::Exact);
  EXPECT_EQ(r.database, path("env.yaml"));
  EXPECT_EQ(database_sources().front().origin, "TT_TUNING_DB");
  EXPECT_EQ(database_sources().front().path, path("env.yaml"));
}

TEST_F(ConfigLookup, ExplicitPathBeatsTheUserCache) {
  Database cache;
  cache.put(test_gpu(), "gemm", "m=1024,n=1024,k=1024,precision=strict",
            entry("impl=own,threads=32"));
  cache.put(test_gpu(), "relu", "n=4096", entry("threads=128"));
  save_database(user_cache_database_path(), cache);
  EXPECT_EQ(user_cache_database_path(), path("cache/tensortune/tuning.yaml"));
  reload_databases();
  LookupResult r = lookup("gemm", "m=1024,n=1024,k=1024,precision=strict", test_gpu(), kDefault);
  EXPECT_EQ(r.config.str(), "impl=own,threads=32");
  EXPECT_EQ(r.database, user_cache_database_path());

  save_database(path("db.yaml"), gemm_database());
  set_database_path(path("db.yaml"));
  r = lookup("gemm", "m=1024,n=1024,k=1024,precision=strict", test_gpu(), kDefault);
  EXPECT_EQ(r.config.str(), "impl=own,threads=64");
  // Entries only the lower layer has are still found.
  r = lookup("relu", "n=4096", test_gpu(), Config::parse("threads=256"));
  EXPECT_EQ(r.source, ConfigSource::Exact);
  EXPECT_EQ(r.config.str(), "threads=128");
}

TEST_F(ConfigLookup, MalformedDatabaseWarnsOnceAndIsSkipped) {
  std::ofstream(path("bad.yaml")) << "version: 1\ndevices: [\n";
  set_database_path(path("bad.yaml"));
  ::testing::internal::CaptureStderr();
  LookupResult r = lookup("gemm", "m=1,n=1,k=1,precision=strict", test_gpu(), kDefault);
  r = lookup("gemm", "m=2,n=1,k=1,precision=strict", test_gpu(), kDefault);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(r.source, ConfigSource::Default);
  EXPECT_EQ(r.config, kDefault);
  EXPECT_THAT(err, HasSubstr("tensortune: warning: skipping a tuning database: malformed tuning "
                             "database " +
                             path("bad.yaml") + ", line "));
  EXPECT_EQ(err.find("warning"), err.rfind("warning"));  // once
}

TEST_F(ConfigLookup, MissingExplicitDatabaseWarnsOnce) {
  set_database_path(path("absent.yaml"));
  ::testing::internal::CaptureStderr();
  lookup("gemm", "m=1,n=1,k=1,precision=strict", test_gpu(), kDefault);
  lookup("gemm", "m=1,n=1,k=1,precision=strict", test_gpu(), kDefault);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(err, "tensortune: warning: the tuning database " + path("absent.yaml") +
                     " (--db) does not exist; using default configs where no other database "
                     "has one\n");
}

TEST_F(ConfigLookup, WithASpaceAStaleConfigFallsBackToTheDefault) {
  Database db;
  db.put(test_gpu(), "norm", "n=64", entry("threads=96"));  // not a candidate any more
  db.put(test_gpu(), "norm", "n=128", entry("threads=128"));
  save_database(path("db.yaml"), db);
  set_database_path(path("db.yaml"));
  ParamSpace space("norm");
  space.axis("threads", {128, 256}).set_default(Config::parse("threads=256"));
  ::testing::internal::CaptureStderr();
  LookupResult r = lookup("norm", "n=64", test_gpu(), space);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(r.source, ConfigSource::Default);
  EXPECT_EQ(r.config.str(), "threads=256");
  EXPECT_THAT(err, HasSubstr("the tuned config threads=96 for norm n=64"));
  EXPECT_THAT(err, HasSubstr("threads=96 is not a candidate (128|256)"));
  r = lookup("norm", "n=128", test_gpu(), space);
  EXPECT_EQ(r.source, ConfigSource::Exact);
  EXPECT_EQ(r.config.str(), "threads=128");
}

TEST_F(ConfigLookup, AnEntryTunedAgainstAnOlderDefaultWarnsOnceAndIsStillUsed) {
  // n=64 won against threads=128, the default then; the default is now 256 (a kernel
  // change), so the entry may no longer win. n=128 was tuned against today's default.
  TuningEntry old_default = entry("threads=512");
  old_default.default_config = Config::parse("threads=128");
  TuningEntry same_default = entry("threads=512");
  same_default.default_config = Config::parse("threads=256");
  Database db;
  db.put(test_gpu(), "norm", "n=64", old_default);
  db.put(test_gpu(), "norm", "n=128", same_default);
  db.put(test_gpu(), "norm", "n=256", entry("threads=512"));  // written before the field
  save_database(path("db.yaml"), db);
  set_database_path(path("db.yaml"));
  ASSERT_EQ(load_database(path("db.yaml")).find(test_gpu().key(), "norm", "n=64")->default_config,
            old_default.default_config);
  ParamSpace space("norm");
  space.axis("threads", {128, 256, 512}).set_default(Config::parse("threads=256"));
  ::testing::internal::CaptureStderr();
  for (int i = 0; i < 3; ++i) {
    const LookupResult r = lookup("norm", "n=64", test_gpu(), space);
    EXPECT_EQ(r.source, ConfigSource::Exact);
    EXPECT_EQ(r.config.str(), "threads=512");
  }
  EXPECT_EQ(lookup("norm", "n=128", test_gpu(), space).config.str(), "threads=512");
  EXPECT_EQ(lookup("norm", "n=256", test_gpu(), space).config.str(), "threads=512");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "tensortune: warning: the tuned config threads=512 for norm n=64 in " +
                path("db.yaml") +
                " won against the default threads=128, but the kernel's default is now "
                "threads=256: run `tt tune` again to see whether it still wins (using the "
                "tuned config)\n");
}

TEST_F(ConfigLookup, ANearestConfigThatDoesNotFitFallsBackQuietly) {
  Database db;
  db.put(test_gpu(), "norm", "n=4096", entry("threads=512"));
  save_database(path("db.yaml"), db);
  set_database_path(path("db.yaml"));
  ParamSpace space("norm");
  // A problem of 64 elements cannot use 512 threads; the tuned entry is for 4096.
  space.axis("threads", {128, 256, 512})
      .constraint("threads must not exceed n",
                  [](const Config& c) { return c.get("threads") <= 256; })
      .set_default(Config::parse("threads=128"));
  ::testing::internal::CaptureStderr();
  LookupResult r = lookup("norm", "n=64", test_gpu(), space);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(r.source, ConfigSource::Default);
  EXPECT_EQ(r.config.str(), "threads=128");
}

TEST_F(ConfigLookup, RecordsTheConfigEachKernelUsed) {
  save_database(path("db.yaml"), gemm_database());
  set_database_path(path("db.yaml"));
  lookup("gemm", "m=2048,n=1024,k=1024,precision=strict", test_gpu(), kDefault);
  lookup("relu", "n=7", test_gpu(), Config::parse("threads=128"));
  const auto used = configs_used();
  ASSERT_EQ(used.size(), 2u);
  EXPECT_EQ(used[0].kernel, "gemm");
  EXPECT_EQ(used[0].result.config.str(), "impl=own,threads=64");
  EXPECT_EQ(used[1].kernel, "relu");
  EXPECT_EQ(format_configs_used(),
            "gemm m=2048,n=1024,k=1024,precision=strict -> impl=own,threads=64 (nearest: "
            "m=1024,n=1024,k=1024,precision=strict from " +
                path("db.yaml") +
                ")\n"
                "relu n=7 -> threads=128 (default)\n");
  clear_configs_used();
  EXPECT_TRUE(configs_used().empty());
}

TEST_F(ConfigLookup, SourcesListTheCacheAndTheShippedDatabases) {
  const auto sources = database_sources();
  ASSERT_FALSE(sources.empty());
  EXPECT_EQ(sources[0].origin, "user cache");
  EXPECT_EQ(sources[0].path, path("cache/tensortune/tuning.yaml"));
  for (size_t i = 1; i < sources.size(); ++i) EXPECT_EQ(sources[i].origin, "shipped");
}

}  // namespace
}  // namespace tt::autotune
