// The caching allocator (see allocator.h) and the per-device instances behind
// tt::cuda::allocate/release/memory_stats/empty_cache.
#include "core/cuda/allocator.h"

#include <fmt/format.h>

#include <cstdio>
#include <limits>
#include <vector>

#include "core/cuda/check.h"
#include "core/cuda/stream.h"
#include "core/error.h"

namespace tt::cuda {

std::string format_bytes(size_t nbytes) {
  if (nbytes < 1024) return fmt::format("{} B", nbytes);
  const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(nbytes) / 1024.0;
  int unit = 0;
  while (value >= 1024.0 && unit < 5) {
    value /= 1024.0;
    ++unit;
  }
  return fmt::format("{:.2f} {}", value, units[unit]);
}

CachingAllocator::CachingAllocator(int device, std::unique_ptr<DeviceMemory> memory)
    : device_(device), memory_(std::move(memory)) {}

CachingAllocator::~CachingAllocator() {
  std::lock_guard<std::mutex> lock(mutex_);
  empty_cache_locked();
  for (auto& [ptr, size] : in_use_) memory_->free(ptr);
}

size_t CachingAllocator::size_class(size_t nbytes) {
  size_t rounding = nbytes <= kLargeThreshold ? kSmallRounding : kLargeRounding;
  return (nbytes + rounding - 1) / rounding * rounding;
}

void* CachingAllocator::allocate(size_t nbytes) {
  if (nbytes == 0) return nullptr;
  // Rounding up must not wrap around; no device has this much memory anyway.
  if (nbytes > std::numeric_limits<size_t>::max() - kLargeRounding) throw_out_of_memory(nbytes);
  size_t size = size_class(nbytes);

  std::lock_guard<std::mutex> lock(mutex_);
  void* ptr = nullptr;
  auto bin = cached_.find(size);
  if (bin != cached_.end() && !bin->second.empty()) {
    ptr = bin->second.back();
    bin->second.pop_back();
    ++stats_.num_cache_hits;
  } else {
    ptr = memory_->malloc(size);
    if (ptr == nullptr) {
      // The cache may hold enough memory in blocks of other size classes.
      empty_cache_locked();
      ptr = memory_->malloc(size);
    }
    if (ptr == nullptr) throw_out_of_memory(nbytes);
    stats_.bytes_reserved += size;
  }
  in_use_.emplace(ptr, size);
  stats_.bytes_in_use += size;
  ++stats_.num_allocs;
  return ptr;
}

void CachingAllocator::release(void* ptr) {
  if (ptr == nullptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = in_use_.find(ptr);
  if (it == in_use_.end()) {
    std::fprintf(stderr, "tensortune: ignoring release of %p, which cuda:%d did not allocate\n",
                 ptr, device_);
    return;
  }
  size_t size = it->second;
  in_use_.erase(it);
  stats_.bytes_in_use -= size;
  cached_[size].push_back(ptr);
}

MemoryStats CachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void CachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  empty_cache_locked();
}

void CachingAllocator::empty_cache_locked() {
  for (auto& [size, blocks] : cached_) {
    for (void* ptr : blocks) {
      memory_->free(ptr);
      stats_.bytes_reserved -= size;
    }
  }
  cached_.clear();
}

void CachingAllocator::throw_out_of_memory(size_t nbytes) {
  size_t free_bytes = 0, total_bytes = 0;
  memory_->mem_info(&free_bytes, &total_bytes);
  throw OutOfMemoryError(fmt::format(
      "CUDA out of memory on cuda:{}: tried to allocate {}; {} free of {}, {} reserved by "
      "tensortune.",
      device_, format_bytes(nbytes), format_bytes(free_bytes), format_bytes(total_bytes),
      format_bytes(stats_.bytes_reserved)));
}

namespace {

class CudaDeviceMemory final : public DeviceMemory {
 public:
  explicit CudaDeviceMemory(int device) : device_(device) {}

  void* malloc(size_t nbytes) override {
    DeviceGuard guard(device_);
    void* ptr = nullptr;
    cudaError_t status = cudaMalloc(&ptr, nbytes);
    if (status == cudaErrorMemoryAllocation) {
      cudaGetLastError();  // not sticky: clear it so that later checks do not see it
      return nullptr;
    }
    TT_CUDA_CHECK(status);
    return ptr;
  }

  void free(void* ptr) override {
    DeviceGuard guard(device_);
    // cudaFree waits for the device, so no kernel still uses the block afterwards.
    TT_CUDA_CHECK(cudaFree(ptr));
  }

  void mem_info(size_t* free_bytes, size_t* total_bytes) override {
    DeviceGuard guard(device_);
    TT_CUDA_CHECK(cudaMemGetInfo(free_bytes, total_bytes));
  }

 private:
  int device_;
};

CachingAllocator& allocator_for(int device) {
  check_device(device);
  // Never destroyed: tensors that outlive main() (statics) still release into it,
  // and the driver reclaims device memory at process exit anyway.
  static std::mutex mutex;
  static auto* allocators = new std::vector<std::unique_ptr<CachingAllocator>>(device_count());
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = (*allocators)[device];
  if (!slot) {
    slot = std::make_unique<CachingAllocator>(device, std::make_unique<CudaDeviceMemory>(device));
  }
  return *slot;
}

}  // namespace

void* allocate(size_t nbytes, int device) { return allocator_for(device).allocate(nbytes); }

void release(void* ptr, size_t /*nbytes*/, int device) {
  if (ptr == nullptr) return;
  allocator_for(device).release(ptr);
}

MemoryStats memory_stats(int device) { return allocator_for(device).stats(); }

void empty_cache(int device) { allocator_for(device).empty_cache(); }

}  // namespace tt::cuda
