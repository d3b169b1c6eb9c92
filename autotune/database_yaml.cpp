// The tuning database's YAML form (schema in autotune/database.h): a strict reader
// that names the line of every problem, and a writer whose output diffs well.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "autotune/database.h"
#include "core/error.h"
#include "core/text.h"

namespace tt::autotune {
namespace {

// YAML ends an implicit key at 1024 characters, and yaml-cpp's explicit keys ("? key") are
// not written back readably (the style spreads to the keys after them and into flow maps),
// so a key whose written form (its quotes and escapes: a form feed is "\f") would pass
// 1000 characters is refused by the reader and by the writer alike.
constexpr size_t kMaxWrittenKey = 1000;
size_t written_key_size(const std::string& key, bool quoted) {
  YAML::Emitter alone;
  if (quoted) alone << YAML::DoubleQuoted;
  alone << key;
  return alone.size();
}
std::string long_key_message(const std::string& what, const std::string& key, size_t size) {
  return fmt::format("the {} '{}' is {} characters as written; a key holds at most {}", what,
                     excerpt(key), size, kMaxWrittenKey);
}

// Thrown by Reader::fail so that a message is wrapped in file and line only once.
class MalformedDatabase : public Error {
 public:
  using Error::Error;
};

constexpr size_t kMaxDepth = 32;

// A first pass over the parser's events, before any node is built: refuses what
// yaml-cpp would accept but we must not (see database.h): aliases, deep nesting, a
// key given twice in one mapping, scalars that are not valid UTF-8 or hold NUL, and
// a second document. The events come in order, so the first problem found is the
// first in the file.
class Guard : public YAML::EventHandler {
 public:
  explicit Guard(std::string origin) : origin_(std::move(origin)) {}

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { node(mark, "~", false); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
    fail(mark, "YAML aliases (*name) are not allowed in a tuning database; write the value out");
  }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                const std::string& value) override {
    if (value.find('\0') != std::string::npos) {
      fail(mark, fmt::format("the text '{}' holds a NUL character", excerpt(value)));
    }
    if (!is_valid_utf8(value)) {
      fail(mark, fmt::format("the text '{}' is not valid UTF-8", excerpt(value)));
    }
    node(mark, value, true);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    node(mark, "", false);
    open(mark, false);
  }
  void OnSequenceEnd() override { frames_.pop_back(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    node(mark, "", false);
    open(mark, true);
  }
  void OnMapEnd() override { frames_.pop_back(); }

 private:
  struct Frame {
    bool is_map = false;
    bool expect_key = true;
    std::map<std::string, int> key_lines;  // scalar key -> line (1-based)
  };

  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& message) const {
    throw MalformedDatabase(fmt::format("malformed tuning database {}, line {}, column {}: {}",
                                        origin_, mark.line + 1, mark.column + 1, message));
  }

  void open(const YAML::Mark& mark, bool is_map) {
    if (frames_.size() >= kMaxDepth) {
      fail(mark, fmt::format("mappings and lists nest more than {} levels deep", kMaxDepth));
    }
    frames_.push_back(Frame{is_map, true, {}});
  }

  // A node starts; in a mapping, every other node is a key.
  void node(const YAML::Mark& mark, const std::string& text, bool is_scalar) {
    if (frames_.empty() || !frames_.back().is_map) return;
    Frame& frame = frames_.back();
    const bool is_key = frame.expect_key;
    frame.expect_key = !frame.expect_key;
    if (!is_key || !is_scalar) return;
    const auto [it, added] = frame.key_lines.emplace(text, mark.line + 1);
    if (!added) {
      fail(mark, fmt::format("the key '{}' appears twice in one mapping (first on line {})",
                             excerpt(text), it->second));
    }
  }

  std::string origin_;
  std::vector<Frame> frames_;
};

// Reads one document, remembering where it came from for error messages.
class Reader {
 public:
  explicit Reader(std::string origin) : origin_(std::move(origin)) {}

  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& message) const {
    if (mark.is_null()) {
      throw MalformedDatabase(fmt::format("malformed tuning database {}: {}", origin_, message));
    }
    throw MalformedDatabase(fmt::format("malformed tuning database {}, line {}, column {}: {}",
                                        origin_, mark.line + 1, mark.column + 1, message));
  }

