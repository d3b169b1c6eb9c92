// NVRTC for the generated chain kernels (chain_source.h): compile a kernel's source for
// one GPU architecture, keep the machine code on disk under the user cache (next to the
// tuning database: $XDG_CACHE_HOME/tensortune/kernels, else ~/.cache/tensortune/kernels),
// named by a hash of the source and its headers, the architecture and NVRTC's version,
// and load it through the runtime's library API (cudaLibraryLoadData, no libcuda link).
// A second process finds the file and skips the compile; an in-memory cache keyed by
// source and device skips both within a process.
#pragma once

#include <string>

namespace tt::ops::cuda::chain {

// What NVRTC made of a source: the cubin, or the log of a failed compile.
struct NvrtcResult {
  bool ok = false;
  std::string cubin;
  std::string log;
};

// Compile `source` (kernel kGeneratedKernelName, the headers of generated_headers()) for
// `arch` ("sm_90a"). Needs no GPU.
NvrtcResult nvrtc_compile(const std::string& source, const std::string& arch);

// "sm_90a" for compute capability 9.0 (its wgmma-capable target), else "sm_<major><minor>".
std::string nvrtc_arch(int device);

// NVRTC's version, "13.0".
std::string nvrtc_version();

// The cache file's name for this source on `arch`: "chain-<hash>-<arch>-nvrtc<version>.cubin".
std::string kernel_cache_name(const std::string& source, const std::string& arch);

// The directory of the kernel cache.
std::string kernel_cache_dir();

// A loaded generated kernel, or why there is none.
struct LoadedKernel {
  const void* fn = nullptr;  // a cudaKernel_t, launchable with cudaLaunchKernel
  std::string how;           // "compiled in 85 ms", "from the disk cache", "in memory"
  std::string why;           // the failure, when fn is null
};

// The kernel for `source` on `device`: from memory, else the disk cache, else compiled
// (and written to disk). Thread-safe.
LoadedKernel load_generated(const std::string& source, int device);

}  // namespace tt::ops::cuda::chain
