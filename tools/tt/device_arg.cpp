#include "tools/tt/device_arg.h"

#include <iostream>

#include "core/cuda/runtime.h"
#include "tools/tt/command.h"

namespace tt::cli {

Device resolve_device(const std::string& text, const std::string& command, bool typed) {
  const Device device = Device::parse(text);
  if (device.is_cpu()) return device;
  const std::string who =
      typed ? "--device " + text : "tt " + command + " (on " + device.str() + " by default)";
#if TT_CUDA
  const int count = cuda::device_count();
  if (device.index < count) return device;
  std::cerr << "error: " << who << " needs CUDA device " << device.index << " but this machine has "
            << count << " CUDA device" << (count == 1 ? "" : "s") << "\n";
#else
  std::cerr << "error: " << who
            << " needs CUDA but tensortune was built without CUDA (TT_CUDA=OFF)\n";
#endif
  throw CLI::RuntimeError(kExitNoGpu);
}

}  // namespace tt::cli
