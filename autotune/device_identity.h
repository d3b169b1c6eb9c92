// Device identity: which GPU a tuning result belongs to.
//
// The key that files tuning results under a device is "<name>|sm_<XY>|<N>sm", e.g.
// "NVIDIA H200|sm_90|132sm": what a kernel's best config depends on is the chip (name,
// compute capability) and how much of it is there (SM count, which also tells a MIG
// slice from the whole GPU). Memory size is recorded but is not part of the key: the
// total reported by the driver moves with ECC mode and driver reservations while the
// best config does not. Driver and CUDA runtime versions are provenance only: a driver
// update keeps the device's results (tuning again refreshes them).
//
// current_device_identity(i) asks the CUDA runtime once per device and caches the
// answer (the lookup on every forward needs it). Tests build identities by hand with
// make_device_identity().
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tt::autotune {

struct DeviceIdentity {
  std::string name;  // "NVIDIA H200"
  int cc_major = 0;  // compute capability 9.0 -> 9, 0
  int cc_minor = 0;
  int sm_count = 0;
  uint64_t memory_bytes = 0;  // total global memory
  // Provenance.
  std::string driver;    // kernel driver version "580.159.04" ("" if unknown)
  int cuda_driver = 0;   // cudaDriverGetVersion, e.g. 13000
  int cuda_runtime = 0;  // cudaRuntimeGetVersion, e.g. 13000

  // "sm_90"
  std::string compute_capability() const;
  // "NVIDIA H200|sm_90|132sm"
  std::string key() const;
};

DeviceIdentity make_device_identity(std::string name, int cc_major, int cc_minor, int sm_count,
                                    uint64_t memory_bytes);

// Reads "sm_90" / "sm_120" (the last digit is the minor version) into major, minor;
// throws tt::Error otherwise.
void parse_compute_capability(std::string_view text, int* major, int* minor);

// The identity of CUDA device `device`, cached after the first call. Throws tt::Error
// when there is no such device or tensortune was built without CUDA.
const DeviceIdentity& current_device_identity(int device = 0);

}  // namespace tt::autotune
