// tt::cli::main: builds the `tt` app from the cmd_*.cpp commands, parses argv and
// turns every way a command can end into one of the documented exit codes with at
// most one sentence on stderr (see include/tensortune/cli.h).
#include <tensortune/cli.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/version.h"
#include "models/registry.h"
#include "tools/tt/command.h"

namespace tt::cli {
namespace {

constexpr const char* kExitCodes =
    "Exit codes: 0 success, 1 a failed check or bad input, 2 a usage error, 3 the command "
    "needs a CUDA device and there is none.";

void add_all_commands(CLI::App& app) {
  add_devices_command(app);
  add_models_command(app);
  add_run_command(app);
  add_check_command(app);
  add_compare_command(app);
  add_bench_command(app);
  add_compile_command(app);
  add_tune_command(app);
  add_db_command(app);
  add_launch_command(app);
}

// "tt db merge": the app and the subcommands parsed before the error.
std::string command_path(const CLI::App& app) {
  std::string path = "tt";
  const CLI::App* at = &app;
  for (;;) {
    const std::vector<CLI::App*> subs = at->get_subcommands();
    if (subs.empty()) break;
    at = subs.front();
    path += " " + at->get_name();
  }
  return path;
}

std::vector<std::string> subcommand_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    names.push_back(sub->get_name());
  return names;
}

// The first argument, when it names no command (or is an option tt itself lacks):
// CLI11 would report "A subcommand is required" or an unexpected extra argument, which
// does not say what went wrong.
int unknown_command(const CLI::App& app, int argc, char** argv) {
  if (argc < 2) return -1;
  const std::string first = argv[1];
  if (first == "-h" || first == "--help" || first == "--help-all" || first == "--version")
    return -1;
  if (!first.empty() && first[0] == '-') {
    std::cerr << fmt::format("tt: '{}' is not an option of tt itself; see tt --help.\n", first);
    return kExitUsage;
  }
  // Down the command path while the words name subcommands: "tt db frob" names the
  // word and the command it is not part of (CLI11 said "A subcommand is required").
  const CLI::App* at = &app;
  std::string path = "tt";
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.empty() || word[0] == '-') return -1;
    const std::vector<std::string> names = subcommand_names(*at);
    if (names.empty()) return -1;  // a command's own positional arguments
    const auto found = std::find(names.begin(), names.end(), word);
    if (found != names.end()) {
      at = at->get_subcommand(word);
      path += " " + word;
      continue;
    }
    const std::string guess = models::closest_name(word, names);
    std::cerr << fmt::format("{}: '{}' is not a {} command{}; see {} --help.\n", path, word, path,
                             guess.empty() ? "" : fmt::format(" (did you mean '{}'?)", guess),
                             path);
    return kExitUsage;
  }
  return -1;
}

// A command's output that did not reach its destination (a full disk, a closed pipe or
// stdout) is a failure: exit 1 with a sentence on stderr, never 0.
int checked_output(int code) {
  errno = 0;  // the reason of the first failing write below, if any
  std::cout.flush();
  const bool failed = !std::cout.good() || std::fflush(stdout) != 0 || std::ferror(stdout) != 0;
  if (failed) {
    const int saved = errno;
    std::cerr << fmt::format("error: writing to standard output failed{}\n",
                             saved != 0 ? fmt::format(" ({})", std::strerror(saved)) : "");
    if (code == kExitOk) code = kExitFailure;
  }
  std::cerr.flush();
  if (std::fflush(stderr) != 0 || std::ferror(stderr) != 0) {
    if (code == kExitOk) code = kExitFailure;  // nowhere left to say so
  }
  return code;
}

int usage_error(const CLI::App& app, const CLI::ParseError& e) {
  std::string message = e.what();
  while (!message.empty() && (message.back() == '\n' || message.back() == '.')) message.pop_back();
  // CLI11 writes "--seed: must be ..."; the sentence reads better without the colon.
  if (const size_t colon = message.find(": must ");
      colon != std::string::npos && message.rfind("--", 0) == 0)
    message.erase(colon, 1);
  const std::string path = command_path(app);
  std::cerr << fmt::format("{}: {}; see {} --help.\n", path, message, path);
  return kExitUsage;
}

}  // namespace

CLI::Option* add_seed_option(CLI::App* cmd, uint64_t* seed, const std::string& help) {
  return cmd->add_option("--seed", *seed, help)
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            errno = 0;
            char* end = nullptr;
            const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
            (void)v;
            const bool digits =
                !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
            if (!digits || errno == ERANGE || *end != '\0')
              return fmt::format("must be an integer from 0 to 2^64-1 but got '{}'", text);
            return "";
          },
          "N"))
      ->capture_default_str();
}

