// The `tt models`, `tt run` and `tt check` commands, run as a user would run them:
// the real executable, its output and its exit code.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include "core/safetensors.h"
#include "models/registry.h"
#include "support/test_util.h"
#include "tools/tt/bench_json.h"

namespace tt {
namespace {

namespace fs = std::filesystem;
using test::CommandResult;
using ::testing::HasSubstr;
using ::testing::Not;

CommandResult tt(const std::string& args) {
  return test::run_command(std::string("'") + TT_CLI_PATH + "' " + args);
}

// Each {arguments, message}: `tt <arguments>` exits 2 with exactly that message.
void expect_usage_errors(const std::vector<std::pair<std::string, std::string>>& cases) {
  for (const auto& [args, message] : cases) {
    const CommandResult r = tt(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(r.output, message) << args;
  }
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
  tt::test::ScratchDir scratch_{"tt_cli_test"};
  const fs::path dir_ = scratch_.str();
};

// ---- threads: tiny CPU work stays on the calling thread ----

// OpenMP keeps the threads of its first parallel region alive, so /proc/self/task
// counts them. This test runs first in this binary (nothing before it computes in
// process): a small-shape forward of the models whose norms are tiny must not start
// a thread (waking one costs far more than the work: ops/cpu/parallel.h).
int thread_count() {
  int n = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator("/proc/self/task")) ++n;
  return n;
}

TEST(CpuThreads, TinyNormsAndGemmsRunOnTheCallingThread) {
  ASSERT_EQ(thread_count(), 1) << "an earlier test started threads";
  for (const char* name :
       {"GemmScaleBatchNorm", "GemmSwishBiasGroupNorm", "GemmBiasReLU", "GemmInstanceNormAddMul"}) {
    const models::ModelInfo& info = models::find_model(name);
    auto model = models::build_model(info.name, info.small.init, 0);
    model->forward(models::random_inputs(info.small.input_shapes, 0));
    EXPECT_EQ(thread_count(), 1) << name;
  }
  // A norm big enough to share does use the threads (when OpenMP has more than one).
  auto norm = models::build_model("InstanceNorm2dModel", "[8]", 0);
  norm->forward(models::random_inputs({{8, 8, 64, 64}}, 0));
  if (omp_get_max_threads() > 1) {
    EXPECT_GT(thread_count(), 1);
  }
}

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

TEST(CliCompile, RecordsReplaysAndExplains) {
  const CommandResult r = tt("compile GemmBiasReLU --explain");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("replay vs first call: relative L2 0\n"));
  // The seed is its plain-op forward: the Linear (its own bias off), the bias, the ReLU.
  EXPECT_THAT(r.output, HasSubstr("compiled graph: 3 nodes, 6 values\ncpu: replayed op by op\n"
                                  "%2 = linear(input0, gemm.weight, None) [16, 80]\n"
                                  "%4 = add(%2, bias) [16, 80]\n%5 = relu(%4) [16, 80]\n"
                                  "return %5\n"));
}

TEST(CliCompile, ProfilesEachReplayStep) {
  const CommandResult r = tt("compile GemmBiasReLU --profile");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("profile: one replay, "));
  EXPECT_THAT(r.output, HasSubstr(" ms over 3 steps (wall clock)\n"));
  EXPECT_THAT(r.output, HasSubstr(" step        ms  share  runs\n"));
  EXPECT_THAT(r.output,
              testing::ContainsRegex("    0 +[0-9]+\\.[0-9]{3} +[0-9]+\\.[0-9]%  linear\n"));
  EXPECT_THAT(r.output,
              testing::ContainsRegex("    2 +[0-9]+\\.[0-9]{3} +[0-9]+\\.[0-9]%  relu\n"));
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
  EXPECT_THAT(r.output, HasSubstr("error: absent.safetensors: "));
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
  EXPECT_THAT(r.output, HasSubstr("error: corrupt.safetensors: "));
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

// ---- --precision and --reference float64 ----

TEST(CliPrecision, OnTheCpuANonStrictModeSaysOnceThatItComputesFloat32) {
  const CommandResult r = tt("run GemmBiasReLU --precision tf32 --iters 3");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("device:  cpu, tf32 precision\n"));
  const std::string note =
      "note: run: on the CPU every precision computes the float32 reference, so --precision "
      "tf32 runs as strict there\n";
  ASSERT_THAT(r.output, HasSubstr(note));
  EXPECT_EQ(r.output.find(note), r.output.rfind(note));  // once, for four forwards
  // The same numbers as strict: the summary up to the time.
  const auto summary = [](const std::string& out) {
    return out.substr(out.find("output:"), out.find("forward:") - out.find("output:"));
  };
  EXPECT_EQ(summary(r.output), summary(tt("run GemmBiasReLU").output));
  EXPECT_THAT(tt("run GemmBiasReLU").output, Not(HasSubstr("note:")));
}

