// PyTorch's layers as tt::Module subclasses: nn.Linear, nn.Embedding, nn.Dropout,
// nn.BatchNorm1d, nn.GroupNorm,
// nn.InstanceNorm2d, nn.LayerNorm, nn.RMSNorm, the activations (GELU, ReLU, SiLU,
// Softmax) and the containers Sequential and ModuleList, with PyTorch's parameter and
// buffer names (weight, bias, running_mean, running_var), PyTorch's default
// initialisation and PyTorch's repr (Module::str()), so that a state_dict saved by
// PyTorch loads unchanged.
//
// Each layer holds its tensors as public handles; Module::to() and
// load_state_dict() rebind those handles, so they always name the live tensors.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/module.h"

namespace tt::nn {

// y = x W^T + b; weight [out, in] and bias [out] drawn from U(-1/sqrt(in), 1/sqrt(in))
// (PyTorch's kaiming-uniform default). With a seed the draw is a pure function of it;
// without one the layer takes the next seed of the global generator (tt::manual_seed),
// as PyTorch's layers draw from torch's: two Linear(4, 4) differ, and the same
// manual_seed rebuilds the same layers.
class Linear : public Module {
 public:
  Linear(int64_t in_features, int64_t out_features, bool bias = true,
         std::optional<uint64_t> seed = std::nullopt);
  std::vector<Tensor> forward(const std::vector<Tensor>& inputs) override;
  Tensor operator()(const Tensor& x) const;
  std::string name() const override { return "Linear"; }
  std::string extra_repr() const override;

  const int64_t in_features;
  const int64_t out_features;
  Tensor weight;
  Tensor bias;  // undefined when built with bias = false
};

// Batch norm over x [N, C] or [N, C, L]. Training mode normalises with the batch
// statistics and updates running_mean/running_var; eval mode uses the running ones.
// PyTorch's num_batches_tracked is not kept: it only matters when momentum is None.
class BatchNorm1d : public Module {
 public:
  explicit BatchNorm1d(int64_t num_features, double eps = 1e-5, double momentum = 0.1);
  std::vector<Tensor> forward(const std::vector<Tensor>& inputs) override;
  Tensor operator()(const Tensor& x) const;
  std::string name() const override { return "BatchNorm1d"; }
  std::string extra_repr() const override;

  const int64_t num_features;
  const double eps;
  const double momentum;
  Tensor weight;
  Tensor bias;
  Tensor running_mean;
  Tensor running_var;
};

// Group norm of x [N, C, *]: C is split into num_groups contiguous groups, each
// normalised with its mean and biased variance, then a per-channel affine.
class GroupNorm : public Module {
 public:
  GroupNorm(int64_t num_groups, int64_t num_channels, double eps = 1e-5, bool affine = true);
  std::vector<Tensor> forward(const std::vector<Tensor>& inputs) override;
  Tensor operator()(const Tensor& x) const;
  std::string name() const override { return "GroupNorm"; }
  std::string extra_repr() const override;

  const int64_t num_groups;
  const int64_t num_channels;
  const double eps;
  Tensor weight;  // undefined unless affine
  Tensor bias;
};

// Instance norm of x [N, C, H, W]: every (n, c) slice normalised by its own mean and
// biased variance. Like PyTorch's default (track_running_stats=False) it keeps no
// running statistics, so momentum is stored only to mirror the constructor.
class InstanceNorm2d : public Module {
 public:
  explicit InstanceNorm2d(int64_t num_features, double eps = 1e-5, double momentum = 0.1,
                          bool affine = false);
  std::vector<Tensor> forward(const std::vector<Tensor>& inputs) override;
  Tensor operator()(const Tensor& x) const;
  std::string name() const override { return "InstanceNorm2d"; }
  std::string extra_repr() const override;

