#include "models/layers.h"

#include <cmath>
#include <limits>

#include <fmt/ranges.h>

#include "models/check_inputs.h"
#include "models/seed.h"
#include "ops/ops.h"

namespace tt::nn {
namespace {

void check_positive(const char* layer, const char* what, int64_t value) {
  TT_CHECK(value > 0, "{}: {} must be positive but got {}", layer, what, value);
}

void check_eps(const char* layer, double eps) {
  TT_CHECK(eps > 0 && std::isfinite(eps), "{}: eps must be a positive number but got {}", layer,
           eps);
}

}  // namespace

Linear::Linear(int64_t in_features, int64_t out_features, bool bias, std::optional<uint64_t> seed_)
    : in_features(in_features), out_features(out_features) {
  check_positive("Linear", "in_features", in_features);
  check_positive("Linear", "out_features", out_features);
  const uint64_t seed = seed_ ? *seed_ : next_generator_seed();
  const double bound = 1.0 / std::sqrt(static_cast<double>(in_features));
  weight = register_parameter(
      "weight", Tensor::uniform({out_features, in_features}, -bound, bound, derive_seed(seed, 0)));
  if (bias)
    this->bias = register_parameter(
        "bias", Tensor::uniform({out_features}, -bound, bound, derive_seed(seed, 1)));
}

Tensor Linear::operator()(const Tensor& x) const { return ops::linear(x, weight, bias); }

std::vector<Tensor> Linear::forward(const std::vector<Tensor>& inputs) {
  check_input_count(name(), inputs, 1);
  return {(*this)(inputs[0])};
}

Embedding::Embedding(int64_t num_embeddings, int64_t embedding_dim,
                     std::optional<int64_t> padding_idx_, std::optional<uint64_t> seed_)
    : num_embeddings(num_embeddings),
      embedding_dim(embedding_dim),
      padding_idx(padding_idx_ && *padding_idx_ < 0 ? *padding_idx_ + num_embeddings
                                                    : padding_idx_) {
  check_positive("Embedding", "num_embeddings", num_embeddings);
  check_positive("Embedding", "embedding_dim", embedding_dim);
  TT_CHECK(!padding_idx_ || (*padding_idx_ >= -num_embeddings && *padding_idx_ < num_embeddings),
           "Embedding: padding_idx must be within num_embeddings ({}) but got {}", num_embeddings,
           padding_idx_.value_or(0));
  const uint64_t seed = seed_ ? *seed_ : next_generator_seed();
  weight = register_parameter("weight",
                              Tensor::randn({num_embeddings, embedding_dim}, derive_seed(seed, 0)));
  if (padding_idx) weight.select(0, *padding_idx).copy_(Tensor::zeros({embedding_dim}));
}

Tensor Embedding::operator()(const Tensor& indices) const {
  return ops::embedding(weight, indices);
}

std::vector<Tensor> Embedding::forward(const std::vector<Tensor>& inputs) {
  check_input_count(name(), inputs, 1);
  return {(*this)(inputs[0])};
}

std::string Embedding::extra_repr() const {
  std::string out = fmt::format("{}, {}", num_embeddings, embedding_dim);
  if (padding_idx) out += fmt::format(", padding_idx={}", *padding_idx);
  return out;
}

Dropout::Dropout(double p) : p(p) {
  TT_CHECK(p >= 0.0 && p <= 1.0, "Dropout: probability p must be in [0, 1] but got {}", p);
}

Tensor Dropout::operator()(const Tensor& x) const { return ops::dropout(x, p, is_training()); }

std::vector<Tensor> Dropout::forward(const std::vector<Tensor>& inputs) {
  check_input_count(name(), inputs, 1);
  return {(*this)(inputs[0])};
}

std::string Dropout::extra_repr() const { return fmt::format("p={}, inplace=False", p); }

BatchNorm1d::BatchNorm1d(int64_t num_features, double eps, double momentum)
    : num_features(num_features), eps(eps), momentum(momentum) {
  check_positive("BatchNorm1d", "num_features", num_features);
  check_eps("BatchNorm1d", eps);
  TT_CHECK(momentum >= 0 && momentum <= 1, "BatchNorm1d: momentum must be in [0, 1] but got {}",
           momentum);
  weight = register_parameter("weight", Tensor::ones({num_features}));
  bias = register_parameter("bias", Tensor::zeros({num_features}));
  running_mean = register_buffer("running_mean", Tensor::zeros({num_features}));
  running_var = register_buffer("running_var", Tensor::ones({num_features}));
}

Tensor BatchNorm1d::operator()(const Tensor& x) const {
  return ops::batch_norm(x, running_mean, running_var, weight, bias, is_training(), momentum, eps);
}

std::vector<Tensor> BatchNorm1d::forward(const std::vector<Tensor>& inputs) {
  check_input_count(name(), inputs, 1);
  return {(*this)(inputs[0])};
}

GroupNorm::GroupNorm(int64_t num_groups, int64_t num_channels, double eps, bool affine)
    : num_groups(num_groups), num_channels(num_channels), eps(eps) {
  check_positive("GroupNorm", "num_groups", num_groups);
  check_positive("GroupNorm", "num_channels", num_channels);
  check_eps("GroupNorm", eps);
  TT_CHECK(num_channels % num_groups == 0,
           "GroupNorm: num_channels must be divisible by num_groups but got {} channels and {} "
           "groups",
           num_channels, num_groups);
  if (affine) {
    weight = register_parameter("weight", Tensor::ones({num_channels}));
    bias = register_parameter("bias", Tensor::zeros({num_channels}));
  }
}

Tensor GroupNorm::operator()(const Tensor& x) const {
  TT_CHECK(x.dim() >= 2 && x.size(1) == num_channels,
           "GroupNorm: expected an input [N, {}, ...] but got {}", num_channels,
           shape_str(x.sizes()));
  return ops::group_norm(x, num_groups, weight, bias, eps);
}

std::vector<Tensor> GroupNorm::forward(const std::vector<Tensor>& inputs) {
  check_input_count(name(), inputs, 1);
  return {(*this)(inputs[0])};
}

InstanceNorm2d::InstanceNorm2d(int64_t num_features, double eps, double momentum, bool affine)
    : num_features(num_features), eps(eps), momentum(momentum) {
  check_positive("InstanceNorm2d", "num_features", num_features);
  check_eps("InstanceNorm2d", eps);
  if (affine) {
    weight = register_parameter("weight", Tensor::ones({num_features}));
    bias = register_parameter("bias", Tensor::zeros({num_features}));
  }
}

Tensor InstanceNorm2d::operator()(const Tensor& x) const {
  TT_CHECK(x.dim() == 4, "InstanceNorm2d: expected a 4-D input [N, C, H, W] but got {}",
           shape_str(x.sizes()));
  // Without affine parameters PyTorch only warns when C differs from num_features
  // (model 1 relies on that); with them the channel count must match.
  TT_CHECK(!weight.defined() || x.size(1) == num_features,
           "InstanceNorm2d: input has {} channels but the layer was built for {}", x.size(1),
           num_features);
  return ops::instance_norm(x, eps, weight, bias);
}

std::vector<Tensor> InstanceNorm2d::forward(const std::vector<Tensor>& inputs) {
  check_input_count(name(), inputs, 1);
  return {(*this)(inputs[0])};
}

}  // namespace tt::nn

