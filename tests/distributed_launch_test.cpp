// `tt launch` without a GPU (issue 23): ranks get torchrun's variables and meet
// through the TCPStore (tools/device/dist_harness env --cpu), output lines carry the
// rank, a failing rank stops the others and lends its exit code, and a signal to the
// launcher reaches every rank.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "support/test_util.h"

namespace {

using ::testing::HasSubstr;
using tt::test::run_command;

const std::string kTt = TT_CLI_PATH;
const std::string kHarness = std::string(TT_BINARY_DIR) + "/tools/dist_harness";

TEST(Launch, RanksMeetThroughTheStore) {
  const auto r = run_command(kTt + " launch -n 3 " + kHarness + " env --cpu");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (int rank = 0; rank < 3; ++rank)
    EXPECT_THAT(r.output,
                HasSubstr(fmt::format("[rank {}] rank {} of 3 on cpu: env ok", rank, rank)));
}

TEST(Launch, SetsTorchrunsVariablesAndPassesOptionsThrough) {
  const auto r = run_command(
      "env -u NCCL_NVLS_ENABLE " + kTt +
      " launch -n 2 --master-port 29533 sh -c 'echo $RANK $LOCAL_RANK $WORLD_SIZE $MASTER_ADDR "
      "$MASTER_PORT $NCCL_NVLS_ENABLE'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("[rank 0] 0 0 2 127.0.0.1 29533 0\n"));
  EXPECT_THAT(r.output, HasSubstr("[rank 1] 1 1 2 127.0.0.1 29533 0\n"));
}

TEST(Launch, AFailingRankStopsTheOthersWithItsCode) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = run_command(kTt + " launch -n 3 " + kHarness + " fail 1 3");
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_THAT(r.output, HasSubstr("[rank 1] rank 1 fails on purpose with code 3"));
  EXPECT_THAT(r.output, HasSubstr("tt launch: rank 1 (pid "));
  EXPECT_THAT(r.output, HasSubstr(") exited with code 3; stopping the other processes."));
  EXPECT_LT(took, 60.0);  // the others sleep 120 s unless stopped
}

TEST(Launch, AProgramThatCannotRun) {
  const auto r = run_command(kTt + " launch -n 2 /nonexistent/program");
  EXPECT_EQ(r.exit_code, 127) << r.output;
  EXPECT_THAT(r.output,
              HasSubstr("tt launch: cannot run /nonexistent/program: No such file or directory"));
  EXPECT_THAT(r.output, HasSubstr("exited with code 127"));
}

TEST(Launch, UsageErrors) {
  EXPECT_EQ(run_command(kTt + " launch -n 0 true").exit_code, 2);
  EXPECT_EQ(run_command(kTt + " launch -n 2").exit_code, 2);
  EXPECT_EQ(run_command(kTt + " launch --master-port 70000 -n 2 true").exit_code, 2);
}

TEST(Launch, ASignalReachesEveryRank) {
  const auto r = run_command("sh -c '" + kTt +
                             " launch -n 2 sleep 30 & pid=$!; sleep 0.5; kill -TERM $pid; wait "
                             "$pid; echo rc=$?'");
  EXPECT_THAT(r.output, HasSubstr("rc=143")) << r.output;
}

}  // namespace
