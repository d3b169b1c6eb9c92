// `tt compile MODEL`: builds a registered model (random seeded weights, its small or full
// shape), compiles it with tt::compile, runs the first forward (record + compile) and a
// second (replay), and prints the first call's time, a replay's time, the compiled output
// against the eager one and, with --explain, the compiler's report: each fused group and
// its kernel, the nodes left alone, or the graph break and its reason.
#include <chrono>
#include <functional>
#include <iostream>
#include <string>

#include "models/fixture_check.h"
#include "models/registry.h"
#include "ops/graph/compile.h"
#include "ops/ops.h"
#include "tools/tt/command.h"
#include "tools/tt/device_arg.h"
#include "tools/tt/model_instance.h"

namespace tt::cli {
namespace {

struct CompileCmdOptions {
  std::string model;
  std::string shape = "small";
  std::string device = "cpu";
  uint64_t seed = 0;
  bool eval = false;
  bool explain = false;
  std::string precision = "strict";
  bool device_typed = false;
};

double timed_ms(Device device, const std::function<void()>& fn) {
  const auto start = std::chrono::steady_clock::now();
  fn();
  wait_for(device);
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

void run_compile(const CompileCmdOptions& opt) {
  ModelInstance m = resolve_model_instance("compile", opt.model, opt.shape, opt.device,
                                           opt.device_typed, opt.precision);
  PrecisionGuard precision_scope(m.precision);
  m.build(opt.seed, opt.eval);
  const models::ModelInfo& info = m.info;
  const Device device = m.device;
  const std::shared_ptr<Module>& model = m.model;
  const std::vector<Tensor>& inputs = m.inputs;
  CompileOptions options;
  auto compiled = tt::compile(model, options);

  std::vector<Tensor> first, replay;
  const double first_ms = timed_ms(device, [&] { first = (*compiled)(inputs); });
  const double replay_ms = timed_ms(device, [&] { replay = (*compiled)(inputs); });
  std::cout << fmt::format("model:   {} ({}, {} mode, {} precision, {})\n", info.name, opt.shape,
                           opt.eval ? "eval" : "train", precision_name(m.precision), device.str());
  std::cout << fmt::format(
      "compile: first call {:.1f} ms (record + compile {:.1f} ms), replay "
      "{:.3f} ms\n",
      first_ms, compiled->last_compile_seconds() * 1e3, replay_ms);
  std::cout << fmt::format("replay vs first call: relative L2 {:.3g}\n",
                           models::relative_l2_error(replay.at(0), first.at(0)));
  if (opt.explain) std::cout << compiled->explain();
}

}  // namespace

void add_compile_command(CLI::App& app) {
  auto opt = std::make_shared<CompileCmdOptions>();
  CLI::App* cmd = app.add_subcommand(
      "compile", "Compile a registered model with tt::compile and report what was fused");
  cmd->footer(
      "The first forward runs the model eagerly while recording its graph, then compiles it "
      "(fused groups on CUDA; op by op on the CPU); the second replays it. --explain prints "
      "each fused group with its kernel, the nodes left alone, or the reason the graph runs "
      "eagerly (a graph break).");
  add_model_instance_options(cmd, &opt->model, &opt->shape, &opt->device, &opt->seed);
  cmd->add_flag("--eval", opt->eval, "Run in eval mode (default: train mode, as PyTorch)");
  cmd->add_flag("--explain", opt->explain, "Print the compiler's report");
  add_precision_option(cmd, &opt->precision, "the CPU computes float32 in every mode");
  cmd->callback([opt, cmd] {
    opt->device_typed = typed(cmd, "--device");
    run_compile(*opt);
  });
}

}  // namespace tt::cli