TEST(CliPrecision, CheckHoldsFixturesToTheModesBound) {
  const std::string file = "'" + fixture("gemm_bias_relu_small.safetensors") + "'";
  CommandResult r = tt("check --precision tf32 " + file);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output,
              HasSubstr("1 of 1 fixture passed on cpu in tf32 precision (relative L2 error <= "
                        "2e-03)"));
  r = tt("check --precision accurate " + file);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("passed on cpu in accurate precision (relative L2 error <= "
                                  "1e-05)"));
  // --tolerance still decides when given.
  r = tt("check --precision tf32 --tolerance 1e-9 " + file);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("0 of 1 fixture passed on cpu in tf32 precision"));
}

TEST(CliPrecision, EveryCommandThatComputesTakesIt) {
  for (const char* command : {"run", "check", "compare", "bench", "tune"}) {
    const CommandResult r = tt(std::string(command) + " --help");
    EXPECT_THAT(r.output, HasSubstr("--precision")) << command;
    EXPECT_THAT(r.output, HasSubstr("accurate (split TF32")) << command;
    const CommandResult bad = tt(std::string(command) + " GemmBiasReLU --precision fp16");
    EXPECT_EQ(bad.exit_code, 2) << command;
    EXPECT_EQ(bad.output, fmt::format("tt {0}: --precision must be strict, tf32 or accurate but "
                                      "got 'fp16'; see tt {0} --help.\n",
                                      command))
        << command;
  }
  EXPECT_THAT(tt("compare --help").output, HasSubstr("--reference"));
}

TEST(CliCompare, Float64ReferenceWithoutAGpuPrintsTheCpuFloat32Error) {
  if (test::cuda_available()) GTEST_SKIP() << "a CUDA device is present (the GPU test runs)";
  const CommandResult r = tt("compare --all --reference float64");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::vector<std::string> lines = lines_of(r.output);
  ASSERT_EQ(lines.size(), 2 + models::registered_models().size() + 1) << r.output;
  EXPECT_EQ(lines[0],
            "float64 CPU reference (train mode, seed 0); no CUDA device, so only the CPU float32 "
            "output is compared");
  for (size_t i = 0; i < models::registered_models().size(); ++i) {
    // model, shape, no GPU errors, then the CPU float32 relative L2 and max abs errors:
    // float32 rounding (1e-8..1e-6), not zero (the reference is not float32 itself).
    EXPECT_THAT(lines[2 + i], testing::MatchesRegex("[A-Za-z0-9]+ +small +- +- +"
                                                    "[1-9]\\.[0-9]{3}e-0[678] +"
                                                    "[1-9]\\.[0-9]{3}e-0[5678].*"));
  }
  EXPECT_THAT(r.output, HasSubstr("bn.running_mean="));
  EXPECT_EQ(lines.back(), "all 5 models computed");
  const CommandResult bad = tt("compare GemmBiasReLU --reference float16");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.output, HasSubstr("float16"));
}

TEST(CliCompare, Float64ReferenceOnAGpuInEveryMode) {
  if (!test::cuda_available()) GTEST_SKIP() << "no CUDA device";
  for (const char* precision : {"strict", "tf32", "accurate"}) {
    const CommandResult r =
        tt(std::string("compare --all --reference float64 --precision ") + precision);
    EXPECT_EQ(r.exit_code, 0) << precision << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr(fmt::format("({} precision)", precision)));
    EXPECT_THAT(r.output, HasSubstr("all 5 models agree")) << r.output;
    int pass_lines = 0;
    for (const std::string& line : lines_of(r.output))
      pass_lines += line.find(" PASS") != std::string::npos;
    EXPECT_EQ(pass_lines, 5) << r.output;
  }
}