  void expect_map(const YAML::Node& node, const std::string& what) const {
    if (!node.IsMap()) fail(node.Mark(), fmt::format("{} must be a mapping", what));
  }

  // Every key of `node` must be one of `known` (the schema is strict so that a typo
  // in a hand-edited file is reported, not ignored).
  void expect_keys(const YAML::Node& node, const std::string& what,
                   const std::vector<std::string>& known) const {
    for (const auto& item : node) {
      const std::string key = scalar(item.first, what + " key");
      if (std::find(known.begin(), known.end(), key) == known.end()) {
        fail(item.first.Mark(), fmt::format("{} has an unknown field '{}' (known fields: {})", what,
                                            excerpt(key), fmt::join(known, ", ")));
      }
    }
  }

  YAML::Node required(const YAML::Node& map, const char* field, const std::string& what) const {
    YAML::Node node = map[field];
    if (!node) fail(map.Mark(), fmt::format("{} has no '{}' field", what, field));
    return node;
  }

  std::string scalar(const YAML::Node& node, const std::string& what) const {
    if (!node.IsScalar()) fail(node.Mark(), fmt::format("{} must be a scalar", what));
    return node.Scalar();
  }

  // A map key the writer writes back (kMaxWrittenKey); `quoted` as the writer writes it.
  std::string map_key(const YAML::Node& node, const std::string& what, bool quoted) const {
    std::string text = scalar(node, what);
    if (const size_t size = written_key_size(text, quoted); size > kMaxWrittenKey) {
      fail(node.Mark(), long_key_message(what, text, size));
    }
    return text;
  }

  double number(const YAML::Node& node, const std::string& what) const {
    const std::string text = scalar(node, what);
    double value = 0.0;
    if (!YAML::convert<double>::decode(node, value) || !std::isfinite(value) || value < 0.0) {
      fail(node.Mark(),
           fmt::format("{} must be a finite number >= 0 but is '{}'", what, excerpt(text)));
    }
    return value;
  }

  int64_t integer(const YAML::Node& node, const std::string& what,
                  int64_t min = std::numeric_limits<int64_t>::min(),
                  int64_t max = std::numeric_limits<int64_t>::max()) const {
    const std::string text = scalar(node, what);
    int64_t value = 0;
    if (!YAML::convert<int64_t>::decode(node, value)) {
      fail(node.Mark(), fmt::format("{} must be an integer but is '{}'", what, excerpt(text)));
    }
    if (value < min || value > max) {
      fail(node.Mark(),
           fmt::format("{} must be an integer from {} to {} but is {}", what, min, max, value));
    }
    return value;
  }

  // {impl: own, bm: 128} or "impl=own,bm=128".
  Config config(const YAML::Node& node, const std::string& what) const {
    if (node.IsScalar()) {
      try {
        return Config::parse(node.Scalar());
      } catch (const Error& e) {
        fail(node.Mark(), fmt::format("{}: {}", what, e.what()));
      }
    }
    if (node.IsNull()) return Config();
    expect_map(node, what);
    Config out;
    for (const auto& item : node) {
      const std::string name = map_key(item.first, what + " key", false);
      try {
        if (name == "impl") {
          out.set_impl(scalar(item.second, what + " impl"));
        } else {
          TT_CHECK(!out.has(name), "parameter '{}' is given twice", name);
          out.set(name, integer(item.second, fmt::format("{} value of '{}'", what, name)));
        }
      } catch (const MalformedDatabase&) {
        throw;
      } catch (const Error& e) {
        fail(item.first.Mark(), fmt::format("{}: {}", what, e.what()));
      }
    }
    return out;
  }

