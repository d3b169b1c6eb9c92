// CPU time of each seed model's forward (the Eigen reference, both cores) at its
// small shape and at a medium shape: the full KernelBench shape with the batch
// (leading) dimension divided by 16, i.e. about 1/16 of the full work.
#include <benchmark/benchmark.h>

#include <string>

#include "models/registry.h"

namespace {

std::vector<tt::Shape> medium_shapes(const tt::models::ModelInfo& info) {
  std::vector<tt::Shape> shapes = info.full.input_shapes;
  for (tt::Shape& s : shapes) s[0] = std::max<int64_t>(1, s[0] / 16);
  return shapes;
}

void run_model(benchmark::State& state, const std::string& name, bool medium) {
  const tt::models::ModelInfo& info = tt::models::find_model(name);
  const tt::models::ShapePreset& preset = medium ? info.full : info.small;
  const std::vector<tt::Shape> shapes = medium ? medium_shapes(info) : preset.input_shapes;
  auto model = tt::models::build_model(info.name, preset.init, 0);
  std::vector<tt::Tensor> inputs = tt::models::random_inputs(shapes, 1);
  for (auto _ : state) benchmark::DoNotOptimize(model->forward(inputs));
  std::string label = medium ? "medium" : "small";
  for (const tt::Shape& s : shapes) label += " " + tt::shape_str(s);
  state.SetLabel(label);
}

void register_all() {
  for (const auto& info : tt::models::registered_models()) {
    for (bool medium : {false, true}) {
      benchmark::RegisterBenchmark(
          (info.name + (medium ? "/medium" : "/small")).c_str(),
          [name = info.name, medium](benchmark::State& s) { run_model(s, name, medium); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime()
          ->MinTime(medium ? 2.0 : 0.5);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
