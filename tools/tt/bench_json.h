// `tt bench --json`: the results in Google Benchmark's JSON schema, so that its
// tools/compare.py, tools/bench_compare.py and other readers of that format take them.
// One benchmark name per model, shape and config set ("GemmBiasReLU/full/tuned"); for
// each, one "iteration" record per timed repetition and the aggregates mean, median,
// stddev, min, p10 and p90 (run_type "aggregate"), all in milliseconds of real time
// (CUDA events; cpu_time repeats it). Records carry the achieved TFLOP/s (where the
// model registered a FLOP count) and GB/s (inputs, parameters, buffers and outputs
// moved once), and the config each kernel used.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace tt::cli {

struct BenchContext {
  std::string date;  // ISO 8601
  std::string host_name;
  std::string executable;
  std::string device;              // "NVIDIA H200"
  std::string compute_capability;  // "sm_90"
  std::string driver;              // "580.159.04"
  int cuda_driver = 0;             // 13000
  int cuda_runtime = 0;
  std::string git_commit;  // of the tensortune build
  std::string version;     // tensortune's
  int num_cpus = 0;
};

struct BenchRecord {
  std::string name;                                 // "GemmBiasReLU/full/tuned"
  std::vector<double> samples_ms;                   // every timed repetition
  double flops = 0;                                 // per forward; 0 when unknown
  double bytes = 0;                                 // per forward, moved once
  nlohmann::json extra = nlohmann::json::object();  // copied into every record
};

// The whole document: {"context": {...}, "benchmarks": [...]}.
nlohmann::json google_benchmark_json(const BenchContext& context,
                                     const std::vector<BenchRecord>& records);

// The context of this process (date, host, CPU count, git commit, version); the
// device fields are left for the caller.
BenchContext host_context();

}  // namespace tt::cli
