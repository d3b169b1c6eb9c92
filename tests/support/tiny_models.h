// Issue 20's done-when models, written as a libtorch user would write them (libtorch's
// names only, no host loops over elements): a GPT-2-style decoder (token and position
// nn::Embedding, causal attention through a bool triu mask and masked_fill, GELU(tanh)
// MLP, LayerNorm, LM head) and a BERT-style post-LN encoder layer with a padding mask.
// Parameter names are the PyTorch modules' of tools/device/make_model_goldens.py, so
// the goldens' state dicts load unchanged (tests/model_goldens_test.cpp).
#pragma once

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/module.h"
#include "models/layers.h"
#include "ops/ops.h"

namespace tt::test {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

class CausalSelfAttention : public Module {
 public:
  CausalSelfAttention(int64_t d, int64_t heads) : heads(heads) {
    c_attn = register_module("c_attn", std::make_shared<nn::Linear>(d, 3 * d));
    c_proj = register_module("c_proj", std::make_shared<nn::Linear>(d, d));
    attn_dropout = register_module("attn_dropout", std::make_shared<nn::Dropout>(0.1));
  }
  Tensor operator()(const Tensor& x) const {
    const int64_t B = x.size(0), T = x.size(1), C = x.size(2), hd = C / heads;
    const std::vector<Tensor> qkv = ops::split((*c_attn)(x), C, 2);
    auto split_heads = [&](const Tensor& t) { return t.view({B, T, heads, hd}).transpose(1, 2); };
    const Tensor q = split_heads(qkv[0]), k = split_heads(qkv[1]), v = split_heads(qkv[2]);
    Tensor att = q.matmul(k.transpose(-2, -1)) * (1.0 / std::sqrt(static_cast<double>(hd)));
    const Tensor causal = Tensor::ones({T, T}, DType::Bool, x.device()).triu(1);
    att = att.masked_fill(causal, kNegInf).softmax(-1);
    const Tensor y = (*attn_dropout)(att).matmul(v);
    return (*c_proj)(y.transpose(1, 2).reshape({B, T, C}));
  }
  std::vector<Tensor> forward(const std::vector<Tensor>& in) override { return {(*this)(in[0])}; }
  std::string name() const override { return "CausalSelfAttention"; }

  const int64_t heads;
  std::shared_ptr<nn::Linear> c_attn, c_proj;
  std::shared_ptr<nn::Dropout> attn_dropout;
};

class GptMLP : public Module {
 public:
  explicit GptMLP(int64_t d) {
    c_fc = register_module("c_fc", std::make_shared<nn::Linear>(d, 4 * d));
    act = register_module("act", std::make_shared<nn::GELU>("tanh"));
    c_proj = register_module("c_proj", std::make_shared<nn::Linear>(4 * d, d));
  }
  Tensor operator()(const Tensor& x) const { return (*c_proj)((*act)((*c_fc)(x))); }
  std::vector<Tensor> forward(const std::vector<Tensor>& in) override { return {(*this)(in[0])}; }
  std::string name() const override { return "MLP"; }

  std::shared_ptr<nn::Linear> c_fc, c_proj;
  std::shared_ptr<nn::GELU> act;
};

class GptBlock : public Module {
 public:
  GptBlock(int64_t d, int64_t heads) {
    ln_1 = register_module("ln_1", std::make_shared<nn::LayerNorm>(d));
    attn = register_module("attn", std::make_shared<CausalSelfAttention>(d, heads));
    ln_2 = register_module("ln_2", std::make_shared<nn::LayerNorm>(d));
    mlp = register_module("mlp", std::make_shared<GptMLP>(d));
  }
  Tensor operator()(Tensor x) const {
    x = x + (*attn)((*ln_1)(x));
    return x + (*mlp)((*ln_2)(x));
  }
  std::vector<Tensor> forward(const std::vector<Tensor>& in) override { return {(*this)(in[0])}; }
  std::string name() const override { return "Block"; }

