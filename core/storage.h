// Storage: one allocation of raw bytes on one device, shared by all tensor views of
// it. CPU memory is 64-byte aligned (so Eigen and 16-byte vector loads are always
// aligned); CUDA memory comes from the caching allocator (core/cuda/allocator.h).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "core/device.h"

namespace tt {

class Storage {
 public:
  static std::shared_ptr<Storage> allocate(size_t nbytes, Device device);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }

 private:
  Storage(void* data, size_t nbytes, Device device)
      : data_(data), nbytes_(nbytes), device_(device) {}
  void* data_;
  size_t nbytes_;
  Device device_;
};

// While one is alive, every Storage its thread allocates is also held by it, and
// take() hands them over: what a CUDA graph capture allocates must outlive the capture,
// since the captured kernels write those blocks again at every launch, and no other
// tensor may be given them in between. Nested keepers each see their own allocations.
class StorageKeeper {
 public:
  StorageKeeper();
  ~StorageKeeper();
  StorageKeeper(const StorageKeeper&) = delete;
  StorageKeeper& operator=(const StorageKeeper&) = delete;
  std::vector<std::shared_ptr<Storage>> take() { return std::move(kept_); }

 private:
  friend class Storage;
  std::vector<std::shared_ptr<Storage>> kept_;
  StorageKeeper* previous_;
};

// Copies nbytes between any two devices (host<->device, device<->device), on the
// device's stream; returns when the copy is complete.
void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device, size_t nbytes);

}  // namespace tt