// `tt tune --precision tf32` verifies at tf32's tolerance and saves the GEMM's entry
// under precision=tf32 (the GEMM keys read the mode: the gemmfam branch); `tt run
// --precision tf32` then finds it exactly, and a strict run does not use it.
TEST_F(TempDir, TunePrecisionSavesUnderThatModesKeys) {
  if (!test::cuda_available()) GTEST_SKIP() << "no CUDA device";
  const std::string db = (dir_ / "db.yaml").string();
  CommandResult r =
      tt("tune GemmInstanceNormAddMul --shape small --budget 30 --precision tf32 "
         "--db '" +
         db + "'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("at the small shape in tf32 precision on cuda:0"));
  EXPECT_THAT(r.output, HasSubstr("(small shape, tf32 precision, tolerance 1.95e-03,"));
  std::ifstream in(db);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_THAT(text, HasSubstr("precision=tf32")) << text;
  for (const std::string& line : lines_of(text)) {
    // Every GEMM problem (the keys with a k) is tf32's.
    if (line.find("\"m=") != std::string::npos && line.find(",k=") != std::string::npos) {
      EXPECT_THAT(line, HasSubstr("precision=tf32"));
    }
  }
  r = tt("run GemmInstanceNormAddMul --device cuda --precision tf32 --show-configs --db '" + db +
         "'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, testing::ContainsRegex("precision=tf32 -> [^\n]*\\(exact from "));
  r = tt("run GemmInstanceNormAddMul --device cuda --show-configs --db '" + db + "'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr("precision=tf32")));
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

// ---- habits: exit codes and one-sentence usage errors ----

TEST(CliHabits, NoArgumentsPrintsTheCommandList) {
  const CommandResult r = tt("");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* command :
       {"devices", "models", "run", "check", "compare", "bench", "tune", "db"})
    EXPECT_THAT(r.output, testing::ContainsRegex(std::string("\n  ") + command + " +[A-Z]"))
        << command;
  EXPECT_THAT(r.output, HasSubstr("Exit codes: 0 success, 1 a failed check or bad input, 2 a "
                                  "usage error, 3 the command needs a CUDA device"));
}

TEST(CliHabits, UnknownCommandNamesItselfAndTheClosestMatch) {
  CommandResult r = tt("rn GemmBiasReLU");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.output, "tt: 'rn' is not a tt command (did you mean 'run'?); see tt --help.\n");
  // Two neighbours swapped is one typo, not two.
  r = tt("rnu GemmBiasReLU");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.output, "tt: 'rnu' is not a tt command (did you mean 'run'?); see tt --help.\n");
  r = tt("db shwo");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.output,
            "tt db: 'shwo' is not a tt db command (did you mean 'show'?); see tt db --help.\n");
  r = tt("frobnicate");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.output, "tt: 'frobnicate' is not a tt command; see tt --help.\n");
  r = tt("--shape small");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.output, "tt: '--shape' is not an option of tt itself; see tt --help.\n");
  EXPECT_EQ(tt("--version").output, "tensortune 0.1.0\n");
}

TEST(CliHabits, UsageErrorsExitTwoWithOneShortSentence) {
  expect_usage_errors({
      {"run", "tt run: model is required; see tt run --help.\n"},
      {"run GemmBiasReLU --seed -1",
       "tt run: --seed must be an integer from 0 to 2^64-1 but got '-1'; see tt run --help.\n"},
      {"run GemmBiasReLU --seed 18446744073709551616",
       "tt run: --seed must be an integer from 0 to 2^64-1 but got '18446744073709551616'; see "
       "tt run --help.\n"},
      {"run GemmBiasReLU --iters 0",
       "tt run: --iters must be a whole number of at least 1 but got '0'; see tt run --help.\n"},
      {"check --tolerance nan x.safetensors",
       "tt check: --tolerance must be a positive number but got 'nan'; see tt check --help.\n"},
      {"compare GemmBiasReLU --tolerance inf",
       "tt compare: --tolerance must be a positive number but got 'inf'; see tt compare "
       "--help.\n"},
      {"bench --all --reps -3",
       "tt bench: --reps must be a whole number of at least 1 but got '-3'; see tt bench "
       "--help.\n"},
  });
}

TEST(CliHabits, TheLargestSeedIsAccepted) {
  const CommandResult r = tt("run GemmBiasReLU --seed 18446744073709551615");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("seed 18446744073709551615)"));
}

TEST_F(TempDir, ADatabaseThatDoesNotExistIsAnError) {
  const std::string absent = (dir_ / "absent.yaml").string();
  const CommandResult r = tt("run GemmBiasReLU --db '" + absent + "'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.output, "error: run: the tuning database '" + absent +
                          "' given with --db does not exist or is not a file\n");
}

