// A pre-LN transformer block written the libtorch way, only with public names:
//   x = x + proj(attention(ln1(x)))     attention: 16 heads, softmax(q k^T / sqrt(E)) v
//   x = x + fc2(gelu(fc1(ln2(x))))
// The attention is written out (matmul, scale, softmax, matmul over the head split of
// one qkv projection), as a user writes it before reaching for a fused op: tt::compile
// is what makes it fast (README, "Compiling a model"). `causal` makes it a decoder block
// written the GPT-2 way: a tril of ones built in the forward, masked_fill(mask == 0, -inf)
// on the scaled scores (tt::compile runs that as scaled_dot_product_attention's is_causal).
#pragma once

#include <tensortune/tensortune.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace examples {

class TransformerBlock : public tt::Module {
 public:
  TransformerBlock(int64_t width, int64_t heads, int64_t hidden, uint64_t seed = 0,
                   bool causal = false)
      : width(width), heads(heads), causal(causal) {
    ln1 = register_module("ln1", std::make_shared<tt::nn::LayerNorm>(width));
    qkv = register_module("qkv", std::make_shared<tt::nn::Linear>(width, 3 * width, true, seed));
    proj = register_module("proj", std::make_shared<tt::nn::Linear>(width, width, true, seed + 1));
    ln2 = register_module("ln2", std::make_shared<tt::nn::LayerNorm>(width));
    fc1 = register_module("fc1", std::make_shared<tt::nn::Linear>(width, hidden, true, seed + 2));
    fc2 = register_module("fc2", std::make_shared<tt::nn::Linear>(hidden, width, true, seed + 3));
  }

  tt::Tensor operator()(const tt::Tensor& x) const {
    const int64_t b = x.size(0), t = x.size(1), e = width / heads;
    // [b, t, 3 * width] -> three [b, heads, t, e] views (no copies).
    const std::vector<tt::Tensor> parts = tt::ops::chunk((*qkv)((*ln1)(x)), 3, -1);
    const auto split_heads = [&](const tt::Tensor& p) {
      return p.reshape({b, t, heads, e}).transpose(1, 2);
    };
    const tt::Tensor q = split_heads(parts[0]), k = split_heads(parts[1]),
                     v = split_heads(parts[2]);
    tt::Tensor scores = tt::ops::matmul(q, k.transpose(-2, -1)) / std::sqrt(static_cast<double>(e));
    if (causal) {
      const tt::Tensor mask = tt::Tensor::ones({t, t}, tt::DType::F32, x.device()).tril();
      scores = scores.masked_fill(mask == 0.0, -INFINITY);
    }
    const tt::Tensor attn = tt::ops::matmul(tt::ops::softmax(scores, -1), v);
    const tt::Tensor merged = attn.transpose(1, 2).reshape({b, t, width});
    const tt::Tensor h = x + (*proj)(merged);
    return h + (*fc2)(tt::ops::gelu((*fc1)((*ln2)(h))));
  }
  std::vector<tt::Tensor> forward(const std::vector<tt::Tensor>& in) override {
    return {(*this)(in.at(0))};
  }
  std::string name() const override { return "TransformerBlock"; }

  const int64_t width;
  const int64_t heads;
  const bool causal;
  std::shared_ptr<tt::nn::LayerNorm> ln1, ln2;
  std::shared_ptr<tt::nn::Linear> qkv, proj, fc1, fc2;
};

}  // namespace examples
