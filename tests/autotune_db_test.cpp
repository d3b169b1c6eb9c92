// The YAML tuning database: round trip, merge, prune, malformed files (named line,
// file untouched), schema version, and concurrent writers.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "autotune/database.h"
#include "core/error.h"
#include "core/version.h"
#include "support/test_util.h"

namespace tt::autotune {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;

using tt::test::read_file;

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

using tt::test::error_of;

class TuningDatabaseFile : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           fmt::format("tt_autotune_db_{}_{}_{}", info->test_suite_name(), info->name(), getpid());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

DeviceIdentity h200() {
  DeviceIdentity d = make_device_identity("NVIDIA H200", 9, 0, 132, 150109847552ull);
  d.driver = "580.159.04";
  d.cuda_driver = 13000;
  d.cuda_runtime = 13000;
  return d;
}

DeviceIdentity h100() { return make_device_identity("NVIDIA H100 80GB HBM3", 9, 0, 132, 85e9); }

TuningEntry entry(const std::string& config, double median_ms) {
  TuningEntry e;
  e.config = Config::parse(config);
  e.median_ms = median_ms;
  e.p10_ms = median_ms * 0.99;
  e.p90_ms = median_ms * 1.02;
  e.default_ms = 2.744;
  e.default_config = Config::parse("impl=own,threads=256,bm=128");
  e.variants_tried = 48;
  e.add_rejected(Config::parse("impl=own,threads=1024,bm=256"), "launch_failed",
                 "too many resources requested for launch");
  e.add_rejected(Config::parse("impl=own,threads=128,bm=64"), "wrong_result",
                 "max abs error 3.1e-02 at [4, 7]");
  e.add_rejected(Config::parse("impl=own,threads=64,bm=64"), "wrong_result");
  e.tuned_at = "2026-11-22T10:00:00Z";
  e.driver = "580.159.04";
  e.cuda_driver = 13000;
  e.cuda_runtime = 13000;
  e.tensortune_version = "0.1.0";
  return e;
}

const char* kProblem = "m=1024,n=8192,k=8192,precision=strict";

// The first 9 lines of a hand-written database, up to one problem of `relu` on a test
// GPU; the entry's fields follow.
const char* kHandWrittenHead =
    "version: 1\n"
    "devices:\n"
    "  \"Test GPU|sm_80|8sm\":\n"
    "    name: Test GPU\n"
    "    compute_capability: sm_80\n"
    "    sm_count: 8\n"
    "    kernels:\n"
    "      relu:\n"
    "        \"n=4096\":\n";

void expect_same_entry(const TuningEntry& a, const TuningEntry& b) {
  EXPECT_EQ(a.config, b.config);
  EXPECT_EQ(a.config.str(), b.config.str());  // order kept too
  EXPECT_EQ(a.median_ms, b.median_ms);
  EXPECT_EQ(a.p10_ms, b.p10_ms);
  EXPECT_EQ(a.p90_ms, b.p90_ms);
  EXPECT_EQ(a.default_ms, b.default_ms);
  EXPECT_EQ(a.default_config.str(), b.default_config.str());
  EXPECT_EQ(a.variants_tried, b.variants_tried);
  EXPECT_EQ(a.variants_rejected, b.variants_rejected);
  ASSERT_EQ(a.rejected.size(), b.rejected.size());
  for (size_t i = 0; i < a.rejected.size(); ++i) {
    EXPECT_EQ(a.rejected[i].config, b.rejected[i].config);
    EXPECT_EQ(a.rejected[i].reason, b.rejected[i].reason);
    EXPECT_EQ(a.rejected[i].detail, b.rejected[i].detail);
  }
  EXPECT_EQ(a.tuned_at, b.tuned_at);
  EXPECT_EQ(a.driver, b.driver);
  EXPECT_EQ(a.cuda_driver, b.cuda_driver);
  EXPECT_EQ(a.cuda_runtime, b.cuda_runtime);
  EXPECT_EQ(a.tensortune_version, b.tensortune_version);
}

TEST(DeviceIdentity, KeyIsNameCapabilityAndSmCount) {
  EXPECT_EQ(h200().key(), "NVIDIA H200|sm_90|132sm");
  EXPECT_EQ(make_device_identity("X", 12, 0, 170, 0).key(), "X|sm_120|170sm");
  int major = 0, minor = 0;
  parse_compute_capability("sm_86", &major, &minor);
  EXPECT_EQ(major, 8);
  EXPECT_EQ(minor, 6);
  parse_compute_capability("sm_120", &major, &minor);
  EXPECT_EQ(major, 12);
  EXPECT_EQ(minor, 0);
  EXPECT_EQ(error_of([&] { parse_compute_capability("90", &major, &minor); }),
            "compute capability '90' is not of the form sm_XY (e.g. sm_90)");
}

TEST(TuningEntry, CountsRejectionsAndStampsProvenance) {
  TuningEntry e = entry("impl=own,threads=256", 2.701);
  EXPECT_EQ(e.variants_rejected.at("wrong_result"), 2);
  EXPECT_EQ(e.variants_rejected.at("launch_failed"), 1);
  EXPECT_NEAR(e.speedup(), 2.744 / 2.701, 1e-12);
  e.stamp_provenance(h200());
  EXPECT_EQ(e.driver, "580.159.04");
  EXPECT_EQ(e.cuda_runtime, 13000);
  EXPECT_EQ(e.tensortune_version, TT_VERSION_STRING);
  EXPECT_THAT(e.tuned_at, MatchesRegex("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z"));
}

TEST_F(TuningDatabaseFile, RoundTripsThroughAFile) {
  Database db;
  db.put(h200(), "gemm_bias_relu", kProblem, entry("impl=own,threads=256,bm=128,vec=4", 2.701));
  db.put(h200(), "gemm_bias_relu", "m=64,n=64,k=64,precision=strict",
         entry("impl=cublaslt#3", 0.0123456789));
  db.put(h100(), "group_norm", "rows=32768,cols=4096,groups=64,precision=strict",
         entry("threads=128,items=4", 1.5e-3));
  const std::string file = path("sub/dir/tuning.yaml");  // parents are created
  save_database(file, db);

  const Database back = load_database(file);
  ASSERT_EQ(back.entry_count(), 3u);
  const TuningEntry* e = back.find(h200().key(), "gemm_bias_relu", kProblem);
  ASSERT_NE(e, nullptr);
  expect_same_entry(*e, *db.find(h200().key(), "gemm_bias_relu", kProblem));
  expect_same_entry(*back.find(h200().key(), "gemm_bias_relu", "m=64,n=64,k=64,precision=strict"),
                    *db.find(h200().key(), "gemm_bias_relu", "m=64,n=64,k=64,precision=strict"));
  expect_same_entry(
      *back.find(h100().key(), "group_norm", "rows=32768,cols=4096,groups=64,precision=strict"),
      *db.find(h100().key(), "group_norm", "rows=32768,cols=4096,groups=64,precision=strict"));
  const DeviceIdentity& id = back.devices().at(h200().key()).identity;
  EXPECT_EQ(id.name, "NVIDIA H200");
  EXPECT_EQ(id.cc_major, 9);
  EXPECT_EQ(id.sm_count, 132);
  EXPECT_EQ(id.memory_bytes, 150109847552ull);
  // Writing what was read gives the same bytes: the format is stable.
  EXPECT_EQ(to_yaml(back), read_file(file));
}

TEST_F(TuningDatabaseFile, WritesTheDocumentedSchema) {
  Database db;
  db.put(h200(), "gemm_bias_relu", kProblem, entry("impl=own,threads=256", 2.701));
  const std::string text = to_yaml(db);
  EXPECT_THAT(text, HasSubstr("version: 1\ndevices:\n  \"NVIDIA H200|sm_90|132sm\":\n"));
  EXPECT_THAT(text, HasSubstr("config: {impl: own, threads: 256}"));
  EXPECT_THAT(text, HasSubstr("median_ms: 2.701\n"));
  EXPECT_THAT(text, HasSubstr("variants_rejected: {launch_failed: 1, wrong_result: 2}"));
  EXPECT_THAT(text, HasSubstr("tuned_at: \"2026-11-22T10:00:00Z\""));
  EXPECT_THAT(text, HasSubstr("reason: \"launch_failed\""));
}

TEST_F(TuningDatabaseFile, ReadsHandWrittenFilesWithStringConfigs) {
  const std::string file = path("hand.yaml");
  write_file(file, std::string(kHandWrittenHead) +
                       "          config: \"threads=128,vec=4\"\n"
                       "          median_ms: 0.5\n"
                       "          default_ms: 0.75\n"
                       "          variants_tried: 3\n"
                       "          tuned_at: 2026-01-01T00:00:00Z\n");
  const Database db = load_database(file);
  const TuningEntry* e = db.find("Test GPU|sm_80|8sm", "relu", "n=4096");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->config.str(), "threads=128,vec=4");
  EXPECT_EQ(e->speedup(), 1.5);
  EXPECT_TRUE(e->rejected.empty());
}

