// Tensor-parallel layers (Megatron-LM's split), built on tt::distributed:
//
//   ColumnParallelLinear  y = x W^T + b with W's rows (the output features) split:
//                         each rank holds [out / W, in] and computes its slice of y;
//                         gather_output all-gathers the slices into the whole y.
//   RowParallelLinear     W's columns (the input features) split: each rank holds
//                         [out, in / W], multiplies its slice of x, and one all_reduce
//                         sums the partial products; the bias (whole, on every rank) is
//                         added once, after it.
//
// A column-parallel layer followed by a row-parallel one (attention's qkv then proj,
// an MLP's fc1 then fc2) needs one all_reduce in all: the slice the first produces is
// what the second consumes. Parameters keep PyTorch's names ("weight", "bias") with
// this rank's shapes; load_sharded() fills a model of these layers from the state dict
// of the whole (one-GPU) model, each rank taking its slices. Uneven splits are refused
// with a sentence. With a group of one rank every layer is its one-GPU counterpart,
// bit for bit, and calls no collective.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/module.h"
#include "distributed/process_group.h"

namespace tt::nn {

// The group a tensor-parallel layer uses when given none: the default group when
// tt::distributed::init() was called, else a group of one rank (a plain layer).
std::shared_ptr<distributed::ProcessGroup> tp_group_or_default(
    std::shared_ptr<distributed::ProcessGroup> group);

// A module whose parameters are slices of a whole model's: how to cut its own
// parameter `name` (undotted, e.g. "weight") out of the whole tensor.
class ShardedModule {
 public:
  virtual ~ShardedModule() = default;
  virtual Tensor shard_parameter(const std::string& name, const Tensor& full) const = 0;
};

class ColumnParallelLinear : public Module, public ShardedModule {
 public:
  // fused_blocks: the output features are that many equal blocks split each on its
  // own (3 for a fused q/k/v projection, so each rank gets its heads of q, k and v).
  // The seeded initialisation draws the whole layer as nn::Linear(in, out, bias, seed)
  // would and keeps this rank's slice, so a tensor-parallel model equals its one-GPU
  // twin built with the same seed.
  ColumnParallelLinear(int64_t in_features, int64_t out_features, bool bias = true,
                       bool gather_output = false,
                       std::shared_ptr<distributed::ProcessGroup> group = nullptr,
                       std::optional<uint64_t> seed = std::nullopt, int64_t fused_blocks = 1);
  std::vector<Tensor> forward(const std::vector<Tensor>& inputs) override;
  Tensor operator()(const Tensor& x) const;
  std::string name() const override { return "ColumnParallelLinear"; }
  std::string extra_repr() const override;
  Tensor shard_parameter(const std::string& name, const Tensor& full) const override;

  const int64_t in_features;
  const int64_t out_features;        // the whole layer's
  const int64_t out_features_local;  // this rank's
  const bool gather_output;
  const int64_t fused_blocks;
  const std::shared_ptr<distributed::ProcessGroup> group;
  Tensor weight;  // [out / W, in]
  Tensor bias;    // [out / W]; undefined without bias
};

class RowParallelLinear : public Module, public ShardedModule {
 public:
  // input_is_parallel: x is already this rank's slice of the input features (what a
  // ColumnParallelLinear without gather_output gives); otherwise the layer slices x.
  RowParallelLinear(int64_t in_features, int64_t out_features, bool bias = true,
                    bool input_is_parallel = true,
                    std::shared_ptr<distributed::ProcessGroup> group = nullptr,
                    std::optional<uint64_t> seed = std::nullopt);
  std::vector<Tensor> forward(const std::vector<Tensor>& inputs) override;
  Tensor operator()(const Tensor& x) const;
  std::string name() const override { return "RowParallelLinear"; }
  // The two halves of operator() around its all_reduce, for callers that overlap the
  // reduction with other work: this rank's partial product (no bias), and the reduced
  // sum plus the bias.
  Tensor partial(const Tensor& x) const;
  Tensor finish(const Tensor& reduced) const;
  std::string extra_repr() const override;
  Tensor shard_parameter(const std::string& name, const Tensor& full) const override;

  const int64_t in_features;        // the whole layer's
  const int64_t in_features_local;  // this rank's
  const int64_t out_features;
  const bool input_is_parallel;
  const std::shared_ptr<distributed::ProcessGroup> group;
  Tensor weight;  // [out, in / W]
  Tensor bias;    // [out], whole on every rank; undefined without bias
};

// nn.MultiheadAttention's self-attention with its heads split over the ranks:
// in_proj_weight / in_proj_bias hold this rank's heads of q, k and v, out_proj is
// row-parallel. Same parameter names as nn::MultiheadAttention, so load_sharded()
// takes its state dict. Self-attention only (query = key = value), no masks.
class TensorParallelMultiheadAttention : public Module, public ShardedModule {
 public:
  TensorParallelMultiheadAttention(int64_t embed_dim, int64_t num_heads, bool bias = true,
                                   bool batch_first = false,
                                   std::shared_ptr<distributed::ProcessGroup> group = nullptr,
                                   uint64_t seed = 0);
  std::vector<Tensor> forward(const std::vector<Tensor>& inputs) override;
  Tensor operator()(const Tensor& x) const;
  std::string name() const override { return "TensorParallelMultiheadAttention"; }
  Tensor shard_parameter(const std::string& name, const Tensor& full) const override;

  const int64_t embed_dim;
  const int64_t num_heads;        // the whole layer's
  const int64_t num_heads_local;  // this rank's
  const int64_t head_dim;
  const bool batch_first;
  const std::shared_ptr<distributed::ProcessGroup> group;
  Tensor in_proj_weight;  // [3 E / W, E]
  Tensor in_proj_bias;    // [3 E / W]
  std::shared_ptr<RowParallelLinear> out_proj;
};

// Loads the state dict of the whole model into `model`, whose sharded modules take
// their slices (ShardedModule) and whose other parameters (norms, replicated layers)
// take the tensors as they are. strict as Module::load_state_dict.
void load_sharded(Module& model, const StateDict& full, bool strict = true);

}  // namespace tt::nn
