// Tuning database reliability (issue 11): files that crashed, hung or were silently
// misread (alias bombs, duplicate keys, bytes that are not text, out-of-range
// integers), outputs written where they do not belong (device nodes, directories,
// read-only files, symlinks), file-system errors that escaped as std::filesystem
// exceptions, a run-time lookup that must survive any database, and 200 concurrent
// writers into one file.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "autotune/database.h"
#include "autotune/lookup.h"
#include "core/error.h"
#include "core/file_util.h"
#include "support/test_util.h"

namespace tt::autotune {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using tt::test::error_of;

DeviceIdentity gpu() { return make_device_identity("NVIDIA H200", 9, 0, 132, 150109847552); }

TuningEntry entry(const std::string& config, double median_ms = 1.0) {
  TuningEntry e;
  e.config = Config::parse(config);
  e.median_ms = median_ms;
  e.default_ms = 2.0;
  e.variants_tried = 4;
  e.tuned_at = "2026-11-22T10:00:00Z";
  return e;
}

using tt::test::read_file;

// A valid one-entry file, with `entry_extra` appended to the entry's fields.
std::string one_entry_yaml(const std::string& entry_extra = "", const std::string& sm = "132") {
  return "version: 1\n"
         "devices:\n"
         "  \"NVIDIA H200|sm_90|" +
         sm +
         "sm\":\n"
         "    name: NVIDIA H200\n"
         "    compute_capability: sm_90\n"
         "    sm_count: " +
         sm +
         "\n"
         "    kernels:\n"
         "      relu:\n"
         "        \"n=4096\":\n"
         "          config: {threads: 128}\n"
         "          median_ms: 0.5\n"
         "          default_ms: 1.0\n"
         "          tuned_at: \"2026-11-22T10:00:00Z\"\n" +
         entry_extra +
         (entry_extra.find("variants_tried") == std::string::npos ? "          variants_tried: 3\n"
                                                                  : "");
}

class DatabaseReliability : public ::testing::Test {
 protected:
  std::string path(const std::string& name) const { return scratch_.path(name); }
  void write(const std::string& name, const std::string& text) {
    std::ofstream(path(name), std::ios::binary) << text;
  }
  std::string load_error(const std::string& text) {
    write("db.yaml", text);
    return error_of([&] { load_database(path("db.yaml")); });
  }

  test::ScratchDir scratch_{"tt_db_reliability"};
};

// ---------------------------------------------------------------- the reader

TEST_F(DatabaseReliability, AliasBombIsRefusedAtTheFirstAlias) {
  // Nine levels of ten aliases each: 10^9 entries once expanded (an 11.7 KB file of
  // this kind ran `tt db show` for 49 s and past 4 GB before it aborted).
  std::string text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 10; ++i) {
    text += fmt::format(
        "a{}: &a{} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, "
        "*a{p}]\n",
        i, i, fmt::arg("p", i - 1));
  }
  text += "version: 1\n";
  EXPECT_EQ(load_error(text), "malformed tuning database " + path("db.yaml") +
                                  ", line 2, column 10: YAML aliases (*name) are not allowed in a "
                                  "tuning database; write the value out");
}

TEST_F(DatabaseReliability, DuplicateKeysAreErrorsNamingTheLine) {
  EXPECT_EQ(load_error("version: 1\ndevices: {}\nversion: 1\n"),
            "malformed tuning database " + path("db.yaml") +
                ", line 3, column 1: the key 'version' appears twice in one mapping (first on "
                "line 1)");
  // A problem given twice used to keep the second silently.
  const std::string twice = one_entry_yaml() +
                            "        \"n=4096\":\n"
                            "          config: {threads: 64}\n";
  EXPECT_THAT(load_error(twice),
              HasSubstr(", line 15, column 9: the key 'n=4096' appears twice in one mapping "
                        "(first on line 9)"));
}

TEST_F(DatabaseReliability, KeysThatAreNotTextAreRefused) {
  // Both used to be rewritten on save, so two different keys could collide.
  EXPECT_THAT(load_error("version: 1\ndevices: {\"a\\0b\": {}}\n"),
              HasSubstr("line 2, column 11: the text 'a\\x00b' holds a NUL character"));
  EXPECT_THAT(load_error("version: 1\ndevices: {\"a\xff\": {}}\n"),
              HasSubstr("line 2, column 11: the text 'a\\xff' is not valid UTF-8"));
}