TEST(TuningDatabase, MergeKeepsBothDevices) {
  Database a;
  a.put(h200(), "gemm_bias_relu", kProblem, entry("impl=own,threads=256", 2.7));
  Database b;
  b.put(h100(), "gemm_bias_relu", kProblem, entry("impl=cublas", 3.9));
  const Database m = merge(a, b);
  EXPECT_EQ(m.devices().size(), 2u);
  EXPECT_EQ(m.find(h200().key(), "gemm_bias_relu", kProblem)->config.str(), "impl=own,threads=256");
  EXPECT_EQ(m.find(h100().key(), "gemm_bias_relu", kProblem)->config.str(), "impl=cublas");
}

TEST(TuningDatabase, MergeConflictGoesToTheSecond) {
  Database a;
  a.put(h200(), "gemm_bias_relu", kProblem, entry("impl=own,threads=256", 2.7));
  a.put(h200(), "gemm_bias_relu", "m=1,n=1,k=1,precision=strict",
        entry("impl=own,threads=64", 0.01));
  Database b;
  b.put(h200(), "gemm_bias_relu", kProblem, entry("impl=cublas", 2.5));
  const Database m = merge(a, b);
  EXPECT_EQ(m.entry_count(), 2u);
  EXPECT_EQ(m.find(h200().key(), "gemm_bias_relu", kProblem)->config.str(), "impl=cublas");
  EXPECT_EQ(m.find(h200().key(), "gemm_bias_relu", kProblem)->median_ms, 2.5);
  EXPECT_EQ(m.find(h200().key(), "gemm_bias_relu", "m=1,n=1,k=1,precision=strict")->median_ms,
            0.01);
  EXPECT_EQ(merge(b, a).find(h200().key(), "gemm_bias_relu", kProblem)->config.str(),
            "impl=own,threads=256");
}

