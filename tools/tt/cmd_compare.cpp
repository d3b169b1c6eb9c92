// `tt compare MODEL|--all`: runs the same weights and inputs through the CPU
// reference and the GPU, and reports how far apart they are (max absolute error,
// relative L2 error, the allclose verdict) and how long each took. The verdict is the
// strict-precision bound of SEED_MODELS.md: relative L2 error <= 1e-5, running
// statistics included. allclose(atol=rtol=1e-5) is reported beside it.
#include <chrono>
#include <cmath>
#include <iostream>
#include <string>

#include "core/cuda/runtime.h"
#include "models/fixture_check.h"
#include "models/registry.h"
#include "tools/tt/command.h"
#include "tools/tt/model_selection.h"
#if TT_CUDA
#include "core/cuda/timing.h"
#endif

namespace tt::cli {
namespace {

struct CompareOptions {
  std::string model;
  bool all = false;
  std::string shape = "small";
  std::string precision = "strict";
  std::string mode = "train";
  std::string device = "cuda";
  uint64_t seed = 0;
  double tolerance = 1e-5;
  double atol = 1e-5;
  double rtol = 1e-5;
  bool device_typed = false;
};

#if TT_CUDA
struct Agreement {
  double max_abs = 0;
  double rel_l2 = 0;
  int64_t not_close = 0;  // elements outside atol + rtol * |ref|
};

Agreement agreement(const Tensor& gpu, const Tensor& cpu, double atol, double rtol) {
  Agreement a;
  a.rel_l2 = models::relative_l2_error(gpu, cpu);
  std::vector<float> g = gpu.to_vector<float>(), c = cpu.to_vector<float>();
  for (size_t i = 0; i < g.size(); ++i) {
    double d = std::fabs(static_cast<double>(g[i]) - c[i]);
    if (!(d <= atol + rtol * std::fabs(static_cast<double>(c[i])))) ++a.not_close;
    if (!(d <= a.max_abs)) a.max_abs = std::isnan(d) ? INFINITY : d;
  }
  return a;
}

// One model: returns true when the GPU agrees with the CPU reference.
bool compare_model(const models::ModelInfo& info, const CompareOptions& opt, Device gpu) {
  const models::ShapePreset& preset = info.preset(opt.shape);
  const bool training = opt.mode == "train";
  auto cpu_model = models::build_model(info.name, preset.init, opt.seed);
  auto gpu_model = models::build_model(info.name, preset.init, opt.seed);
  cpu_model->train(training);
  gpu_model->train(training);
  gpu_model->to(gpu);
  std::vector<Tensor> cpu_inputs = models::random_inputs(preset.input_shapes, opt.seed);
  std::vector<Tensor> gpu_inputs;
  for (const Tensor& t : cpu_inputs) gpu_inputs.push_back(t.to(gpu));

  const auto t0 = std::chrono::steady_clock::now();
  Tensor cpu_out = cpu_model->forward(cpu_inputs).at(0);
  const std::chrono::duration<double, std::milli> cpu_ms = std::chrono::steady_clock::now() - t0;
  // The first GPU forward is the one compared: training-mode batch norm updates its
  // running statistics on every call, and both sides must have made exactly one.
  Tensor gpu_out = gpu_model->forward(gpu_inputs).at(0);
  cuda::synchronize(gpu.index);

  Agreement out = agreement(gpu_out, cpu_out, opt.atol, opt.rtol);
  double worst_buffer = 0;
  std::string buffer_note;
  auto cpu_buffers = cpu_model->named_buffers();
  auto gpu_buffers = gpu_model->named_buffers();
  for (size_t i = 0; i < cpu_buffers.size(); ++i) {
    double e = models::relative_l2_error(gpu_buffers[i].second, cpu_buffers[i].second);
    worst_buffer = std::max(worst_buffer, e);
    buffer_note += fmt::format(" {}={:.2e}", cpu_buffers[i].first, e);
  }
  cuda::TimingOptions timing;
  timing.reps = opt.shape == "full" ? 10 : 20;
  cuda::TimingStats gpu_time =
      cuda::time_gpu([&] { gpu_model->forward(gpu_inputs); }, gpu.index, timing);

  const bool pass = out.rel_l2 <= opt.tolerance && worst_buffer <= opt.tolerance;
  std::cout << fmt::format(
      "{:<24} {:<6} {:>11.3e} {:>10.3e} {:>14} {:>11.2f} {:>10.3f}  {}", info.name, opt.shape,
      out.max_abs, out.rel_l2,
      out.not_close == 0 ? std::string("yes") : fmt::format("no ({})", out.not_close),
      cpu_ms.count(), gpu_time.median_ms, pass ? "PASS" : "FAIL");
  if (!buffer_note.empty()) std::cout << "  buffers:" << buffer_note;
  std::cout << std::endl;
  return pass;
}
#endif

void run_compare(const CompareOptions& opt) {
  TT_CHECK(opt.precision == "strict",
           "compare: precision '{}' is not available; the supported precision is 'strict'",
           opt.precision);
  const std::vector<const models::ModelInfo*> selected =
      selected_models("compare", opt.model, opt.all);
  [[maybe_unused]] const Device gpu = resolve_gpu("compare", opt.device, opt.device_typed);
#if TT_CUDA
  std::cout << fmt::format(
      "CPU reference vs {} ({} precision, {} mode, seed {}); verdict: "
      "relative L2 <= {:g}; allclose at atol={:g} rtol={:g}\n",
      gpu.str(), opt.precision, opt.mode, opt.seed, opt.tolerance, opt.atol, opt.rtol);
  std::cout << fmt::format("{:<24} {:<6} {:>11} {:>10} {:>14} {:>11} {:>10}  {}\n", "model",
                           "shape", "max abs err", "rel L2", "allclose", "cpu ms", "gpu ms",
                           "verdict");
  int failures = 0;
  for (const auto* info : selected) {
    try {
      if (!compare_model(*info, opt, gpu)) ++failures;
    } catch (const Error& e) {
      std::cout << fmt::format("{:<24} {:<6} ERROR: {}\n", info->name, opt.shape, e.what());
      ++failures;
    }
  }
  if (failures > 0) {
    std::cout << failures << " of " << selected.size() << " models disagree\n";
    throw CLI::RuntimeError(kExitFailure);
  }
  std::cout << "all " << selected.size() << " models agree\n";
#endif
}

}  // namespace

void add_compare_command(CLI::App& app) {
  auto opt = std::make_shared<CompareOptions>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "Compare the GPU with the CPU reference on the same weights and inputs");
  cmd->footer(
      "Both sides get the same seeded weights and inputs. The verdict is PASS when the "
      "relative L2 error ||gpu - cpu|| / ||cpu|| (and that of every buffer, such as batch "
      "norm's running statistics) is at most --tolerance; allclose(atol, rtol) is reported "
      "beside it with the number of elements outside. Times: one CPU forward (wall clock) and "
      "the median GPU forward (CUDA events, L2 flushed). Exit codes: 0 all agree, 1 a "
      "disagreement or error, 3 no CUDA device.");
  add_model_selection(cmd, &opt->model, &opt->all, &opt->shape, "Compare every registered model");
  cmd->add_option("--precision", opt->precision, "Precision mode (strict: IEEE float32)")
      ->check(CLI::IsMember({"strict"}))
      ->capture_default_str();
  cmd->add_option("--mode", opt->mode, "train or eval (batch norm statistics)")
      ->check(CLI::IsMember({"train", "eval"}))
      ->capture_default_str();
  cmd->add_option("--device", opt->device, "CUDA device: cuda or cuda:N")->capture_default_str();
  add_seed_option(cmd, &opt->seed, "Seed of the weights and inputs");
  add_positive_option(cmd, "--tolerance", &opt->tolerance, "Largest relative L2 error that passes");
  add_positive_option(cmd, "--atol", &opt->atol, "allclose absolute tolerance");
  add_positive_option(cmd, "--rtol", &opt->rtol, "allclose relative tolerance");
  cmd->callback([opt, cmd] {
    opt->device_typed = typed(cmd, "--device");
    run_compare(*opt);
  });
}

}  // namespace tt::cli
