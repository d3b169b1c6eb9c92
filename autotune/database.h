// The tuning database: what the autotuner found, per device, kernel and problem, with
// provenance, in one human-readable YAML file that can hold several devices.
//
//   version: 1
//   devices:
//     "NVIDIA H200|sm_90|132sm":                  # DeviceIdentity::key()
//       name: "NVIDIA H200"
//       compute_capability: "sm_90"
//       sm_count: 132
//       memory_bytes: 150109847552
//       kernels:
//         "gemm[add_column,relu]":
//           "m=1024,n=8192,k=8192,precision=strict":   # ProblemKey::str()
//             config: {impl: own, threads: 256, bm: 128, vec: 4}
//             median_ms: 2.701
//             p10_ms: 2.69                           # optional spread of the timings
//             p90_ms: 2.72
//             default_ms: 2.744                      # the space's default config
//             variants_tried: 48
//             variants_rejected: {launch_failed: 3, wrong_result: 1}
//             rejected:                              # every rejected variant
//               - {config: "impl=own,threads=128,bm=256,vec=4", reason: launch_failed,
//                  detail: "too many resources requested for launch"}
//             tuned_at: "2026-11-22T10:00:00Z"       # ISO-8601 UTC
//             driver: "580.159.04"
//             cuda_driver: 13000
//             cuda_runtime: 13000
//             tensortune_version: "0.1.0"
// Provenance sits on each entry because merged files mix results of several runs.
// Required per entry: config, median_ms, default_ms, variants_tried, tuned_at.
//
// Files: load_database() reads one file and throws tt::Error naming the file and the
// line of anything malformed. Every write never loses what is on disk: under an
// exclusive flock on "<path>.lock" it re-reads the file, merges the new entries in
// (same device/kernel/problem: the new entry wins), writes a temporary file in the same
// directory, renames it over the path and flushes the directory; a malformed file on
// disk is an error and is left untouched. Parent directories are created; the lock file
// and temporary files of writers that died are removed. A symlinked database is
// updated where the link points (the lock beside the target); a path that names
// anything but a regular file, or a read-only file, is refused with a tt::Error.
//
// The reader is strict where YAML is lax: no aliases (an alias bomb would expand to
// millions of entries), nesting at most 32 levels, no key given twice in one mapping,
// every scalar valid UTF-8 without NUL (the writer could not write it back), and
// integers in range (sm_count 4294967428 is an error, not a truncation). Only tt::Error
// leaves these functions (std::bad_alloc becomes tt::OutOfMemoryError).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "autotune/config.h"
#include "autotune/device_identity.h"

namespace tt::autotune {

constexpr int kDatabaseVersion = 1;

struct RejectedVariant {
  Config config;
  std::string reason;  // the category counted in variants_rejected: wrong_result, ...
  std::string detail;  // the message, e.g. "max abs error 3.1e-02 at [4, 7]" (may be "")
};

struct TuningEntry {
  Config config;
  double median_ms = 0.0;
  double p10_ms = 0.0;  // 0 when not recorded
  double p90_ms = 0.0;
  double default_ms = 0.0;
  // The space's default config that default_ms timed. A lookup whose current default
  // differs warns that the kernel changed since tuning (the tuned config may no longer
  // win). Empty in entries written before the field.
  Config default_config;
  // What median_ms and default_ms timed ("one forward of GemmBiasReLU, small shape":
  // the whole model with this kernel's config forced, not the kernel alone). Empty in
  // entries written before the field: those timed a whole model forward too.
  std::string measured;
  int64_t variants_tried = 0;
  std::map<std::string, int64_t> variants_rejected;
  std::vector<RejectedVariant> rejected;
  std::string tuned_at;
  std::string driver;
  int cuda_driver = 0;
  int cuda_runtime = 0;
  std::string tensortune_version;

  // Appends to `rejected` and counts the reason in `variants_rejected`.
  void add_rejected(Config variant, const std::string& reason, std::string detail = "");
  // Sets tuned_at to now and the driver / runtime / library versions from `device`.
  void stamp_provenance(const DeviceIdentity& device);
  // default_ms / median_ms, or 0 when either is not positive.
  double speedup() const;
};

// problem key -> entry, per kernel.
using KernelEntries = std::map<std::string, TuningEntry>;

struct DeviceRecord {
  DeviceIdentity identity;  // name, capability, SM count, memory (provenance is per entry)
  std::map<std::string, KernelEntries> kernels;
};

class Database {
 public:
  // Adds or replaces the entry for (device, kernel, problem).
  void put(const DeviceIdentity& device, const std::string& kernel, const std::string& problem,
           TuningEntry entry);
  // nullptr when absent.
  const TuningEntry* find(const std::string& device_key, const std::string& kernel,
                          const std::string& problem) const;

  // Keyed by DeviceIdentity::key(), sorted, so that files diff well.
  const std::map<std::string, DeviceRecord>& devices() const { return devices_; }
  std::map<std::string, DeviceRecord>& devices() { return devices_; }
  size_t entry_count() const;
  bool empty() const { return devices_.empty(); }

  // Copies every entry of `other` in; on the same device/kernel/problem `other` wins.
  void merge_from(const Database& other);
  // Removes every entry of the device; returns how many entries went.
  size_t prune_device(const std::string& device_key);
  // The key of the device that `name` names: an exact key, or a case-insensitive
  // substring of exactly one key. Throws tt::Error (naming `origin`, a path) when `name`
  // is empty, matches nothing or matches several devices.
  std::string find_device(const std::string& name, const std::string& origin) const;

 private:
  std::map<std::string, DeviceRecord> devices_;
};

// A then B; B wins on conflicts.
Database merge(const Database& a, const Database& b);

// YAML text <-> Database. `origin` names the source in error messages (a path).
Database parse_database(const std::string& yaml_text, const std::string& origin);
std::string to_yaml(const Database& db);

// Reads a file; throws tt::Error naming the file (and the line for malformed content).
Database load_database(const std::string& path);
// Locked read-merge-write as described above.
void save_database(const std::string& path, const Database& updates);
// `tt db merge A B -o OUT`: under OUT's lock, reads OUT (when it exists) and then each
// input in order, merges them (later wins on conflicts) and writes the result to OUT,
// which it returns. Entries already in OUT are kept, so concurrent merges into one
// file lose nothing.
Database merge_database_files(const std::vector<std::string>& inputs, const std::string& out);
// Locked read-modify-write: `change` edits what is on disk (an empty database when the
// file does not exist yet), then it is written back atomically.
void update_database(const std::string& path, const std::function<void(Database&)>& change);

// "2026-11-22T10:00:00Z"
std::string utc_now_iso8601();

}  // namespace tt::autotune