  const int64_t num_features;
  const double eps;
  const double momentum;
  Tensor weight;  // undefined unless affine
  Tensor bias;
};

// Layer norm over the trailing normalized_shape dims (biased variance, eps inside
// the sqrt); weight ones and bias zeros of normalized_shape when elementwise_affine.
class LayerNorm : public Module {
 public:
  explicit LayerNorm(Shape normalized_shape, double eps = 1e-5, bool elementwise_affine = true,
                     bool bias = true);
  explicit LayerNorm(int64_t normalized_size, double eps = 1e-5, bool elementwise_affine = true,
                     bool bias = true)
      : LayerNorm(Shape{normalized_size}, eps, elementwise_affine, bias) {}
  std::vector<Tensor> forward(const std::vector<Tensor>& inputs) override;
  Tensor operator()(const Tensor& x) const;
  std::string name() const override { return "LayerNorm"; }
  std::string extra_repr() const override;

  const Shape normalized_shape;
  const double eps;
  Tensor weight;  // undefined unless elementwise_affine
  Tensor bias;    // undefined unless elementwise_affine and bias
};

// x * rsqrt(mean(x^2) + eps) * weight over the trailing normalized_shape dims; eps
// absent = float32's machine epsilon (PyTorch's eps=None); weight ones.
class RMSNorm : public Module {
 public:
  explicit RMSNorm(Shape normalized_shape, std::optional<double> eps = std::nullopt,
                   bool elementwise_affine = true);
  explicit RMSNorm(int64_t normalized_size, std::optional<double> eps = std::nullopt,
                   bool elementwise_affine = true)
      : RMSNorm(Shape{normalized_size}, eps, elementwise_affine) {}
  std::vector<Tensor> forward(const std::vector<Tensor>& inputs) override;
  Tensor operator()(const Tensor& x) const;
  std::string name() const override { return "RMSNorm"; }
  std::string extra_repr() const override;

  const Shape normalized_shape;
  const std::optional<double> eps;
  Tensor weight;  // undefined unless elementwise_affine
};

// approximate: "none" (erf) or "tanh".
class GELU : public Module {
 public:
  explicit GELU(std::string approximate = "none");
  std::vector<Tensor> forward(const std::vector<Tensor>& inputs) override;
  Tensor operator()(const Tensor& x) const;
  std::string name() const override { return "GELU"; }
  std::string extra_repr() const override;

  const std::string approximate;
};

class ReLU : public Module {
 public:
  std::vector<Tensor> forward(const std::vector<Tensor>& inputs) override;
  Tensor operator()(const Tensor& x) const;
  std::string name() const override { return "ReLU"; }
};

class SiLU : public Module {
 public:
  std::vector<Tensor> forward(const std::vector<Tensor>& inputs) override;
  Tensor operator()(const Tensor& x) const;
  std::string name() const override { return "SiLU"; }
};

class Softmax : public Module {
 public:
  explicit Softmax(int64_t dim) : dim(dim) {}
  std::vector<Tensor> forward(const std::vector<Tensor>& inputs) override;
  Tensor operator()(const Tensor& x) const;
  std::string name() const override { return "Softmax"; }
  std::string extra_repr() const override;

  const int64_t dim;
};

// A lookup table: forward(indices) = weight[indices] (ops::embedding), weight
// [num_embeddings, embedding_dim] drawn from N(0, 1) as PyTorch's; the padding_idx row
// (negative counts from the end) starts as zeros. Seeds as Linear's.
class Embedding : public Module {
 public:
  Embedding(int64_t num_embeddings, int64_t embedding_dim,
            std::optional<int64_t> padding_idx = std::nullopt,
            std::optional<uint64_t> seed = std::nullopt);
  std::vector<Tensor> forward(const std::vector<Tensor>& inputs) override;
  Tensor operator()(const Tensor& indices) const;
  std::string name() const override { return "Embedding"; }
  std::string extra_repr() const override;

