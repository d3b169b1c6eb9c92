#include "core/safetensors.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <new>
#include <set>
#include <utility>
#include <vector>

#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/file_util.h"
#include "core/text.h"

// The format stores little-endian bytes and we copy them verbatim into tensors.
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "tensortune's safetensors I/O assumes a little-endian host"
#endif

namespace tt::safetensors {
namespace {

using json = nlohmann::json;
using ordered_json = nlohmann::ordered_json;

constexpr char kMetadataKey[] = "__metadata__";
constexpr uint64_t kLengthBytes = 8;
// The limit the reference (Rust) implementation sets; it also bounds the memory a
// forged length can make us allocate.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;
// A valid header nests three levels (header, entry, shape); deeper input is refused
// while parsing, so nothing later (dump(), destructors) recurses deeply on it.
constexpr int kMaxJsonDepth = 16;
constexpr DType kAllDTypes[] = {DType::F64, DType::F32, DType::F16, DType::BF16,
                                DType::I64, DType::I32, DType::U8,  DType::Bool};

template <typename... Args>
[[noreturn]] void fail(const std::string& path, fmt::format_string<Args...> format,
                       Args&&... args) {
  throw Error(
      fmt::format("safetensors: '{}': {}", path, fmt::format(format, std::forward<Args>(args)...)));
}

// "an array", "a number", ...: for messages that say what a JSON value was instead.
std::string json_kind(const json& j) {
  const std::string type = j.type_name();
  if (j.is_null()) return "null";
  const bool vowel = std::string("aeiou").find(type[0]) != std::string::npos;
  return (vowel ? "an " : "a ") + type;
}

// One tensor as described by the header, validated against the data section.
struct Entry {
  std::string name;
  DType dtype = DType::F32;
  Shape shape;
  uint64_t begin = 0;
  uint64_t end = 0;
};

// A JSON value for a message: at most a short excerpt of it.
std::string shown(const json& value) { return excerpt(value.dump(), 60); }
// A name from the header for a message.
std::string shown(const std::string& name) { return excerpt(name, 80); }

// Thrown by the parser callback when the header nests too deeply.
struct TooDeep {};

// nlohmann keeps the last of two equal keys silently; a parser callback sees every
// key, so we keep one set of seen keys per open object to catch duplicates. It also
// stops the parse at kMaxJsonDepth.
class DuplicateKeyFinder {
 public:
  bool operator()(int depth, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        if (depth >= kMaxJsonDepth) throw TooDeep{};
        if (event == json::parse_event_t::object_start) frames_.emplace_back();
        break;
      case json::parse_event_t::object_end:
        if (!frames_.empty()) frames_.pop_back();
        break;
      case json::parse_event_t::key: {
        Frame& frame = frames_.back();
        const std::string key = parsed.get<std::string>();
        if (!frame.keys.insert(key).second && problem_.empty()) {
          problem_ = frames_.size() == 1 ? fmt::format("header lists '{}' twice", shown(key))
                                         : fmt::format("header entry '{}' has the key '{}' twice",
                                                       shown(frames_.front().last_key), shown(key));
        }
        frame.last_key = key;
        break;
      }
      default:
        break;
    }
    return true;
  }
  const std::string& problem() const { return problem_; }