TEST_F(DatabaseReliability, OutOfRangeIntegersAreErrorsNotTruncations) {
  EXPECT_THAT(load_error(one_entry_yaml("", "4294967428")),
              HasSubstr("sm_count must be an integer from 1 to 2147483647 but is 4294967428"));
  EXPECT_THAT(load_error(one_entry_yaml("          variants_tried: -7\n")),
              HasSubstr("variants_tried must be an integer from 0 to 1000000000000 but is -7"));
  EXPECT_THAT(load_error(one_entry_yaml("          cuda_driver: 99999999999\n")),
              HasSubstr("cuda_driver must be an integer from 0 to 2147483647 but is 99999999999"));
  EXPECT_THAT(load_error(one_entry_yaml("          variants_rejected: {launch_failed: -1}\n")),
              HasSubstr("variants_rejected count of 'launch_failed' must be an integer from 0"));
}

TEST_F(DatabaseReliability, DeepNestingAndSecondDocumentsAreRefused) {
  EXPECT_THAT(load_error("version: 1\ndevices: " + std::string(100000, '[') + "\n"),
              HasSubstr("mappings and lists nest more than 32 levels deep"));
  EXPECT_EQ(load_error("version: 1\ndevices: {}\n---\nversion: 1\n"),
            "malformed tuning database " + path("db.yaml") +
                ": the file holds more than one YAML document");
}

TEST_F(DatabaseReliability, MessagesQuoteOnlyAnExcerpt) {
  const std::string message = load_error("version: " + std::string(100000, 'x') + "\n");
  EXPECT_THAT(message, HasSubstr("... (100000 bytes)"));
  EXPECT_LT(message.size(), 400u);
}

TEST_F(DatabaseReliability, WhatTheReaderRefusesTheWriterRefusesToo) {
  Database db;
  db.put(gpu(), std::string("re\0lu", 5), "n=1", entry("threads=1"));
  EXPECT_THAT(error_of([&] { to_yaml(db); }),
              StartsWith("cannot write the tuning database: the kernel name 're\\x00lu' is not "
                         "valid UTF-8 text without NUL"));
}

// YAML ends an implicit key at 1024 characters: a kernel name whose form feeds are written
// as "\f" (as the fuzzer's find: 1006 bytes read, 1406 written) is refused by the reader
// and by the writer alike, naming its length; one of 1000 characters as written reads back.
TEST_F(DatabaseReliability, KeysLongerThanYamlWritesAreRefusedBothWays) {
  const std::string kernel = "gemm_" + std::string(600, '[') + std::string(398, '\f') + "elu";
  std::string yaml = one_entry_yaml();
  yaml.replace(yaml.find("relu:"), 4, kernel);
  EXPECT_THAT(
      load_error(yaml),
      HasSubstr("kernel name 'gemm_" + std::string(55, '[') +
                "... (1006 bytes)' is 1406 characters as written; a key holds at most 1000"));
  Database db;
  db.put(gpu(), kernel, "n=1", entry("threads=1"));
  EXPECT_THAT(error_of([&] { to_yaml(db); }),
              StartsWith("cannot write the tuning database: the kernel name 'gemm_[[["));
  Database fits;
  const std::string problem = "m=" + std::string(996, '1');  // 1000 with its quotes
  fits.put(gpu(), "gemm", problem, entry("threads=2"));
  const Database again = parse_database(to_yaml(fits), "written");
  ASSERT_NE(again.find(gpu().key(), "gemm", problem), nullptr);
  EXPECT_EQ(again.find(gpu().key(), "gemm", problem)->config.str(), "threads=2");
}

// ---------------------------------------------------------------- outputs

TEST_F(DatabaseReliability, OutputsMustBeRegularFiles) {
  save_database(path("in.yaml"), [] {
    Database db;
    db.put(gpu(), "relu", "n=1", entry("threads=1"));
    return db;
  }());
  // As root, `-o /dev/full` used to replace the device node with a regular file. The
  // nodes here are the test's own, so that a regression cannot break the machine.
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0644), 0);
  EXPECT_EQ(error_of([&] { merge_database_files({path("in.yaml")}, path("fifo")); }),
            "refusing to replace the tuning database " + path("fifo") + ": " + path("fifo") +
                " is a named pipe, not a regular file");
  struct stat info {};
  ASSERT_EQ(::stat(path("fifo").c_str(), &info), 0);
  EXPECT_TRUE(S_ISFIFO(info.st_mode));
  if (::getuid() == 0 && ::mknod(path("null").c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) {
    EXPECT_EQ(error_of([&] { merge_database_files({path("in.yaml")}, path("null")); }),
              "refusing to replace the tuning database " + path("null") + ": " + path("null") +
                  " is a character device, not a regular file");
    ASSERT_EQ(::stat(path("null").c_str(), &info), 0);
    EXPECT_TRUE(S_ISCHR(info.st_mode));
  }
  fs::create_directories(path("adir"));
  EXPECT_EQ(error_of([&] { save_database(path("adir"), Database()); }),
            "refusing to replace the tuning database " + path("adir") + ": " + path("adir") +
                " is a directory, not a regular file");
}

