#include "core/storage.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <unistd.h>

#include "core/error.h"
#if TT_CUDA
#include "core/cuda/runtime.h"
#endif

namespace tt {
namespace {
constexpr size_t kCpuAlignment = 64;

// The machine's RAM plus swap. Under memory overcommit (vm.overcommit_memory=1, as on
// some GPU hosts) a request far past it still gets an address, and the first write to it
// ends the process through the OOM killer instead of a catchable error.
size_t cpu_memory_bytes() {
  static const size_t bytes = [] {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    size_t total = pages > 0 && page > 0 ? static_cast<size_t>(pages) * page : SIZE_MAX / 2;
    if (FILE* f = std::fopen("/proc/meminfo", "r")) {
      char line[256];
      unsigned long long kib = 0;
      while (std::fgets(line, sizeof line, f))
        if (std::sscanf(line, "SwapTotal: %llu kB", &kib) == 1) total += kib * 1024;
      std::fclose(f);
    }
    return total;
  }();
  return bytes;
}

thread_local StorageKeeper* current_keeper = nullptr;

#if !TT_CUDA
[[noreturn]] void no_cuda() {
  TT_FAIL("this operation needs CUDA but tensortune was built without CUDA (TT_CUDA=OFF)");
}
#endif
}  // namespace

StorageKeeper::StorageKeeper() : previous_(current_keeper) { current_keeper = this; }
StorageKeeper::~StorageKeeper() { current_keeper = previous_; }

std::shared_ptr<Storage> Storage::allocate(size_t nbytes, Device device) {
  void* data = nullptr;
  // No allocator can serve more than PTRDIFF_MAX bytes, and rounding up near
  // SIZE_MAX would wrap to a tiny block.
  if (nbytes > static_cast<size_t>(PTRDIFF_MAX) - kCpuAlignment) {
    throw OutOfMemoryError(
        fmt::format("cannot allocate {} bytes on {}: larger than any allocation "
                    "can be",
                    nbytes, device.str()));
  }
  if (device.is_cpu()) {
    if (nbytes > cpu_memory_bytes())
      throw OutOfMemoryError(fmt::format(
          "out of CPU memory: tried to allocate {} bytes, more than this machine's {} bytes of "
          "RAM and swap",
          nbytes, cpu_memory_bytes()));
    size_t rounded = (nbytes + kCpuAlignment - 1) / kCpuAlignment * kCpuAlignment;
    if (rounded == 0) rounded = kCpuAlignment;
    data = std::aligned_alloc(kCpuAlignment, rounded);
    if (!data)
      throw OutOfMemoryError(fmt::format("out of CPU memory: tried to allocate {} bytes", nbytes));
  } else {
#if TT_CUDA
    data = cuda::allocate(nbytes, device.index);
#else
    no_cuda();
#endif
  }
  std::shared_ptr<Storage> storage(new Storage(data, nbytes, device));
  if (current_keeper) current_keeper->kept_.push_back(storage);
  return storage;
}

Storage::~Storage() {
  if (device_.is_cpu()) {
    std::free(data_);
  } else {
#if TT_CUDA
    cuda::release(data_, nbytes_, device_.index);
#endif
  }
}

void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device, size_t nbytes) {
  if (nbytes == 0) return;
  if (dst_device.is_cpu() && src_device.is_cpu()) {
    std::memcpy(dst, src, nbytes);
    return;
  }
#if TT_CUDA
  cuda::copy(dst, dst_device.is_cpu() ? -1 : dst_device.index, src,
             src_device.is_cpu() ? -1 : src_device.index, nbytes);
#else
  no_cuda();
#endif
}

}  // namespace tt