 private:
  struct Frame {
    std::set<std::string> keys;
    std::string last_key;
  };
  std::vector<Frame> frames_;
  std::string problem_;
};

DType parse_dtype(const std::string& path, const std::string& name, const json& value) {
  if (!value.is_string()) {
    fail(path, "tensor '{}' has {} as 'dtype', expected a string such as \"F32\"", name,
         json_kind(value));
  }
  const std::string text = value.get<std::string>();
  std::vector<std::string> supported;
  for (DType t : kAllDTypes) {
    if (text == dtype_safetensors_name(t)) return t;
    supported.emplace_back(dtype_safetensors_name(t));
  }
  fail(path, "tensor '{}' has dtype '{}', which is not one of the supported {}", name, text,
       fmt::join(supported, ", "));
}

Shape parse_shape(const std::string& path, const std::string& name, const json& value) {
  if (!value.is_array()) {
    fail(path, "tensor '{}' has {} as 'shape', expected an array of sizes", name, json_kind(value));
  }
  if (value.size() > static_cast<size_t>(kMaxRank)) {
    fail(path, "tensor '{}' has {} dimensions but at most {} are supported", name, value.size(),
         kMaxRank);
  }
  Shape shape;
  for (const json& size : value) {
    if (!size.is_number_integer()) {
      fail(path, "tensor '{}' has shape {}, whose sizes must all be integers", name, shown(value));
    }
    if (!size.is_number_unsigned()) {
      fail(path, "tensor '{}' has negative size {} in shape {}", name, size.get<int64_t>(),
           shown(value));
    }
    const uint64_t s = size.get<uint64_t>();
    if (s > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      fail(path, "tensor '{}' has size {} in shape {}, too large for a 64-bit signed size", name, s,
           shown(value));
    }
    shape.push_back(static_cast<int64_t>(s));
  }
  return shape;
}

std::pair<uint64_t, uint64_t> parse_offsets(const std::string& path, const std::string& name,
                                            const json& value, uint64_t data_size) {
  if (!value.is_array() || value.size() != 2) {
    fail(path,
         "tensor '{}' has 'data_offsets' {}, expected an array [begin, end] of two byte offsets",
         name, shown(value));
  }
  for (const json& offset : value) {
    if (!offset.is_number_unsigned()) {
      fail(path, "tensor '{}' has data_offsets {}, but offsets must be non-negative integers", name,
           shown(value));
    }
  }
  const uint64_t begin = value[0].get<uint64_t>();
  const uint64_t end = value[1].get<uint64_t>();
  if (end < begin) {
    fail(path, "tensor '{}' has data_offsets [{}, {}], whose end is before its begin", name, begin,
         end);
  }
  if (end > data_size) {
    fail(path, "tensor '{}' has data_offsets [{}, {}], past the end of the data section ({} bytes)",
         name, begin, end, data_size);
  }
  return {begin, end};
}

// The byte size of a tensor, refusing shapes whose size overflows (which could
// otherwise wrap around to match the offsets). Zero sizes count as 1 in the check, as
// in Tensor's own: [0, 2^63-1, 2^63-1] holds no bytes but has no valid strides.
uint64_t checked_nbytes(const std::string& path, const std::string& name, const Shape& shape,
                        DType dtype) {
  int64_t extent = static_cast<int64_t>(dtype_size(dtype));
  bool empty = false;
  for (int64_t s : shape) {
    empty = empty || s == 0;
    if (__builtin_mul_overflow(extent, std::max<int64_t>(s, 1), &extent)) {
      fail(path, "tensor '{}' has shape {}, whose byte size does not fit in 64 bits", name,
           shape_str(shape));
    }
  }
  return empty ? 0 : static_cast<uint64_t>(extent);
}

Entry parse_entry(const std::string& path, const std::string& full_name, const json& value,
                  uint64_t data_size) {
  const std::string name = shown(full_name);  // for messages
  if (!value.is_object()) {
    fail(path,
         "tensor '{}' is described by {}, expected an object with dtype, shape and data_offsets",
         name, json_kind(value));
  }
  for (const char* field : {"dtype", "shape", "data_offsets"}) {
    if (!value.contains(field)) fail(path, "tensor '{}' has no '{}'", name, field);
  }
  Entry entry;
  entry.name = full_name;
  entry.dtype = parse_dtype(path, name, value.at("dtype"));
  entry.shape = parse_shape(path, name, value.at("shape"));
  std::tie(entry.begin, entry.end) = parse_offsets(path, name, value.at("data_offsets"), data_size);
  const uint64_t need = checked_nbytes(path, name, entry.shape, entry.dtype);
  if (entry.end - entry.begin != need) {
    fail(path,
         "tensor '{}' has {} bytes of data (data_offsets [{}, {}]) but dtype {} and shape {} need "
         "{} bytes",
         name, entry.end - entry.begin, entry.begin, entry.end, dtype_safetensors_name(entry.dtype),
         shape_str(entry.shape), need);
  }
  return entry;
}

std::map<std::string, std::string> parse_metadata(const std::string& path, const json& value) {
  if (!value.is_object()) {
    fail(path, "'{}' is {}, expected an object of strings", kMetadataKey, json_kind(value));
  }
  std::map<std::string, std::string> metadata;
  for (const auto& [key, item] : value.items()) {
    if (!item.is_string()) {
      fail(path, "metadata value for '{}' is {}, expected a string", shown(key), json_kind(item));
    }
    metadata[key] = item.get<std::string>();
  }
  return metadata;
}

// Empty tensors occupy no bytes and so cannot overlap anything.
void check_no_overlap(const std::string& path, std::vector<Entry> entries) {
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.begin, a.end, a.name) < std::tie(b.begin, b.end, b.name);
  });
  const Entry* reaches_furthest = nullptr;
  for (const Entry& e : entries) {
    if (e.begin == e.end) continue;
    if (reaches_furthest != nullptr && e.begin < reaches_furthest->end) {
      fail(path, "tensors '{}' (bytes [{}, {}]) and '{}' (bytes [{}, {}]) overlap",
           shown(reaches_furthest->name), reaches_furthest->begin, reaches_furthest->end,
           shown(e.name), e.begin, e.end);
    }
    if (reaches_furthest == nullptr || e.end > reaches_furthest->end) reaches_furthest = &e;
  }
}

