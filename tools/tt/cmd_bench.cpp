// `tt bench MODEL|--all`: times the GPU forward of registered models the way the
// side-by-side benchmark against PyTorch does (CUDA events, warm-up, L2 flushed
// before every repetition, median and spread), with the tuned configs (what the
// tuning databases give this GPU) and with every kernel forced to its default config,
// and prints both, the speedup and which config each kernel used. --json writes the
// repetitions in Google Benchmark's JSON format (tools/tt/bench_json.h), which
// tools/device/bench_pytorch.py also writes and reads. --precision times the forwards
// in that mode; the table's title line and every JSON record name it.
#include <fstream>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "autotune/lookup.h"
#include "models/registry.h"
#include "ops/graph/compile.h"
#include "tools/tt/bench_json.h"
#include "tools/tt/command.h"
#include "tools/tt/device_all.h"
#include "tools/tt/model_selection.h"
#if TT_CUDA
#include "autotune/device_identity.h"
#include "core/cuda/runtime.h"
#include "core/cuda/timing.h"
#endif

namespace tt::cli {
namespace {

struct BenchOptions : ModelSelection {
  std::string device = "cuda";
  std::string json_path;
  uint64_t seed = 0;
  int reps = 20;
  int warmup = 3;
  std::string configs = "both";  // tuned | default | both
  bool show_configs = false;
  std::string db_path;
  std::string precision = "strict";
  bool compile = true;
  bool cuda_graph = false;
  bool device_typed = false;
};

#if TT_CUDA
// "gemm[add_column,relu] -> impl=cublaslt,algo=2 (exact)" per kernel and problem.
void print_compact_configs(const std::vector<autotune::UsedConfig>& used) {
  for (const autotune::UsedConfig& u : used) {
    std::cout << fmt::format("    {} -> {} ({})\n", u.kernel,
                             u.result.config.str().empty() ? "(empty)" : u.result.config.str(),
                             autotune::to_string(u.result.source));
  }
}

nlohmann::json configs_json(const std::vector<autotune::UsedConfig>& used) {
  nlohmann::json out = nlohmann::json::array();
  for (const autotune::UsedConfig& u : used) {
    out.push_back({{"kernel", u.kernel},
                   {"problem", u.problem},
                   {"config", u.result.config.str()},
                   {"source", autotune::to_string(u.result.source)},
                   {"database", u.result.database}});
  }
  return out;
}
#endif

#if TT_CUDA
// Bytes one forward must move at least: every input, parameter and buffer read once
// and every output written once (the denominator of the achieved GB/s).
double bytes_moved(Module& model, const std::vector<Tensor>& inputs,
                   const std::vector<Tensor>& outputs) {
  double bytes = 0;
  const auto add = [&](const Tensor& t) {
    bytes += static_cast<double>(t.numel()) * static_cast<double>(dtype_size(t.dtype()));
  };
  for (const Tensor& t : inputs) add(t);
  for (const Tensor& t : outputs) add(t);
  for (const auto& [name, p] : model.named_parameters()) add(p);
  for (const auto& [name, b] : model.named_buffers()) add(b);
  return bytes;
}

BenchRecord bench_record(const models::ModelInfo& info, const BenchOptions& opt,
                         const std::string& configs, const cuda::TimingStats& stats, double flops,
                         double bytes, const std::vector<autotune::UsedConfig>& used) {
  BenchRecord r;
  r.name = info.name + "/" + opt.shape + "/" + configs;
  r.samples_ms = stats.samples_ms;
  r.flops = flops;
  r.bytes = bytes;
  r.extra = {
      {"model", info.name}, {"shape", opt.shape},         {"init", info.preset(opt.shape).init},
      {"configs", configs}, {"precision", opt.precision}, {"configs_used", configs_json(used)}};
  return r;
}
#endif

void run_bench(const BenchOptions& opt) {
  const std::vector<const models::ModelInfo*> selected = selected_models("bench", opt);
  if (opt.cuda_graph && !opt.compile)
    throw CLI::ValidationError(
        "--cuda-graph replays the compiled model; it cannot go with --eager");
  [[maybe_unused]] const Device gpu = resolve_gpu("bench", opt.device, opt.device_typed);
  use_database("bench", opt.db_path);
#if TT_CUDA
  const bool tuned_run = opt.configs != "default";
  const bool default_run = opt.configs != "tuned";
  PrecisionGuard precision_scope(parse_precision(opt.precision));
  std::vector<BenchRecord> records;
  std::cout << fmt::format("GPU forward on {}, {} precision, {} shape\n", gpu.str(), opt.precision,
                           opt.shape);
  std::cout << fmt::format("{:<24} {:<6} {:>10} {:>10} {:>10} {:>11} {:>8} {:>5}\n", "model",
                           "shape", tuned_run ? "tuned ms" : "default ms", "p10 ms", "p90 ms",
                           "default ms", "speedup", "reps");
  for (const auto* info : selected) {
    const models::ShapePreset& preset = info->preset(opt.shape);
    std::shared_ptr<Module> model = models::build_model(info->name, preset.init, opt.seed);
    model->to(gpu);
    // Compiled: the warm-up's first forward records and compiles; the timed ones replay.
    if (opt.compile) {
      CompileOptions options;
      options.cuda_graph = opt.cuda_graph;
      model = tt::compile(model, options);
    }
    std::vector<Tensor> inputs = models::random_inputs(preset.input_shapes, opt.seed, gpu);
    const double bytes = bytes_moved(*model, inputs, model->forward(inputs));
    const double flops = info->forward_flops(preset);
    cuda::TimingOptions timing;
    timing.reps = opt.reps;
    timing.warmup = opt.warmup;
    timing.max_total_ms = 60000;
    const auto time_model = [&] {
      return cuda::time_gpu([&] { model->forward(inputs); }, gpu.index, timing);
    };
    cuda::TimingStats tuned, fallback;
    std::vector<autotune::UsedConfig> used, used_default;
    if (tuned_run) {
      autotune::clear_configs_used();
      tuned = time_model();
      used = autotune::configs_used();
      records.push_back(bench_record(*info, opt, "tuned", tuned, flops, bytes, used));
    }
    if (default_run) {
      autotune::ScopedForceDefaults defaults;
      autotune::clear_configs_used();
      fallback = time_model();
      used_default = autotune::configs_used();
      records.push_back(bench_record(*info, opt, "default", fallback, flops, bytes, used_default));
      if (!tuned_run) used = used_default;
    }
    const cuda::TimingStats& primary = tuned_run ? tuned : fallback;
    const bool both = tuned_run && default_run;
    const double speedup =
        both && primary.median_ms > 0 ? fallback.median_ms / primary.median_ms : 0;
    std::cout << fmt::format("{:<24} {:<6} {:>10.3f} {:>10.3f} {:>10.3f} {:>11} {:>8} {:>5}\n",
                             info->name, opt.shape, primary.median_ms, primary.p10_ms,
                             primary.p90_ms,
                             default_run ? fmt::format("{:.3f}", fallback.median_ms) : "-",
                             both ? fmt::format("{:.3f}x", speedup) : "-", primary.reps);
    print_compact_configs(used);
    if (opt.show_configs) {
      for (const autotune::UsedConfig& u : used) {
        std::cout << fmt::format(
            "      {} {}: {}{}\n", u.kernel, u.problem, autotune::to_string(u.result.source),
            u.result.source == autotune::ConfigSource::Nearest ? " " + u.result.problem : "",
            u.result.database.empty() ? "" : " from " + u.result.database);
      }
    }
    model.reset();
    inputs.clear();
    cuda::empty_cache(gpu.index);
  }
  if (!opt.json_path.empty()) {
    const cuda::DeviceInfo dev = cuda::device_info(gpu.index);
    BenchContext context = host_context();
    context.device = dev.name;
    context.compute_capability = fmt::format("sm_{}{}", dev.cc_major, dev.cc_minor);
    context.driver = autotune::current_device_identity(gpu.index).driver;
    context.cuda_driver = dev.driver_version;
    context.cuda_runtime = dev.runtime_version;
    std::ofstream out(opt.json_path);
    TT_CHECK(out.good(), "bench: cannot write '{}'", opt.json_path);
    out << google_benchmark_json(context, records).dump(1) << "\n";
    TT_CHECK(out.good(), "bench: writing '{}' failed", opt.json_path);
    std::cout << "wrote " << opt.json_path << "\n";
  }
#endif
}

}  // namespace

void add_bench_command(CLI::App& app) {
  auto opt = std::make_shared<BenchOptions>();
  CLI::App* cmd = app.add_subcommand("bench", "Time the GPU forward of registered models");
  cmd->footer(
      "Each model is timed with CUDA events after --warmup forwards, the L2 cache flushed "
      "before every repetition; the median and the 10th/90th percentiles are printed. With "
      "--configs both (the default) it is timed twice: with the configs the tuning databases "
      "give this GPU (`tt tune` writes them) and with every kernel at its default config; the "
      "speedup is default / tuned. Below each model, the config each kernel used and where it "
      "came from (exact, nearest, default). --json writes Google Benchmark's JSON format "
      "(every repetition and the mean/median/stddev/min/p10/p90 aggregates, with achieved "
      "TFLOP/s and GB/s; tools/bench_compare.py compares two such files). Exit code 3 when "
      "there is no CUDA device.");
  add_model_selection(cmd, opt.get(), "Time every registered model");
  cmd->add_option("--device", opt->device,
                  "CUDA device: cuda, cuda:N, or all (one worker per GPU at once)")
      ->capture_default_str();
  add_seed_option(cmd, &opt->seed, "Seed of the weights and inputs");
  add_count_option(cmd, "--reps", &opt->reps, "Timed repetitions");
  add_count_option(cmd, "--warmup", &opt->warmup, "Untimed warm-up forwards", 0);
  cmd->add_option("--json", opt->json_path,
                  "Also write the results to this file in Google Benchmark's JSON format");
  cmd->add_option("--configs", opt->configs,
                  "Which configs to time: tuned (the databases'), default, or both")
      ->check(CLI::IsMember({"tuned", "default", "both"}))
      ->capture_default_str();
  cmd->add_flag("--show-configs", opt->show_configs,
                "Also print each kernel's problem and the database its config came from");
  add_precision_option(cmd, &opt->precision, "the forwards are timed in it");
  cmd->add_flag("--cuda-graph", opt->cuda_graph,
                "Replay the compiled model as one CUDA graph (CompileOptions::cuda_graph)");
  add_compile_flag(cmd, &opt->compile, "Time");
  add_db_option(cmd, &opt->db_path, kReadDbHelp);
  set_device_callback(cmd, "bench", opt, run_bench);
}

}  // namespace tt::cli