TEST_F(DatabaseReliability, ReadOnlyFilesAreNotOverwritten) {
  Database db;
  db.put(gpu(), "relu", "n=1", entry("threads=1"));
  save_database(path("ro.yaml"), db);
  const std::string before = read_file(path("ro.yaml"));
  ASSERT_EQ(::chmod(path("ro.yaml").c_str(), 0444), 0);
  Database more;
  more.put(gpu(), "relu", "n=2", entry("threads=2"));
  EXPECT_EQ(error_of([&] { save_database(path("ro.yaml"), more); }),
            "refusing to replace the tuning database " + path("ro.yaml") + ": " + path("ro.yaml") +
                " is read-only (make it writable to update it)");
  EXPECT_EQ(read_file(path("ro.yaml")), before);
}

TEST_F(DatabaseReliability, ASymlinkedDatabaseIsUpdatedWhereItLives) {
  fs::create_directories(path("real"));
  fs::create_directories(path("links"));
  Database db;
  db.put(gpu(), "relu", "n=1", entry("threads=1"));
  save_database(path("real/tuning.yaml"), db);
  fs::create_symlink("../real/tuning.yaml", path("links/tuning.yaml"));
  Database more;
  more.put(gpu(), "relu", "n=2", entry("threads=2"));
  save_database(path("links/tuning.yaml"), more);
  EXPECT_TRUE(fs::is_symlink(path("links/tuning.yaml")));  // the link stays a link
  EXPECT_EQ(load_database(path("real/tuning.yaml")).entry_count(), 2u);
  // Nothing (no lock, no temporary file) lands beside the link or the target.
  std::vector<std::string> names;
  for (const auto& dir : {"links", "real"}) {
    for (const auto& item : fs::directory_iterator(path(dir))) {
      names.push_back(item.path().filename().string());
    }
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"tuning.yaml", "tuning.yaml"}));
}

TEST_F(DatabaseReliability, LeftoverLockAndTemporaryFilesAreRemoved) {
  write(".tuning.yaml.tmp.a1B2c3", "half a file");  // a writer that died mid-write
  write("tuning.yaml.lock", "");
  Database db;
  db.put(gpu(), "relu", "n=1", entry("threads=1"));
  save_database(path("tuning.yaml"), db);
  std::vector<std::string> names;
  for (const auto& item : fs::directory_iterator(scratch_.str())) {
    names.push_back(item.path().filename().string());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"tuning.yaml"}));
}

TEST_F(DatabaseReliability, PruneWithAnEmptyDeviceNameIsAnError) {
  Database db;
  db.put(gpu(), "relu", "n=1", entry("threads=1"));
  save_database(path("db.yaml"), db);
  // "" is a substring of every key: with one device it used to prune that device.
  EXPECT_EQ(error_of([&] { db.find_device("", path("db.yaml")); }),
            "the device name is empty; give a device key or part of one (" + path("db.yaml") +
                " holds 1 devices)");
  const auto r =
      test::run_command(std::string(TT_CLI_PATH) + " db prune --device '' --db " + path("db.yaml"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("the device name is empty"));
  EXPECT_EQ(load_database(path("db.yaml")).entry_count(), 1u);
}

// ---------------------------------------------------------------- file-system errors

TEST_F(DatabaseReliability, FileSystemErrorsAreSentencesNotExceptions) {
  fs::create_symlink("loop_b", path("loop_a"));
  fs::create_symlink("loop_a", path("loop_b"));
  const std::string in_loop = path("loop_a") + "/tensortune/tuning.yaml";
  EXPECT_THAT(error_of([&] { files::exists(in_loop, "the tuning database"); }),
              StartsWith("cannot inspect the tuning database " + in_loop));
  EXPECT_THAT(error_of([&] { save_database(in_loop, Database()); }),
              HasSubstr("Too many levels of symbolic links"));
  const std::string long_path = path(std::string(5000, 'x') + "/tuning.yaml");
  EXPECT_THAT(error_of([&] { save_database(long_path, Database()); }),
              HasSubstr("File name too long"));
  EXPECT_THAT(error_of([&] { load_database(long_path); }), HasSubstr("File name too long"));
  // The CLI with a user cache inside a symlink loop: an error, not an abort.
  const auto r = test::run_command("XDG_CACHE_HOME=" + path("loop_a") + " TT_TUNING_DB= " +
                                   std::string(TT_CLI_PATH) + " db prune --device x");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("error: cannot inspect the tuning database"));
}

