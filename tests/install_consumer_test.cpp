// Installs the current build into a temporary prefix (once for the suite), then, as a
// user would: builds tests/consumer (the umbrella header and tensortune::tensortune
// only) and examples/custom_model (a model of its own registered with the CLI library)
// against it with find_package, runs them, and moves the prefix to check that the
// installed `tt` still finds its shipped databases. This is what catches a header
// that is not installed, a dependency the package config forgets, a target that is
// not exported, or a path baked in at build time. Takes a minute or two.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/test_util.h"

namespace tt {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

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

std::string cmake() {
  const std::string c = cache_value("CMAKE_COMMAND");
  return c.empty() ? "cmake" : c;
}

using tt::test::read_file;

class Installed : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("tt_install_test_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    install_ =
        test::run_command(shell_quoted(cmake()) + " --install " + shell_quoted(TT_BINARY_DIR) +
                          " --prefix " + shell_quoted(prefix()));
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  void SetUp() override { ASSERT_EQ(install_.exit_code, 0) << install_.output; }

  static fs::path prefix() { return dir_ / "prefix"; }

  // Configures and builds the CMake project in `source` against the install; returns
  // the build directory.
  static fs::path build_project(const fs::path& source, const std::string& name) {
    const fs::path build = dir_ / ("build_" + name);
    std::string configure =
        shell_quoted(cmake()) + " -S " + shell_quoted(source) + " -B " + shell_quoted(build) +
        " -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=" + shell_quoted(prefix());
    const std::string cxx = cache_value("CMAKE_CXX_COMPILER");
    if (!cxx.empty()) configure += " -DCMAKE_CXX_COMPILER=" + shell_quoted(cxx);
    const std::string launcher = cache_value("CMAKE_CXX_COMPILER_LAUNCHER");
    if (!launcher.empty()) configure += " -DCMAKE_CXX_COMPILER_LAUNCHER=" + shell_quoted(launcher);
    test::CommandResult r = test::run_command(configure);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    r = test::run_command(shell_quoted(cmake()) + " --build " + shell_quoted(build) + " -j2");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return build;
  }

  static inline fs::path dir_;
  static inline test::CommandResult install_;
};

TEST_F(Installed, HeadersLandUnderTensortuneAndHeaderOnlyDepsStayPrivate) {
  for (const char* header : {"tensortune.h", "cli.h", "core/tensor.h", "core/version.h",
                             "models/registry.h", "ops/ops.h"})
    EXPECT_TRUE(fs::exists(prefix() / "include/tensortune" / header)) << header;
  EXPECT_TRUE(fs::exists(prefix() / "share/tensortune/db/h200.yaml"));
  // No public header needs Eigen, nlohmann_json or CLI11, so the package does not ask
  // a user to have them.
  std::string targets;
  for (const auto& f : fs::recursive_directory_iterator(prefix()))
    if (f.path().filename().string().rfind("tensortune", 0) == 0 &&
        f.path().extension() == ".cmake")
      targets += read_file(f.path());
  EXPECT_NE(targets.find("tensortune::tensortune"), std::string::npos);
  EXPECT_NE(targets.find("tensortune::cli"), std::string::npos);
  for (const char* dep : {"Eigen3", "nlohmann_json", "CLI11"})
    EXPECT_EQ(targets.find(dep), std::string::npos) << dep << " is in the installed package";
}

TEST_F(Installed, UmbrellaHeaderAndOneTargetBuildAnOutsideProject) {
  const fs::path build = build_project(fs::path(TT_SOURCE_DIR) / "tests/consumer", "consumer");
  const test::CommandResult r = test::run_command(shell_quoted(build / "consumer"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("tensortune 0.1.0\n"));
  EXPECT_THAT(r.output, HasSubstr("TinyMlp parameters: 3\n"));
  EXPECT_THAT(r.output, HasSubstr("TinyMlp output: 10\n"));
  EXPECT_THAT(r.output, HasSubstr("GemmBiasReLU output shape: [16, 80]\n"));
  EXPECT_THAT(r.output,
              HasSubstr(test::cuda_available() ? "cuda available: yes" : "cuda available: no"));

  // The installed command line runs too.
  const test::CommandResult tt =
      test::run_command(shell_quoted(prefix() / "bin/tt") + " models --names");
  EXPECT_EQ(tt.exit_code, 0) << tt.output;
  EXPECT_THAT(tt.output, HasSubstr("GemmBiasReLU\n"));
}

TEST_F(Installed, CustomModelGetsTheTtCommands) {
  const fs::path build =
      build_project(fs::path(TT_SOURCE_DIR) / "examples/custom_model", "custom_model");
  const std::string exe = shell_quoted(build / "custom_model");
  test::CommandResult r = test::run_command(exe + " models --names");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("GemmBiasReLU\nSwishMlp\n"));  // after the seeds

  r = test::run_command(exe + " run SwishMlp --seed 3");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output,
              HasSubstr("model:   SwishMlp init [32, 64, 16] (small, train mode, seed 3)"));
  EXPECT_THAT(r.output, HasSubstr("inputs:  x[8, 32]"));
  EXPECT_THAT(r.output, HasSubstr("output:  tensor(shape=[8, 16], dtype=float32, device=cpu)"));
  r = test::run_command(exe + " run SwishMpl");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("unknown model 'SwishMpl' (did you mean SwishMlp?)"));

  if (!test::cuda_available()) GTEST_SKIP() << "no CUDA device: compare and tune not run";
  r = test::run_command(exe + " compare SwishMlp");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("all 1 models agree"));
  const fs::path db = dir_ / "custom.yaml";
  r = test::run_command(exe + " tune SwishMlp --shape small --budget 30 --db " + shell_quoted(db));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("SwishMlp"));
  EXPECT_TRUE(fs::exists(db)) << r.output;
}

