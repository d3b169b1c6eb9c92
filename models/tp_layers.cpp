#include "models/tp_layers.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "distributed/functional.h"
#include "distributed/sharding.h"
#include "models/seed.h"
#include "ops/ops.h"

namespace tt::nn {

namespace fn = distributed::functional;

std::shared_ptr<distributed::ProcessGroup> tp_group_or_default(
    std::shared_ptr<distributed::ProcessGroup> group) {
  if (group) return group;
  if (distributed::is_initialized()) return distributed::default_group();
  return distributed::make_cpu_group(0, 1, nullptr, distributed::default_timeout());
}

namespace {

std::string shape_text(const Tensor& t) { return fmt::format("[{}]", fmt::join(t.sizes(), ", ")); }

void check_full(const char* layer, const std::string& name, const Tensor& full,
                const Shape& expected) {
  TT_CHECK(full.defined() && full.sizes() == expected,
           "{}: the whole model's {} must have shape [{}], but got {}.", layer, name,
           fmt::join(expected, ", "), full.defined() ? shape_text(full) : "an undefined tensor");
}

// nn::Linear's initialisation of the whole layer, drawn in full so that every rank's
// slices are those of the one-GPU layer built with the same seed.
struct WholeLinear {
  Tensor weight;  // [out, in]
  Tensor bias;    // [out]; undefined without bias
};
WholeLinear whole_linear(int64_t in, int64_t out, bool bias, std::optional<uint64_t> seed_) {
  const uint64_t seed = seed_ ? *seed_ : next_generator_seed();
  const double bound = 1.0 / std::sqrt(static_cast<double>(in));
  WholeLinear w;
  w.weight = Tensor::uniform({out, in}, -bound, bound, derive_seed(seed, 0));
  if (bias) w.bias = Tensor::uniform({out}, -bound, bound, derive_seed(seed, 1));
  return w;
}

}  // namespace

ColumnParallelLinear::ColumnParallelLinear(int64_t in, int64_t out, bool bias, bool gather,
                                           std::shared_ptr<distributed::ProcessGroup> g,
                                           std::optional<uint64_t> seed_, int64_t blocks)
    : in_features(in),
      out_features(out),
      out_features_local(out / std::max<int64_t>(1, tp_group_or_default(g)->size())),
      gather_output(gather),
      fused_blocks(blocks),
      group(tp_group_or_default(std::move(g))) {
  TT_CHECK(in > 0 && out > 0,
           "ColumnParallelLinear expects positive in_features and out_features, but got {} and "
           "{}.",
           in, out);
  TT_CHECK(blocks >= 1 && out % blocks == 0,
           "ColumnParallelLinear: out_features ({}) does not hold {} equal blocks.", out, blocks);
  distributed::even_shard(out / blocks, group->rank(), group->size(),
                          "ColumnParallelLinear's out_features per block");
  const WholeLinear whole = whole_linear(in, out, bias, seed_);
  weight = register_parameter("weight", shard_parameter("weight", whole.weight));
  if (bias) this->bias = register_parameter("bias", shard_parameter("bias", whole.bias));
}

Tensor ColumnParallelLinear::shard_parameter(const std::string& name, const Tensor& full) const {
  if (name == "weight")
    check_full("ColumnParallelLinear", name, full, {out_features, in_features});
  else
    check_full("ColumnParallelLinear", name, full, {out_features});
  return distributed::shard_blocks(full, 0, fused_blocks, group->rank(), group->size(),
                                   "ColumnParallelLinear's " + name);
}

Tensor ColumnParallelLinear::operator()(const Tensor& x) const {
  const Tensor y = ops::linear(x, weight, bias);
  if (!gather_output || group->size() == 1) return y;
  TT_CHECK(fused_blocks == 1,
           "ColumnParallelLinear: gather_output with {} fused blocks would interleave the "
           "blocks; gather each block's output instead.",
           fused_blocks);
  return fn::all_gather(y, -1, group);
}

std::vector<Tensor> ColumnParallelLinear::forward(const std::vector<Tensor>& inputs) {
  TT_CHECK(inputs.size() == 1, "ColumnParallelLinear expects 1 input, but got {}.", inputs.size());
  return {(*this)(inputs[0])};
}

std::string ColumnParallelLinear::extra_repr() const {
  return fmt::format("in_features={}, out_features={} ({} on rank {} of {}), bias={}{}",
                     in_features, out_features, out_features_local, group->rank(), group->size(),
                     bias.defined() ? "True" : "False",
                     gather_output ? ", gather_output=True" : "");
}

RowParallelLinear::RowParallelLinear(int64_t in, int64_t out, bool bias, bool parallel_input,
                                     std::shared_ptr<distributed::ProcessGroup> g,
                                     std::optional<uint64_t> seed_)
    : in_features(in),
      in_features_local(in / std::max<int64_t>(1, tp_group_or_default(g)->size())),
      out_features(out),
      input_is_parallel(parallel_input),
      group(tp_group_or_default(std::move(g))) {
  TT_CHECK(in > 0 && out > 0,
           "RowParallelLinear expects positive in_features and out_features, but got {} and {}.",
           in, out);
  distributed::even_shard(in, group->rank(), group->size(), "RowParallelLinear's in_features");
  const WholeLinear whole = whole_linear(in, out, bias, seed_);
  weight = register_parameter("weight", shard_parameter("weight", whole.weight));
  if (bias) this->bias = register_parameter("bias", whole.bias);  // whole on every rank
}

Tensor RowParallelLinear::shard_parameter(const std::string& name, const Tensor& full) const {
  if (name == "bias") {
    check_full("RowParallelLinear", name, full, {out_features});
    return full;  // every rank adds the whole bias once, after the all_reduce
  }
  check_full("RowParallelLinear", name, full, {out_features, in_features});
  return distributed::shard_tensor(full, 1, group->rank(), group->size(),
                                   "RowParallelLinear's weight");
}

Tensor RowParallelLinear::operator()(const Tensor& x) const {
  if (group->size() == 1) return ops::linear(x, weight, bias);
  Tensor in = x;
  if (!input_is_parallel) {
    const distributed::Shard s = distributed::even_shard(x.size(-1), group->rank(), group->size(),
                                                         "RowParallelLinear's input");
    in = x.narrow(-1, s.start, s.length);
  }
  TT_CHECK(in.size(-1) == in_features_local,
           "RowParallelLinear expects this rank's {} of {} input features, but got {}.",
           in_features_local, in_features, in.size(-1));
  return finish(fn::all_reduce(partial(in), distributed::ReduceOp::Sum, group));
}

Tensor RowParallelLinear::partial(const Tensor& x) const { return ops::linear(x, weight); }

Tensor RowParallelLinear::finish(const Tensor& reduced) const {
  return bias.defined() ? ops::add(reduced, bias) : reduced;
}

std::vector<Tensor> RowParallelLinear::forward(const std::vector<Tensor>& inputs) {
  TT_CHECK(inputs.size() == 1, "RowParallelLinear expects 1 input, but got {}.", inputs.size());
  return {(*this)(inputs[0])};
}

std::string RowParallelLinear::extra_repr() const {
  return fmt::format("in_features={} ({} on rank {} of {}), out_features={}, bias={}", in_features,
                     in_features_local, group->rank(), group->size(), out_features,
                     bias.defined() ? "True" : "False");
}

TensorParallelMultiheadAttention::TensorParallelMultiheadAttention(
    int64_t e, int64_t heads, bool bias, bool batch_first_,
    std::shared_ptr<distributed::ProcessGroup> g, uint64_t seed)
    : embed_dim(e),
      num_heads(heads),
      num_heads_local(heads / std::max<int64_t>(1, tp_group_or_default(g)->size())),
      head_dim(heads > 0 ? e / heads : 0),
      batch_first(batch_first_),
      group(tp_group_or_default(std::move(g))) {
  TT_CHECK(e > 0 && heads > 0 && e % heads == 0,
           "TensorParallelMultiheadAttention: embed_dim {} must be a positive multiple of "
           "num_heads {}.",
           e, heads);
  distributed::even_shard(heads, group->rank(), group->size(),
                          "TensorParallelMultiheadAttention's num_heads");
  // nn::MultiheadAttention's initialisation, then this rank's slices.
  const double bound = std::sqrt(6.0 / static_cast<double>(4 * e));
  in_proj_weight = register_parameter(
      "in_proj_weight", shard_parameter("in_proj_weight", Tensor::uniform({3 * e, e}, -bound, bound,
                                                                          derive_seed(seed, 0))));
  if (bias)
    in_proj_bias = register_parameter("in_proj_bias", Tensor::zeros({3 * e / group->size()}));
  out_proj = register_module("out_proj", std::make_shared<RowParallelLinear>(
                                             e, e, bias, true, group, derive_seed(seed, 1)));
  if (bias) out_proj->bias.zero_();
}

Tensor TensorParallelMultiheadAttention::shard_parameter(const std::string& name,
                                                         const Tensor& full) const {
  const char* layer = "TensorParallelMultiheadAttention";
  if (name == "in_proj_weight")
    check_full(layer, name, full, {3 * embed_dim, embed_dim});
  else
    check_full(layer, name, full, {3 * embed_dim});
  return distributed::shard_blocks(full, 0, 3, group->rank(), group->size(),
                                   std::string(layer) + "'s " + name);
}

Tensor TensorParallelMultiheadAttention::operator()(const Tensor& x) const {
  TT_CHECK(x.defined() && (x.dim() == 3 || x.dim() == 2) && x.size(-1) == embed_dim,
           "TensorParallelMultiheadAttention expects [L, N, {}] ([N, L, {}] with batch_first) or "
           "[L, {}], but got {}.",
           embed_dim, embed_dim, embed_dim, x.defined() ? shape_text(x) : "an undefined tensor");
  const bool batched = x.dim() == 3;
  const Tensor q = !batched ? x.unsqueeze(0) : batch_first ? x : x.transpose(0, 1);
  const int64_t n = q.size(0), l = q.size(1), h = num_heads_local, e = embed_dim / group->size();
  const Tensor qkv = ops::linear(q, in_proj_weight, in_proj_bias)
                         .view({n, l, 3, h, head_dim})
                         .permute({2, 0, 3, 1, 4});
  const Tensor o =
      ops::scaled_dot_product_attention(qkv.select(0, 0), qkv.select(0, 1), qkv.select(0, 2))
          .transpose(1, 2)
          .reshape({n, l, e});
  const Tensor y = (*out_proj)(o);
  return !batched ? y.squeeze(0) : batch_first ? y : y.transpose(0, 1).contiguous();
}

std::vector<Tensor> TensorParallelMultiheadAttention::forward(const std::vector<Tensor>& inputs) {
  TT_CHECK(inputs.size() == 1,
           "TensorParallelMultiheadAttention expects 1 input (self-attention), but got {}.",
           inputs.size());
  return {(*this)(inputs[0])};
}

void load_sharded(Module& model, const StateDict& full, bool strict) {
  // Each key goes to the module that owns it: the longest module name that prefixes it.
  const auto modules = model.named_modules();
  StateDict local;
  for (const auto& [key, tensor] : full) {
    const Module* owner = nullptr;
    size_t owner_len = 0;
    for (const auto& [mname, m] : modules) {
      const std::string prefix = mname.empty() ? "" : mname + ".";
      if (key.compare(0, prefix.size(), prefix) != 0 ||
          key.find('.', prefix.size()) != std::string::npos)
        continue;
      if (owner == nullptr || prefix.size() >= owner_len) {
        owner = m;
        owner_len = prefix.size();
      }
    }
    const auto* sharded = dynamic_cast<const ShardedModule*>(owner);
    local.insert_or_assign(
        key, sharded ? sharded->shard_parameter(key.substr(owner_len), tensor) : tensor);
  }
  model.load_state_dict(local, strict);
}

}  // namespace tt::nn
