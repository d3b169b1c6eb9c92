// A single-head attention block, softmax(q k^T / sqrt(d)) v with q, k and v Linear
// projections of x [batch, sequence, width], written as a user would: only the
// public names. Parameter names (q_proj.*, k_proj.*, v_proj.*) are those of the
// PyTorch module in tools/device/make_example_goldens.py.
#pragma once

#include <tensortune/tensortune.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace examples {

class AttentionBlock : public tt::Module {
 public:
  AttentionBlock(int64_t width, uint64_t seed = 0) : width(width) {
    q_proj = register_module("q_proj", std::make_shared<tt::nn::Linear>(width, width, true, seed));
    k_proj =
        register_module("k_proj", std::make_shared<tt::nn::Linear>(width, width, true, seed + 1));
    v_proj =
        register_module("v_proj", std::make_shared<tt::nn::Linear>(width, width, true, seed + 2));
  }

  tt::Tensor operator()(const tt::Tensor& x) const {
    const tt::Tensor q = (*q_proj)(x), k = (*k_proj)(x), v = (*v_proj)(x);
    // k.transpose(-2, -1) is a strided view: matmul reads it without a copy.
    const tt::Tensor scores =
        tt::ops::matmul(q, k.transpose(-2, -1)) / std::sqrt(static_cast<double>(width));
    return tt::ops::matmul(tt::ops::softmax(scores, -1), v);
  }
  std::vector<tt::Tensor> forward(const std::vector<tt::Tensor>& in) override {
    return {(*this)(in.at(0))};
  }
  std::string name() const override { return "AttentionBlock"; }

  const int64_t width;
  std::shared_ptr<tt::nn::Linear> q_proj;
  std::shared_ptr<tt::nn::Linear> k_proj;
  std::shared_ptr<tt::nn::Linear> v_proj;
};

}  // namespace examples
