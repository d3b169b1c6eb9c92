// Run-time config lookup: which config a tunable kernel launches with, on this device,
// for this problem. Called on every launch, so after the first call it costs a few
// hash-map lookups; it never throws on a miss and never fails because of a bad file.
//
//   static const ParamSpace space = make_gemm_space();
//   const LookupResult r = autotune::lookup("linear", key.str(),
//                                           autotune::current_device_identity(dev), space);
//   launch_linear(r.config, ...);
//
// Where configs come from, highest priority first (an entry for the same device,
// kernel and problem in a higher source replaces the lower one):
//   1. the path given to set_database_path() (`--db`), else the TT_TUNING_DB env var;
//   2. the user's cache $XDG_CACHE_HOME/tensortune/tuning.yaml (default
//      ~/.cache/tensortune/tuning.yaml), where `tt tune` saves;
//   3. the databases shipped with tensortune, <prefix>/share/tensortune/db/*.yaml in
//      file name order, where <prefix> is found from the shared library or the program
//      running (so a moved install finds its own; see lookup_sources.cpp).
// Files are read at the first lookup and cached; reload_databases() reads them again
// (and re-reads TT_TUNING_DB). A file that is malformed prints one warning to stderr
// and is skipped; a missing --db/TT_TUNING_DB file warns once; a missing cache or
// shipped file is silently absent.
//
// The rule, for device D, kernel K and problem P:
//   exact:   an entry for D, K and P.
//   nearest: otherwise, among the entries for D and K whose problem keys have the same
//            categorical fields with equal values (so the same precision) and the same
//            set of numeric fields, the one with the smallest sum over numeric fields of
//            |log2(a / b)| (autotune/problem_key.h); ties go to the larger problem
//            (product of the numeric fields), then to the larger key string.
//   nearest device: otherwise, when D has no such entry, the same two steps on the
//            device of D's compute capability whose SM count is the fewest doublings
//            away (ties: the larger device, then the larger key) among those with
//            entries for K: a GPU nobody tuned on starts from its closest sibling
//            (an H100 PCIe from an H100 SXM, an H200 from an H100) rather than from
//            the defaults.
//   default: otherwise the kernel's default config.
// Devices of another compute capability are never used. With a ParamSpace, a stored config that the
// space rejects (the kernel changed since tuning) is ignored with one warning and the
// default is used; a nearest or nearest-device entry whose config the space (built for
// this device and problem) rejects falls back to the default silently: every config
// used is valid for the device it runs on. An exact entry tuned against another default
// than the space's current one (the entry's default_config) is used, with one warning
// that the kernel changed since tuning. (A space
// without a valid default is a bug in the kernel, not a miss: that overload throws
// ParamSpace::default_config()'s tt::Error.)
//
// Scopes force configs without touching any file (the sweep, `tt bench --configs
// default`): while a ScopedConfigOverride or ScopedForceDefaults lives, lookup()
// answers from the newest scope that matches before it looks at any database (see
// the classes below).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "autotune/config.h"
#include "autotune/device_identity.h"
#include "autotune/space.h"

namespace tt::autotune {

enum class ConfigSource { Exact, Nearest, Default, Override, NearestDevice };
// "exact", "nearest", "default", "override", "nearest device"
const char* to_string(ConfigSource source);

struct LookupResult {
  Config config;
  ConfigSource source = ConfigSource::Default;
  std::string problem;   // the problem key of the entry used ("" for default)
  std::string database;  // the file it came from ("" for default)
  std::string device;    // NearestDevice: the key of the device whose entry it is
};

LookupResult lookup(const std::string& kernel, const std::string& problem,
                    const DeviceIdentity& device, const Config& default_config);
LookupResult lookup(const std::string& kernel, const std::string& problem,
                    const DeviceIdentity& device, const ParamSpace& space);

// ---- forcing configs for a scope ----
// Scopes nest; the newest one that matches a lookup decides it. Neither is tied to a
// thread: the tuner and `tt bench` launch from one thread.
//
// While alive, lookup(kernel, problem, ...) returns `config` with source Override, for
// that problem only or, when `problem` is "", for every problem of the kernel. With a
// ParamSpace, a config the space rejects throws the space's tt::Error: an override is
// the caller's explicit choice (a sweep records the error as the variant's rejection).
class ScopedConfigOverride {
 public:
  ScopedConfigOverride(std::string kernel, Config config, std::string problem = "");
  ~ScopedConfigOverride();
  ScopedConfigOverride(const ScopedConfigOverride&) = delete;
  ScopedConfigOverride& operator=(const ScopedConfigOverride&) = delete;

 private:
  uint64_t id_;
};

// While alive, every lookup returns the kernel's default config (source Default) and
// no database is read; overrides created inside it still win.
class ScopedForceDefaults {
 public:
  ScopedForceDefaults();
  ~ScopedForceDefaults();
  ScopedForceDefaults(const ScopedForceDefaults&) = delete;
  ScopedForceDefaults& operator=(const ScopedForceDefaults&) = delete;

 private:
  uint64_t id_;
};

// ---- where databases come from ----
struct DatabaseSource {
  std::string path;
  std::string origin;  // "--db", "TT_TUNING_DB", "user cache", "shipped"
};
// In priority order; files that do not exist are listed too (except shipped ones).
std::vector<DatabaseSource> database_sources();
// The explicit database (`--db`); "" goes back to TT_TUNING_DB / none. Reloads.
void set_database_path(const std::string& path);
// $XDG_CACHE_HOME/tensortune/tuning.yaml or ~/.cache/tensortune/tuning.yaml.
std::string user_cache_database_path();
// Forgets the cached databases (and the warnings given); the next lookup reads again.
void reload_databases();

// ---- which config each kernel used, for `tt run` / `tt bench` to print ----
struct UsedConfig {
  std::string kernel;
  std::string problem;  // as asked
  LookupResult result;
};
// lookup() records every result; a caller that launches a config of its own choosing
// (a sweep, `--config`) records it here.
void record_config_used(const std::string& kernel, const std::string& problem,
                        const LookupResult& result);
// The last result per (kernel, problem), sorted by kernel then problem.
std::vector<UsedConfig> configs_used();
// One line per entry: "linear m=1024,n=8192,k=8192,precision=strict ->
// impl=own,bm=128 (nearest: m=2048,n=8192,k=8192,precision=strict from /path)".
std::string format_configs_used();
void clear_configs_used();

}  // namespace tt::autotune
