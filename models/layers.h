// The PyTorch layers the seed models are built from: nn.Linear, nn.BatchNorm1d,
// nn.GroupNorm and nn.InstanceNorm2d, as tt::Module subclasses with PyTorch's
// parameter and buffer names (weight, bias, running_mean, running_var) and PyTorch's
// default initialisation, so that a state_dict saved by PyTorch loads unchanged.
//
// Each layer holds its tensors as public handles; Module::to() and
// load_state_dict() rebind those handles, so they always name the live tensors.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/module.h"

namespace tt::nn {

// y = x W^T + b; weight [out, in] and bias [out] drawn from U(-1/sqrt(in), 1/sqrt(in))
// (PyTorch's kaiming-uniform default). The seed makes the draw reproducible.
class Linear : public Module {
 public:
  Linear(int64_t in_features, int64_t out_features, bool bias = true, uint64_t seed = 0);
  std::vector<Tensor> forward(const std::vector<Tensor>& inputs) override;
  Tensor operator()(const Tensor& x) const;
  std::string name() const override { return "Linear"; }

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

  const int64_t num_features;
  const double eps;
  const double momentum;
  Tensor weight;  // undefined unless affine
  Tensor bias;
};

}  // namespace tt::nn