TEST_F(TuningDatabaseFile, SaveMergesWithWhatIsOnDisk) {
  const std::string file = path("tuning.yaml");
  Database first;
  first.put(h100(), "gemm_bias_relu", kProblem, entry("impl=cublas", 3.9));
  first.put(h200(), "gemm_bias_relu", kProblem, entry("impl=own,threads=128", 2.9));
  save_database(file, first);
  Database second;
  second.put(h200(), "gemm_bias_relu", kProblem, entry("impl=own,threads=256", 2.7));
  save_database(file, second);
  const Database back = load_database(file);
  EXPECT_EQ(back.entry_count(), 2u);
  EXPECT_EQ(back.find(h100().key(), "gemm_bias_relu", kProblem)->config.str(), "impl=cublas");
  EXPECT_EQ(back.find(h200().key(), "gemm_bias_relu", kProblem)->config.str(),
            "impl=own,threads=256");
  // No temporary file is left behind.
  for (const auto& item : fs::directory_iterator(dir_)) {
    EXPECT_THAT(item.path().filename().string(),
                ::testing::AnyOf("tuning.yaml", "tuning.yaml.lock"));
  }
}

TEST_F(TuningDatabaseFile, PruneRemovesOneDevice) {
  const std::string file = path("tuning.yaml");
  Database db;
  db.put(h100(), "gemm_bias_relu", kProblem, entry("impl=cublas", 3.9));
  db.put(h200(), "gemm_bias_relu", kProblem, entry("impl=own,threads=128", 2.9));
  db.put(h200(), "group_norm", "rows=1,cols=2", entry("threads=64", 0.1));
  save_database(file, db);
  size_t removed = 0;
  update_database(file, [&](Database& d) { removed = d.prune_device(h200().key()); });
  EXPECT_EQ(removed, 2u);
  const Database back = load_database(file);
  EXPECT_EQ(back.entry_count(), 1u);
  EXPECT_EQ(back.devices().count(h200().key()), 0u);
  EXPECT_EQ(back.devices().count(h100().key()), 1u);
}

