// `--device all` without a GPU (issue 23): the workers' command lines, the sentence
// and exit code 2 where there is no CUDA device, and two workers of different GPUs
// saving into one database at the same moment: both devices' entries are kept.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "autotune/database.h"
#include "support/test_util.h"
#include "tools/tt/device_all.h"

namespace tt {
namespace {

using ::testing::HasSubstr;

TEST(DeviceAll, WorkersRepeatTheCommandOnTheirDevice) {
  using V = std::vector<std::string>;
  EXPECT_EQ(cli::argv_for_device(V{"tt", "tune", "--all", "--device", "all", "--budget", "9"}, 1),
            (V{"tt", "tune", "--all", "--device", "cuda:1", "--budget", "9"}));
  EXPECT_EQ(cli::argv_for_device(V{"tt", "bench", "--device=all", "m"}, 0),
            (V{"tt", "bench", "--device=cuda:0", "m"}));
}

TEST(DeviceAll, NoGpuIsASentenceAndExitCode2) {
  if (test::cuda_available()) GTEST_SKIP() << "this machine has a CUDA device";
  for (const std::string cmd :
       {"tune --all", "bench --all", "compare --all", "check some.safetensors"}) {
    const auto r = test::run_command(std::string(TT_CLI_PATH) + " " + cmd + " --device all");
    EXPECT_EQ(r.exit_code, 2) << cmd << ": " << r.output;
    const std::string name = cmd.substr(0, cmd.find(' '));
    EXPECT_THAT(r.output,
                HasSubstr("tt " + name + ": --device all runs one worker per CUDA device, but "))
        << r.output;
    EXPECT_THAT(r.output, HasSubstr("; use --device cpu or cuda:N.")) << r.output;
  }
}

// What the workers of a host with an H100 and an H200 do when both finish together.
TEST(DeviceAll, TwoDevicesSavingAtOnceKeepBoth) {
  const auto dir = std::filesystem::temp_directory_path() /
                   fmt::format("tt_device_all_{}", static_cast<long>(::getpid()));
  std::filesystem::remove_all(dir);
  const std::string db = (dir / "tuning.yaml").string();
  const std::vector<autotune::DeviceIdentity> gpus = {
      autotune::make_device_identity("NVIDIA H100 80GB HBM3", 9, 0, 132, 85520809984),
      autotune::make_device_identity("NVIDIA H200", 9, 0, 132, 150109847552)};
  for (int round = 0; round < 5; ++round) {
    const int failed = test::run_in_processes(2, [&](int i) {
      autotune::Database mine;
      for (int k = 0; k < 20; ++k) {
        autotune::TuningEntry e;
        e.config = autotune::Config::parse(fmt::format("threads={}", 32 * (k + 1)));
        e.median_ms = 1.0 + i;
        mine.put(gpus[static_cast<size_t>(i)], "gemm", fmt::format("M={}|round={}", k, round), e);
      }
      autotune::save_database(db, mine);
    });
    EXPECT_EQ(failed, 0);
  }
  const autotune::Database back = autotune::load_database(db);
  EXPECT_EQ(back.devices().size(), 2u);
  EXPECT_EQ(back.entry_count(), 2u * 20u * 5u);
  for (const auto& g : gpus) EXPECT_NE(back.find(g.key(), "gemm", "M=19|round=4"), nullptr);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tt
