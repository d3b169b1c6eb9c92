// What `tt run` and `tt compile` share: the one model instance they work on (the
// options of add_model_instance_options), resolved first (model, shape preset, device,
// precision: every usage error before any work), then built, and the wait for a
// device before a clock stops.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/device.h"
#include "core/module.h"
#include "core/precision.h"
#include "core/tensor.h"
#include "models/registry.h"

namespace tt::cli {

struct ModelInstance {
  const models::ModelInfo& info;
  const models::ShapePreset& preset;
  Device device;
  Precision precision;
  std::shared_ptr<Module> model;  // set by build()
  std::vector<Tensor> inputs;

  // The model on weights drawn from `seed` (PyTorch's default initialisation), in train
  // mode unless `eval`, on the device; inputs uniform [0, 1) from the same seed.
  void build(uint64_t seed, bool eval);
};

// The registered model `model` at preset `shape` on `device_text` (typed: given on the
// command line) in `precision_text`, noting once when the CPU ignores the mode.
ModelInstance resolve_model_instance(const std::string& command, const std::string& model,
                                     const std::string& shape, const std::string& device_text,
                                     bool device_typed, const std::string& precision_text);

// Kernels launch asynchronously: returns once the device has finished its work.
void wait_for(Device device);

}  // namespace tt::cli