TEST_F(TuningDatabaseFile, BadYamlNamesTheLineAndIsNeverOverwritten) {
  const std::string file = path("tuning.yaml");
  const std::string broken =
      "version: 1\n"
      "devices:\n"
      "  \"NVIDIA H200|sm_90|132sm\":\n"
      "    name: \"NVIDIA H200\"\n"
      "    kernels: {gemm: [1, 2\n"  // line 5: unclosed flow sequence
      "    sm_count: 132\n";
  write_file(file, broken);
  const std::string message = error_of([&] { load_database(file); });
  EXPECT_THAT(message, HasSubstr("malformed tuning database " + file + ", line "));
  EXPECT_THAT(message, MatchesRegex(".*line [5-7], column [0-9]+: .*"));

  Database update;
  update.put(h200(), "gemm_bias_relu", kProblem, entry("impl=cublas", 1.0));
  EXPECT_THAT(error_of([&] { save_database(file, update); }),
              HasSubstr("malformed tuning database " + file));
  EXPECT_EQ(read_file(file), broken);  // byte for byte
}

TEST_F(TuningDatabaseFile, SchemaErrorsNameTheLine) {
  const std::string file = path("tuning.yaml");
  write_file(file, std::string(kHandWrittenHead) +
                       "          config: {threads: 128}\n"
                       "          median_ms: fast\n"  // line 11
                       "          default_ms: 0.75\n"
                       "          variants_tried: 3\n"
                       "          tuned_at: \"2026-01-01T00:00:00Z\"\n");
  EXPECT_EQ(error_of([&] { load_database(file); }),
            "malformed tuning database " + file +
                ", line 11, column 22: device 'Test GPU|sm_80|8sm' kernel 'relu' problem "
                "'n=4096' median_ms must be a finite number >= 0 but is 'fast'");
}

TEST_F(TuningDatabaseFile, UnknownFieldsAndMismatchedKeysAreErrors) {
  const std::string file = path("tuning.yaml");
  write_file(file,
             "version: 1\n"
             "devices:\n"
             "  \"Test GPU|sm_80|9sm\":\n"
             "    name: Test GPU\n"
             "    compute_capability: sm_80\n"
             "    sm_count: 8\n");
  EXPECT_THAT(error_of([&] { load_database(file); }),
              HasSubstr("line 4, column 5: device 'Test GPU|sm_80|9sm': the key does not match "
                        "its fields, which give 'Test GPU|sm_80|8sm'"));
  write_file(file, "version: 1\ndevice: {}\n");
  EXPECT_THAT(error_of([&] { load_database(file); }),
              HasSubstr("line 2, column 1: the document has an unknown field 'device' (known "
                        "fields: version, devices)"));
}

