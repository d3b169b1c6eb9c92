#include "tools/tt/device_all.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <thread>

#include "core/error.h"
#include "distributed/launch.h"
#include "tools/tt/command.h"
#if TT_CUDA
#include "core/cuda/runtime.h"
#endif

namespace tt::cli {
namespace {

// Our own command line, as the kernel has it: the workers repeat it exactly, whatever
// program (tt or a user's executable linking tt::cli) and options it holds.
std::vector<std::string> own_argv() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  size_t start = 0;
  for (size_t i = 0; i < all.size(); ++i)
    if (all[i] == '\0') {
      args.push_back(all.substr(start, i - start));
      start = i + 1;
    }
  return args;
}

std::string own_executable() {
  char path[4096];
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  TT_CHECK(n > 0, "--device all could not find its own program (/proc/self/exe).");
  return std::string(path, static_cast<size_t>(n));
}

}  // namespace

std::vector<std::string> argv_for_device(const std::vector<std::string>& argv, int device) {
  std::vector<std::string> out = argv;
  const std::string value = "cuda:" + std::to_string(device);
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == "--device" && i + 1 < out.size())
      out[++i] = value;
    else if (out[i].rfind("--device=", 0) == 0)
      out[i] = "--device=" + value;
  }
  return out;
}

bool run_on_every_device(const std::string& command, const std::string& device) {
  if (device != "all") return false;
  int count = 0;
#if TT_CUDA
  count = cuda::device_count();
#endif
  if (count == 0) {
    std::cerr << fmt::format(
        "tt {}: --device all runs one worker per CUDA device, but {}; use --device cpu or "
        "cuda:N.\n",
        command,
        TT_CUDA ? "this machine has none" : "tensortune was built without CUDA (TT_CUDA=OFF)");
    throw CLI::RuntimeError(kExitUsage);
  }
  std::vector<distributed::ChildSpec> specs;
  const std::vector<std::string> argv = own_argv();
  for (int i = 0; i < count; ++i) {
    distributed::ChildSpec s;
    s.argv = argv_for_device(argv, i);
    s.argv[0] = own_executable();
    // The workers share the host's cores (the CPU reference of every sweep): without a
    // limit each would start one OpenMP thread per core and they would trip over each other.
    if (std::getenv("OMP_NUM_THREADS") == nullptr)
      s.env.emplace_back("OMP_NUM_THREADS",
                         std::to_string(std::max(1u, std::thread::hardware_concurrency() /
                                                         static_cast<unsigned>(count))));
    s.prefix = fmt::format("[cuda:{}] ", i);
    s.name = fmt::format("the worker on cuda:{}", i);
    specs.push_back(std::move(s));
  }
  std::cout << fmt::format("tt {}: {} workers, one per CUDA device, at once\n", command, count)
            << std::flush;
  const auto t0 = std::chrono::steady_clock::now();
  const distributed::LaunchResult r = distributed::run_children(specs, "tt " + command);
  std::cout << fmt::format(
      "tt {}: {} workers {} in {:.1f} s\n", command, count,
      r.exit_code == 0 ? "finished" : "stopped",
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  if (r.exit_code != 0) throw CLI::RuntimeError(r.exit_code);
  return true;
}

}  // namespace tt::cli
