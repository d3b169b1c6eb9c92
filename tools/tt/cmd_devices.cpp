// `tt devices`: the CUDA devices this build can use, with what the autotuner keys
// its database on (name, compute capability, multiprocessors, memory).
#include <iostream>

#include "core/error.h"
#include "tools/tt/command.h"
#if TT_CUDA
#include "core/cuda/runtime.h"
#endif

namespace tt::cli {
namespace {

void run_devices() {
#if TT_CUDA
  const int count = cuda::device_count();
  if (count == 0) {
    std::cout << "no CUDA device found (the CPU reference is available)\n";
    return;
  }
  for (int i = 0; i < count; ++i) {
    cuda::DeviceInfo d = cuda::device_info(i);
    std::cout << fmt::format("cuda:{}  {}  sm_{}{}  {} SMs  {:.1f} GiB ({:.1f} GiB free)\n", i,
                             d.name, d.cc_major, d.cc_minor, d.sm_count,
                             d.total_memory / double(1 << 30), d.free_memory / double(1 << 30));
  }
#else
  std::cout << "tensortune was built without CUDA (TT_CUDA=OFF): only the CPU is available\n";
#endif
}

}  // namespace

void add_devices_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("devices", "List the CUDA devices tensortune can use");
  cmd->footer("Prints one line per CUDA device; 'no CUDA device found' when there is none.");
  cmd->callback([] { run_devices(); });
}

}  // namespace tt::cli
