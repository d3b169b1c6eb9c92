// The run-time lookup: loads the layered databases once, indexes them, and answers
// (device, kernel, problem) with the rule documented in lookup.h, memoized.
#include "autotune/lookup.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <unordered_map>

#include "autotune/database.h"
#include "autotune/lookup_override.h"
#include "autotune/problem_key.h"
#include "core/error.h"

namespace tt::autotune {
namespace {

struct Candidate {
  std::string problem;            // as stored
  std::string normalized;         // without spaces, for exact matches
  std::optional<ProblemKey> key;  // nullopt when the stored key does not parse
  const TuningEntry* entry = nullptr;
  const std::string* database = nullptr;
};

// What a (device, kernel, problem) resolved to; kept so that a repeated lookup is a
// single hash-map hit.
struct Resolution {
  const Candidate* candidate = nullptr;  // nullptr: use the default
  ConfigSource source = ConfigSource::Default;
  std::string device;  // the device whose entry it is, for NearestDevice
};

// What the nearest-device step compares: the devices the databases hold.
struct KnownDevice {
  std::string key;
  std::string compute_capability;  // "sm_90"
  int sm_count = 0;
};

std::string join_key(const std::string& a, const std::string& b) { return a + '\x1f' + b; }

class LookupState {
 public:
  static LookupState& instance() {
    static LookupState state;
    return state;
  }

  LookupResult lookup(const std::string& kernel, const std::string& problem,
                      const DeviceIdentity& device, const Config* default_config,
                      const ParamSpace* space) {
    // The space's default is validated on each use, so only fetch it when needed.
    const auto fallback = [&] {
      return default_config ? *default_config : space->default_config();
    };
    const detail::ForcedConfig forced = detail::forced_config(kernel, problem);
    if (forced.kind != detail::ForcedConfig::Kind::kNone) {
      LookupResult result;
      if (forced.kind == detail::ForcedConfig::Kind::kDefault) {
        result.config = fallback();
      } else {
        if (space != nullptr) space->check(forced.config);
        result.config = forced.config;
        result.source = ConfigSource::Override;
      }
      record(kernel, problem, result);
      return result;
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (!loaded_) load();
    const std::string device_kernel = join_key(device.key(), kernel);
    const std::string memo_key = join_key(device_kernel, problem);
    auto it = memo_.find(memo_key);
    if (it == memo_.end()) {
      Resolution r = resolve(device_kernel, problem);
      if (r.candidate == nullptr) r = resolve_on_similar_device(device, kernel, problem);
      it = memo_.emplace(memo_key, std::move(r)).first;
      warn_if_default_moved(kernel, it->second, space, fallback);
    }
    const Resolution& r = it->second;

    LookupResult result;
    if (r.candidate == nullptr) {
      result.config = fallback();
    } else if (space != nullptr && !space->is_valid(r.candidate->entry->config)) {
      // A nearest problem's config often does not fit this one (a chunking or tile
      // size of a larger shape): expected, so only a stale exact entry is worth a word.
      if (r.source == ConfigSource::Exact)
        warn_once(
            "stale:" + memo_key,
            fmt::format("the tuned config {} for {} {} in {} is not valid for the current "
                        "kernel ({}); using the default",
                        r.candidate->entry->config.str(), kernel, r.candidate->problem,
                        *r.candidate->database, *space->why_invalid(r.candidate->entry->config)));
      result.config = fallback();
    } else {
      result.config = r.candidate->entry->config;
      result.source = r.source;
      result.problem = r.candidate->problem;
      result.database = *r.candidate->database;
      result.device = r.device;
    }
    used_[{kernel, problem}] = result;
    return result;
  }

  // An exact entry that the space still accepts but that was timed against another
  // default than today's may no longer win: said once, when the key is first resolved
  // (lookups run on every launch).
  template <typename Fallback>
  void warn_if_default_moved(const std::string& kernel, const Resolution& r,
                             const ParamSpace* space, const Fallback& fallback) {
    if (r.candidate == nullptr || r.source != ConfigSource::Exact) return;
    const TuningEntry& e = *r.candidate->entry;
    if (e.default_config.empty() || (space != nullptr && !space->is_valid(e.config))) return;
    const Config now = fallback();
    if (e.default_config == now) return;
    warn(
        fmt::format("the tuned config {} for {} {} in {} won against the default {}, but the "
                    "kernel's default is now {}: run `tt tune` again to see whether it still "
                    "wins (using the tuned config)",
                    e.config.str(), kernel, r.candidate->problem, *r.candidate->database,
                    e.default_config.str(), now.str()));
  }

  void reload() {
    std::lock_guard<std::mutex> lock(mutex_);
    loaded_ = false;
    layers_.clear();
    candidates_.clear();
    devices_.clear();
    memo_.clear();
    warned_.clear();
  }

  void record(const std::string& kernel, const std::string& problem, const LookupResult& result) {
    std::lock_guard<std::mutex> lock(mutex_);
    used_[{kernel, problem}] = result;
  }

  std::vector<UsedConfig> used() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<UsedConfig> out;
    for (const auto& [key, result] : used_) out.push_back({key.first, key.second, result});
    return out;
  }

