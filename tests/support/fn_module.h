// A module around a function: the shortest way to compile (tt::compile) or time an
// arbitrary forward. Used by tests/compile_test.cpp, tests/op_table_test.cpp,
// support/seed_forwards.h and tools/device/compile_bench.cpp.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/module.h"
#include "core/tensor.h"

namespace tt::test {

class FnModule : public Module {
 public:
  using Fn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;
  // Registered as submodules, so that their parameters are the module's.
  using Children = std::vector<std::pair<std::string, std::shared_ptr<Module>>>;
  explicit FnModule(Fn fn, const Children& children = {}) : fn_(std::move(fn)) {
    for (const auto& [name, child] : children) register_module(name, child);
  }
  std::vector<Tensor> forward(const std::vector<Tensor>& in) override { return fn_(in); }
  std::string name() const override { return "FnModule"; }

 private:
  Fn fn_;
};

}  // namespace tt::test
