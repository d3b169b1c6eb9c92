// A model of the user's own (not one of tensortune's seed models), written against
// the public API only: Linear -> swish -> GroupNorm -> Linear, with PyTorch's
// parameter names ("fc1.weight", "norm.bias", ...), so a PyTorch state_dict of the
// same module loads unchanged. On the GPU its group norm is a tunable kernel, so
// `tt tune` has something to tune.
#pragma once

#include <tensortune/tensortune.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

class SwishMlp : public tt::Module {
 public:
  // The last argument is the seed every tensortune model constructor takes last.
  SwishMlp(int64_t in, int64_t hidden, int64_t out, int64_t groups, uint64_t seed) {
    fc1_ = register_module("fc1", std::make_shared<tt::nn::Linear>(in, hidden, true, seed));
    norm_ = register_module("norm", std::make_shared<tt::nn::GroupNorm>(groups, hidden));
    fc2_ = register_module("fc2", std::make_shared<tt::nn::Linear>(hidden, out, true, seed + 1));
  }
  std::vector<tt::Tensor> forward(const std::vector<tt::Tensor>& in) override {
    tt::Tensor h = tt::ops::swish(fc1_->forward(in).at(0));
    return fc2_->forward(norm_->forward({h}));
  }
  std::string name() const override { return "SwishMlp"; }

 private:
  std::shared_ptr<tt::nn::Linear> fc1_, fc2_;
  std::shared_ptr<tt::nn::GroupNorm> norm_;
};