  TuningEntry entry(const YAML::Node& node, const std::string& what) const {
    expect_map(node, what);
    expect_keys(node, what,
                {"config", "median_ms", "p10_ms", "p90_ms", "default_ms", "default_config",
                 "measured", "variants_tried", "variants_rejected", "rejected", "tuned_at",
                 "driver", "cuda_driver", "cuda_runtime", "tensortune_version"});
    TuningEntry e;
    e.config = config(required(node, "config", what), what + " config");
    e.median_ms = number(required(node, "median_ms", what), what + " median_ms");
    if (node["p10_ms"]) e.p10_ms = number(node["p10_ms"], what + " p10_ms");
    if (node["p90_ms"]) e.p90_ms = number(node["p90_ms"], what + " p90_ms");
    e.default_ms = number(required(node, "default_ms", what), what + " default_ms");
    if (node["default_config"])
      e.default_config = config(node["default_config"], what + " default_config");
    if (node["measured"]) e.measured = scalar(node["measured"], what + " measured");
    // Counts are bounded (no sweep tries 10^12 variants), so that sums over an entry's
    // counts (tt db show) cannot overflow, whatever the file says.
    constexpr int64_t kMaxCount = 1000000000000;
    e.variants_tried =
        integer(required(node, "variants_tried", what), what + " variants_tried", 0, kMaxCount);
    if (const YAML::Node counts = node["variants_rejected"]; counts && !counts.IsNull()) {
      expect_map(counts, what + " variants_rejected");
      for (const auto& item : counts) {
        const std::string reason = map_key(item.first, what + " variants_rejected key", false);
        e.variants_rejected[reason] = integer(
            item.second, fmt::format("{} variants_rejected count of '{}'", what, excerpt(reason)),
            0, kMaxCount);
      }
    }
    if (const YAML::Node list = node["rejected"]; list && !list.IsNull()) {
      if (!list.IsSequence()) fail(list.Mark(), what + " rejected must be a list");
      for (const auto& item : list) {
        const std::string item_what = what + " rejected variant";
        expect_map(item, item_what);
        expect_keys(item, item_what, {"config", "reason", "detail"});
        RejectedVariant r;
        r.config = config(required(item, "config", item_what), item_what + " config");
        r.reason = scalar(required(item, "reason", item_what), item_what + " reason");
        if (item["detail"]) r.detail = scalar(item["detail"], item_what + " detail");
        e.rejected.push_back(std::move(r));
      }
    }
    e.tuned_at = scalar(required(node, "tuned_at", what), what + " tuned_at");
    if (node["driver"]) e.driver = scalar(node["driver"], what + " driver");
    if (node["cuda_driver"]) {
      e.cuda_driver =
          static_cast<int>(integer(node["cuda_driver"], what + " cuda_driver", 0, INT_MAX));
    }
    if (node["cuda_runtime"]) {
      e.cuda_runtime =
          static_cast<int>(integer(node["cuda_runtime"], what + " cuda_runtime", 0, INT_MAX));
    }
    if (node["tensortune_version"]) {
      e.tensortune_version = scalar(node["tensortune_version"], what + " tensortune_version");
    }
    return e;
  }

  DeviceRecord device(const std::string& key, const YAML::Node& node) const {
    const std::string what = fmt::format("device '{}'", excerpt(key));
    expect_map(node, what);
    expect_keys(node, what, {"name", "compute_capability", "sm_count", "memory_bytes", "kernels"});
    DeviceRecord record;
    const YAML::Node cc = required(node, "compute_capability", what);
    int major = 0, minor = 0;
    try {
      parse_compute_capability(scalar(cc, what + " compute_capability"), &major, &minor);
      record.identity =
          make_device_identity(scalar(required(node, "name", what), what + " name"), major, minor,
                               static_cast<int>(integer(required(node, "sm_count", what),
                                                        what + " sm_count", 1, INT_MAX)),
                               0);
    } catch (const MalformedDatabase&) {
      throw;
    } catch (const Error& e) {
      fail(node.Mark(), fmt::format("{}: {}", what, e.what()));
    }
    if (node["memory_bytes"]) {
      record.identity.memory_bytes =
          static_cast<uint64_t>(integer(node["memory_bytes"], what + " memory_bytes", 0));
    }
    if (record.identity.key() != key) {
      fail(node.Mark(), fmt::format("{}: the key does not match its fields, which give '{}'", what,
                                    record.identity.key()));
    }
    if (const YAML::Node kernels = node["kernels"]; kernels && !kernels.IsNull()) {
      expect_map(kernels, what + " kernels");
      for (const auto& k : kernels) {
        const std::string kernel = map_key(k.first, what + " kernel name", false);
        const std::string kernel_what = fmt::format("{} kernel '{}'", what, excerpt(kernel));
        if (k.second.IsNull()) continue;
        expect_map(k.second, kernel_what);
        for (const auto& p : k.second) {
          const std::string problem = map_key(p.first, kernel_what + " problem key", true);
          record.kernels[kernel][problem] =
              entry(p.second, fmt::format("{} problem '{}'", kernel_what, excerpt(problem)));
        }
      }
    }
    return record;
  }

