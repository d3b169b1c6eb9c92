// Fuzzes tt::safetensors::load with arbitrary file contents. Only tt::Error may leave
// the reader (anything else escapes and is a crash). Property: a file that loads saves
// and loads back to the same names, dtypes, shapes, bytes and metadata.
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>

#include "core/error.h"
#include "core/safetensors.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

// One private directory per process, on tmpfs when there is one.
const std::string& work_dir() {
  static const std::string dir = [] {
    std::string pattern =
        (::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") + std::string("/tt_fuzz_XXXXXX");
    if (::mkdtemp(pattern.data()) == nullptr) tt::fuzz::property_failed("cannot create a temp dir");
    return pattern;
  }();
  return dir;
}

bool same_bytes(const tt::Tensor& a, const tt::Tensor& b) {
  const size_t n = static_cast<size_t>(a.numel()) * tt::dtype_size(a.dtype());
  return n == static_cast<size_t>(b.numel()) * tt::dtype_size(b.dtype()) &&
         (n == 0 || std::memcmp(a.data_ptr(), b.data_ptr(), n) == 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using tt::fuzz::require;
  const std::string in = work_dir() + "/in.safetensors";
  const std::string out = work_dir() + "/out.safetensors";
  {
    std::ofstream file(in, std::ios::binary | std::ios::trunc);
    file.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  tt::safetensors::File first;
  try {
    first = tt::safetensors::load(in);
  } catch (const tt::Error&) {
    return 0;  // a clean refusal
  }
  tt::safetensors::File second;
  try {
    tt::safetensors::save(out, first.tensors, first.metadata);
    second = tt::safetensors::load(out);
  } catch (const tt::Error& e) {
    tt::fuzz::property_failed(std::string("a loaded file does not save and load back: ") +
                              e.what());
  }
  require(first.metadata == second.metadata, "metadata changed in a round trip");
  require(first.tensors.size() == second.tensors.size(), "tensor count changed in a round trip");
  for (const auto& [name, t] : first.tensors) {
    const auto it = second.tensors.find(name);
    require(it != second.tensors.end(), "tensor '" + name + "' lost in a round trip");
    require(it->second.dtype() == t.dtype() && it->second.sizes() == t.sizes(),
            "tensor '" + name + "' changed dtype or shape in a round trip");
    require(same_bytes(t, it->second), "tensor '" + name + "' changed bytes in a round trip");
  }
  return 0;
}