  const int64_t num_embeddings;
  const int64_t embedding_dim;
  const std::optional<int64_t> padding_idx;  // non-negative once built
  Tensor weight;
};

// ops::dropout(x, p, is_training()): the identity in eval mode; in train mode a fresh
// Philox mask per call from the global generator.
class Dropout : public Module {
 public:
  explicit Dropout(double p = 0.5);
  std::vector<Tensor> forward(const std::vector<Tensor>& inputs) override;
  Tensor operator()(const Tensor& x) const;
  std::string name() const override { return "Dropout"; }
  std::string extra_repr() const override;

  const double p;
};

// Runs its modules in order, each on the previous one's outputs; children are named
// "0", "1", ... as PyTorch's, so state-dict keys read "0.weight", "2.bias".
class Sequential : public Module {
 public:
  Sequential() = default;
  Sequential(std::initializer_list<std::shared_ptr<Module>> modules);
  // Appends a module as child "<size()>"; returns *this for chaining.
  Sequential& push_back(std::shared_ptr<Module> module);
  std::vector<Tensor> forward(const std::vector<Tensor>& inputs) override;
  Tensor operator()(const Tensor& x);
  std::string name() const override { return "Sequential"; }

  size_t size() const { return modules_.size(); }
  const std::shared_ptr<Module>& operator[](size_t i) const;

 private:
  std::vector<std::shared_ptr<Module>> modules_;
};

// Holds submodules named "0", "1", ... (their parameters join the owner's state
// dict); it has no forward of its own, as PyTorch's.
class ModuleList : public Module {
 public:
  ModuleList() = default;
  ModuleList(std::initializer_list<std::shared_ptr<Module>> modules);
  ModuleList& push_back(std::shared_ptr<Module> module);
  // Throws tt::Error: a ModuleList is a container; call its modules.
  std::vector<Tensor> forward(const std::vector<Tensor>& inputs) override;
  std::string name() const override { return "ModuleList"; }

  size_t size() const { return modules_.size(); }
  const std::shared_ptr<Module>& operator[](size_t i) const;
  std::vector<std::shared_ptr<Module>>::const_iterator begin() const { return modules_.begin(); }
  std::vector<std::shared_ptr<Module>>::const_iterator end() const { return modules_.end(); }

 private:
  std::vector<std::shared_ptr<Module>> modules_;
};

// ---- attention (issue 19) ----
// PyTorch's nn.MultiheadAttention (forward/inference, dropout 0, kdim = vdim =
// embed_dim): in_proj_weight [3E, E] (xavier-uniform), in_proj_bias [3E] (zeros),
// out_proj.weight [E, E] (U(-1/sqrt(E), 1/sqrt(E))) and out_proj.bias [E] (zeros).
// Inputs are [L, N, E] ([N, L, E] with batch_first) or unbatched [L, E]. Masks
// follow PyTorch's convention for this layer, the opposite of scaled_dot_product_
// attention's for booleans: key_padding_mask [N, S] ([S] unbatched) and attn_mask
// [L, S] or [N * num_heads, L, S] are bool or uint8 (true = do NOT attend) or additive
// float. The heads run through ops::scaled_dot_product_attention; when query, key and
// value are one tensor (self-attention) one GEMM projects all three and the heads are
// read in place from its output. Only the attention output is returned (PyTorch's
// need_weights=False).
class MultiheadAttention : public Module {
 public:
  MultiheadAttention(int64_t embed_dim, int64_t num_heads, bool bias = true,
                     bool batch_first = false, uint64_t seed = 0);
  // inputs: {query} (self-attention) or {query, key, value}.
  std::vector<Tensor> forward(const std::vector<Tensor>& inputs) override;
  Tensor operator()(const Tensor& query, const Tensor& key, const Tensor& value,
                    const Tensor& key_padding_mask = Tensor(),
                    const Tensor& attn_mask = Tensor()) const;
  std::string name() const override { return "MultiheadAttention"; }

  const int64_t embed_dim;
  const int64_t num_heads;
  const int64_t head_dim;
  const bool batch_first;
  Tensor in_proj_weight;
  Tensor in_proj_bias;  // undefined when built with bias = false
  std::shared_ptr<Linear> out_proj;
};

}  // namespace tt::nn
