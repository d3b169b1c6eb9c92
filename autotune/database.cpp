// The in-memory tuning database: entries, merge, prune, provenance stamps.
#include "autotune/database.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <ctime>

#include "core/error.h"
#include "core/text.h"
#include "core/version.h"

namespace tt::autotune {

void TuningEntry::add_rejected(Config variant, const std::string& reason, std::string detail) {
  ++variants_rejected[reason];
  rejected.push_back({std::move(variant), reason, std::move(detail)});
}

void TuningEntry::stamp_provenance(const DeviceIdentity& device) {
  tuned_at = utc_now_iso8601();
  driver = device.driver;
  cuda_driver = device.cuda_driver;
  cuda_runtime = device.cuda_runtime;
  tensortune_version = TT_VERSION_STRING;
}

double TuningEntry::speedup() const {
  return median_ms > 0.0 && default_ms > 0.0 ? default_ms / median_ms : 0.0;
}

void Database::put(const DeviceIdentity& device, const std::string& kernel,
                   const std::string& problem, TuningEntry entry) {
  DeviceRecord& record = devices_[device.key()];
  record.identity = device;
  record.kernels[kernel][problem] = std::move(entry);
}

const TuningEntry* Database::find(const std::string& device_key, const std::string& kernel,
                                  const std::string& problem) const {
  const auto device = devices_.find(device_key);
  if (device == devices_.end()) return nullptr;
  const auto entries = device->second.kernels.find(kernel);
  if (entries == device->second.kernels.end()) return nullptr;
  const auto entry = entries->second.find(problem);
  return entry == entries->second.end() ? nullptr : &entry->second;
}

size_t Database::entry_count() const {
  size_t count = 0;
  for (const auto& [key, record] : devices_) {
    for (const auto& [kernel, entries] : record.kernels) count += entries.size();
  }
  return count;
}

void Database::merge_from(const Database& other) {
  for (const auto& [key, record] : other.devices_) {
    DeviceRecord& mine = devices_[key];
    mine.identity = record.identity;
    for (const auto& [kernel, entries] : record.kernels) {
      for (const auto& [problem, entry] : entries) mine.kernels[kernel][problem] = entry;
    }
  }
}

size_t Database::prune_device(const std::string& device_key) {
  const auto it = devices_.find(device_key);
  if (it == devices_.end()) return 0;
  size_t removed = 0;
  for (const auto& [kernel, entries] : it->second.kernels) removed += entries.size();
  devices_.erase(it);
  return removed;
}

std::string Database::find_device(const std::string& name, const std::string& origin) const {
  TT_CHECK(!name.empty(),
           "the device name is empty; give a device key or part of one ({} holds {})", origin,
           devices_.empty() ? "no devices" : fmt::format("{} devices", devices_.size()));
  if (devices_.count(name)) return name;
  const auto lower = [](std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
  };
  std::vector<std::string> matches;
  std::vector<std::string> all;
  for (const auto& [key, record] : devices_) {
    all.push_back(key);
    if (lower(key).find(lower(name)) != std::string::npos) matches.push_back(key);
  }
  TT_CHECK(!matches.empty(), "no device in {} matches '{}'; it holds: {}", origin, excerpt(name),
           all.empty() ? std::string("no devices") : fmt::format("{}", fmt::join(all, "; ")));
  TT_CHECK(matches.size() == 1,
           "'{}' matches {} devices in {} ({}); give more of the name or the full key",
           excerpt(name), matches.size(), origin, fmt::join(matches, "; "));
  return matches.front();
}

Database merge(const Database& a, const Database& b) {
  Database out = a;
  out.merge_from(b);
  return out;
}

std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace tt::autotune
