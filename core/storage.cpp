#include "core/storage.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "core/error.h"
#if TT_CUDA
#include "core/cuda/runtime.h"
#endif

namespace tt {
namespace {
constexpr size_t kCpuAlignment = 64;

#if !TT_CUDA
[[noreturn]] void no_cuda() {
  TT_FAIL("this operation needs CUDA but tensortune was built without CUDA (TT_CUDA=OFF)");
}
#endif
}  // namespace

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
  return std::shared_ptr<Storage>(new Storage(data, nbytes, device));
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
