#include "tools/tt/bench_json.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <numeric>
#include <thread>

#include "core/timing_summary.h"
#include "core/version.h"

#ifndef TT_GIT_COMMIT
#define TT_GIT_COMMIT "unknown"
#endif

namespace tt::cli {
namespace {

using json = nlohmann::json;

json record(const BenchRecord& r, size_t family, const std::string& run_type,
            const std::string& aggregate, double ms) {
  json j = {{"name", aggregate.empty() ? r.name : r.name + "_" + aggregate},
            {"family_index", family},
            {"per_family_instance_index", 0},
            {"run_name", r.name},
            {"run_type", run_type},
            {"repetitions", r.samples_ms.size()},
            {"threads", 1},
            {"iterations", 1},
            {"real_time", ms},
            {"cpu_time", ms},
            {"time_unit", "ms"}};
  if (!aggregate.empty()) {
    j["aggregate_name"] = aggregate;
    j["aggregate_unit"] = "time";
  }
  // Throughput at this time; a stddev is not a time per forward, so it gets none.
  if (aggregate != "stddev" && ms > 0) {
    if (r.flops > 0) j["TFLOP/s"] = r.flops / (ms * 1e-3) / 1e12;
    if (r.bytes > 0) j["GB/s"] = r.bytes / (ms * 1e-3) / 1e9;
  }
  for (const auto& [key, value] : r.extra.items()) j[key] = value;
  return j;
}

}  // namespace

json google_benchmark_json(const BenchContext& c, const std::vector<BenchRecord>& records) {
  json context = {{"date", c.date},
                  {"host_name", c.host_name},
                  {"executable", c.executable},
                  {"num_cpus", c.num_cpus},
                  {"mhz_per_cpu", 0},
                  {"cpu_scaling_enabled", false},
                  {"caches", json::array()},
                  {"load_avg", json::array()},
                  {"library_build_type", "release"},
                  {"device", c.device},
                  {"compute_capability", c.compute_capability},
                  {"driver", c.driver},
                  {"cuda_driver", c.cuda_driver},
                  {"cuda_runtime", c.cuda_runtime},
                  {"git_commit", c.git_commit},
                  {"tensortune_version", c.version},
                  {"timing", "CUDA events per repetition, L2 flushed before each; times in ms"}};
  json benchmarks = json::array();
  for (size_t f = 0; f < records.size(); ++f) {
    const BenchRecord& r = records[f];
    for (double ms : r.samples_ms) benchmarks.push_back(record(r, f, "iteration", "", ms));
    if (r.samples_ms.empty()) continue;
    const double n = static_cast<double>(r.samples_ms.size());
    const double mean = std::accumulate(r.samples_ms.begin(), r.samples_ms.end(), 0.0) / n;
    double sq = 0;
    for (double ms : r.samples_ms) sq += (ms - mean) * (ms - mean);
    const double stddev = n > 1 ? std::sqrt(sq / (n - 1)) : 0.0;
    benchmarks.push_back(record(r, f, "aggregate", "mean", mean));
    benchmarks.push_back(record(r, f, "aggregate", "median", percentile(r.samples_ms, 0.5)));
    benchmarks.push_back(record(r, f, "aggregate", "stddev", stddev));
    benchmarks.push_back(record(r, f, "aggregate", "min",
                                *std::min_element(r.samples_ms.begin(), r.samples_ms.end())));
    benchmarks.push_back(record(r, f, "aggregate", "p10", percentile(r.samples_ms, 0.1)));
    benchmarks.push_back(record(r, f, "aggregate", "p90", percentile(r.samples_ms, 0.9)));
  }
  return json{{"context", context}, {"benchmarks", benchmarks}};
}

BenchContext host_context() {
  BenchContext c;
  char host[256] = {0};
  if (gethostname(host, sizeof(host) - 1) == 0) c.host_name = host;
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char date[32];
  std::strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S+00:00", &utc);
  c.date = date;
  c.executable = "tt bench";
  c.num_cpus = static_cast<int>(std::thread::hardware_concurrency());
  c.git_commit = TT_GIT_COMMIT;
  c.version = TT_VERSION_STRING;
  return c;
}

}  // namespace tt::cli