// ---------------------------------------------------------------- the run-time lookup

TEST_F(DatabaseReliability, TheLookupSurvivesAnyDatabase) {
  const Config fallback = Config::parse("threads=256");
  setenv("XDG_CACHE_HOME", path("cache").c_str(), 1);
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0644), 0);
  for (const std::string& bad : {path("fifo"), path("adir"), path("bomb.yaml")}) {
    fs::create_directories(path("adir"));
    write("bomb.yaml", "a: &a [1, 1]\nb: [*a, *a]\n");
    set_database_path(bad);
    ::testing::internal::CaptureStderr();
    LookupResult r = lookup("relu", "n=1", gpu(), fallback);
    r = lookup("relu", "n=2", gpu(), fallback);
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(r.source, ConfigSource::Default) << bad;
    EXPECT_EQ(r.config, fallback);
    EXPECT_THAT(err, StartsWith("tensortune: warning: skipping a tuning database: ")) << bad;
    EXPECT_EQ(err.find("warning"), err.rfind("warning")) << err;  // once
  }
  set_database_path("");
}

// ---------------------------------------------------------------- concurrency

// 200 processes write into one file at once: half save one tuning result each (as
// `tt tune` does), half merge a file of their own into it (as `tt db merge IN OUT -o
// OUT` does). Before merges re-read the output under its lock, 128 of 200 merges were
// lost; now every entry must be there.
TEST_F(DatabaseReliability, TwoHundredConcurrentWritersLoseNothing) {
  constexpr int kWriters = 200;
  // On tmpfs where there is one: 400 fsyncs on a slow disk would dominate the test.
  std::string pattern =
      (::access("/dev/shm", W_OK) == 0 ? std::string("/dev/shm") : scratch_.str()) +
      "/tt_db_race_XXXXXX";
  ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
  const fs::path race_dir = pattern;
  const std::string shared = (race_dir / "shared/tuning.yaml").string();
  fs::create_directories(path("inputs"));
  const auto problem = [](int i) { return fmt::format("n={}", i + 1); };
  for (int i = 1; i < kWriters; i += 2) {
    Database own;
    own.put(gpu(), "merged", problem(i), entry(fmt::format("threads={}", i)));
    save_database(path(fmt::format("inputs/{}.yaml", i)), own);
  }
  const int failed = test::run_in_processes(kWriters, [&](int i) {
    if (i % 2 == 0) {
      Database one;
      one.put(gpu(), "saved", problem(i), entry(fmt::format("threads={}", i)));
      save_database(shared, one);
    } else {
      merge_database_files({path(fmt::format("inputs/{}.yaml", i))}, shared);
    }
  });
  EXPECT_EQ(failed, 0);
  const Database back = load_database(shared);
  EXPECT_EQ(back.entry_count(), static_cast<size_t>(kWriters));
  for (int i = 0; i < kWriters; ++i) {
    const TuningEntry* e = back.find(gpu().key(), i % 2 == 0 ? "saved" : "merged", problem(i));
    ASSERT_NE(e, nullptr) << "writer " << i << "'s entry is lost";
    EXPECT_EQ(e->config.str(), fmt::format("threads={}", i));
  }
  // No lock or temporary file is left behind.
  std::vector<std::string> names;
  for (const auto& item : fs::directory_iterator(race_dir / "shared")) {
    names.push_back(item.path().filename().string());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"tuning.yaml"}));
  fs::remove_all(race_dir);
}

// The same race through the CLI: 20 `tt db merge IN OUT -o OUT` at once.
TEST_F(DatabaseReliability, ConcurrentCliMergesLoseNothing) {
  constexpr int kMerges = 20;
  std::string script;
  for (int i = 0; i < kMerges; ++i) {
    Database own;
    own.put(gpu(), "relu", fmt::format("n={}", i + 1), entry("threads=1"));
    save_database(path(fmt::format("in{}.yaml", i)), own);
    script += fmt::format("{} db merge {} {} -o {} >/dev/null & ", TT_CLI_PATH,
                          path(fmt::format("in{}.yaml", i)), path(fmt::format("in{}.yaml", i)),
                          path("out.yaml"));
  }
  const auto r = test::run_command("sh -c '" + script + "wait'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(load_database(path("out.yaml")).entry_count(), static_cast<size_t>(kMerges));
}

}  // namespace
}  // namespace tt::autotune