// Issue 9's example blocks, built against the install (umbrella header, the one
// target): they run, reproduce PyTorch's float64 goldens when those have been made
// (tools/device/make_example_goldens.py), and agree between the CPU and CUDA.
TEST_F(Installed, ExampleBlocksRunAndMatchTheirGoldens) {
  struct Example {
    const char* dir;
    const char* model;
    const char* output;
  };
  for (const Example& ex :
       {Example{"mlp_block", "MLPBlock", "output:  tensor(shape=[16, 64], dtype=float32"},
        Example{"attention_block", "AttentionBlock",
                "output:  tensor(shape=[4, 32, 64], dtype=float32"}}) {
    SCOPED_TRACE(ex.model);
    const fs::path build = build_project(fs::path(TT_SOURCE_DIR) / "examples" / ex.dir, ex.dir);
    const std::string exe = shell_quoted(build / ex.dir);
    test::CommandResult r = test::run_command(exe + " run " + ex.model);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_THAT(r.output, HasSubstr(ex.output));
    const fs::path golden =
        fs::path(TT_TEST_DATA_DIR) / "examples" / (std::string(ex.dir) + "_small.safetensors");
    if (fs::exists(golden)) {
      for (const char* device : {"cpu", "cuda"}) {
        if (std::string(device) == "cuda" && !test::cuda_available()) continue;
        r = test::run_command(exe + " check " + shell_quoted(golden) + " --device " + device);
        EXPECT_EQ(r.exit_code, 0) << r.output;
        EXPECT_THAT(r.output, HasSubstr("PASS")) << r.output;
      }
    }
    if (test::cuda_available()) {
      r = test::run_command(exe + " compare " + ex.model);
      EXPECT_EQ(r.exit_code, 0) << r.output;
      EXPECT_THAT(r.output, HasSubstr("all 1 models agree"));
    }
  }
}

// The transformer block of README's "Compiling a model", built against the install: `tt
// compile` records, compiles and replays it (op by op on the CPU, fused on CUDA), and the
// replay reproduces the first (eager) call.
TEST_F(Installed, TransformerBlockCompiles) {
  const fs::path build = build_project(fs::path(TT_SOURCE_DIR) / "examples" / "transformer_block",
                                       "transformer_block");
  const std::string exe = shell_quoted(build / "transformer_block");
  std::vector<std::string> devices = {"cpu"};
  if (test::cuda_available()) devices.push_back("cuda");
  for (const std::string& device : devices) {
    const test::CommandResult r =
        test::run_command(exe + " compile TransformerBlock --explain --device " + device);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_THAT(r.output, HasSubstr("compiled graph: "));
    EXPECT_THAT(r.output, HasSubstr(device == "cpu" ? "replay vs first call: relative L2 0\n"
                                                    : "gemm+epilogue: linear -> gelu"))
        << r.output;
  }
}

TEST_F(Installed, AMovedPrefixStillFindsItsShippedDatabases) {
  const fs::path moved = dir_ / "moved";
  const test::CommandResult cp =
      test::run_command("cp -a " + shell_quoted(prefix()) + " " + shell_quoted(moved));
  ASSERT_EQ(cp.exit_code, 0) << cp.output;
  const test::CommandResult r =
      test::run_command("XDG_CACHE_HOME=" + shell_quoted(dir_ / "cache") +
                        " TT_TUNING_DB= " + shell_quoted(moved / "bin/tt") + " db show");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output,
              HasSubstr("== " + (moved / "share/tensortune/db/h200.yaml").string() + " (shipped)"));
  EXPECT_THAT(r.output, HasSubstr("NVIDIA H200|sm_90|132sm"));
  // Only the moved copy's files: nothing from the build tree or the old prefix.
  EXPECT_THAT(r.output, Not(HasSubstr((prefix() / "share").string())));
  EXPECT_THAT(r.output, Not(HasSubstr(std::string(TT_SOURCE_DIR) + "/autotune/db")));
}

}  // namespace
}  // namespace tt
