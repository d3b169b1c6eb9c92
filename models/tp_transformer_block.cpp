#include "models/tp_transformer_block.h"

#include "core/error.h"
#include "distributed/sharding.h"
#include "ops/ops.h"

namespace tt::nn {

TensorParallelTransformerBlock::TensorParallelTransformerBlock(
    int64_t width_, int64_t heads_, int64_t hidden, std::shared_ptr<distributed::ProcessGroup> g,
    uint64_t seed)
    : width(width_),
      heads(heads_),
      heads_local(heads_ / std::max<int64_t>(1, tp_group_or_default(g)->size())),
      group(tp_group_or_default(std::move(g))) {
  TT_CHECK(width > 0 && heads > 0 && width % heads == 0,
           "TensorParallelTransformerBlock: width {} must be a positive multiple of heads {}.",
           width, heads);
  distributed::even_shard(heads, group->rank(), group->size(),
                          "TensorParallelTransformerBlock's heads");
  // The seeds of examples::TransformerBlock's layers: the same seed builds the same block.
  ln1 = register_module("ln1", std::make_shared<LayerNorm>(width));
  qkv = register_module(
      "qkv", std::make_shared<ColumnParallelLinear>(width, 3 * width, true, false, group, seed, 3));
  proj = register_module(
      "proj", std::make_shared<RowParallelLinear>(width, width, true, true, group, seed + 1));
  ln2 = register_module("ln2", std::make_shared<LayerNorm>(width));
  fc1 = register_module(
      "fc1", std::make_shared<ColumnParallelLinear>(width, hidden, true, false, group, seed + 2));
  fc2 = register_module(
      "fc2", std::make_shared<RowParallelLinear>(hidden, width, true, true, group, seed + 3));
}

Tensor TensorParallelTransformerBlock::operator()(const Tensor& x) const {
  TT_CHECK(x.dim() == 3 && x.size(2) == width,
           "TensorParallelTransformerBlock expects [batch, tokens, {}], but got [{}].", width,
           fmt::join(x.sizes(), ", "));
  const int64_t b = x.size(0), t = x.size(1), e = width / heads, local = heads_local * e;
  // [b, t, 3 * local] -> three [b, heads_local, t, e] views of this rank's heads.
  const Tensor parts = (*qkv)((*ln1)(x)).view({b, t, 3, heads_local, e}).permute({2, 0, 3, 1, 4});
  const Tensor attn =
      ops::scaled_dot_product_attention(parts.select(0, 0), parts.select(0, 1), parts.select(0, 2));
  const Tensor h = ops::add(x, (*proj)(attn.transpose(1, 2).reshape({b, t, local})));
  return ops::add(h, (*fc2)(ops::gelu((*fc1)((*ln2)(h)))));
}

std::vector<Tensor> TensorParallelTransformerBlock::forward(const std::vector<Tensor>& in) {
  TT_CHECK(in.size() == 1, "TensorParallelTransformerBlock expects 1 input, but got {}.",
           in.size());
  return {(*this)(in[0])};
}

}  // namespace tt::nn
