// Fuzzes the `tt` command line (tt::cli::main, tools/tt): the input is split at NUL and
// newline bytes into at most 8 arguments after "tt". The property: main returns one of
// the documented exit codes (0 ok, 1 a failure, 2 usage, 3 no GPU), never throws, never
// crashes. Everything runs in a private temporary folder with HOME, XDG_CACHE_HOME and
// TT_TUNING_DB pointing into it, and arguments that would name other files (a '/'),
// do full-size work ("full") or ask for huge counts are skipped, so a fuzzer cannot
// write outside its folder or spend minutes on one input. Output goes to /dev/null.
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <tensortune/cli.h>

#include "tests/fuzz/fuzz_util.h"

namespace {

namespace fs = std::filesystem;

fs::path& private_folder() {
  static fs::path dir;
  return dir;
}

void enter_private_folder() {
  if (!private_folder().empty()) return;
  const fs::path dir = fs::temp_directory_path() / ("tt_fuzz_cli_" + std::to_string(getpid()));
  private_folder() = dir;
  fs::create_directories(dir);
  std::atexit([] {
    std::error_code ec;
    fs::current_path(fs::temp_directory_path(), ec);
    fs::remove_all(private_folder(), ec);
  });
  fs::current_path(dir);
  ::setenv("HOME", dir.c_str(), 1);
  ::setenv("XDG_CACHE_HOME", (dir / "cache").c_str(), 1);
  ::setenv("TT_TUNING_DB", (dir / "db.yaml").c_str(), 1);
}

bool harmless(const std::string& arg) {
  if (arg.find('/') != std::string::npos || arg.find("full") != std::string::npos) return false;
  // Counts (--reps, --iters, budgets) of more than three digits.
  size_t digits = 0;
  for (char c : arg) digits = (c >= '0' && c <= '9') ? digits + 1 : 0;
  return digits <= 3;
}

// Runs main with stdout and stderr on /dev/null, restoring them after.
int quiet_main(std::vector<std::string> args) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  const int out = ::dup(1), err = ::dup(2);
  ::dup2(null, 1);
  ::dup2(null, 2);
  const int code = tt::cli::main(static_cast<int>(args.size()), argv.data());
  std::fflush(stdout);
  std::fflush(stderr);
  ::dup2(out, 1);
  ::dup2(err, 2);
  ::close(out);
  ::close(err);
  ::close(null);
  return code;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  enter_private_folder();
  std::vector<std::string> args = {"tt"};
  std::string current;
  for (size_t i = 0; i < size && args.size() <= 8; ++i) {
    const char c = static_cast<char>(data[i]);
    if (c == '\0' || c == '\n') {
      args.push_back(current);
      current.clear();
    } else if (current.size() < 64) {
      current += c;
    }
  }
  if (!current.empty() && args.size() <= 8) args.push_back(current);
  for (const std::string& a : args)
    if (!harmless(a)) return 0;
  const int code = quiet_main(args);
  tt::fuzz::require(code >= 0 && code <= 3,
                    "tt returned exit code " + std::to_string(code) + ", not one of 0-3");
  return 0;
}