TEST(CliHabits, AGpuCommandWithoutAGpuBlamesTheCommandNotAFlag) {
  if (test::cuda_available()) GTEST_SKIP() << "a CUDA device is present";
  const CommandResult r = tt("bench GemmBiasReLU");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.output, HasSubstr("error: tt bench (on cuda:0 by default) needs CUDA"));
  EXPECT_THAT(r.output, Not(HasSubstr("--device")));
}

// ---- tt bench --json: Google Benchmark's schema, read by tools/bench_compare.py ----

cli::BenchRecord record(const std::string& name, std::vector<double> samples) {
  cli::BenchRecord r;
  r.name = name;
  r.samples_ms = std::move(samples);
  r.flops = 2.0 * 1024 * 8192 * 8192;
  r.bytes = 4.0 * (1024 * 8192 * 2 + 8192 * 8192 + 8192);
  r.extra = {{"model", "GemmBiasReLU"}};
  return r;
}

TEST(BenchJson, GoogleBenchmarkSchemaWithAggregatesAndThroughput) {
  cli::BenchContext c = cli::host_context();
  c.device = "NVIDIA H200";
  const nlohmann::json j = cli::google_benchmark_json(
      c, {record("GemmBiasReLU/full/tuned", {2.0, 3.0, 4.0, 5.0, 100.0})});
  for (const char* key : {"date", "host_name", "num_cpus", "device", "driver", "cuda_runtime",
                          "git_commit", "library_build_type"})
    EXPECT_TRUE(j["context"].contains(key)) << key;
  EXPECT_EQ(j["context"]["device"], "NVIDIA H200");
  const nlohmann::json& b = j["benchmarks"];
  ASSERT_EQ(b.size(), 5u + 6u);  // the repetitions, then six aggregates
  EXPECT_EQ(b[0]["name"], "GemmBiasReLU/full/tuned");
  EXPECT_EQ(b[0]["run_type"], "iteration");
  EXPECT_EQ(b[0]["time_unit"], "ms");
  EXPECT_EQ(b[0]["real_time"], 2.0);
  EXPECT_EQ(b[0]["model"], "GemmBiasReLU");
  std::map<std::string, double> aggregate;
  for (const auto& row : b)
    if (row["run_type"] == "aggregate") aggregate[row["aggregate_name"]] = row["real_time"];
  EXPECT_EQ(aggregate["median"], 4.0);
  EXPECT_EQ(aggregate["mean"], 22.8);
  EXPECT_EQ(aggregate["min"], 2.0);
  EXPECT_DOUBLE_EQ(aggregate["p10"], 2.4);  // linear between ranks, as core/cuda/timing.h
  EXPECT_DOUBLE_EQ(aggregate["p90"], 62.0);
  EXPECT_EQ(b[6]["aggregate_name"], "median");
  EXPECT_EQ(b[6]["name"], "GemmBiasReLU/full/tuned_median");
  // 2 * 1024 * 8192^2 flops in 4 ms.
  EXPECT_NEAR(b[6]["TFLOP/s"].get<double>(), 2.0 * 1024 * 8192 * 8192 / 4e-3 / 1e12, 1e-9);
  EXPECT_TRUE(b[6].contains("GB/s"));
  EXPECT_FALSE(b[7].contains("TFLOP/s"));  // a stddev is no time per forward
}