  void clear_used() {
    std::lock_guard<std::mutex> lock(mutex_);
    used_.clear();
  }

 private:
  struct Layer {
    std::string path;
    Database db;
  };

  static void warn(const std::string& message) {
    std::cerr << "tensortune: warning: " << message << "\n";
  }
  void warn_once(const std::string& key, const std::string& message) {
    if (warned_.insert(key).second) warn(message);
  }

  // Never throws: a database that cannot be read for any reason (malformed, out of
  // memory, a file system error) is skipped with one warning and the kernels fall
  // back to what the other databases and the defaults give.
  void load() {
    std::vector<DatabaseSource> sources;
    try {
      sources = database_sources();
    } catch (const std::exception& e) {
      warn_once("sources", fmt::format("cannot list the tuning databases ({}); using default "
                                       "configs",
                                       e.what()));
    }
    for (const DatabaseSource& source : sources) {
      std::error_code ec;
      if (!std::filesystem::exists(source.path, ec)) {
        if (source.origin == "--db" || source.origin == "TT_TUNING_DB") {
          warn_once("missing:" + source.path,
                    fmt::format("the tuning database {} ({}) does not exist; using default "
                                "configs where no other database has one",
                                source.path, source.origin));
        }
        continue;
      }
      try {
        layers_.push_back(std::make_unique<Layer>(Layer{source.path, load_database(source.path)}));
      } catch (const std::exception& e) {
        warn_once("bad:" + source.path, fmt::format("skipping a tuning database: {}", e.what()));
      } catch (...) {
        warn_once(
            "bad:" + source.path,
            fmt::format("skipping the tuning database {}: it could not be read", source.path));
      }
    }
    // Lowest priority first, so that a higher layer overwrites the same key.
    std::map<std::string, Candidate> by_entry;
    for (auto layer = layers_.rbegin(); layer != layers_.rend(); ++layer) {
      for (const auto& [device_key, record] : (*layer)->db.devices()) {
        devices_[device_key] =
            KnownDevice{device_key, record.identity.compute_capability(), record.identity.sm_count};
        for (const auto& [kernel, entries] : record.kernels) {
          for (const auto& [problem, entry] : entries) {
            Candidate c;
            c.problem = problem;
            c.normalized = normalized(problem);
            try {
              c.key = ProblemKey::parse(problem);
            } catch (const Error&) {
              // Exact matches still work; the key just takes no part in "nearest".
            }
            c.entry = &entry;
            c.database = &(*layer)->path;
            by_entry[join_key(join_key(device_key, kernel), c.normalized)] = std::move(c);
          }
        }
      }
    }
    for (auto& [full_key, candidate] : by_entry) {
      const std::string device_kernel = full_key.substr(0, full_key.rfind('\x1f'));
      candidates_[device_kernel].push_back(std::move(candidate));
    }
    loaded_ = true;
  }

  // Spaces do not matter in keys: "m=1, n=2" is "m=1,n=2".
  static std::string normalized(const std::string& problem) {
    try {
      return ProblemKey::parse(problem).str();
    } catch (const Error&) {
      return problem;
    }
  }

  Resolution resolve(const std::string& device_kernel, const std::string& problem) const {
    const auto it = candidates_.find(device_kernel);
    if (it == candidates_.end()) return {};
    const std::string wanted = normalized(problem);
    for (const Candidate& c : it->second) {
      if (c.normalized == wanted) return {&c, ConfigSource::Exact, ""};
    }
    std::optional<ProblemKey> key;
    try {
      key = ProblemKey::parse(problem);
    } catch (const Error&) {
      return {};
    }
    const Candidate* best = nullptr;
    double best_distance = 0.0;
    for (const Candidate& c : it->second) {
      if (!c.key) continue;
      const std::optional<double> d = problem_distance(*key, *c.key);
      if (!d) continue;
      if (best == nullptr || *d < best_distance - 1e-12 ||
          (std::fabs(*d - best_distance) <= 1e-12 && larger(c, *best))) {
        best = &c;
        best_distance = *d;
      }
    }
    return best == nullptr ? Resolution{} : Resolution{best, ConfigSource::Nearest, ""};
  }

