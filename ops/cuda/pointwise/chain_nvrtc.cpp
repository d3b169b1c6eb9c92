#include "ops/cuda/pointwise/chain_nvrtc.h"

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <nvrtc.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <utility>
#include <vector>

#include "autotune/lookup.h"
#include "ops/cuda/pointwise/chain_source.h"

namespace tt::ops::cuda::chain {
namespace {

namespace fs = std::filesystem;

uint64_t fnv1a(uint64_t h, const std::string& s) {
  for (const unsigned char ch : s) {
    h ^= ch;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::vector<std::string> nvrtc_options(const std::string& arch) {
  // -default-device: the header's host-only helpers (op names, dtype checks) parse as
  // device functions, unused; NVRTC refuses host functions otherwise. fmad stays on,
  // as in nvcc's build of the interpreter, so both paths round alike.
  return {"--gpu-architecture=" + arch, "-std=c++17", "-default-device"};
}

bool read_file(const fs::path& p, std::string& out) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  out = s.str();
  return !out.empty();
}

// Written under a temporary name and renamed, so a concurrent reader sees the whole file
// or none; failures are silent (the cache is an optimisation).
void write_file(const fs::path& p, const std::string& data) {
  std::error_code ec;
  fs::create_directories(p.parent_path(), ec);
  const fs::path tmp = p.string() + fmt::format(".tmp{}", static_cast<long>(::getpid()));
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) return;
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!out) return;
  }
  fs::rename(tmp, p, ec);
  if (ec) fs::remove(tmp, ec);
}

std::string load_error(cudaError_t e, const char* what) {
  return fmt::format("{} failed: {}", what, cudaGetErrorString(e));
}

}  // namespace

NvrtcResult nvrtc_compile(const std::string& source, const std::string& arch) {
  NvrtcResult r;
  std::vector<const char*> names, texts;
  for (const SourceHeader& h : generated_headers()) {
    names.push_back(h.name);
    texts.push_back(h.text->c_str());
  }
  nvrtcProgram prog = nullptr;
  nvrtcResult rc = nvrtcCreateProgram(&prog, source.c_str(), "tt_chain.cu",
                                      static_cast<int>(names.size()), texts.data(), names.data());
  if (rc != NVRTC_SUCCESS) {
    r.log = std::string("nvrtcCreateProgram: ") + nvrtcGetErrorString(rc);
    return r;
  }
  const std::vector<std::string> options = nvrtc_options(arch);
  std::vector<const char*> opts;
  for (const std::string& o : options) opts.push_back(o.c_str());
  rc = nvrtcCompileProgram(prog, static_cast<int>(opts.size()), opts.data());
  size_t log_size = 0;
  if (nvrtcGetProgramLogSize(prog, &log_size) == NVRTC_SUCCESS && log_size > 1) {
    r.log.resize(log_size);
    nvrtcGetProgramLog(prog, r.log.data());
    r.log.resize(log_size - 1);
  }
  if (rc == NVRTC_SUCCESS) {
    size_t size = 0;
    if (nvrtcGetCUBINSize(prog, &size) == NVRTC_SUCCESS && size > 0) {
      r.cubin.resize(size);
      r.ok = nvrtcGetCUBIN(prog, r.cubin.data()) == NVRTC_SUCCESS;
    }
  } else if (r.log.empty()) {
    r.log = nvrtcGetErrorString(rc);
  }
  nvrtcDestroyProgram(&prog);
  return r;
}

std::string nvrtc_arch(int device) {
  int major = 0, minor = 0;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
  return fmt::format("sm_{}{}{}", major, minor, major == 9 && minor == 0 ? "a" : "");
}

std::string nvrtc_version() {
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  return fmt::format("{}.{}", major, minor);
}

std::string kernel_cache_name(const std::string& source, const std::string& arch) {
  uint64_t h = 0xcbf29ce484222325ull;
  h = fnv1a(h, source);
  for (const SourceHeader& header : generated_headers())
    h = fnv1a(fnv1a(h, header.name), *header.text);
  for (const std::string& o : nvrtc_options(arch)) h = fnv1a(h, o);
  return fmt::format("chain-{:016x}-{}-nvrtc{}.cubin", h, arch, nvrtc_version());
}

std::string kernel_cache_dir() {
  return (fs::path(autotune::user_cache_database_path()).parent_path() / "kernels").string();
}

LoadedKernel load_generated(const std::string& source, int device) {
  struct Entry {
    cudaLibrary_t lib = nullptr;
    const void* fn = nullptr;
    std::string why;
  };
  static std::mutex mu;
  static std::map<std::pair<std::string, int>, Entry> loaded;
  std::lock_guard<std::mutex> lock(mu);
  const auto key = std::make_pair(source, device);
  if (const auto it = loaded.find(key); it != loaded.end()) {
    return {it->second.fn, "in memory", it->second.why};
  }
  LoadedKernel result;
  Entry& entry = loaded[key];
  const std::string arch = nvrtc_arch(device);
  const fs::path file = fs::path(kernel_cache_dir()) / kernel_cache_name(source, arch);
  // The library loads into whichever device is current; the caller's guard picks it.
  const auto load = [&](const std::string& cubin, cudaKernel_t& kernel) {
    int previous = 0;
    cudaGetDevice(&previous);
    cudaSetDevice(device);
    cudaError_t e =
        cudaLibraryLoadData(&entry.lib, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
    if (e == cudaSuccess) {
      e = cudaLibraryGetKernel(&kernel, entry.lib, kGeneratedKernelName);
      entry.why = e == cudaSuccess ? "" : load_error(e, "cudaLibraryGetKernel");
    } else {
      entry.why = load_error(e, "cudaLibraryLoadData");
    }
    cudaSetDevice(previous);
    if (e != cudaSuccess) cudaGetLastError();  // no error left for the next launch's check
    return e == cudaSuccess;
  };
  cudaKernel_t kernel = nullptr;
  std::string cubin;
  // A cache file that does not load (truncated, another driver's) is compiled again.
  if (read_file(file, cubin) && load(cubin, kernel)) {
    result.how = "from the disk cache";
  } else {
    const auto t0 = std::chrono::steady_clock::now();
    NvrtcResult compiled = nvrtc_compile(source, arch);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (!compiled.ok) {
      // The log's head is enough for explain(); the whole log can run to pages.
      entry.why =
          fmt::format("NVRTC could not compile it for {}: {}", arch, compiled.log.substr(0, 400));
      result.why = entry.why;
      return result;
    }
    if (!load(compiled.cubin, kernel)) {
      result.why = entry.why;
      return result;
    }
    write_file(file, compiled.cubin);
    result.how = fmt::format("compiled in {:.0f} ms", ms);
  }
  entry.fn = reinterpret_cast<const void*>(kernel);
  result.fn = entry.fn;
  return result;
}

}  // namespace tt::ops::cuda::chain