TEST_F(TuningDatabaseFile, TruncatedFileIsAnError) {
  Database db;
  db.put(h200(), "gemm_bias_relu", kProblem, entry("impl=own,threads=256,bm=128,vec=4", 2.701));
  const std::string text = to_yaml(db);
  const std::string file = path("tuning.yaml");
  // Cut inside the entry's config flow mapping, and at the end of the config line
  // (the required fields that follow are then missing).
  const size_t in_config = text.find("threads: 256") + 5;
  write_file(file, text.substr(0, in_config));
  EXPECT_THAT(error_of([&] { load_database(file); }),
              HasSubstr("malformed tuning database " + file + ", line "));
  const size_t after_config = text.find('\n', text.find("config:")) + 1;
  write_file(file, text.substr(0, after_config));
  EXPECT_THAT(
      error_of([&] { load_database(file); }),
      HasSubstr("problem 'm=1024,n=8192,k=8192,precision=strict' has no 'median_ms' field"));
  write_file(file, "");
  EXPECT_THAT(error_of([&] { load_database(file); }),
              HasSubstr("the file is empty; a tuning database starts with 'version: 1'"));
}

TEST_F(TuningDatabaseFile, WrongVersionIsAClearError) {
  const std::string file = path("tuning.yaml");
  write_file(file, "version: 2\ndevices: {}\n");
  EXPECT_EQ(error_of([&] { load_database(file); }),
            "malformed tuning database " + file +
                ", line 1, column 10: schema version 2 is not supported; this tensortune reads "
                "version 1");
  write_file(file, "devices: {}\n");
  EXPECT_THAT(error_of([&] { load_database(file); }),
              HasSubstr("there is no 'version' field; expected 'version: 1'"));
  write_file(file, "version: one\n");
  EXPECT_THAT(error_of([&] { load_database(file); }),
              HasSubstr("version must be an integer but is 'one'"));
}

TEST_F(TuningDatabaseFile, MissingFileIsAnErrorNamingIt) {
  EXPECT_THAT(error_of([&] { load_database(path("absent.yaml")); }),
              HasSubstr("cannot read the tuning database " + path("absent.yaml")));
}

// `tt db merge A B -o OUT` merges into what OUT holds: a merge racing another write
// into OUT must not drop that write's entries.
TEST_F(TuningDatabaseFile, MergeFilesKeepsWhatTheOutputHolds) {
  const std::string file = path("out.yaml");
  Database a;
  a.put(h100(), "gemm_bias_relu", kProblem, entry("impl=cublas", 3.9));
  save_database(file, a);
  Database b;
  b.put(h200(), "gemm_bias_relu", kProblem, entry("impl=own,threads=256", 2.7));
  b.put(h100(), "gemm_bias_relu", kProblem, entry("impl=cublaslt", 3.5));
  save_database(path("b.yaml"), b);
  const Database merged = merge_database_files({path("b.yaml")}, file);
  EXPECT_EQ(merged.entry_count(), 2u);
  const Database back = load_database(file);
  EXPECT_EQ(back.entry_count(), 2u);
  EXPECT_EQ(back.find(h100().key(), "gemm_bias_relu", kProblem)->config.str(), "impl=cublaslt");
  EXPECT_NE(back.find(h200().key(), "gemm_bias_relu", kProblem), nullptr);
}

// Two processes each save 50 entries, one save at a time, to the same file; the lock
// and the re-read under it mean that none is lost.
TEST_F(TuningDatabaseFile, ConcurrentWritersLoseNothing) {
  const std::string file = path("shared/tuning.yaml");
  constexpr int kPerWriter = 50;
  const int failed = test::run_in_processes(2, [&](int writer) {
    const DeviceIdentity device = writer == 0 ? h200() : h100();
    for (int i = 0; i < kPerWriter; ++i) {
      Database one;
      one.put(device, "gemm_bias_relu", fmt::format("m={},n=64,k=64,precision=strict", i + 1),
              entry(fmt::format("impl=own,threads={}", 32 * (writer + 1)), 1.0 + i));
      save_database(file, one);
    }
  });
  EXPECT_EQ(failed, 0);
  const Database back = load_database(file);
  EXPECT_EQ(back.entry_count(), 2u * kPerWriter);
  for (int i = 0; i < kPerWriter; ++i) {
    const std::string problem = fmt::format("m={},n=64,k=64,precision=strict", i + 1);
    const TuningEntry* a = back.find(h200().key(), "gemm_bias_relu", problem);
    const TuningEntry* b = back.find(h100().key(), "gemm_bias_relu", problem);
    ASSERT_NE(a, nullptr) << problem;
    ASSERT_NE(b, nullptr) << problem;
    EXPECT_EQ(a->config.str(), "impl=own,threads=32");
    EXPECT_EQ(b->config.str(), "impl=own,threads=64");
    EXPECT_EQ(a->median_ms, 1.0 + i);
  }
}

