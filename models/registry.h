// The model registry: every seed model under its fixture name, with its constructor
// arguments, two ready-made problem sizes ("small": quick, like the fixtures;
// "full": the KernelBench shapes of SEED_MODELS.md), and a factory that builds the
// model from a JSON argument list as the fixtures store it ("[64, 80, [80]]";
// Python tuples become lists; trailing arguments with defaults may be left out).
// The `tt` command line, the fixture checker, the tests and the benchmarks all go
// through here, so a model is registered in one place.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/module.h"

namespace tt::models {

enum class ArgKind { Int, Float, Shape };
const char* arg_kind_name(ArgKind kind);  // "int", "float", "shape"

struct ArgSpec {
  std::string name;
  ArgKind kind;
  std::string default_json;  // empty when the argument is required
};

struct ShapePreset {
  std::string init;                 // constructor arguments, a JSON list
  std::vector<Shape> input_shapes;  // one per forward input, in order
};

struct ModelInfo {
  std::string name;
  std::string forward;  // what forward computes, in PyTorch terms
  std::vector<ArgSpec> args;
  std::vector<std::string> input_names;
  ShapePreset small;
  ShapePreset full;

  // "small" or "full"; anything else is a tt::Error naming the choices.
  const ShapePreset& preset(const std::string& which) const;
};

// Every registered model, in SEED_MODELS.md order.
const std::vector<ModelInfo>& registered_models();
// Throws tt::Error listing the known names when `name` is not one of them.
const ModelInfo& find_model(const std::string& name);

// Builds `name` from its JSON argument list. Weights are drawn from `seed`
// (PyTorch-like initialisation), so the same seed always gives the same model.
// Wrong argument counts or types throw tt::Error naming the model and the argument.
std::shared_ptr<Module> build_model(const std::string& name, const std::string& init_json,
                                    uint64_t seed = 0);

// Uniform [0, 1) inputs (as torch.rand) for the given shapes; input i has a seed of
// its own derived from `seed`, distinct from the seeds the models derive.
std::vector<Tensor> random_inputs(const std::vector<Shape>& shapes, uint64_t seed,
                                  Device device = Device::cpu());

}  // namespace tt::models