  Database database(const std::string& text) const {
    YAML::Node root;
    try {
      std::istringstream events(text);
      YAML::Parser parser(events);
      Guard guard(origin_);
      if (parser.HandleNextDocument(guard) && parser.HandleNextDocument(guard)) {
        fail(YAML::Mark::null_mark(), "the file holds more than one YAML document");
      }
      root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
      fail(e.mark, e.msg);
    }
    if (root.IsNull() || !root.IsDefined()) {
      fail(YAML::Mark::null_mark(),
           "the file is empty; a tuning database starts with 'version: 1'");
    }
    expect_map(root, "the document");
    const YAML::Node version = root["version"];
    if (!version) {
      fail(root.Mark(),
           fmt::format("there is no 'version' field; expected 'version: {}'", kDatabaseVersion));
    }
    const int64_t v = integer(version, "version");
    if (v != kDatabaseVersion) {
      fail(version.Mark(), fmt::format("schema version {} is not supported; this tensortune "
                                       "reads version {}",
                                       v, kDatabaseVersion));
    }
    expect_keys(root, "the document", {"version", "devices"});
    Database db;
    if (const YAML::Node devices = root["devices"]; devices && !devices.IsNull()) {
      expect_map(devices, "devices");
      for (const auto& d : devices) {
        const std::string name = map_key(d.first, "device key", true);
        db.devices()[name] = device(name, d.second);
      }
    }
    return db;
  }

 private:
  std::string origin_;
};

// Text the reader refuses must not be written: a file we write always reads back.
const std::string& writable(const std::string& text, const char* what) {
  TT_CHECK(text.find('\0') == std::string::npos && is_valid_utf8(text),
           "cannot write the tuning database: the {} '{}' is not valid UTF-8 text without NUL",
           what, excerpt(text));
  return text;
}

// A map key as the reader reads it back (kMaxWrittenKey); `quoted`: double-quoted.
void emit_key(YAML::Emitter& out, const std::string& key, const char* what, bool quoted = false) {
  writable(key, what);
  const size_t size = written_key_size(key, quoted);
  TT_CHECK(size <= kMaxWrittenKey, "cannot write the tuning database: {}",
           long_key_message(what, key, size));
  out << YAML::Key;
  if (quoted) out << YAML::DoubleQuoted;
  out << key;
}

// Shortest text that reads back as the same double.
std::string number_text(double value) { return fmt::format("{}", value); }

void emit_config(YAML::Emitter& out, const Config& config) {
  out << YAML::Flow << YAML::BeginMap;
  if (!config.impl().empty()) {
    out << YAML::Key << "impl" << YAML::Value << writable(config.impl(), "config impl");
  }
  for (const auto& [name, value] : config.values()) {
    emit_key(out, name, "config parameter");
    out << YAML::Value << value;
  }
  out << YAML::EndMap;
}

