// `tt compare MODEL|--all`: runs the same weights and inputs through the CPU
// reference and the GPU, and reports how far apart they are (max absolute error,
// relative L2 error, the allclose verdict) and how long each took. The verdict is the
// precision's bound: relative L2 error <= 1e-5 (SEED_MODELS.md) in strict and
// accurate, 2^-9 in tf32 (autotune/tolerance.h), running statistics included.
// allclose(atol=rtol=1e-5) is reported beside it. The GPU forwards run in --precision.
//
// --reference float64 computes the reference in double on the CPU (the model's own
// forward on float64 copies: models/compare.h) and prints, per model, the error of the
// GPU output and of the CPU float32 output against it, so that a user sees which is
// closer to exact; in tf32 and accurate also the GPU's strict error (accurate's bound
// is max(that, 2^-22): README "Precision"). Without a GPU it still prints the CPU
// float32 error.
#include <chrono>
#include <cmath>
#include <iostream>
#include <string>

#include "autotune/tolerance.h"
#include "core/cuda/available.h"
#include "models/compare.h"
#include "models/fixture_check.h"
#include "models/registry.h"
#include "ops/graph/compile.h"
#include "tools/tt/command.h"
#include "tools/tt/device_all.h"
#include "tools/tt/model_selection.h"
#if TT_CUDA
#include "core/cuda/timing.h"
#endif

