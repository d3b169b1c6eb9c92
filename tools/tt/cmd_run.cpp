// `tt run MODEL`: builds a registered model with random (seeded) weights, feeds it
// random inputs of its small or full shape on the chosen device, and prints a
// summary of the output and the time of one forward after a warm-up run (on a GPU the
// model is compiled with tt::compile unless --eager: the warm-up records, the timed
// forwards replay); with --show-configs, also the config each tunable GPU kernel of the
// timed forwards used and where it came from (autotune/lookup.h). --precision sets the mode of the
// forwards' matrix products (core/precision.h).
#include <chrono>
#include <iostream>
#include <string>

#include "autotune/lookup.h"
#include "models/registry.h"
#include "ops/graph/compile.h"
#include "ops/ops.h"
#include "tools/tt/command.h"
#include "tools/tt/device_arg.h"
#include "tools/tt/model_instance.h"
#include "tools/tt/model_selection.h"

namespace tt::cli {
namespace {

struct RunOptions {
  std::string model;
  std::string shape = "small";
  std::string device = "cpu";
  uint64_t seed = 0;
  int iterations = 1;
  bool eval = false;
  bool show_configs = false;
  bool compile = true;
  std::string db_path;
  std::string precision = "strict";
  bool device_typed = false;
};

// Shape, dtype, device, min/max/mean (reductions on the output's device: no copy of
// it) and the corner values (Tensor::str() gathers only those).
std::string output_summary(const Tensor& out) {
  std::string stats;
  if (out.dtype() == DType::F32 && out.numel() > 0) {
    stats = fmt::format("min {:.6g}  max {:.6g}  mean {:.6g}\n", ops::amin(out).item(),
                        ops::amax(out).item(), ops::mean(out).item());
  }
  const std::string text = out.str();
  const size_t header_end = text.find('\n');
  if (header_end == std::string::npos) return text;
  return text.substr(0, header_end + 1) + (stats.empty() ? "" : "         " + stats) +
         text.substr(header_end + 1);
}

void run_model(const RunOptions& opt) {
  ModelInstance m = resolve_model_instance("run", opt.model, opt.shape, opt.device,
                                           opt.device_typed, opt.precision);
  PrecisionGuard precision_scope(m.precision);
  use_database("run", opt.db_path);
  m.build(opt.seed, opt.eval);
  const models::ModelInfo& info = m.info;
  const models::ShapePreset& preset = m.preset;
  const Device device = m.device;
  std::shared_ptr<Module> model = m.model;
  if (opt.compile && device.is_cuda()) model = tt::compile(model);
  const std::vector<Tensor>& inputs = m.inputs;

  std::cout << "model:   " << info.name << " init " << preset.init << " (" << opt.shape << ", "
            << (opt.eval ? "eval" : "train") << " mode, seed " << opt.seed << ")\n";
  std::cout << "inputs: ";
  for (size_t i = 0; i < inputs.size(); ++i)
    std::cout << " " << info.input_names.at(i) << shape_str(inputs[i].sizes());
  std::cout << "\ndevice:  " << device.str() << ", " << precision_name(m.precision)
            << " precision\n";

  std::vector<Tensor> outputs = model->forward(inputs);  // warm-up (compiled: records)
  wait_for(device);
  autotune::clear_configs_used();
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < opt.iterations; ++i) {
    // Free the last outputs before the next forward allocates its own: otherwise two
    // outputs are alive at the peak (InstanceNorm2dModel --shape full on the CPU: 22.2 GB
    // resident, input + two 7.5 GB outputs, instead of input + one).
    outputs.clear();
    outputs = model->forward(inputs);
  }
  wait_for(device);
  const std::chrono::duration<double, std::milli> elapsed =
      std::chrono::steady_clock::now() - start;

  std::cout << "output:  " << output_summary(outputs.at(0)) << "\n";
  std::cout << "forward: " << fmt::format("{:.3f}", elapsed.count() / opt.iterations) << " ms ("
            << (opt.iterations == 1 ? "one run" : fmt::format("mean of {} runs", opt.iterations))
            << " after one warm-up)\n";
  if (opt.show_configs) {
    const std::string used = autotune::format_configs_used();
    std::cout << "configs:"
              << (used.empty() ? " none (no tunable kernel ran on this device)\n" : "\n" + used);
  }
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto opt = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Run a registered model on random weights and inputs and time its forward");
  cmd->footer(
      "Weights use PyTorch's default initialisation and inputs are uniform [0, 1), both drawn "
      "from --seed, so a run is reproducible. The time is wall-clock per forward after one "
      "warm-up forward (the device is synchronised before the clock stops). See `tt models` "
      "for the names and shapes.");
  add_model_instance_options(cmd, &opt->model, &opt->shape, &opt->device, &opt->seed);
  add_count_option(cmd, "--iters", &opt->iterations,
                   "Timed forwards after the warm-up (the mean is shown)");
  cmd->add_flag("--eval", opt->eval, "Run in eval mode (default: train mode, as PyTorch)");
  add_compile_flag(cmd, &opt->compile, "On a GPU, run");
  cmd->add_flag("--show-configs", opt->show_configs,
                "Print the config each tunable kernel used and where it came from");
  add_precision_option(cmd, &opt->precision, "the CPU computes float32 in every mode");
  add_db_option(cmd, &opt->db_path, kReadDbHelp);
  cmd->callback([opt, cmd] {
    opt->device_typed = typed(cmd, "--device");
    run_model(*opt);
  });
}

}  // namespace tt::cli
