#include "tools/tt/model_instance.h"

#include "core/cuda/available.h"
#include "tools/tt/command.h"
#include "tools/tt/device_arg.h"

namespace tt::cli {

void ModelInstance::build(uint64_t seed, bool eval) {
  model = models::build_model(info.name, preset.init, seed);
  model->train(!eval);
  model->to(device);
  inputs = models::random_inputs(preset.input_shapes, seed, device);
}

ModelInstance resolve_model_instance(const std::string& command, const std::string& model,
                                     const std::string& shape, const std::string& device_text,
                                     bool device_typed, const std::string& precision_text) {
  const models::ModelInfo& info = models::find_model(model);
  const models::ShapePreset& preset = info.preset(shape);
  const Device device = resolve_device(device_text, command, device_typed);
  const Precision precision = parse_precision(precision_text);
  note_cpu_precision(command, precision, device);
  return {info, preset, device, precision, nullptr, {}};
}

void wait_for(Device device) {
#if TT_CUDA
  if (device.is_cuda()) cuda::synchronize(device.index);
#else
  (void)device;
#endif
}

}  // namespace tt::cli