TEST_F(TempDir, BenchCompareReadsTwoFilesAndReportsTheChange) {
  if (std::system("python3 --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  cli::BenchContext c = cli::host_context();
  const auto write = [&](const std::string& file, double scale) {
    std::ofstream(dir_ / file) << cli::google_benchmark_json(
        c, {record("GemmBiasReLU/full/tuned", {2.0 * scale, 2.1 * scale, 2.2 * scale}),
            record("InstanceNorm2dModel/full/tuned", {4.0, 4.0, 4.0})});
  };
  write("base.json", 1.0);
  write("new.json", 0.5);
  const CommandResult r =
      test::run_command("python3 '" + std::string(TT_SOURCE_DIR) + "/tools/bench_compare.py' '" +
                        (dir_ / "base.json").string() + "' '" + (dir_ / "new.json").string() + "'");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output,
              testing::ContainsRegex("GemmBiasReLU/full/tuned_median +-0\\.5000 +2\\.1000 "
                                     "+1\\.0500"));
  EXPECT_THAT(r.output,
              testing::ContainsRegex("InstanceNorm2dModel/full/tuned_median +\\+0\\.0000"));
  EXPECT_THAT(r.output, HasSubstr("geomean"));

  // --by-model lines up different variants of the same model (PyTorch eager vs ours).
  std::ofstream(dir_ / "eager.json")
      << cli::google_benchmark_json(c, {record("GemmBiasReLU/full/eager", {4.0, 4.2, 4.4})});
  const CommandResult by_model = test::run_command(
      "python3 '" + std::string(TT_SOURCE_DIR) + "/tools/bench_compare.py' --by-model '" +
      (dir_ / "eager.json").string() + "' '" + (dir_ / "base.json").string() + "'");
  EXPECT_EQ(by_model.exit_code, 0) << by_model.output;
  EXPECT_THAT(by_model.output,
              testing::ContainsRegex("GemmBiasReLU/full_median +-0\\.5000 +4\\.2000 +2\\.1000"));
}

// ---- issue 21: usage errors, stderr, failed writes, files that are not what they claim ----

TEST(CliHabits21, ModelSelectionAndEmptyDbAreUsageErrors) {
  expect_usage_errors({
      {"compare", "tt compare: give a model name or --all; see tt compare --help.\n"},
      {"compare GemmBiasReLU --all",
       "tt compare: give a model name or --all, not both ('GemmBiasReLU' and --all); see tt "
       "compare --help.\n"},
      {"tune GemmBiasReLU --all",
       "tt tune: give a model name or --all, not both ('GemmBiasReLU' and --all); see tt tune "
       "--help.\n"},
      {"bench", "tt bench: give a model name or --all; see tt bench --help.\n"},
      {"bench GemmBiasReLU --eager --cuda-graph",
       "tt bench: --cuda-graph replays the compiled model; it cannot go with --eager; see tt "
       "bench --help.\n"},
      {"run GemmBiasReLU --db ''",
       "tt run: --db must name a file but is empty; see tt run --help.\n"},
      {"db show --db ''",
       "tt db show: --db must name a file but is empty; see tt db show --help.\n"},
  });
}

TEST(CliHabits21, UnknownSubcommandIsNamed) {
  const CommandResult r = tt("db frob");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, testing::StartsWith("tt db: 'frob' is not a tt db command"));
  EXPECT_THAT(r.output, testing::EndsWith("; see tt db --help.\n"));
  EXPECT_EQ(tt("db shw").output,
            "tt db: 'shw' is not a tt db command (did you mean 'show'?); see tt db --help.\n");
}

TEST(CliHabits21, FailedWritesToStdoutExitOne) {
  // Subshells: run_command adds 2>&1 after the command, which must not follow stdout.
  const auto tt_out = [](const std::string& args, const std::string& redirect) {
    return test::run_command("( '" + std::string(TT_CLI_PATH) + "' " + args + " " + redirect +
                             " )");
  };
  CommandResult r = tt_out("models", "> /dev/full");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.output, "error: writing to standard output failed (No space left on device)\n");
  r = tt_out("models", ">&-");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, testing::StartsWith("error: writing to standard output failed"));
  // A usage error keeps its own code.
  EXPECT_EQ(tt_out("run --seed x", "> /dev/full").exit_code, 2);
}

TEST_F(TempDir, CheckRefusesAFifoAndReportsOnStderr) {
  const std::string fifo = (dir_ / "pipe.safetensors").string();
  ASSERT_EQ(test::run_command("mkfifo '" + fifo + "'").exit_code, 0);
  // Blocked forever in open() before; the timeout turns a hang into exit 124.
  // Subshells: run_command adds 2>&1 after the command.
  const CommandResult r = test::run_command("( timeout 60 '" + std::string(TT_CLI_PATH) +
                                            "' check '" + fifo + "' 2>/dev/null )");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr("pipe.safetensors")));  // not on stdout
  EXPECT_THAT(r.output, HasSubstr("0 of 1 fixture passed on cpu"));
  const CommandResult err = test::run_command("( '" + std::string(TT_CLI_PATH) + "' check '" +
                                              fifo + "' 2>&1 >/dev/null )");
  EXPECT_EQ(err.output,
            "error: pipe.safetensors: safetensors: '" + fifo + "': is not a regular file\n");
}

