// Device benchmark of issue 22: each seed model (registered as its KernelBench plain-op
// forward, shared/SEED_MODELS.md) compiled with tt::compile, whose fused groups run as
// plans of the fused family under their structural tuning names
// (ops/cuda/fused/pattern.h), against the same forward run eagerly op by op, with the same
// weights and inputs, in strict, tf32 and accurate. Prints medians (L2 flushed, CUDA
// events; the paths interleaved over rounds), the compiled/eager ratio, the relative L2
// difference between the compiled and eager outputs, and the host time of one call of
// each (enqueueing only); the compiled groups' kernels with --explain.
//
// Usage: seeds_compiled_bench [--shape full|small] [--reps N] [--model NAME] [--rounds R]
//                             [--explain] [--path compiled|eager] [--hide-host US]
//                             [--cuda-graph]
// (--explain: each path's configs as looked up, and the compiled groups; --path: time only
// that path, the other's column 0, for a profiler's trace of one path; --hide-host: a GPU
// wait of US microseconds before each timed call, so the host's enqueueing is not timed;
// --cuda-graph: the compiled path replays as one CUDA graph)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "autotune/lookup.h"
#include "core/cuda/runtime.h"
#include "core/cuda/timing.h"
#include "core/precision.h"
#include "models/registry.h"
#include "ops/graph/compile.h"
#include "ops/ops.h"

namespace {

using tt::Tensor;
using Inputs = std::vector<Tensor>;

double rel_l2(const Tensor& a, const Tensor& b) {
  const Tensor d = a - b;
  const double num = tt::ops::sum(d * d).item();
  const double den = tt::ops::sum(b * b).item();
  return std::sqrt(num / (den > 0 ? den : 1));
}

// Host time of one call's enqueueing (microseconds): ten calls queued behind one
// another, without waiting for the GPU (each forward's GPU time is far longer).
double host_us(const std::function<void()>& fn, int device) {
  tt::cuda::synchronize(device);
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 10; ++i) fn();
  const auto t1 = std::chrono::steady_clock::now();
  tt::cuda::synchronize(device);
  return std::chrono::duration<double, std::micro>(t1 - t0).count() / 10;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

int main(int argc, char** argv) {
  std::string shape = "full";
  int reps = 20;
  bool explain = false;
  std::string only, path;
  tt::CompileOptions compile_options;
  int rounds = 5;
  tt::cuda::TimingOptions timing;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--shape") == 0 && i + 1 < argc) shape = argv[++i];
    if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) reps = std::atoi(argv[++i]);
    if (std::strcmp(argv[i], "--explain") == 0) explain = true;
    if (std::strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) rounds = std::atoi(argv[++i]);
    if (std::strcmp(argv[i], "--model") == 0 && i + 1 < argc) only = argv[++i];
    if (std::strcmp(argv[i], "--path") == 0 && i + 1 < argc) path = argv[++i];
    if (std::strcmp(argv[i], "--cuda-graph") == 0) compile_options.cuda_graph = true;
    if (std::strcmp(argv[i], "--hide-host") == 0 && i + 1 < argc)
      timing.hide_host_us = std::atof(argv[++i]);
  }
  const tt::Device gpu = tt::Device::cuda(0);
  timing.reps = reps;
  std::printf("Device: %s\n", tt::cuda::device_info(gpu.index).name.c_str());
  std::printf("%-24s %-9s %11s %11s %8s %10s %8s %8s\n", "model", "precision", "compiled ms",
              "eager ms", "ratio", "rel diff", "host us", "eager us");
  for (const char* name : {"GemmInstanceNormAddMul", "InstanceNorm2dModel",
                           "GemmSwishBiasGroupNorm", "GemmScaleBatchNorm", "GemmBiasReLU"}) {
    if (!only.empty() && only != name) continue;
    const tt::models::ModelInfo info = tt::models::find_model(name);
    const tt::models::ShapePreset& preset = info.preset(shape);
    for (const char* mode : {"strict", "tf32", "accurate"}) {
      const tt::PrecisionGuard precision(tt::parse_precision(mode));
      auto model = tt::models::build_model(name, preset.init, 0);
      model->to(gpu);
      const Inputs inputs = tt::models::random_inputs(preset.input_shapes, 0, gpu);
      auto compiled = tt::compile(model, compile_options);
      const Tensor eager_out = model->forward(inputs)[0];
      (*compiled)(inputs);  // records and compiles
      (*compiled)(inputs);  // the first replay (a CUDA graph is captured at the second)
      const Tensor compiled_out = (*compiled)(inputs)[0].clone();
      // The two interleaved over `rounds` rounds (the clocks and the other GPU's load
      // drift between seconds), each the median of its rounds' medians.
      std::vector<double> fused{0}, eager{0};
      const auto time_path = [&](const char* which, std::vector<double>& into,
                                 const std::function<void()>& fn) {
        if (path.empty() || path == which)
          into.push_back(tt::cuda::time_gpu(fn, gpu.index, timing).median_ms);
      };
      for (int r = 0; r < rounds; ++r) {
        time_path("compiled", fused, [&] { (*compiled)(inputs); });
        time_path("eager", eager, [&] { model->forward(inputs); });
      }
      for (auto* v : {&fused, &eager})
        if (v->size() > 1) v->erase(v->begin());
      const double c = median(fused), e = median(eager);
      std::printf("%-24s %-9s %11.3f %11.3f %8.3f %10.2e %8.1f %8.1f\n", name, mode, c, e, c / e,
                  rel_l2(compiled_out, eager_out), host_us([&] { (*compiled)(inputs); }, gpu.index),
                  host_us([&] { model->forward(inputs); }, gpu.index));
      if (explain) {
        // What each path looked up (kernel, problem, config, source).
        tt::autotune::clear_configs_used();
        model->forward(inputs);
        std::printf("eager:\n%s", tt::autotune::format_configs_used().c_str());
        tt::autotune::clear_configs_used();
        (*compiled)(inputs);
        std::printf("compiled:\n%s%s\n", tt::autotune::format_configs_used().c_str(),
                    compiled->explain().c_str());
      }
    }
  }
  return 0;
}
