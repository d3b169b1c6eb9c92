// Installs the current build into a temporary prefix, then configures, builds and runs
// tests/consumer (an outside project that does find_package(tensortune)) against it.
// This is what catches a header that is not installed, a dependency the package config
// forgets, or a target that is not exported. Takes about a minute.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "support/test_util.h"

namespace tt {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// A value from the build's CMakeCache.txt, so that the consumer uses the very cmake and
// compiler that built the libraries it links.
std::string cache_value(const std::string& key) {
  std::ifstream cache(std::string(TT_BINARY_DIR) + "/CMakeCache.txt");
  for (std::string line; std::getline(cache, line);) {
    if (line.rfind(key + ":", 0) != 0) continue;
    return line.substr(line.find('=') + 1);
  }
  return "";
}

std::string shell_quoted(const fs::path& p) { return "'" + p.string() + "'"; }

class InstallConsumer : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tt_install_test_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(InstallConsumer, InstalledPackageBuildsAndRunsAnOutsideProject) {
  std::string cmake = cache_value("CMAKE_COMMAND");
  if (cmake.empty()) cmake = "cmake";
  const fs::path prefix = dir_ / "prefix", build = dir_ / "build";

  test::CommandResult r =
      test::run_command(shell_quoted(cmake) + " --install " + shell_quoted(TT_BINARY_DIR) +
                        " --prefix " + shell_quoted(prefix));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(prefix / "include/tensortune/core/tensor.h"));
  EXPECT_TRUE(fs::exists(prefix / "include/tensortune/core/version.h"));
  EXPECT_TRUE(fs::exists(prefix / "include/tensortune/models/registry.h"));

  std::string configure = shell_quoted(cmake) + " -S " +
                          shell_quoted(fs::path(TT_SOURCE_DIR) / "tests/consumer") + " -B " +
                          shell_quoted(build) + " -DCMAKE_BUILD_TYPE=Release" +
                          " -DCMAKE_PREFIX_PATH=" + shell_quoted(prefix);
  const std::string cxx = cache_value("CMAKE_CXX_COMPILER");
  if (!cxx.empty()) configure += " -DCMAKE_CXX_COMPILER=" + shell_quoted(cxx);
  r = test::run_command(configure);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = test::run_command(shell_quoted(cmake) + " --build " + shell_quoted(build) + " -j2");
  ASSERT_EQ(r.exit_code, 0) << r.output;

  r = test::run_command(shell_quoted(build / "consumer"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("tensortune 0.1.0\n"));
  EXPECT_THAT(r.output, HasSubstr("TinyMlp parameters: 3\n"));
  EXPECT_THAT(r.output, HasSubstr("TinyMlp output: 10\n"));
  EXPECT_THAT(r.output, HasSubstr("GemmBiasReLU output shape: [16, 80]\n"));

  // The installed command line runs too.
  r = test::run_command(shell_quoted(prefix / "bin/tt") + " models --names");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("GemmBiasReLU\n"));
}

}  // namespace
}  // namespace tt