TEST_F(TempDir, AFixtureWithNothingToCompareIsAnError) {
  safetensors::File f = safetensors::load(fixture("gemm_bias_relu_small.safetensors"));
  for (auto& [name, t] : f.tensors) {
    if (name == "input.0" || name == "expected.out") t = t.narrow(0, 0, 0);
  }
  const std::string path = (dir_ / "empty_batch.safetensors").string();
  safetensors::save(path, f.tensors, f.metadata);
  const CommandResult r = tt("check '" + path + "'");
  EXPECT_EQ(r.exit_code, 1) << r.output;  // it PASSed before
  EXPECT_THAT(r.output, HasSubstr("expected.out has shape [0, "));
  EXPECT_THAT(r.output, HasSubstr("which holds no elements: there is nothing to compare"));
  EXPECT_THAT(r.output, Not(HasSubstr("PASS")));
}

TEST_F(TempDir, DbShowFitsOneHundredTwentyColumnsUnlessWide) {
  // Long structural keys without a measured forward (an H100 database of 2026-11-23) and
  // an entry that records its forward, merged, so the shipped databases can be re-tuned
  // without changing what this test sees.
  const std::string corpus = std::string(TT_SOURCE_DIR) + "/tests/fuzz/corpus/database/";
  const std::string db = (dir_ / "db.yaml").string();
  const CommandResult merged =
      tt("db merge '" + corpus + "h100.yaml' '" + corpus + "measured.yaml' --output '" + db + "'");
  ASSERT_EQ(merged.exit_code, 0) << merged.output;
  const CommandResult r = tt("db show --db '" + db + "'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  size_t longest = 0;
  for (const std::string& line : lines_of(r.output)) {
    if (line.rfind("==", 0) == 0) continue;  // the file's path, as long as the path
    longest = std::max(longest, line.size());
  }
  EXPECT_LE(longest, 120u);
  EXPECT_THAT(r.output, HasSubstr("timed"));
  EXPECT_THAT(r.output, HasSubstr("forward"));
  const CommandResult wide = tt("db show --wide --db '" + db + "'");
  ASSERT_EQ(wide.exit_code, 0);
  size_t wide_longest = 0;
  for (const std::string& line : lines_of(wide.output))
    wide_longest = std::max(wide_longest, line.size());
  EXPECT_GT(wide_longest, 120u);
  EXPECT_THAT(wide.output, HasSubstr("one model forward (not recorded)"));
}

TEST_F(TempDir, MergeThroughARelativeSymlinkInASymlinkedFolder) {
  // t/data/db.yaml is the database; t/a/b/db.yaml -> ../../data/db.yaml; t/x/y/link -> ../../a/b.
  // By text, t/x/y/link/../../data/db.yaml is t/x/data/db.yaml: a stray file.
  fs::create_directories(dir_ / "data");
  fs::create_directories(dir_ / "a" / "b");
  fs::create_directories(dir_ / "x" / "y");
  const std::string corpus = std::string(TT_SOURCE_DIR) + "/tests/fuzz/corpus/database/";
  fs::copy_file(corpus + "small.yaml", dir_ / "data" / "db.yaml");
  fs::create_symlink("../../data/db.yaml", dir_ / "a" / "b" / "db.yaml");
  fs::create_directory_symlink("../../a/b", dir_ / "x" / "y" / "link");
  fs::create_directories(dir_ / "x" / "data");  // where the text resolution would write
  const std::string out = (dir_ / "x" / "y" / "link" / "db.yaml").string();
  const CommandResult r =
      tt("db merge '" + corpus + "small.yaml' '" + corpus + "two_devices.yaml' -o '" + out + "'");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "x" / "data" / "db.yaml"));
  EXPECT_TRUE(fs::is_symlink(dir_ / "a" / "b" / "db.yaml"));
  std::ifstream in(dir_ / "data" / "db.yaml");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_THAT(text, HasSubstr("B|sm_90|132sm"));  // the merge reached the real database
}

TEST_F(TempDir, APlantedLockSymlinkIsNotFollowed) {
  const std::string corpus = std::string(TT_SOURCE_DIR) + "/tests/fuzz/corpus/database/";
  const fs::path db = dir_ / "db.yaml";
  fs::copy_file(corpus + "small.yaml", db);
  fs::create_symlink(dir_ / "elsewhere", dir_ / "db.yaml.lock");
  const CommandResult r = tt("db merge '" + corpus + "small.yaml' '" + corpus +
                             "two_devices.yaml' -o '" + db.string() + "'");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("is a symbolic link (remove it)"));
  EXPECT_FALSE(fs::exists(dir_ / "elsewhere"));  // O_CREAT through the link created it
}

}  // namespace
}  // namespace tt
