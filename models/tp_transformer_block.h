// A pre-LN transformer block split over the ranks of a process group (Megatron's
// layout), with the parameter names of the one-GPU block in
// examples/transformer_block (ln1, qkv, proj, ln2, fc1, fc2), so that load_sharded()
// fills it from that block's state dict:
//   x = x + proj(attention(ln1(x)))    qkv column-parallel (each rank its heads of q,
//                                      k, v), attention per local head through
//                                      ops::scaled_dot_product_attention, proj
//                                      row-parallel: one all_reduce
//   x = x + fc2(gelu(fc1(ln2(x))))     fc1 column-parallel, fc2 row-parallel: one more
// The norms and residual adds are replicated (every rank holds the whole x); each rank
// holds 1/W of the weights and does 1/W of the GEMM and attention work.
#pragma once

#include <memory>

#include "models/layers.h"
#include "models/tp_layers.h"

namespace tt::nn {

class TensorParallelTransformerBlock : public Module {
 public:
  TensorParallelTransformerBlock(int64_t width, int64_t heads, int64_t hidden,
                                 std::shared_ptr<distributed::ProcessGroup> group = nullptr,
                                 uint64_t seed = 0);
  Tensor operator()(const Tensor& x) const;  // [batch, tokens, width]
  std::vector<Tensor> forward(const std::vector<Tensor>& in) override;
  std::string name() const override { return "TensorParallelTransformerBlock"; }

  // Overlap of communication with compute: with n > 1 (and several ranks, outside
  // tt::compile) the batch is cut into n chunks, and each chunk's all_reduce runs on
  // the group's side stream (all_reduce_async) while the next chunk computes. Same
  // result as n = 1 up to the GEMMs' blocking on the smaller chunk.
  int64_t overlap_chunks = 1;

  const int64_t width;
  const int64_t heads;        // the whole block's
  const int64_t heads_local;  // this rank's
  const std::shared_ptr<distributed::ProcessGroup> group;
  std::shared_ptr<LayerNorm> ln1, ln2;
  std::shared_ptr<ColumnParallelLinear> qkv, fc1;
  std::shared_ptr<RowParallelLinear> proj, fc2;

 private:
  Tensor attention(const Tensor& x) const;  // this rank's heads, before proj
  Tensor overlapped(const Tensor& x) const;
};

}  // namespace tt::nn