// A read-only file descriptor that reads exact byte ranges with pread.
class InputFile {
 public:
  explicit InputFile(const std::string& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) fail(path, "cannot be opened for reading ({})", std::strerror(errno));
    struct stat info {};
    if (::fstat(fd_, &info) != 0) fail(path, "cannot be inspected ({})", std::strerror(errno));
    if (!S_ISREG(info.st_mode)) fail(path, "is not a regular file");
    size_ = static_cast<uint64_t>(info.st_size);
  }
  ~InputFile() { ::close(fd_); }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  uint64_t size() const { return size_; }

  // Callers check ranges against size() first; a short read here means the file
  // shrank while we were reading it.
  void read(uint64_t offset, void* dst, uint64_t nbytes, const std::string& what) const {
    auto* out = static_cast<char*>(dst);
    while (nbytes > 0) {
      const size_t chunk = static_cast<size_t>(std::min<uint64_t>(nbytes, 1u << 30));
      const ssize_t got = ::pread(fd_, out, chunk, static_cast<off_t>(offset));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) fail(path_, "reading {} failed ({})", what, std::strerror(errno));
      if (got == 0) fail(path_, "the file ended early while reading {}", what);
      out += got;
      offset += static_cast<uint64_t>(got);
      nbytes -= static_cast<uint64_t>(got);
    }
  }

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

json parse_header_json(const std::string& path, const std::string& header) {
  if (header.find_first_not_of(" \t\r\n") == std::string::npos) {
    fail(path, "header is empty, expected a JSON object");
  }
  DuplicateKeyFinder duplicates;
  json parsed;
  try {
    parsed = json::parse(header, std::ref(duplicates));
  } catch (const json::parse_error& e) {
    fail(path, "header is not valid JSON (parse error at byte {} of the {}-byte header)", e.byte,
         header.size());
  } catch (const TooDeep&) {
    fail(path, "header nests arrays or objects more than {} levels deep", kMaxJsonDepth);
  } catch (const json::out_of_range&) {
    // nlohmann refuses numbers beyond double's range (1e400) with out_of_range.
    fail(path, "header holds a number too large to represent");
  } catch (const json::exception& e) {
    fail(path, "header cannot be read as JSON ({})", excerpt(e.what(), 120));
  }
  if (!duplicates.problem().empty()) fail(path, "{}", duplicates.problem());
  if (!parsed.is_object()) fail(path, "header is {}, expected a JSON object", json_kind(parsed));
  return parsed;
}

// ---- saving ----

// Leaves the temporary file behind only if the process dies mid-write.
class TempOutputFile {
 public:
  explicit TempOutputFile(const std::string& final_path) : final_path_(final_path) {
    static std::atomic<uint64_t> counter{0};
    temp_path_ = fmt::format("{}.tmp.{}.{}", final_path, ::getpid(), counter++);
    file_ = std::fopen(temp_path_.c_str(), "wb");
    if (file_ == nullptr) {
      fail(final_path_, "cannot create the temporary file '{}' ({})", temp_path_,
           std::strerror(errno));
    }
  }
  ~TempOutputFile() {
    if (file_ != nullptr) std::fclose(file_);
    if (!committed_) std::remove(temp_path_.c_str());
  }
  TempOutputFile(const TempOutputFile&) = delete;
  TempOutputFile& operator=(const TempOutputFile&) = delete;

  void write(const void* data, size_t nbytes) {
    if (nbytes == 0) return;
    if (std::fwrite(data, 1, nbytes, file_) != nbytes) {
      fail(final_path_, "writing the temporary file '{}' failed ({})", temp_path_,
           std::strerror(errno));
    }
  }

  // Flushes to disk before the rename so that a crash leaves the old file or the
  // complete new one, never a truncated one.
  void commit() {
    const bool flushed = std::fflush(file_) == 0 && ::fsync(::fileno(file_)) == 0;
    const int saved_errno = errno;
    const bool closed = std::fclose(file_) == 0;
    file_ = nullptr;
    if (!flushed || !closed) {
      fail(final_path_, "writing the temporary file '{}' failed ({})", temp_path_,
           std::strerror(flushed ? errno : saved_errno));
    }
    if (std::rename(temp_path_.c_str(), final_path_.c_str()) != 0) {
      fail(final_path_, "renaming the temporary file '{}' into place failed ({})", temp_path_,
           std::strerror(errno));
    }
    committed_ = true;
    files::sync_parent_directory(final_path_);
  }

 private:
  std::string final_path_;
  std::string temp_path_;
  std::FILE* file_ = nullptr;
  bool committed_ = false;
};

Tensor contiguous_on_cpu(const Tensor& t) {
  Tensor c = t.is_contiguous() ? t : t.contiguous();
  return c.device().is_cpu() ? c : c.cpu();
}

