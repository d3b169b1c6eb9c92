// Runs several child processes at once, as torchrun does for the ranks of a job and
// `tt tune --device all` for one worker per GPU: each child's output lines carry a
// prefix ("[rank 1] ", "[cuda:0] "); SIGINT, SIGTERM and SIGHUP reach every child;
// when one child fails the others are stopped (SIGTERM, then SIGKILL after a grace
// period) and the launch returns the failed child's exit code.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace tt::distributed {

struct ChildSpec {
  std::vector<std::string> argv;                         // argv[0] is found on PATH
  std::vector<std::pair<std::string, std::string>> env;  // set on top of ours
  std::string prefix;                                    // put before each output line
  std::string name;                                      // "rank 1": for messages
};

struct LaunchResult {
  int exit_code = 0;      // 0, or the first failed child's (128 + signal when killed)
  int failed_child = -1;  // index into the specs, -1 when all succeeded
  std::string message;    // the sentence about the failure; empty on success
};

// Starts every child, relays their output until all have ended, and reports. The
// message is also printed on stderr as "<who>: <sentence>".
LaunchResult run_children(const std::vector<ChildSpec>& children, const std::string& who);

// A TCP port that was free a moment ago (bound to port 0, then closed).
int pick_free_port();

// The torchrun variables of rank `rank` of `world` on this host, plus
// NCCL_NVLS_ENABLE=0 unless the caller's environment sets it.
std::vector<std::pair<std::string, std::string>> rank_env(int rank, int world,
                                                          const std::string& master_addr,
                                                          int master_port);

}  // namespace tt::distributed
