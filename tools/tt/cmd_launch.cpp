// `tt launch -n N [--master-port P] PROGRAM [ARGS...]`: starts N copies of PROGRAM on
// this host as the ranks of one job, with torchrun's variables (RANK = LOCAL_RANK =
// i, WORLD_SIZE = N, MASTER_ADDR = 127.0.0.1, MASTER_PORT), so that
// tt::distributed::init() (or a torchrun script) finds its peers. Output lines carry
// "[rank i] "; signals reach every rank; the first rank that fails stops the others
// and its exit code becomes tt launch's.
#include <iostream>

#include "core/error.h"
#include "distributed/launch.h"
#include "tools/tt/command.h"

namespace tt::cli {
namespace {

struct LaunchArgs {
  int ranks = 1;
  int master_port = 0;
  std::string master_addr = "127.0.0.1";
  std::string program;
};

void run_launch(const LaunchArgs& args, const std::vector<std::string>& rest) {
  const int port = args.master_port > 0 ? args.master_port : distributed::pick_free_port();
  std::vector<distributed::ChildSpec> specs;
  for (int r = 0; r < args.ranks; ++r) {
    distributed::ChildSpec s;
    s.argv.push_back(args.program);
    s.argv.insert(s.argv.end(), rest.begin(), rest.end());
    s.env = distributed::rank_env(r, args.ranks, args.master_addr, port);
    s.prefix = args.ranks > 1 ? fmt::format("[rank {}] ", r) : "";
    s.name = fmt::format("rank {}", r);
    specs.push_back(std::move(s));
  }
  const distributed::LaunchResult result = distributed::run_children(specs, "tt launch");
  if (result.exit_code != 0) throw CLI::RuntimeError(result.exit_code);
}

}  // namespace

void add_launch_command(CLI::App& app) {
  auto args = std::make_shared<LaunchArgs>();
  CLI::App* cmd = app.add_subcommand(
      "launch", "Start N processes of a program as the ranks of one job (as torchrun)");
  cmd->add_option("-n,--nproc", args->ranks, "How many ranks (one per GPU)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--master-port", args->master_port,
                  "Port of rank 0's store (default: a free port)")
      ->check(CLI::Range(1, 65535));
  cmd->add_option("--master-addr", args->master_addr, "Address of rank 0's store")
      ->capture_default_str();
  cmd->add_option("program", args->program, "The program to start, then its arguments")->required();
  // Everything after PROGRAM is the program's, options included.
  cmd->prefix_command();
  cmd->footer(
      "Each rank gets RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR and "
      "MASTER_PORT (torchrun's names) and NCCL_NVLS_ENABLE=0 unless set. Output lines start "
      "with [rank i]. When a rank fails the others are stopped (SIGTERM, SIGKILL after 5 s) "
      "and tt launch exits with the failed rank's code.");
  cmd->callback([cmd, args] { run_launch(*args, cmd->remaining()); });
}

}  // namespace tt::cli