namespace tt::cli {
namespace {

struct CompareOptions : ModelSelection {
  CompareOptions() { shape = "small"; }
  std::string precision = "strict";
  std::string reference = "float32";
  std::string mode = "train";
  std::string device = "cuda";
  uint64_t seed = 0;
  double tolerance = 1e-5;
  double atol = 1e-5;
  double rtol = 1e-5;
  bool compile = true;
  bool device_typed = false;
  bool tolerance_typed = false;
};

#if TT_CUDA
// Compiled (unless --eager): the GPU model, its first (recording, eager) forward already
// made on `inputs` and its buffers put back as they were, so that the forward compared
// next is a replay of the compiled graph and has updated the buffers exactly once.
std::shared_ptr<Module> gpu_side(std::shared_ptr<Module> model, const CompareOptions& opt,
                                 const std::vector<Tensor>& inputs) {
  if (!opt.compile) return model;
  return tt::compile_recorded(model, inputs);
}
#endif

// The verdict's bound in a precision mode (see the top of this file).
double default_tolerance(Precision p) {
  return p == Precision::tf32 ? autotune::verification_tolerance("tf32", 1)
                              : models::kFixtureTolerance;
}

std::string e3(double v) { return fmt::format("{:.3e}", v); }

// The float64 reference of one model on the CPU, and the CPU float32 output beside
// it (same weights and inputs): the first forward of fresh models, as the GPU's.
struct CpuReferences {
  models::Float64Forward exact;
  Tensor float32_out;
  NamedTensors float32_buffers;
};

CpuReferences cpu_references(const models::ModelInfo& info, const models::ShapePreset& preset,
                             const CompareOptions& opt, const std::vector<Tensor>& inputs) {
  CpuReferences r;
  {
    auto model = models::build_model(info.name, preset.init, opt.seed);
    model->train(opt.mode == "train");
    r.exact = models::forward_float64(*model, inputs);
  }
  auto model = models::build_model(info.name, preset.init, opt.seed);
  model->train(opt.mode == "train");
  r.float32_out = model->forward(inputs).at(0);
  r.float32_buffers = model->named_buffers();
  return r;
}

// Worst relative L2 error of `buffers` against the float64 ones, and a note naming each.
double buffer_errors(const NamedTensors& buffers, const NamedTensors& exact, std::string* note) {
  double worst = 0;
  for (size_t i = 0; i < buffers.size() && i < exact.size(); ++i) {
    const double e = models::relative_l2_error(buffers[i].second, exact[i].second);
    worst = std::max(worst, e);
    *note += fmt::format(" {}={:.2e}", buffers[i].first, e);
  }
  return worst;
}

// Without a GPU: the CPU float32 output's distance from float64, per model.
bool compare_cpu_float64(const models::ModelInfo& info, const CompareOptions& opt) {
  const models::ShapePreset& preset = info.preset(opt.shape);
  const std::vector<Tensor> inputs = models::random_inputs(preset.input_shapes, opt.seed);
  const CpuReferences ref = cpu_references(info, preset, opt, inputs);
  const models::ErrorVsReference cpu =
      models::error_against(ref.float32_out, ref.exact.outputs.at(0));
  std::string note;
  buffer_errors(ref.float32_buffers, ref.exact.buffers, &note);
  std::cout << fmt::format("{:<24} {:<6} {:>12} {:>12} {:>12} {:>12}", info.name, opt.shape, "-",
                           "-", e3(cpu.rel_l2), e3(cpu.max_abs));
  if (!note.empty()) std::cout << "  cpu buffers:" << note;
  std::cout << std::endl;
  return std::isfinite(cpu.rel_l2);
}

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
bool compare_model(const models::ModelInfo& info, const CompareOptions& opt, Device gpu,
                   double tolerance) {
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
  gpu_model = gpu_side(gpu_model, opt, gpu_inputs);

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

  const bool pass = out.rel_l2 <= tolerance && worst_buffer <= tolerance;
  std::cout << fmt::format(
      "{:<24} {:<6} {:>11.3e} {:>10.3e} {:>14} {:>11.2f} {:>10.3f}  {}", info.name, opt.shape,
      out.max_abs, out.rel_l2,
      out.not_close == 0 ? std::string("yes") : fmt::format("no ({})", out.not_close),
      cpu_ms.count(), gpu_time.median_ms, pass ? "PASS" : "FAIL");
  if (!buffer_note.empty()) std::cout << "  buffers:" << buffer_note;
  std::cout << std::endl;
  return pass;
}

// The first forward of a fresh GPU model in `precision` (the one compared: training-mode
// batch norm updates its running statistics on every call).
std::pair<Tensor, NamedTensors> gpu_forward(const models::ModelInfo& info,
                                            const models::ShapePreset& preset,
                                            const CompareOptions& opt,
                                            const std::vector<Tensor>& inputs, Device gpu,
                                            Precision precision) {
  PrecisionGuard scope(precision);
  auto model = models::build_model(info.name, preset.init, opt.seed);
  model->train(opt.mode == "train");
  model->to(gpu);
  std::vector<Tensor> on_gpu;
  for (const Tensor& t : inputs) on_gpu.push_back(t.to(gpu));
  Tensor out = gpu_side(model, opt, on_gpu)->forward(on_gpu).at(0).cpu();
  NamedTensors buffers;
  for (const auto& [name, b] : model->named_buffers()) buffers.emplace_back(name, b.cpu());
  return {out, buffers};
}

// --reference float64: the GPU's and the CPU float32's errors against float64; the
// verdict holds the GPU to `tolerance`.
bool compare_model_float64(const models::ModelInfo& info, const CompareOptions& opt, Device gpu,
                           double tolerance) {
  const models::ShapePreset& preset = info.preset(opt.shape);
  const Precision precision = parse_precision(opt.precision);
  const std::vector<Tensor> inputs = models::random_inputs(preset.input_shapes, opt.seed);
  const CpuReferences ref = cpu_references(info, preset, opt, inputs);
  const Tensor& exact = ref.exact.outputs.at(0);

  const auto [gpu_out, gpu_buffers] = gpu_forward(info, preset, opt, inputs, gpu, precision);
  const models::ErrorVsReference g = models::error_against(gpu_out, exact);
  const models::ErrorVsReference c = models::error_against(ref.float32_out, exact);
  std::string strict_text = "-";
  if (precision != Precision::strict) {
    const Tensor strict_out = gpu_forward(info, preset, opt, inputs, gpu, Precision::strict).first;
    strict_text = e3(models::error_against(strict_out, exact).rel_l2);
  }
  std::string note;
  const double worst_buffer = buffer_errors(gpu_buffers, ref.exact.buffers, &note);
  const bool pass = g.rel_l2 <= tolerance && worst_buffer <= tolerance;
  std::cout << fmt::format("{:<24} {:<6} {:>12} {:>12} {:>12} {:>12} {:>12}  {:<6} {}", info.name,
                           opt.shape, e3(g.rel_l2), e3(g.max_abs), e3(c.rel_l2), e3(c.max_abs),
                           strict_text, g.rel_l2 <= c.rel_l2 ? "gpu" : "cpu",
                           pass ? "PASS" : "FAIL");
  if (!note.empty()) std::cout << "  gpu buffers:" << note;
  std::cout << std::endl;
  return pass;
}
#endif

// A row per model through `one` (a model's error is reported in its row and counts as a
// disagreement); throws the failure exit code when any disagrees. cpu_only: no GPU
// side, so nothing can disagree; a model fails only by an error or a non-finite result.
template <typename Fn>
void for_each_model(const std::vector<const models::ModelInfo*>& selected,
                    const CompareOptions& opt, bool cpu_only, Fn one) {
  int failures = 0;
  for (const auto* info : selected) {
    try {
      if (!one(*info)) ++failures;
    } catch (const Error& e) {
      std::cout << fmt::format("{:<24} {:<6} ERROR: {}\n", info->name, opt.shape, e.what());
      ++failures;
    }
  }
  if (failures > 0) {
    std::cout << failures << " of " << selected.size() << " models "
              << (cpu_only ? "failed" : "disagree") << "\n";
    throw CLI::RuntimeError(kExitFailure);
  }
  std::cout << "all " << selected.size() << " models " << (cpu_only ? "computed" : "agree") << "\n";
}

void run_compare(const CompareOptions& opt) {
  const Precision precision = parse_precision(opt.precision);
  [[maybe_unused]] const double tolerance =
      opt.tolerance_typed ? opt.tolerance : default_tolerance(precision);
  const bool float64 = opt.reference == "float64";
  const std::vector<const models::ModelInfo*> selected = selected_models("compare", opt);
  if (float64 && !cuda::is_available()) {
    // Still useful without a GPU: how far the CPU float32 reference is from exact.
    std::cout << fmt::format(
        "float64 CPU reference ({} mode, seed {}); no CUDA device, so only the CPU float32 "
        "output is compared\n",
        opt.mode, opt.seed);
    std::cout << fmt::format("{:<24} {:<6} {:>12} {:>12} {:>12} {:>12}\n", "model", "shape",
                             "gpu rel L2", "gpu max abs", "cpu32 rel L2", "cpu32 max abs");
    for_each_model(selected, opt, true,
                   [&](const models::ModelInfo& info) { return compare_cpu_float64(info, opt); });
    return;
  }
  [[maybe_unused]] const Device gpu = resolve_gpu("compare", opt.device, opt.device_typed);
#if TT_CUDA
  if (float64) {
    std::cout << fmt::format(
        "float64 CPU reference vs {} ({} precision) and vs the CPU float32 reference ({} mode, "
        "seed {}); errors against float64; verdict: GPU relative L2 <= {:g}\n",
        gpu.str(), opt.precision, opt.mode, opt.seed, tolerance);
    std::cout << fmt::format("{:<24} {:<6} {:>12} {:>12} {:>12} {:>12} {:>12}  {:<6} {}\n", "model",
                             "shape", "gpu rel L2", "gpu max abs", "cpu32 rel L2", "cpu32 max abs",
                             "strict rel L2", "closer", "verdict");
    for_each_model(selected, opt, false, [&](const models::ModelInfo& info) {
      return compare_model_float64(info, opt, gpu, tolerance);
    });
    return;
  }
  PrecisionGuard precision_scope(precision);
  std::cout << fmt::format(
      "CPU reference vs {} ({} precision, {} mode, seed {}); verdict: "
      "relative L2 <= {:g}; allclose at atol={:g} rtol={:g}\n",
      gpu.str(), opt.precision, opt.mode, opt.seed, tolerance, opt.atol, opt.rtol);
  std::cout << fmt::format("{:<24} {:<6} {:>11} {:>10} {:>14} {:>11} {:>10}  {}\n", "model",
                           "shape", "max abs err", "rel L2", "allclose", "cpu ms", "gpu ms",
                           "verdict");
  for_each_model(selected, opt, false, [&](const models::ModelInfo& info) {
    return compare_model(info, opt, gpu, tolerance);
  });
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
      "norm's running statistics) is at most --tolerance (default: 1e-5, the strict bound; "
      "2^-9 with --precision tf32); allclose(atol, rtol) is reported beside it with the number "
      "of elements outside. Times: one CPU forward (wall clock) and the median GPU forward "
      "(CUDA events, L2 flushed). With --reference float64 the reference is computed in double "
      "on the CPU and the table gives the relative L2 and max abs errors of the GPU output and "
      "of the CPU float32 output against it, which of the two is closer, and in tf32 or "
      "accurate the GPU's strict error (accurate's bound: max(strict's, 2^-22)); the verdict "
      "then holds the GPU's error against float64 to the tolerance. Without a GPU, --reference "
      "float64 prints the CPU float32 errors alone. Exit codes: 0 all agree, 1 a disagreement "
      "or error, 3 no CUDA device (float32 reference).");
  add_model_selection(cmd, opt.get(), "Compare every registered model");
  add_precision_option(cmd, &opt->precision,
                       "the GPU runs in it, the CPU reference is float32 (or float64) in every "
                       "mode");
  cmd->add_option("--reference", opt->reference,
                  "The CPU reference: float32 (the CPU kernels) or float64 (the same forward in "
                  "double: errors of the GPU and of the CPU float32 output against it)")
      ->check(CLI::IsMember({"float32", "float64"}))
      ->capture_default_str();
  cmd->add_option("--mode", opt->mode, "train or eval (batch norm statistics)")
      ->check(CLI::IsMember({"train", "eval"}))
      ->capture_default_str();
  cmd->add_option("--device", opt->device,
                  "CUDA device: cuda, cuda:N, or all (one worker per GPU at once)")
      ->capture_default_str();
  add_compile_flag(cmd, &opt->compile, "Compare on the GPU");
  add_seed_option(cmd, &opt->seed, "Seed of the weights and inputs");
  add_positive_option(cmd, "--tolerance", &opt->tolerance,
                      "Largest relative L2 error that passes (default: 1e-5; 2^-9 with "
                      "--precision tf32)")
      ->default_str("");
  add_positive_option(cmd, "--atol", &opt->atol, "allclose absolute tolerance");
  add_positive_option(cmd, "--rtol", &opt->rtol, "allclose relative tolerance");
  set_device_callback(cmd, "compare", opt, [cmd](CompareOptions& o) {
    o.tolerance_typed = typed(cmd, "--tolerance");
    run_compare(o);
  });
}

}  // namespace tt::cli