  std::shared_ptr<nn::LayerNorm> ln_1, ln_2;
  std::shared_ptr<CausalSelfAttention> attn;
  std::shared_ptr<GptMLP> mlp;
};

// forward({token ids [B, T] int64}) -> {logits [B, T, vocab]}.
class TinyGPT : public Module {
 public:
  explicit TinyGPT(int64_t vocab = 50, int64_t n_pos = 16, int64_t d = 32, int64_t heads = 4,
                   int64_t layers = 2)
      : heads(heads) {
    wte = register_module("wte", std::make_shared<nn::Embedding>(vocab, d, /*padding_idx=*/0));
    wpe = register_module("wpe", std::make_shared<nn::Embedding>(n_pos, d));
    drop = register_module("drop", std::make_shared<nn::Dropout>(0.1));
    h = register_module("h", std::make_shared<nn::ModuleList>());
    for (int64_t i = 0; i < layers; ++i) h->push_back(std::make_shared<GptBlock>(d, heads));
    ln_f = register_module("ln_f", std::make_shared<nn::LayerNorm>(d));
    lm_head = register_module("lm_head", std::make_shared<nn::Linear>(d, vocab, /*bias=*/false));
  }
  std::vector<Tensor> forward(const std::vector<Tensor>& in) override {
    const Tensor& idx = in.at(0);
    const Tensor pos = Tensor::arange(0, idx.size(1), 1, DType::I64, idx.device());
    Tensor x = (*drop)((*wte)(idx) + (*wpe)(pos));
    for (const auto& block : *h) x = block->forward({x})[0];
    return {(*lm_head)((*ln_f)(x))};
  }
  std::string name() const override { return "TinyGPT"; }

  const int64_t heads;
  std::shared_ptr<nn::Embedding> wte, wpe;
  std::shared_ptr<nn::Dropout> drop;
  std::shared_ptr<nn::ModuleList> h;
  std::shared_ptr<nn::LayerNorm> ln_f;
  std::shared_ptr<nn::Linear> lm_head;
};

// forward({x [B, T, d] float32, attention_mask [B, T] int64 (1 token, 0 padding)}).
class BertLayer : public Module {
 public:
  explicit BertLayer(int64_t d = 32, int64_t heads = 4, int64_t ffn = 64) : heads(heads) {
    query = register_module("query", std::make_shared<nn::Linear>(d, d));
    key = register_module("key", std::make_shared<nn::Linear>(d, d));
    value = register_module("value", std::make_shared<nn::Linear>(d, d));
    attn_out = register_module("attn_out", std::make_shared<nn::Linear>(d, d));
    attn_norm = register_module("attn_norm", std::make_shared<nn::LayerNorm>(d, 1e-12));
    intermediate = register_module("intermediate", std::make_shared<nn::Linear>(d, ffn));
    output = register_module("output", std::make_shared<nn::Linear>(ffn, d));
    out_norm = register_module("out_norm", std::make_shared<nn::LayerNorm>(d, 1e-12));
    dropout = register_module("dropout", std::make_shared<nn::Dropout>(0.1));
  }
  std::vector<Tensor> forward(const std::vector<Tensor>& in) override {
    Tensor x = in.at(0);
    const Tensor& attention_mask = in.at(1);
    const int64_t B = x.size(0), T = x.size(1), C = x.size(2), hd = C / heads;
    auto split_heads = [&](const Tensor& t) { return t.view({B, T, heads, hd}).transpose(1, 2); };
    const Tensor q = split_heads((*query)(x)), k = split_heads((*key)(x)),
                 v = split_heads((*value)(x));
    const Tensor scores = q.matmul(k.transpose(-2, -1)) / std::sqrt(static_cast<double>(hd));
    const Tensor padding = attention_mask.eq(0).view({B, 1, 1, T});
    const Tensor probs = (*dropout)(scores.masked_fill(padding, kNegInf).softmax(-1));
    const Tensor ctx = probs.matmul(v).transpose(1, 2).reshape({B, T, C});
    x = (*attn_norm)(x + (*dropout)((*attn_out)(ctx)));
    const Tensor ff = (*output)(ops::gelu((*intermediate)(x)));
    return {(*out_norm)(x + (*dropout)(ff))};
  }
  std::string name() const override { return "BertLayer"; }

  const int64_t heads;
  std::shared_ptr<nn::Linear> query, key, value, attn_out, intermediate, output;
  std::shared_ptr<nn::LayerNorm> attn_norm, out_norm;
  std::shared_ptr<nn::Dropout> dropout;
};

}  // namespace tt::test
