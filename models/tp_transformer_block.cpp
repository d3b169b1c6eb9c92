#include "models/tp_transformer_block.h"

#include "core/capture.h"
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

Tensor TensorParallelTransformerBlock::attention(const Tensor& x) const {
  const int64_t b = x.size(0), t = x.size(1), e = width / heads;
  // [b, t, 3 * local] -> three [b, heads_local, t, e] views of this rank's heads.
  const Tensor parts = (*qkv)((*ln1)(x)).view({b, t, 3, heads_local, e}).permute({2, 0, 3, 1, 4});
  return ops::scaled_dot_product_attention(parts.select(0, 0), parts.select(0, 1),
                                           parts.select(0, 2))
      .transpose(1, 2)
      .reshape({b, t, heads_local * e});
}

Tensor TensorParallelTransformerBlock::operator()(const Tensor& x) const {
  TT_CHECK(x.dim() == 3 && x.size(2) == width,
           "TensorParallelTransformerBlock expects [batch, tokens, {}], but got [{}].", width,
           fmt::join(x.sizes(), ", "));
  if (overlap_chunks > 1 && group->size() > 1 && x.size(0) % overlap_chunks == 0 &&
      capture::active() == nullptr)
    return overlapped(x);
  const Tensor h = ops::add(x, (*proj)(attention(x)));
  return ops::add(h, (*fc2)(ops::gelu((*fc1)((*ln2)(h)))));
}

// Chunk c's reductions run on the side stream while chunk c + 1 computes:
//   attention partials of every chunk (reductions started), then per chunk: wait,
//   residual, MLP partial (reduction started), then per chunk: wait, residual.
Tensor TensorParallelTransformerBlock::overlapped(const Tensor& x) const {
  const int64_t n = overlap_chunks, rows = x.size(0) / n;
  std::vector<Tensor> xs, part, h;
  std::vector<std::shared_ptr<distributed::Work>> work;
  for (int64_t c = 0; c < n; ++c) {
    xs.push_back(x.narrow(0, c * rows, rows));
    part.push_back(proj->partial(attention(xs.back())));
    work.push_back(group->all_reduce_async(part.back()));
  }
  for (int64_t c = 0; c < n; ++c) {
    const size_t i = static_cast<size_t>(c);
    work[i]->wait();
    h.push_back(ops::add(xs[i], proj->finish(part[i])));
    part[i] = fc2->partial(ops::gelu((*fc1)((*ln2)(h.back()))));
    work[i] = group->all_reduce_async(part[i]);
  }
  const Tensor out = Tensor::empty(x.sizes(), x.dtype(), x.device());
  for (int64_t c = 0; c < n; ++c) {
    const size_t i = static_cast<size_t>(c);
    work[i]->wait();
    out.narrow(0, c * rows, rows).copy_(ops::add(h[i], fc2->finish(part[i])));
  }
  return out;
}

std::vector<Tensor> TensorParallelTransformerBlock::forward(const std::vector<Tensor>& in) {
  TT_CHECK(in.size() == 1, "TensorParallelTransformerBlock expects 1 input, but got {}.",
           in.size());
  return {(*this)(in[0])};
}

}  // namespace tt::nn
