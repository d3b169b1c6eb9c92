// The caching allocator behind tt::cuda::allocate/release (core/cuda/runtime.h).
//
// cudaMalloc and cudaFree are slow (cudaFree also synchronises the whole device), and
// a model allocates the same few tensor sizes on every forward pass. So freed blocks
// are not returned to the driver but kept in bins keyed by size class, one allocator
// per device, and a later request of the same class takes one back. Sizes are
// rounded up to 512 bytes, and above 1 MiB to 2 MiB, so that slightly different
// requests share a class. A block serves only requests of its own class (no
// splitting): simple, and fragmentation is bounded because the first cudaMalloc that
// fails empties the cache and retries before it reports out of memory.
//
// Reusing a block is safe without events because every op runs on the device's one
// stream (core/cuda/stream.h): work issued by the block's next owner is queued behind
// every kernel its previous owner issued.
//
// The driver side is behind the DeviceMemory interface so that the bookkeeping can
// be tested without a GPU.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/cuda/runtime.h"

namespace tt::cuda {

// What the allocator needs from the driver for one device.
class DeviceMemory {
 public:
  virtual ~DeviceMemory() = default;
  // nullptr when the device is out of memory; throws tt::Error on any other failure.
  virtual void* malloc(size_t nbytes) = 0;
  virtual void free(void* ptr) = 0;
  virtual void mem_info(size_t* free_bytes, size_t* total_bytes) = 0;
};

class CachingAllocator {
 public:
  static constexpr size_t kSmallRounding = 512;
  static constexpr size_t kLargeThreshold = size_t{1} << 20;
  static constexpr size_t kLargeRounding = size_t{2} << 20;

  CachingAllocator(int device, std::unique_ptr<DeviceMemory> memory);
  ~CachingAllocator();  // returns every block, cached or not, to the driver
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // The size class (bytes actually reserved) of a request of nbytes > 0.
  static size_t size_class(size_t nbytes);

  // nullptr for nbytes == 0. Throws tt::OutOfMemoryError when the driver has no
  // room even after the cache was emptied.
  void* allocate(size_t nbytes);
  // Takes back a block from allocate(); nullptr is ignored. Never throws (it runs
  // in destructors); an unknown pointer is reported on stderr and ignored.
  void release(void* ptr);
  MemoryStats stats() const;
  void empty_cache();

 private:
  void empty_cache_locked();
  [[noreturn]] void throw_out_of_memory(size_t nbytes);

  const int device_;
  std::unique_ptr<DeviceMemory> memory_;
  mutable std::mutex mutex_;
  // Size class -> free blocks, most recently freed last: reusing the warmest block
  // first keeps it in L2 and makes reuse predictable.
  std::unordered_map<size_t, std::vector<void*>> cached_;
  std::unordered_map<void*, size_t> in_use_;  // live block -> size class
  MemoryStats stats_;
};

// "2.00 GiB", "512 B": for memory messages.
std::string format_bytes(size_t nbytes);

}  // namespace tt::cuda
