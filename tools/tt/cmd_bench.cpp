// `tt bench MODEL|--all`: times the GPU forward of registered models the way the
// side-by-side benchmark against PyTorch does (CUDA events, warm-up, L2 flushed
// before every repetition, median and spread), and can write the numbers as JSON
// for tools/device/bench_pytorch.py.
#include <fstream>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "models/registry.h"
#include "tools/tt/command.h"
#include "tools/tt/device_arg.h"
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
};

void run_bench(const BenchOptions& opt) {
  TT_CHECK(opt.all != !opt.model.empty(), "bench: give either a model name or --all");
  TT_CHECK(opt.reps >= 1 && opt.warmup >= 0, "bench: --reps must be >= 1 and --warmup >= 0");
  std::vector<const models::ModelInfo*> selected;
  if (opt.all) {
    for (const auto& info : models::registered_models()) selected.push_back(&info);
  } else {
    selected.push_back(&models::find_model(opt.model));
  }
  const Device gpu = resolve_device(opt.device);
  TT_CHECK(gpu.is_cuda(), "bench: --device must be a CUDA device, got '{}'", opt.device);
#if TT_CUDA
  nlohmann::json results = nlohmann::json::array();
  std::cout << fmt::format("{:<24} {:<6} {:>10} {:>10} {:>10} {:>5}\n", "model", "shape",
                           "median ms", "p10 ms", "p90 ms", "reps");
  for (const auto* info : selected) {
    const models::ShapePreset& preset = info->preset(opt.shape);
    auto model = models::build_model(info->name, preset.init, opt.seed);
    model->to(gpu);
    std::vector<Tensor> inputs = models::random_inputs(preset.input_shapes, opt.seed, gpu);
    cuda::TimingOptions timing;
    timing.reps = opt.reps;
    timing.warmup = opt.warmup;
    timing.max_total_ms = 60000;
    cuda::TimingStats t = cuda::time_gpu([&] { model->forward(inputs); }, gpu.index, timing);
    std::cout << fmt::format("{:<24} {:<6} {:>10.3f} {:>10.3f} {:>10.3f} {:>5}\n", info->name,
                             opt.shape, t.median_ms, t.p10_ms, t.p90_ms, t.reps);
    results.push_back({{"model", info->name},
                       {"shape", opt.shape},
                       {"init", preset.init},
                       {"median_ms", t.median_ms},
                       {"p10_ms", t.p10_ms},
                       {"p90_ms", t.p90_ms},
                       {"reps", t.reps}});
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
      "before every repetition; the median and the 10th/90th percentiles are printed. "
      "Exit code 3 when there is no CUDA device.");
  cmd->add_option("model", opt->model, "Model name, as listed by `tt models`");
  cmd->add_flag("--all", opt->all, "Time every registered model");
  cmd->add_option("--shape", opt->shape, "Problem size: small or full (KernelBench)")
      ->check(CLI::IsMember({"small", "full"}))
      ->capture_default_str();
  cmd->add_option("--device", opt->device, "CUDA device: cuda or cuda:N")->capture_default_str();
  cmd->add_option("--seed", opt->seed, "Seed of the weights and inputs")->capture_default_str();
  cmd->add_option("--reps", opt->reps, "Timed repetitions")->capture_default_str();
  cmd->add_option("--warmup", opt->warmup, "Untimed warm-up forwards")->capture_default_str();
  cmd->add_option("--json", opt->json_path, "Also write the results to this JSON file");
  cmd->callback([opt] { run_bench(*opt); });
}

TT_REGISTER_COMMAND(70, add_bench_command);

}  // namespace
}  // namespace tt::cli
