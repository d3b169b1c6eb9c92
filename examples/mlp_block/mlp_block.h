// An MLP block, Linear -> GELU -> Linear -> LayerNorm, written as a user would: only
// the public names (tt::Tensor, tt::Module, tt::nn layers, tt::ops). Its parameter
// names are those of the PyTorch module in tools/device/make_example_goldens.py
// (fc1.weight, fc1.bias, fc2.*, norm.*), so the golden's state dict loads unchanged.
#pragma once

#include <tensortune/tensortune.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace examples {

class MLPBlock : public tt::Module {
 public:
  MLPBlock(int64_t width, int64_t hidden, uint64_t seed = 0) {
    fc1 = register_module("fc1", std::make_shared<tt::nn::Linear>(width, hidden, true, seed));
    act = register_module("act", std::make_shared<tt::nn::GELU>());
    fc2 = register_module("fc2", std::make_shared<tt::nn::Linear>(hidden, width, true, seed + 1));
    norm = register_module("norm", std::make_shared<tt::nn::LayerNorm>(width));
  }

  tt::Tensor operator()(const tt::Tensor& x) const { return (*norm)((*fc2)((*act)((*fc1)(x)))); }
  std::vector<tt::Tensor> forward(const std::vector<tt::Tensor>& in) override {
    return {(*this)(in.at(0))};
  }
  std::string name() const override { return "MLPBlock"; }

  std::shared_ptr<tt::nn::Linear> fc1;
  std::shared_ptr<tt::nn::GELU> act;
  std::shared_ptr<tt::nn::Linear> fc2;
  std::shared_ptr<tt::nn::LayerNorm> norm;
};

}  // namespace examples