// ---- repr, as PyTorch's extra_repr ----

namespace tt::nn {
namespace {

// forward() of a one-input layer: the count check, then the layer's operator().
template <class Layer>
std::vector<Tensor> forward_one(const Layer& layer, const std::vector<Tensor>& inputs) {
  check_input_count(layer.name(), inputs, 1);
  return {layer(inputs[0])};
}

std::string py_bool(bool b) { return b ? "True" : "False"; }

// Python's tuple spelling: "(8,)" or "(2, 3)".
std::string py_tuple(const Shape& s) {
  return s.size() == 1 ? fmt::format("({},)", s[0]) : fmt::format("({})", fmt::join(s, ", "));
}

}  // namespace

std::string Linear::extra_repr() const {
  return fmt::format("in_features={}, out_features={}, bias={}", in_features, out_features,
                     py_bool(bias.defined()));
}

std::string BatchNorm1d::extra_repr() const {
  return fmt::format("{}, eps={}, momentum={}, affine=True, track_running_stats=True", num_features,
                     eps, momentum);
}

std::string GroupNorm::extra_repr() const {
  return fmt::format("{}, {}, eps={}, affine={}", num_groups, num_channels, eps,
                     py_bool(weight.defined()));
}

std::string InstanceNorm2d::extra_repr() const {
  return fmt::format("{}, eps={}, momentum={}, affine={}, track_running_stats=False", num_features,
                     eps, momentum, py_bool(weight.defined()));
}

// ---- LayerNorm, RMSNorm ----

namespace {

void check_normalized_shape(const char* layer, const Shape& shape) {
  TT_CHECK(!shape.empty(), "{}: normalized_shape is empty; expected at least one size", layer);
  for (int64_t s : shape)
    TT_CHECK(s > 0, "{}: normalized_shape must hold positive sizes but is {}", layer,
             shape_str(shape));
}

}  // namespace

LayerNorm::LayerNorm(Shape normalized_shape_, double eps, bool elementwise_affine, bool bias)
    : normalized_shape(std::move(normalized_shape_)), eps(eps) {
  check_normalized_shape("LayerNorm", normalized_shape);
  check_eps("LayerNorm", eps);
  if (elementwise_affine) {
    weight = register_parameter("weight", Tensor::ones(normalized_shape));
    if (bias) this->bias = register_parameter("bias", Tensor::zeros(normalized_shape));
  }
}

Tensor LayerNorm::operator()(const Tensor& x) const {
  return ops::layer_norm(x, normalized_shape, weight, bias, eps);
}

std::vector<Tensor> LayerNorm::forward(const std::vector<Tensor>& inputs) {
  return forward_one(*this, inputs);
}

std::string LayerNorm::extra_repr() const {
  return fmt::format("{}, eps={}, elementwise_affine={}", py_tuple(normalized_shape), eps,
                     py_bool(weight.defined()));
}

RMSNorm::RMSNorm(Shape normalized_shape_, std::optional<double> eps, bool elementwise_affine)
    : normalized_shape(std::move(normalized_shape_)), eps(eps) {
  check_normalized_shape("RMSNorm", normalized_shape);
  if (eps) check_eps("RMSNorm", *eps);
  if (elementwise_affine) weight = register_parameter("weight", Tensor::ones(normalized_shape));
}

Tensor RMSNorm::operator()(const Tensor& x) const {
  return ops::rms_norm(x, normalized_shape, weight, eps);
}

std::vector<Tensor> RMSNorm::forward(const std::vector<Tensor>& inputs) {
  return forward_one(*this, inputs);
}

std::string RMSNorm::extra_repr() const {
  return fmt::format("{}, eps={}, elementwise_affine={}", py_tuple(normalized_shape),
                     eps ? fmt::format("{}", *eps) : "None", py_bool(weight.defined()));
}

// ---- activations ----

GELU::GELU(std::string approximate_) : approximate(std::move(approximate_)) {
  TT_CHECK(approximate == "none" || approximate == "tanh",
           "GELU: approximate must be 'none' or 'tanh' but is '{}'", approximate);
}

Tensor GELU::operator()(const Tensor& x) const { return ops::gelu(x, approximate); }

std::vector<Tensor> GELU::forward(const std::vector<Tensor>& inputs) {
  return forward_one(*this, inputs);
}

std::string GELU::extra_repr() const { return fmt::format("approximate='{}'", approximate); }

Tensor ReLU::operator()(const Tensor& x) const { return ops::relu(x); }

std::vector<Tensor> ReLU::forward(const std::vector<Tensor>& inputs) {
  return forward_one(*this, inputs);
}

Tensor SiLU::operator()(const Tensor& x) const { return ops::silu(x); }

std::vector<Tensor> SiLU::forward(const std::vector<Tensor>& inputs) {
  return forward_one(*this, inputs);
}

Tensor Softmax::operator()(const Tensor& x) const { return ops::softmax(x, dim); }

std::vector<Tensor> Softmax::forward(const std::vector<Tensor>& inputs) {
  return forward_one(*this, inputs);
}

std::string Softmax::extra_repr() const { return fmt::format("dim={}", dim); }

// ---- containers ----

namespace {

const std::shared_ptr<Module>& module_at(const char* container,
                                         const std::vector<std::shared_ptr<Module>>& modules,
                                         size_t i) {
  TT_CHECK(i < modules.size(), "{}: index {} is out of range for {} modules", container, i,
           modules.size());
  return modules[i];
}

}  // namespace

Sequential::Sequential(std::initializer_list<std::shared_ptr<Module>> modules) {
  for (const auto& m : modules) push_back(m);
}

Sequential& Sequential::push_back(std::shared_ptr<Module> module) {
  TT_CHECK(module != nullptr, "Sequential: module {} is null", modules_.size());
  register_module(std::to_string(modules_.size()), module);
  modules_.push_back(std::move(module));
  return *this;
}

std::vector<Tensor> Sequential::forward(const std::vector<Tensor>& inputs) {
  std::vector<Tensor> values = inputs;
  for (auto& m : modules_) values = (*m)(values);  // under each module's precision
  return values;
}

Tensor Sequential::operator()(const Tensor& x) {
  const std::vector<Tensor> out = forward({x});
  TT_CHECK(out.size() == 1, "Sequential: the last module returned {} outputs; expected 1",
           out.size());
  return out[0];
}

const std::shared_ptr<Module>& Sequential::operator[](size_t i) const {
  return module_at("Sequential", modules_, i);
}

ModuleList::ModuleList(std::initializer_list<std::shared_ptr<Module>> modules) {
  for (const auto& m : modules) push_back(m);
}

ModuleList& ModuleList::push_back(std::shared_ptr<Module> module) {
  TT_CHECK(module != nullptr, "ModuleList: module {} is null", modules_.size());
  register_module(std::to_string(modules_.size()), module);
  modules_.push_back(std::move(module));
  return *this;
}

std::vector<Tensor> ModuleList::forward(const std::vector<Tensor>&) {
  TT_FAIL(
      "ModuleList: a ModuleList has no forward; call its modules (list[i]->forward(...)) "
      "instead");
}

const std::shared_ptr<Module>& ModuleList::operator[](size_t i) const {
  return module_at("ModuleList", modules_, i);
}

// ---- attention ----

MultiheadAttention::MultiheadAttention(int64_t embed_dim, int64_t num_heads, bool bias,
                                       bool batch_first, uint64_t seed)
    : embed_dim(embed_dim),
      num_heads(num_heads),
      head_dim(num_heads > 0 ? embed_dim / num_heads : 0),
      batch_first(batch_first) {
  check_positive("MultiheadAttention", "embed_dim", embed_dim);
  check_positive("MultiheadAttention", "num_heads", num_heads);
  TT_CHECK(embed_dim % num_heads == 0,
           "MultiheadAttention: embed_dim {} must be divisible by num_heads {}", embed_dim,
           num_heads);
  // xavier_uniform_ over [3E, E]: fan_in E, fan_out 3E.
  const double bound = std::sqrt(6.0 / static_cast<double>(embed_dim + 3 * embed_dim));
  in_proj_weight = register_parameter(
      "in_proj_weight",
      Tensor::uniform({3 * embed_dim, embed_dim}, -bound, bound, derive_seed(seed, 0)));
  if (bias) in_proj_bias = register_parameter("in_proj_bias", Tensor::zeros({3 * embed_dim}));
  out_proj = register_module(
      "out_proj", std::make_shared<Linear>(embed_dim, embed_dim, bias, derive_seed(seed, 1)));
  if (bias) out_proj->bias.zero_();
}

namespace {

// A MultiheadAttention mask as an additive float mask: bool/uint8 true -> -inf.
Tensor additive_mask(const Tensor& m) {
  if (!m.defined() || (m.dtype() != DType::U8 && m.dtype() != DType::Bool)) return m;
  const Tensor ninf =
      Tensor::full({1}, -std::numeric_limits<double>::infinity(), DType::F32, m.device());
  return ops::where(m, ninf, Tensor::zeros({1}, DType::F32, m.device()));
}

}  // namespace

Tensor MultiheadAttention::operator()(const Tensor& query, const Tensor& key, const Tensor& value,
                                      const Tensor& key_padding_mask,
                                      const Tensor& attn_mask) const {
  const char* op = "MultiheadAttention";
  TT_CHECK(query.defined() && key.defined() && value.defined(),
           "{}: query, key and value must all be defined", op);
  const bool batched = query.dim() == 3;
  TT_CHECK(query.dim() == 3 || query.dim() == 2,
           "{}: query must be [L, N, E] ([N, L, E] with batch_first) or unbatched [L, E] but has "
           "shape {}",
           op, shape_str(query.sizes()));
  TT_CHECK(key.dim() == query.dim() && value.dim() == query.dim(),
           "{}: key {} and value {} must have the rank of query {}", op, shape_str(key.sizes()),
           shape_str(value.sizes()), shape_str(query.sizes()));
  for (const Tensor* t : {&query, &key, &value}) {
    TT_CHECK(t->size(-1) == embed_dim,
             "{}: query, key and value need embed_dim {} features but one has shape {}", op,
             embed_dim, shape_str(t->sizes()));
  }
  // [N, T, E] views.
  const auto nte = [&](const Tensor& t) {
    return !batched ? t.unsqueeze(0) : batch_first ? t : t.transpose(0, 1);
  };
  const Tensor q = nte(query), k = nte(key), v = nte(value);
  const int64_t N = q.size(0), L = q.size(1), S = k.size(1);
  TT_CHECK(k.size(0) == N && v.size(0) == N && v.size(1) == S,
           "{}: key {} and value {} do not match query {} in batch and length", op,
           shape_str(key.sizes()), shape_str(value.sizes()), shape_str(query.sizes()));
  // [N, T, E] -> [N, H, T, D] as a view of the projection's output.
  const auto heads = [&](const Tensor& t) {
    return t.view({t.size(0), t.size(1), num_heads, head_dim}).transpose(1, 2);
  };
  const auto part = [&](const Tensor& t, int64_t i) {
    return t.defined() ? t.narrow(0, i * embed_dim, embed_dim) : Tensor();
  };
  Tensor qh, kh, vh;
  if (query.is_same(key) && key.is_same(value)) {
    // One GEMM for q, k and v: [N, L, 3E] viewed as [N, L, 3, H, D], each head read in place.
    const Tensor qkv = ops::linear(q, in_proj_weight, in_proj_bias)
                           .view({N, L, 3, num_heads, head_dim})
                           .permute({2, 0, 3, 1, 4});
    qh = qkv.select(0, 0);
    kh = qkv.select(0, 1);
    vh = qkv.select(0, 2);
  } else {
    qh = heads(ops::linear(q, part(in_proj_weight, 0), part(in_proj_bias, 0)));
    kh = heads(ops::linear(k, part(in_proj_weight, 1), part(in_proj_bias, 1)));
    vh = heads(ops::linear(v, part(in_proj_weight, 2), part(in_proj_bias, 2)));
  }
  Tensor mask;
  if (attn_mask.defined()) {
    const bool per_head = attn_mask.dim() == 3;
    TT_CHECK((attn_mask.dim() == 2 && attn_mask.size(0) == L && attn_mask.size(1) == S) ||
                 (per_head && attn_mask.size(0) == N * num_heads && attn_mask.size(1) == L &&
                  attn_mask.size(2) == S),
             "{}: attn_mask must be [{}, {}] or [{}, {}, {}] but has shape {}", op, L, S,
             N * num_heads, L, S, shape_str(attn_mask.sizes()));
    mask = additive_mask(per_head ? attn_mask.reshape({N, num_heads, L, S}) : attn_mask);
  }
  if (key_padding_mask.defined()) {
    TT_CHECK((batched && key_padding_mask.dim() == 2 && key_padding_mask.size(0) == N &&
              key_padding_mask.size(1) == S) ||
                 (!batched && key_padding_mask.dim() == 1 && key_padding_mask.size(0) == S),
             "{}: key_padding_mask must be {} but has shape {}", op,
             batched ? shape_str({N, S}) : shape_str({S}), shape_str(key_padding_mask.sizes()));
    const Tensor pad = additive_mask(key_padding_mask).reshape({N, 1, 1, S});
    mask = mask.defined() ? ops::add(mask, pad) : pad;
  }
  // [N, H, L, D] -> [N, L, E], then the output projection.
  const Tensor o = ops::scaled_dot_product_attention(qh, kh, vh, mask)
                       .transpose(1, 2)
                       .reshape({N, L, embed_dim});
  const Tensor y = (*out_proj)(o);
  return !batched ? y.squeeze(0) : batch_first ? y : y.transpose(0, 1).contiguous();
}

std::vector<Tensor> MultiheadAttention::forward(const std::vector<Tensor>& inputs) {
  TT_CHECK(inputs.size() == 1 || inputs.size() == 3,
           "MultiheadAttention: expected 1 input (self-attention) or 3 (query, key, value) but "
           "got {}",
           inputs.size());
  if (inputs.size() == 1) return {(*this)(inputs[0], inputs[0], inputs[0])};
  return {(*this)(inputs[0], inputs[1], inputs[2])};
}

}  // namespace tt::nn
