// `tt bench MODEL|--all`: times the GPU forward of registered models the way the
// side-by-side benchmark against PyTorch does (CUDA events, warm-up, L2 flushed
// before every repetition, median and spread), with the tuned configs (what the
// tuning databases give this GPU) and with every kernel forced to its default config,
// and prints both, the speedup and which config each kernel used. It can write the
// numbers as JSON for tools/device/bench_pytorch.py (median_ms, p10_ms, p90_ms: the
// tuned run, or the default run with --configs default; default_ms beside them).
#include <fstream>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "autotune/lookup.h"
#include "models/registry.h"
#include "tools/tt/command.h"
#include "tools/tt/model_selection.h"
#if TT_CUDA
#include "core/cuda/runtime.h"
#include "core/cuda/timing.h"
#endif

namespace tt::cli {
namespace {

struct BenchOptions {
  std::string model;
  bool all = false;
  std::string shape = "full";
  std::string device = "cuda";
  std::string json_path;
  uint64_t seed = 0;
  int reps = 20;
  int warmup = 3;
  std::string configs = "both";  // tuned | default | both
  bool show_configs = false;
  std::string db_path;
};

#if TT_CUDA
// "gemm_bias_relu -> impl=cublaslt,algo=2 (exact)" per kernel and problem.
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

void run_bench(const BenchOptions& opt) {
  TT_CHECK(opt.reps >= 1 && opt.warmup >= 0, "bench: --reps must be >= 1 and --warmup >= 0");
  const std::vector<const models::ModelInfo*> selected =
      selected_models("bench", opt.model, opt.all);
  [[maybe_unused]] const Device gpu = resolve_gpu("bench", opt.device);
  if (!opt.db_path.empty()) autotune::set_database_path(opt.db_path);
#if TT_CUDA
  const bool tuned_run = opt.configs != "default";
  const bool default_run = opt.configs != "tuned";
  nlohmann::json results = nlohmann::json::array();
  std::cout << fmt::format("{:<24} {:<6} {:>10} {:>10} {:>10} {:>11} {:>8} {:>5}\n", "model",
                           "shape", tuned_run ? "tuned ms" : "default ms", "p10 ms", "p90 ms",
                           "default ms", "speedup", "reps");
  for (const auto* info : selected) {
    const models::ShapePreset& preset = info->preset(opt.shape);
    auto model = models::build_model(info->name, preset.init, opt.seed);
    model->to(gpu);
    std::vector<Tensor> inputs = models::random_inputs(preset.input_shapes, opt.seed, gpu);
    cuda::TimingOptions timing;
    timing.reps = opt.reps;
    timing.warmup = opt.warmup;
    timing.max_total_ms = 60000;
    const auto time_model = [&] {
      return cuda::time_gpu([&] { model->forward(inputs); }, gpu.index, timing);
    };
    cuda::TimingStats tuned, fallback;
    std::vector<autotune::UsedConfig> used;
    if (tuned_run) {
      autotune::clear_configs_used();
      tuned = time_model();
      used = autotune::configs_used();
    }
    if (default_run) {
      autotune::ScopedForceDefaults defaults;
      if (!tuned_run) autotune::clear_configs_used();
      fallback = time_model();
      if (!tuned_run) used = autotune::configs_used();
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
    nlohmann::json row = {{"model", info->name},
                          {"shape", opt.shape},
                          {"init", preset.init},
                          {"configs", tuned_run ? "tuned" : "default"},
                          {"median_ms", primary.median_ms},
                          {"p10_ms", primary.p10_ms},
                          {"p90_ms", primary.p90_ms},
                          {"reps", primary.reps},
                          {"configs_used", configs_json(used)}};
    if (both) {
      row["default_ms"] = fallback.median_ms;
      row["default_p10_ms"] = fallback.p10_ms;
      row["default_p90_ms"] = fallback.p90_ms;
      row["speedup"] = speedup;
    }
    results.push_back(std::move(row));
    model.reset();
    inputs.clear();
    cuda::empty_cache(gpu.index);
  }
  if (!opt.json_path.empty()) {
    cuda::DeviceInfo dev = cuda::device_info(gpu.index);
    std::ofstream out(opt.json_path);
    TT_CHECK(out.good(), "bench: cannot write '{}'", opt.json_path);
    out << nlohmann::json{{"device", dev.name}, {"results", results}}.dump(1) << "\n";
    std::cout << "wrote " << opt.json_path << "\n";
  }
#endif
}

void add_bench_command(CLI::App& app) {
  auto opt = std::make_shared<BenchOptions>();
  CLI::App* cmd = app.add_subcommand("bench", "Time the GPU forward of registered models");
  cmd->footer(
      "Each model is timed with CUDA events after --warmup forwards, the L2 cache flushed "
      "before every repetition; the median and the 10th/90th percentiles are printed. With "
      "--configs both (the default) it is timed twice: with the configs the tuning databases "
      "give this GPU (`tt tune` writes them) and with every kernel at its default config; the "
      "speedup is default / tuned. Below each model, the config each kernel used and where it "
      "came from (exact, nearest, default). Exit code 3 when there is no CUDA device.");
  add_model_selection(cmd, &opt->model, &opt->all, &opt->shape, "Time every registered model");
  cmd->add_option("--device", opt->device, "CUDA device: cuda or cuda:N")->capture_default_str();
  cmd->add_option("--seed", opt->seed, "Seed of the weights and inputs")->capture_default_str();
  cmd->add_option("--reps", opt->reps, "Timed repetitions")->capture_default_str();
  cmd->add_option("--warmup", opt->warmup, "Untimed warm-up forwards")->capture_default_str();
  cmd->add_option("--json", opt->json_path, "Also write the results to this JSON file");
  cmd->add_option("--configs", opt->configs,
                  "Which configs to time: tuned (the databases'), default, or both")
      ->check(CLI::IsMember({"tuned", "default", "both"}))
      ->capture_default_str();
  cmd->add_flag("--show-configs", opt->show_configs,
                "Also print each kernel's problem and the database its config came from");
  cmd->add_option("--db", opt->db_path,
                  "Tuning database to read first (else TT_TUNING_DB, the user cache, the shipped "
                  "ones)");
  cmd->callback([opt] { run_bench(*opt); });
}

TT_REGISTER_COMMAND(70, add_bench_command);

}  // namespace
}  // namespace tt::cli
