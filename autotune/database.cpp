// The in-memory tuning database: entries, merge, prune, provenance stamps.
#include "autotune/database.h"

#include <ctime>

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
