// The CUDA runtime layer of core: device count, the one stream per device that all
// ops use, the caching allocator, copies and random fill. core/storage.cpp and
// core/tensor.cpp call these; without TT_CUDA they are not compiled and the callers
// raise "tensortune was built without CUDA".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/dtype.h"

namespace tt::cuda {

// Number of usable CUDA devices; 0 (never an error) when there is no driver or GPU.
int device_count();
bool is_available();

// What `tt devices` prints and the autotuner's device identity is built from.
struct DeviceInfo {
  int index = 0;
  std::string name;  // "NVIDIA H100 80GB HBM3"
  int sm_count = 0;  // streaming multiprocessors
  int cc_major = 0;  // compute capability, e.g. 9.0
  int cc_minor = 0;
  size_t total_memory = 0;  // bytes
  size_t free_memory = 0;   // bytes, at the time of the call
  int driver_version = 0;   // cudaDriverGetVersion, e.g. 13000
  int runtime_version = 0;  // cudaRuntimeGetVersion, e.g. 13000
};
// Throws tt::Error for a device that does not exist.
DeviceInfo device_info(int device);

// Caching allocator: freed blocks are kept per device and size class and reused.
// Throws tt::OutOfMemoryError saying how many bytes were asked and how many are free.
void* allocate(size_t nbytes, int device);
void release(void* ptr, size_t nbytes, int device);

struct MemoryStats {
  size_t bytes_in_use = 0;    // handed out to live tensors
  size_t bytes_reserved = 0;  // held from the driver (in use + cached)
  size_t num_allocs = 0;      // allocator calls served
  size_t num_cache_hits = 0;  // of those, served from the cache
};
MemoryStats memory_stats(int device = 0);
void empty_cache(int device = 0);  // returns cached blocks to the driver

// Copies on the device's stream and waits for completion. kind: host/device pairs
// are inferred from the devices (-1 = host).
void copy(void* dst, int dst_device, const void* src, int src_device, size_t nbytes);

// Fills n float32 values at dst (on device) with philox::uniform/normal(seed, i)
// scaled as lo + (hi - lo) * u (uniform) or as is (normal).
void fill_uniform(float* dst, int64_t n, uint64_t seed, double lo, double hi, int device);
void fill_normal(float* dst, int64_t n, uint64_t seed, int device);
void fill_value(void* dst, int64_t n, size_t elem_size, const void* value, int device);
// dst[i] = philox::randint(seed, i, low, range): int64 values in [low, low + range).
void fill_randint(int64_t* dst, int64_t n, uint64_t seed, int64_t low, uint64_t range, int device);

// Copies a strided view into a contiguous buffer on the same device (rank <= 8).
void strided_copy(void* dst, const void* src, size_t elem_size, int rank, const int64_t* sizes,
                  const int64_t* src_strides, int64_t src_offset, int device);

// Converts n contiguous elements of src_type at src into dst_type at dst (both on
// `device`) with core/convert.h's rules, the same bits as the CPU conversion.
void convert(void* dst, DType dst_type, const void* src, DType src_type, int64_t n, int device);

void synchronize(int device = 0);

}  // namespace tt::cuda
