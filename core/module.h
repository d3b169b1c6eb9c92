// tt::Module: parameters, buffers and submodules registered under PyTorch's dotted
// names, so that a PyTorch state_dict saved as safetensors loads unchanged.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "core/precision.h"
#include "core/state_dict.h"
#include "core/tensor.h"

namespace tt {

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

class Module {
 public:
  virtual ~Module() = default;
  Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  // The model's forward on its inputs, in order. Models check the count.
  virtual std::vector<Tensor> forward(const std::vector<Tensor>& inputs) = 0;
  virtual std::string name() const = 0;
  // forward() under this module's precision when one is set (set_precision), else
  // under the caller's (tt::current_precision()). Calling forward() directly ignores
  // the module's setting.
  std::vector<Tensor> operator()(const std::vector<Tensor>& inputs);
  void set_precision(Precision p) { precision_ = p; }
  void clear_precision() { precision_.reset(); }
  std::optional<Precision> precision() const { return precision_; }

  NamedTensors named_parameters() const;  // recursive, dotted names, registration order
  NamedTensors named_buffers() const;
  std::vector<Tensor> parameters() const;  // the tensors of named_parameters(), in order
  std::vector<Tensor> buffers() const;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> named_children() const {
    return children_;
  }
  // This module (named "") and every submodule, depth first in registration order,
  // with dotted names ("block.0"), as PyTorch. The pointers live as long as this module.
  std::vector<std::pair<std::string, Module*>> named_modules();
  // fn on this module, then on every submodule depth first (libtorch's order), e.g. to
  // re-initialise the weights of every Linear.
  void apply(const std::function<void(Module&)>& fn);

  // PyTorch's repr: "Name(extra)" for a leaf; with submodules, one "(name): ..." line
  // each, indented. Layers describe their arguments in extra_repr().
  std::string str() const;
  virtual std::string extra_repr() const { return ""; }
  // Parameters and buffers, PyTorch's order: each module's own parameters, then its
  // buffers, then each submodule's, in registration order.
  StateDict state_dict() const;
  // Copies each tensor into the matching parameter/buffer (which keeps its device).
  // strict: every key must match and every parameter/buffer must be given; shapes
  // must always match. Errors list the offending names.
  void load_state_dict(const StateDict& dict, bool strict = true);

  void train(bool on = true);
  void eval() { train(false); }
  bool is_training() const { return training_; }

  // Moves every parameter and buffer (recursively); handles held by models follow.
  void to(Device device);
  Device device() const;  // of the first parameter/buffer; cpu if none

 protected:
  Tensor register_parameter(const std::string& name, Tensor t);
  Tensor register_buffer(const std::string& name, Tensor t);
  template <typename M>
  std::shared_ptr<M> register_module(const std::string& name, std::shared_ptr<M> m) {
    add_child(name, m);
    return m;
  }

 private:
  void add_child(const std::string& name, std::shared_ptr<Module> m);
  void check_name_unused(const char* caller, const std::string& name) const;
  Tensor register_tensor(const char* caller, NamedTensors& list, const std::string& name, Tensor t);
  void collect(const std::string& prefix, bool params, NamedTensors& out) const;
  void collect_state(const std::string& prefix, StateDict& out) const;
  NamedTensors params_;
  NamedTensors buffers_;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
  bool training_ = true;
  std::optional<Precision> precision_;
};

std::ostream& operator<<(std::ostream& os, const Module& m);

}  // namespace tt