  // A device with no usable entry starts from the nearest device of the same compute
  // capability that has entries for the kernel: the fewest doublings of SM count
  // apart, ties to the larger device, then to the larger key. (Same architecture:
  // the same instructions, shared memory and register file per SM, so its configs
  // launch; lookup() still checks each against this device's space.)
  Resolution resolve_on_similar_device(const DeviceIdentity& device, const std::string& kernel,
                                       const std::string& problem) const {
    const std::string own = device.key();
    const std::string cc = device.compute_capability();
    const KnownDevice* best = nullptr;
    double best_distance = 0;
    for (const auto& [key, known] : devices_) {
      if (key == own || known.compute_capability != cc) continue;
      if (!candidates_.count(join_key(key, kernel))) continue;
      const double distance =
          known.sm_count > 0 && device.sm_count > 0
              ? std::fabs(std::log2(static_cast<double>(known.sm_count) / device.sm_count))
              : 64.0;
      const bool better =
          best == nullptr || distance < best_distance - 1e-12 ||
          (std::fabs(distance - best_distance) <= 1e-12 &&
           (known.sm_count != best->sm_count ? known.sm_count > best->sm_count : key > best->key));
      if (better) {
        best = &known;
        best_distance = distance;
      }
    }
    if (best == nullptr) return {};
    Resolution r = resolve(join_key(best->key, kernel), problem);
    if (r.candidate == nullptr) return {};
    r.source = ConfigSource::NearestDevice;
    r.device = best->key;
    return r;
  }

  static bool larger(const Candidate& a, const Candidate& b) {
    const double size_a = a.key->size();
    const double size_b = b.key->size();
    if (size_a != size_b) return size_a > size_b;
    return a.problem > b.problem;
  }

  std::mutex mutex_;
  bool loaded_ = false;
  std::vector<std::unique_ptr<Layer>> layers_;  // priority order; pointers stay valid
  std::unordered_map<std::string, std::vector<Candidate>> candidates_;  // device|kernel
  std::unordered_map<std::string, Resolution> memo_;
  std::map<std::string, KnownDevice> devices_;  // every device of every layer
  std::set<std::string> warned_;
  std::map<std::pair<std::string, std::string>, LookupResult> used_;
};

}  // namespace

const char* to_string(ConfigSource source) {
  switch (source) {
    case ConfigSource::Exact:
      return "exact";
    case ConfigSource::Nearest:
      return "nearest";
    case ConfigSource::Default:
      return "default";
    case ConfigSource::Override:
      return "override";
    case ConfigSource::NearestDevice:
      return "nearest device";
  }
  return "unknown";
}

LookupResult lookup(const std::string& kernel, const std::string& problem,
                    const DeviceIdentity& device, const Config& default_config) {
  return LookupState::instance().lookup(kernel, problem, device, &default_config, nullptr);
}

LookupResult lookup(const std::string& kernel, const std::string& problem,
                    const DeviceIdentity& device, const ParamSpace& space) {
  return LookupState::instance().lookup(kernel, problem, device, nullptr, &space);
}

void reload_databases() { LookupState::instance().reload(); }

void record_config_used(const std::string& kernel, const std::string& problem,
                        const LookupResult& result) {
  LookupState::instance().record(kernel, problem, result);
}

std::vector<UsedConfig> configs_used() { return LookupState::instance().used(); }

std::string format_configs_used() {
  std::string out;
  for (const UsedConfig& u : configs_used()) {
    const std::string config = u.result.config.str().empty() ? "(empty)" : u.result.config.str();
    out += fmt::format("{} {} -> {} ({}", u.kernel, u.problem, config, to_string(u.result.source));
    if (u.result.source == ConfigSource::Nearest) out += ": " + u.result.problem;
    if (u.result.source == ConfigSource::NearestDevice)
      out += " " + u.result.device + ": " + u.result.problem;
    if (!u.result.database.empty()) out += " from " + u.result.database;
    out += ")\n";
  }
  return out;
}

void clear_configs_used() { LookupState::instance().clear_used(); }

}  // namespace tt::autotune
