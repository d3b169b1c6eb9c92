// The `tt models`, `tt run` and `tt check` commands, run as a user would run them:
// the real executable, its output and its exit code.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "models/registry.h"
#include "support/test_util.h"

namespace tt {
namespace {

namespace fs = std::filesystem;
using test::CommandResult;
using ::testing::HasSubstr;
using ::testing::Not;

CommandResult tt(const std::string& args) {
  return test::run_command(std::string("'") + TT_CLI_PATH + "' " + args);
}

std::string fixture(const std::string& name) { return std::string(TT_TEST_DATA_DIR) + "/" + name; }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

class TempDir : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tt_cli_test_" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

// ---- tt models ----

TEST(CliModels, ListsAllFiveWithArgumentsAndShapes) {
  const CommandResult r = tt("models");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const models::ModelInfo& info : models::registered_models()) {
    EXPECT_THAT(r.output, HasSubstr(info.name + "(")) << info.name;
    EXPECT_THAT(r.output, HasSubstr("init " + info.small.init)) << info.name;
    EXPECT_THAT(r.output, HasSubstr("init " + info.full.init)) << info.name;
  }
  EXPECT_THAT(r.output, HasSubstr("GemmScaleBatchNorm(in_features: int, out_features: int, "
                                  "scale_shape: shape, eps: float = 1e-5, momentum: float = 0.1)"));
  EXPECT_THAT(r.output, HasSubstr("full:    init [1024, 4096, 64, [4096]]; inputs x[32768, 1024]"));
}

TEST(CliModels, NamesOnePerLine) {
  const CommandResult r = tt("models --names");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output,
            "GemmInstanceNormAddMul\nInstanceNorm2dModel\nGemmSwishBiasGroupNorm\n"
            "GemmScaleBatchNorm\nGemmBiasReLU\n");
}

// ---- tt check ----

TEST(CliCheck, AllFixturesPass) {
  std::string files;
  int count = 0;
  for (const auto& entry : fs::directory_iterator(TT_TEST_DATA_DIR))
    if (entry.path().extension() == ".safetensors") {
      files += " '" + entry.path().string() + "'";
      ++count;
    }
  const CommandResult r = tt("check" + files);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  int pass_lines = 0;
  for (const std::string& line : lines_of(r.output)) pass_lines += ends_with(line, "  PASS");
  EXPECT_EQ(pass_lines, count) << r.output;
  EXPECT_THAT(r.output, HasSubstr(fmt::format("{} of {} fixtures passed on cpu", count, count)));
  // Training-mode batch norm reports its running statistics too.
  EXPECT_THAT(r.output, HasSubstr("bn.running_mean "));
  EXPECT_THAT(r.output, HasSubstr("bn.running_var "));
}

TEST(CliCheck, OneLinePerFileWithModelShapeAndError) {
  const CommandResult r = tt("check '" + fixture("gemm_instnorm_add_mul_small.safetensors") + "'");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const std::vector<std::string> lines = lines_of(r.output);
  ASSERT_EQ(lines.size(), 2u) << r.output;
  EXPECT_THAT(lines[0], testing::MatchesRegex("gemm_instnorm_add_mul_small.safetensors +"
                                              "GemmInstanceNormAddMul +\\[16, 64\\] \\[16, 96\\] +"
                                              "out [0-9.]+e-[0-9]+  PASS"));
  EXPECT_EQ(lines[1], "1 of 1 fixture passed on cpu (relative L2 error <= 1e-05)");
}

TEST_F(TempDir, MissingFileIsReportedAndTheOthersStillRun) {
  const std::string absent = (dir_ / "absent.safetensors").string();
  const CommandResult r =
      tt("check '" + absent + "' '" + fixture("gemm_bias_relu_small.safetensors") + "'");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("ERROR absent.safetensors: "));
  EXPECT_THAT(r.output, HasSubstr(absent));
  EXPECT_THAT(r.output, testing::ContainsRegex("gemm_bias_relu_small.safetensors +GemmBiasReLU "
                                               "+\\[16, 64\\] +out [^\n]*  PASS"));
  EXPECT_THAT(r.output, HasSubstr("1 of 2 fixtures passed on cpu"));
}

