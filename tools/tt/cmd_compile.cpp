// `tt compile MODEL`: builds a registered model (random seeded weights, its small or full
// shape), compiles it with tt::compile, runs the first forward (record + compile) and a
// second (replay), and prints the first call's time, a replay's time, the compiled output
// against the eager one and, with --explain, the compiler's report: each fused group and
// its kernel, the nodes left alone, or the graph break and its reason; with --profile,
// each replay step's time and share of the forward.
#include <chrono>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "models/fixture_check.h"
#include "models/registry.h"
#include "ops/graph/compile.h"
#include "ops/graph/program.h"
#include "ops/ops.h"
#include "tools/tt/command.h"
#include "tools/tt/device_arg.h"
#include "tools/tt/model_instance.h"
#if TT_CUDA
#include "core/cuda/stream.h"
#include "core/cuda/stream_marks.h"
#endif

namespace tt::cli {
namespace {

struct CompileCmdOptions {
  std::string model;
  std::string shape = "small";
  std::string device = "cpu";
  uint64_t seed = 0;
  bool eval = false;
  bool explain = false;
  bool profile = false;
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

// Marks taken before each step of a replay and at its end: CUDA events on the device's
// stream (the GPU's time per step, the host running ahead as in any forward), or on the
// CPU the wall clock.
class StepClock {
 public:
  explicit StepClock(Device device) : device_(device) {
#if TT_CUDA
    if (device.is_cuda()) gpu_.emplace(tt::cuda::stream(device.index));
#endif
  }
  void mark() {
#if TT_CUDA
    if (gpu_) return gpu_->mark();
#endif
    host_.push_back(std::chrono::steady_clock::now());
  }
  // ms between mark i and mark i + 1, after the device finished.
  std::vector<double> intervals_ms() {
    wait_for(device_);
#if TT_CUDA
    if (gpu_) return gpu_->intervals_ms();
#endif
    std::vector<double> ms;
    for (size_t i = 0; i + 1 < host_.size(); ++i)
      ms.push_back(std::chrono::duration<double, std::milli>(host_[i + 1] - host_[i]).count());
    return ms;
  }

 private:
  Device device_;
#if TT_CUDA
  std::optional<tt::cuda::StreamMarks> gpu_;
#endif
  std::vector<std::chrono::steady_clock::time_point> host_;
};

// One replay with a mark before each step: each step's time, share and what it runs.
void print_profile(CompiledModule& compiled, const std::vector<Tensor>& inputs, Device device) {
  const graph::Program* program = compiled.program();
  if (program == nullptr || program->eager()) {
    std::cout << "profile: the graph runs eagerly (see --explain), so there are no steps\n";
    return;
  }
  wait_for(device);
  StepClock clock(device);
  struct Observing {
    ~Observing() { graph::set_step_observer(nullptr); }
  } observing;
  graph::set_step_observer([&](size_t) { clock.mark(); });
  compiled(inputs);
  graph::set_step_observer(nullptr);
  clock.mark();
  const std::vector<double> ms = clock.intervals_ms();
  double total = 0;
  for (double t : ms) total += t;
  std::cout << fmt::format(
      "profile: one replay, {:.3f} ms over {} steps ({})\n", total, ms.size(),
      device.is_cuda() ? "GPU time: CUDA events before each step" : "wall clock");
  std::cout << fmt::format("{:>5} {:>9} {:>6}  {}\n", "step", "ms", "share", "runs");
  for (size_t i = 0; i < ms.size() && i < program->steps.size(); ++i) {
    const graph::Step& step = program->steps[i];
    const std::string what = step.kind == graph::Step::Kind::kFused
                                 ? step.description
                                 : graph::node_op_name(program->graph.nodes[step.node]);
    std::cout << fmt::format("{:>5} {:>9.3f} {:>5.1f}%  {}\n", i, ms[i],
                             total > 0 ? 100.0 * ms[i] / total : 0.0, what);
  }
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
  if (opt.profile) print_profile(*compiled, inputs, device);
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
  cmd->add_flag("--profile", opt->profile,
                "Print each replay step's time (GPU time on CUDA) and its share of the forward");
  add_precision_option(cmd, &opt->precision, "the CPU computes float32 in every mode");
  cmd->callback([opt, cmd] {
    opt->device_typed = typed(cmd, "--device");
    run_compile(*opt);
  });
}

}  // namespace tt::cli
