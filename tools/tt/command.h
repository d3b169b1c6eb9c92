// How a `tt` subcommand plugs into the CLI: each tools/tt/cmd_*.cpp file registers a
// function that adds its subcommand (options, help text, callback) to the app.
// A callback that wants a non-zero exit throws CLI::RuntimeError(code); a tt::Error
// escaping a callback is printed as "error: ..." with exit code 1.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace tt::cli {

// Exit codes shared by the commands.
constexpr int kExitFailure = 1;  // a check failed / bad input
constexpr int kExitNoGpu = 3;    // the command needs a GPU and there is none

using AddCommand = std::function<void(CLI::App& app)>;

struct CommandRegistrar {
  // `order` sorts the subcommands in --help.
  CommandRegistrar(int order, AddCommand add);
};

void add_registered_commands(CLI::App& app);

}  // namespace tt::cli

#define TT_CLI_CONCAT_(a, b) a##b
#define TT_CLI_CONCAT(a, b) TT_CLI_CONCAT_(a, b)
#define TT_REGISTER_COMMAND(order, fn) \
  static ::tt::cli::CommandRegistrar TT_CLI_CONCAT(tt_command_registrar_, __LINE__)(order, fn)