void emit_entry(YAML::Emitter& out, const TuningEntry& e) {
  out << YAML::BeginMap;
  out << YAML::Key << "config" << YAML::Value;
  emit_config(out, e.config);
  out << YAML::Key << "median_ms" << YAML::Value << number_text(e.median_ms);
  if (e.p10_ms > 0.0) out << YAML::Key << "p10_ms" << YAML::Value << number_text(e.p10_ms);
  if (e.p90_ms > 0.0) out << YAML::Key << "p90_ms" << YAML::Value << number_text(e.p90_ms);
  out << YAML::Key << "default_ms" << YAML::Value << number_text(e.default_ms);
  if (!e.default_config.empty()) {
    out << YAML::Key << "default_config" << YAML::Value;
    emit_config(out, e.default_config);
  }
  if (!e.measured.empty())
    out << YAML::Key << "measured" << YAML::Value << writable(e.measured, "measured");
  out << YAML::Key << "variants_tried" << YAML::Value << e.variants_tried;
  out << YAML::Key << "variants_rejected" << YAML::Value << YAML::Flow << YAML::BeginMap;
  for (const auto& [reason, count] : e.variants_rejected) {
    emit_key(out, reason, "rejection reason");
    out << YAML::Value << count;
  }
  out << YAML::EndMap;
  out << YAML::Key << "rejected" << YAML::Value;
  if (e.rejected.empty()) out << YAML::Flow;  // "rejected: []" on one line
  out << YAML::BeginSeq;
  for (const auto& r : e.rejected) {
    out << YAML::Flow << YAML::BeginMap;
    out << YAML::Key << "config" << YAML::Value << YAML::DoubleQuoted
        << writable(r.config.str(), "rejected config");
    out << YAML::Key << "reason" << YAML::Value << YAML::DoubleQuoted
        << writable(r.reason, "rejection reason");
    if (!r.detail.empty()) {
      out << YAML::Key << "detail" << YAML::Value << YAML::DoubleQuoted
          << writable(r.detail, "rejection detail");
    }
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  out << YAML::Key << "tuned_at" << YAML::Value << YAML::DoubleQuoted
      << writable(e.tuned_at, "tuned_at");
  out << YAML::Key << "driver" << YAML::Value << YAML::DoubleQuoted << writable(e.driver, "driver");
  out << YAML::Key << "cuda_driver" << YAML::Value << e.cuda_driver;
  out << YAML::Key << "cuda_runtime" << YAML::Value << e.cuda_runtime;
  out << YAML::Key << "tensortune_version" << YAML::Value << YAML::DoubleQuoted
      << writable(e.tensortune_version, "tensortune_version");
  out << YAML::EndMap;
}

}  // namespace

Database parse_database(const std::string& yaml_text, const std::string& origin) {
  return Reader(origin).database(yaml_text);
}

std::string to_yaml(const Database& db) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "version" << YAML::Value << kDatabaseVersion;
  out << YAML::Key << "devices" << YAML::Value << YAML::BeginMap;
  for (const auto& [key, record] : db.devices()) {
    emit_key(out, key, "device key", true);
    out << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "name" << YAML::Value << YAML::DoubleQuoted
        << writable(record.identity.name, "device name");
    out << YAML::Key << "compute_capability" << YAML::Value << YAML::DoubleQuoted
        << record.identity.compute_capability();
    out << YAML::Key << "sm_count" << YAML::Value << record.identity.sm_count;
    out << YAML::Key << "memory_bytes" << YAML::Value << record.identity.memory_bytes;
    out << YAML::Key << "kernels" << YAML::Value << YAML::BeginMap;
    for (const auto& [kernel, entries] : record.kernels) {
      emit_key(out, kernel, "kernel name");
      out << YAML::Value << YAML::BeginMap;
      for (const auto& [problem, entry] : entries) {
        emit_key(out, problem, "problem key", true);
        out << YAML::Value;
        emit_entry(out, entry);
      }
      out << YAML::EndMap;
    }
    out << YAML::EndMap << YAML::EndMap;
  }
  out << YAML::EndMap << YAML::EndMap;
  TT_CHECK(out.good(), "cannot write the tuning database as YAML: {}", out.GetLastError());
  return std::string(out.c_str()) + "\n";
}

}  // namespace tt::autotune
