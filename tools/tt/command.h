// How a `tt` subcommand plugs into the CLI: each tools/tt/cmd_*.cpp file defines an
// add_*_command function that adds its subcommand (options, help text, callback) to
// the app; tools/tt/cli.cpp calls them in the order --help lists them. (Explicit
// calls rather than static registrars: this is a static library, whose unreferenced
// objects the linker would drop.)
//
// A callback that wants a non-zero exit throws CLI::RuntimeError(code); a tt::Error
// escaping a callback is printed as "error: ..." with exit code 1. Option checks that
// fail are usage errors (exit 2): they throw CLI::ValidationError through the
// validators below, whose messages are one short sentence.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

#include "core/device.h"
#include "core/precision.h"

namespace tt::cli {

// Exit codes shared by the commands (documented in README.md and `tt --help`).
constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;  // a check failed / bad input
constexpr int kExitUsage = 2;    // the command line itself is wrong
constexpr int kExitNoGpu = 3;    // the command needs a GPU and there is none

void add_devices_command(CLI::App& app);
void add_models_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_check_command(CLI::App& app);
void add_compare_command(CLI::App& app);
void add_bench_command(CLI::App& app);
void add_compile_command(CLI::App& app);
void add_tune_command(CLI::App& app);
void add_db_command(CLI::App& app);
// issue 23: `tt launch` (tools/tt/cmd_launch.cpp).
void add_launch_command(CLI::App& app);

// --seed N: an unsigned 64-bit integer; anything else ("-1", "1e3", 2^64) is a usage
// error naming the option.
CLI::Option* add_seed_option(CLI::App* cmd, uint64_t* seed, const std::string& help);
// A positive integer option (--reps, --iters); 0, negatives, words are usage errors.
CLI::Option* add_count_option(CLI::App* cmd, const std::string& name, int* value,
                              const std::string& help, int minimum = 1);
// A finite positive number (--tolerance, --atol, ...); nan, inf, 0 are usage errors.
CLI::Option* add_positive_option(CLI::App* cmd, const std::string& name, double* value,
                                 const std::string& help);

// --precision strict|tf32|accurate (default strict), for the commands whose forwards,
// sweeps or checks run inside a tt::PrecisionGuard of it. A value that
// tt::parse_precision refuses is a usage error naming the choices. `help` ends the
// option's description (what the mode applies to in this command).
CLI::Option* add_precision_option(CLI::App* cmd, std::string* precision, const std::string& help);
// --compile / --eager (default --compile): whether the command runs the model compiled
// with tt::compile on a GPU. `what` says what the command does with it ("Time", "Tune
// the kernels of"): the help reads "<what> the model compiled with tt::compile (its fused
// groups; the default), or with --eager op by op".
CLI::Option* add_compile_flag(CLI::App* cmd, bool* compile, const std::string& what);
// On the CPU every mode computes the float32 reference: says so once per process (on
// stderr; not an error) when `precision` is not strict and `device` is the CPU.
void note_cpu_precision(const std::string& command, Precision precision, Device device);

// --db PATH: a path typed empty (`--db ''`) is a usage error, not "no --db".
CLI::Option* add_db_option(CLI::App* cmd, std::string* path, const std::string& help);
// The --db help of the commands that only read tuned configs (run, bench).
inline constexpr const char* kReadDbHelp =
    "Tuning database to read first (else TT_TUNING_DB, the user cache, the shipped ones)";
// The options that pick one built model instance (`tt run`, `tt compile`): the model
// name (positional, required), --shape small|full, --device cpu|cuda[:N], --seed N.
void add_model_instance_options(CLI::App* cmd, std::string* model, std::string* shape,
                                std::string* device, uint64_t* seed);

// True when the user typed the option on the command line (not its default).
bool typed(const CLI::App* cmd, const std::string& option);

}  // namespace tt::cli
