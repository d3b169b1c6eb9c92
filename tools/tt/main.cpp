// `tt`: the tensortune command line. Subcommands live in tools/tt/cmd_*.cpp.
#include <algorithm>
#include <iostream>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/version.h"
#include "tools/tt/command.h"

namespace tt::cli {
namespace {
std::vector<std::pair<int, AddCommand>>& registry() {
  static std::vector<std::pair<int, AddCommand>> commands;
  return commands;
}
}  // namespace

CommandRegistrar::CommandRegistrar(int order, AddCommand add) {
  registry().emplace_back(order, std::move(add));
}

void add_registered_commands(CLI::App& app) {
  auto& commands = registry();
  std::stable_sort(commands.begin(), commands.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [order, add] : commands) add(app);
}

}  // namespace tt::cli

int main(int argc, char** argv) {
  CLI::App app{"tensortune: a minimal tensor framework with a per-GPU autotuner"};
  app.set_version_flag("--version", std::string("tensortune ") + TT_VERSION_STRING);
  app.require_subcommand(1);
  tt::cli::add_registered_commands(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const tt::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return tt::cli::kExitFailure;
  }
  return 0;
}