File load_file(const std::string& path) {
  InputFile file(path);
  if (file.size() < kLengthBytes) {
    fail(path, "the file is {} bytes long, shorter than the 8-byte header length (truncated?)",
         file.size());
  }
  unsigned char length_bytes[kLengthBytes];
  file.read(0, length_bytes, kLengthBytes, "the header length");
  uint64_t header_size = 0;
  for (int i = static_cast<int>(kLengthBytes) - 1; i >= 0; --i) {
    header_size = (header_size << 8) | length_bytes[i];
  }
  if (header_size > file.size() - kLengthBytes) {
    fail(path, "header length {} runs past the end of the file ({} bytes)", header_size,
         file.size());
  }
  if (header_size > kMaxHeaderBytes) {
    fail(path, "header length {} is above the format's limit of {} bytes", header_size,
         kMaxHeaderBytes);
  }
  std::string header(static_cast<size_t>(header_size), '\0');
  file.read(kLengthBytes, header.data(), header_size, "the header");
  const json parsed = parse_header_json(path, header);

  const uint64_t data_start = kLengthBytes + header_size;
  const uint64_t data_size = file.size() - data_start;
  File result;
  std::vector<Entry> entries;
  for (const auto& [name, value] : parsed.items()) {
    if (name == kMetadataKey) {
      result.metadata = parse_metadata(path, value);
    } else {
      entries.push_back(parse_entry(path, name, value, data_size));
    }
  }
  check_no_overlap(path, entries);

  // Reading straight into each tensor's storage keeps peak memory at one copy.
  for (const Entry& e : entries) {
    Tensor t = Tensor::empty(e.shape, e.dtype, Device::cpu());
    if (e.end > e.begin) {
      file.read(data_start + e.begin, t.data_ptr(), e.end - e.begin,
                fmt::format("tensor '{}'", shown(e.name)));
    }
    // A C++ bool must hold 0 or 1; any other byte would be undefined behaviour to read,
    // so a BOOL byte is read as numpy does (nonzero = true).
    if (e.dtype == DType::Bool) {
      auto* bytes = static_cast<uint8_t*>(t.data_ptr());
      for (int64_t i = 0; i < t.numel(); ++i) bytes[i] = bytes[i] != 0;
    }
    result.tensors.emplace(e.name, std::move(t));
  }
  return result;
}

}  // namespace

File load(const std::string& path) {
  try {
    return load_file(path);
  } catch (const std::bad_alloc&) {
    throw OutOfMemoryError(
        fmt::format("safetensors: '{}': out of CPU memory while reading the file", path));
  }
}

void save(const std::string& path, const std::map<std::string, Tensor>& tensors,
          const std::map<std::string, std::string>& metadata) {
  std::vector<std::pair<std::string, Tensor>> ordered;
  for (const auto& [name, t] : tensors) {
    if (name == kMetadataKey) fail(path, "'{}' is reserved and cannot name a tensor", kMetadataKey);
    if (!t.defined()) fail(path, "tensor '{}' is undefined and cannot be saved", name);
    ordered.emplace_back(name, contiguous_on_cpu(t));
  }
  // Widest elements first (as the Python writer does) keeps every tensor aligned to
  // its element size within the 8-aligned data section.
  std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
    return dtype_size(a.second.dtype()) > dtype_size(b.second.dtype());
  });

  ordered_json header = ordered_json::object();
  if (!metadata.empty()) header[kMetadataKey] = metadata;
  uint64_t offset = 0;
  for (const auto& [name, t] : ordered) {
    const uint64_t nbytes = static_cast<uint64_t>(t.numel()) * dtype_size(t.dtype());
    header[name] = {{"dtype", dtype_safetensors_name(t.dtype())},
                    {"shape", t.sizes()},
                    {"data_offsets", {offset, offset + nbytes}}};
    offset += nbytes;
  }
  std::string header_text = header.dump();
  header_text.append((kLengthBytes - header_text.size() % kLengthBytes) % kLengthBytes, ' ');

  unsigned char length_bytes[kLengthBytes];
  uint64_t header_size = header_text.size();
  for (unsigned char& byte : length_bytes) {
    byte = static_cast<unsigned char>(header_size & 0xff);
    header_size >>= 8;
  }

  // A symlinked file is replaced where it points; device nodes, directories and
  // read-only files are refused rather than replaced.
  TempOutputFile out(files::output_target(path, "the safetensors file"));
  out.write(length_bytes, kLengthBytes);
  out.write(header_text.data(), header_text.size());
  for (const auto& [name, t] : ordered) {
    out.write(t.data_ptr(), static_cast<size_t>(t.numel()) * dtype_size(t.dtype()));
  }
  out.commit();
}

}  // namespace tt::safetensors