// ---- `tt db` ----

std::string tt_cli(const std::string& args) { return std::string(TT_CLI_PATH) + " " + args; }

TEST_F(TuningDatabaseFile, CliMergesShowsAndPrunes) {
  Database a;
  a.put(h200(), "gemm_bias_relu", kProblem, entry("impl=own,threads=256", 2.7));
  a.put(h200(), "relu", "n=4096", entry("threads=128", 0.5));
  Database b;
  b.put(h100(), "gemm_bias_relu", kProblem, entry("impl=cublas", 3.9));
  b.put(h200(), "relu", "n=4096", entry("threads=64", 0.25));
  save_database(path("a.yaml"), a);
  save_database(path("b.yaml"), b);

  auto r = test::run_command(tt_cli(
      fmt::format("db merge {} {} -o {}", path("a.yaml"), path("b.yaml"), path("out/m.yaml"))));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "wrote 3 entries (2 devices) to " + path("out/m.yaml") + "\n");
  const Database merged = load_database(path("out/m.yaml"));
  EXPECT_EQ(merged.entry_count(), 3u);
  EXPECT_EQ(merged.find(h200().key(), "relu", "n=4096")->config.str(), "threads=64");

  r = test::run_command(tt_cli("db show --wide --device h200 --db " + path("out/m.yaml")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("== " + path("out/m.yaml") + " (--db): 3 entries\n"));
  EXPECT_THAT(r.output,
              HasSubstr("NVIDIA H200|sm_90|132sm  (NVIDIA H200, sm_90, 132 SMs, 139.8 GiB)"));
  EXPECT_THAT(r.output,
              MatchesRegex(".*\n  kernel +problem +config +median ms +default ms +timed +speedup "
                           "+tried +rejected +tuned at\n.*"));
  EXPECT_THAT(r.output,
              MatchesRegex(".*\n  relu +n=4096 +threads=64 +0\\.25 +2\\.744 +one model forward "
                           "\\(not recorded\\) +10\\.98x +48 +3 \\(launch_failed 1, "
                           "wrong_result 2\\) +2026-11-22T10:00:00Z\n.*"));
  // The default view: a heading per kernel, the numbers, the config on a line below.
  r = test::run_command(tt_cli("db show --device h200 --db " + path("out/m.yaml")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, MatchesRegex(".*\n  relu\n    problem +median ms +speedup +timed +tried "
                                     "+rejected +tuned at\n    n=4096 +0\\.25 +10\\.98x +forward "
                                     "+48 +3 +2026-11-22\n        threads=64\n.*"));
  EXPECT_THAT(r.output, Not(HasSubstr("H100")));

  r = test::run_command(tt_cli("db prune --device nvidia --db " + path("out/m.yaml")));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("error: 'nvidia' matches 2 devices in " + path("out/m.yaml")));
  r = test::run_command(tt_cli("db prune --device H100 --db " + path("out/m.yaml")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "removed 1 entries of NVIDIA H100 80GB HBM3|sm_90|132sm from " +
                          path("out/m.yaml") + "\n");
  EXPECT_EQ(load_database(path("out/m.yaml")).entry_count(), 2u);
}

TEST_F(TuningDatabaseFile, CliReportsAMalformedFile) {
  write_file(path("bad.yaml"), "version: 1\ndevices: [\n");
  const auto r = test::run_command(tt_cli("db show --db " + path("bad.yaml")));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output,
              HasSubstr("error: malformed tuning database " + path("bad.yaml") + ", line "));
  EXPECT_EQ(read_file(path("bad.yaml")), "version: 1\ndevices: [\n");
}

}  // namespace
}  // namespace tt::autotune