TEST_F(TempDir, CorruptFileIsReportedAndTheOthersStillRun) {
  const std::string corrupt = (dir_ / "corrupt.safetensors").string();
  std::ofstream(corrupt) << "this is not a safetensors file at all";
  const CommandResult r =
      tt("check '" + fixture("gemm_bias_relu_small.safetensors") + "' '" + corrupt + "'");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("ERROR corrupt.safetensors: "));
  EXPECT_THAT(r.output, testing::ContainsRegex("gemm_bias_relu_small.safetensors [^\n]*  PASS"));
}

TEST(CliCheck, NoFilesIsAUsageError) {
  const CommandResult r = tt("check");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("files is required"));
}

TEST(CliCheck, CudaWithoutAGpuExitsWithTheNoGpuCode) {
  if (test::cuda_available()) {
    const CommandResult r =
        tt("check --device cuda '" + fixture("gemm_bias_relu_small.safetensors") + "'");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_THAT(r.output, HasSubstr("1 of 1 fixture passed on cuda:0"));
    return;
  }
  const CommandResult r =
      tt("check --device cuda '" + fixture("gemm_bias_relu_small.safetensors") + "'");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_THAT(r.output, HasSubstr("error: --device cuda needs CUDA"));
}

// ---- tt run ----

TEST(CliRun, PrintsAnOutputSummaryAndTheForwardTime) {
  const CommandResult r = tt("run GemmBiasReLU --shape small");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output,
              HasSubstr("model:   GemmBiasReLU init [64, 80, [80]] (small, train mode, seed 0)"));
  EXPECT_THAT(r.output, HasSubstr("inputs:  x[16, 64]"));
  EXPECT_THAT(r.output, HasSubstr("output:  tensor(shape=[16, 80], dtype=float32, device=cpu)"));
  // relu output: the minimum is 0; statistics then the corner values.
  EXPECT_THAT(r.output,
              testing::ContainsRegex("\n         min 0  max [0-9.e+-]+  mean [0-9.e+-]+\n\\[\\["));
  EXPECT_THAT(r.output, testing::ContainsRegex(
                            "forward: [0-9]+\\.[0-9]{3} ms \\(one run after one warm-up\\)"));
}

TEST(CliRun, TheSeedMakesRunsReproducible) {
  auto output_of = [](const std::string& args) {
    std::string out = tt(args).output;
    return out.substr(0, out.find("forward:"));  // the time differs between runs
  };
  EXPECT_EQ(output_of("run GemmScaleBatchNorm --seed 5"),
            output_of("run GemmScaleBatchNorm --seed 5"));
  EXPECT_NE(output_of("run GemmScaleBatchNorm --seed 5"),
            output_of("run GemmScaleBatchNorm --seed 6"));
}

TEST(CliRun, EveryModelRunsAtTheSmallShape) {
  for (const models::ModelInfo& info : models::registered_models()) {
    const CommandResult r = tt("run " + info.name + " --eval --iters 2");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_THAT(r.output, HasSubstr("(small, eval mode, seed 0)")) << info.name;
    EXPECT_THAT(r.output, HasSubstr("mean of 2 runs")) << info.name;
  }
}

TEST(CliRun, UnknownModelFailsWithTheKnownNames) {
  const CommandResult r = tt("run Transformer");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("error: unknown model 'Transformer'; the known models are "
                                  "GemmInstanceNormAddMul, InstanceNorm2dModel"));
}

TEST(CliRun, BadShapeAndMissingModelAreUsageErrors) {
  CommandResult r = tt("run GemmBiasReLU --shape medium");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("medium"));
  r = tt("run");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("model is required"));
}

// ---- help ----

TEST(CliHelp, EveryCommandHasHelpAndADescription) {
  const std::vector<std::pair<std::string, std::string>> commands = {
      {"models", "List the registered models"},
      {"run", "Run a registered model on random weights and inputs"},
      {"check", "Check models against golden PyTorch fixtures"}};
  const CommandResult top = tt("--help");
  EXPECT_EQ(top.exit_code, 0) << top.output;
  for (const auto& [command, description] : commands) {
    EXPECT_THAT(top.output, HasSubstr(description)) << command;
    const CommandResult r = tt(command + " --help");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_THAT(r.output, HasSubstr(description)) << command;
    EXPECT_THAT(r.output, HasSubstr("Usage:")) << command;
  }
  EXPECT_THAT(tt("run --help").output, HasSubstr("--shape"));
  EXPECT_THAT(tt("check --help").output, HasSubstr("--device"));
}

}  // namespace
}  // namespace tt
