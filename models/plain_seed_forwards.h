// The five seed models' forwards as KernelBench writes them (shared/SEED_MODELS.md), in
// plain ops over a registered seed model's own submodules and parameters: what
// tt::compile fuses into the fused family's plans (issue 22), beside the registered
// forwards that call the hand-fused ops.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/module.h"
#include "core/tensor.h"

namespace tt::models {

using PlainForward = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

// The plain-op forward of seed model `name`, reading `model` (built by build_model(name,
// ...)); tt::Error for a model that is not one of the five seeds.
PlainForward seed_plain_forward(const std::string& name, const std::shared_ptr<Module>& model);

// A module running `forward` whose child "m" is `owner` (so its parameters and buffers
// are the module's, by handle, and follow to()/train()).
class PlainOpsModule : public Module {
 public:
  PlainOpsModule(PlainForward forward, std::shared_ptr<Module> owner);
  std::vector<Tensor> forward(const std::vector<Tensor>& inputs) override;
  std::string name() const override { return "PlainOps"; }

 private:
  PlainForward forward_;
};

}  // namespace tt::models