CLI::Option* add_count_option(CLI::App* cmd, const std::string& name, int* value,
                              const std::string& help, int minimum) {
  return cmd->add_option(name, *value, help)
      ->check(CLI::Validator(
          [minimum](std::string& text) -> std::string {
            errno = 0;
            char* end = nullptr;
            const long v = std::strtol(text.c_str(), &end, 10);
            if (text.empty() || *end != '\0' || errno == ERANGE || v < minimum || v > 1000000000)
              return fmt::format("must be a whole number of at least {} but got '{}'", minimum,
                                 text);
            return "";
          },
          "N"))
      ->capture_default_str();
}

CLI::Option* add_positive_option(CLI::App* cmd, const std::string& name, double* value,
                                 const std::string& help) {
  return cmd->add_option(name, *value, help)
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            char* end = nullptr;
            const double v = std::strtod(text.c_str(), &end);
            if (text.empty() || *end != '\0' || !std::isfinite(v) || !(v > 0))
              return fmt::format("must be a positive number but got '{}'", text);
            return "";
          },
          "X"))
      ->capture_default_str();
}

CLI::Option* add_compile_flag(CLI::App* cmd, bool* compile, const std::string& what) {
  return cmd->add_flag("--compile,!--eager", *compile,
                       what +
                           " the model compiled with tt::compile (its fused groups; the "
                           "default), or with --eager op by op");
}

CLI::Option* add_precision_option(CLI::App* cmd, std::string* precision, const std::string& help) {
  return cmd
      ->add_option("--precision", *precision,
                   "Precision of the matrix products: strict (IEEE float32), tf32 (tensor cores, "
                   "TF32 operands: 1e-4 to 1e-3 relative error) or accurate (split TF32: float32 "
                   "accuracy at tensor-core speed on sm_90); " +
                       help)
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            try {
              parse_precision(text);
            } catch (const Error&) {
              return fmt::format("must be strict, tf32 or accurate but got '{}'", text);
            }
            return "";
          },
          "MODE"))
      ->capture_default_str();
}

void note_cpu_precision(const std::string& command, Precision precision, Device device) {
  static bool said = false;
  if (said || precision == Precision::strict || !device.is_cpu()) return;
  said = true;
  std::cerr << fmt::format(
      "note: {}: on the CPU every precision computes the float32 reference, so --precision {} "
      "runs as strict there\n",
      command, precision_name(precision));
}

CLI::Option* add_db_option(CLI::App* cmd, std::string* path, const std::string& help) {
  return cmd->add_option("--db", *path, help)
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            return text.empty() ? "must name a file but is empty" : "";
          },
          "PATH"));
}

void add_model_instance_options(CLI::App* cmd, std::string* model, std::string* shape,
                                std::string* device, uint64_t* seed) {
  cmd->add_option("model", *model, "Model name, as listed by `tt models`")->required();
  cmd->add_option("--shape", *shape, "Problem size: small or full (KernelBench)")
      ->check(CLI::IsMember({"small", "full"}))
      ->capture_default_str();
  cmd->add_option("--device", *device, "Device: cpu, cuda or cuda:N")->capture_default_str();
  add_seed_option(cmd, seed, "Seed of the weights and the inputs");
}

bool typed(const CLI::App* cmd, const std::string& option) { return cmd->count(option) > 0; }

namespace {

int main_unchecked(int argc, char** argv) {
  try {
    for (const std::string& error : models::startup_registration_errors()) {
      std::cerr << "error: " << error << "\n";
    }
    if (!models::startup_registration_errors().empty()) return kExitFailure;

    CLI::App app{"tensortune: a minimal tensor framework with a per-GPU autotuner"};
    app.name("tt");
    app.set_version_flag("--version", std::string("tensortune ") + TT_VERSION_STRING);
    app.footer(kExitCodes);
    add_all_commands(app);
    if (argc < 2) {
      std::cout << app.help();
      return kExitOk;
    }
    if (const int code = unknown_command(app, argc, argv); code >= 0) return code;
    app.require_subcommand(1);
    try {
      app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
      return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
      return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
      return app.exit(e);
    } catch (const CLI::RuntimeError& e) {
      return e.get_exit_code();  // a command's verdict, its message already printed
    } catch (const CLI::ParseError& e) {
      return usage_error(app, e);
    }
    return kExitOk;
  } catch (const Error& e) {
    std::cerr << "error: " << e.what() << "\n";
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of memory\n";
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "error: the command stopped on an unexpected failure\n";
  }
  return kExitFailure;
}

}  // namespace

int main(int argc, char** argv) { return checked_output(main_unchecked(argc, argv)); }

}  // namespace tt::cli
