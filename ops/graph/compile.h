// tt::compile: a module whose forward is recorded once per key (input shapes, dtypes and
// devices, precision, train/eval) into a graph (ops/graph/graph.h), fused, and replayed
// on later calls with the same key. Forward only: there is no autograd anywhere.
//
//   auto block = std::make_shared<MyBlock>(...);
//   auto compiled = tt::compile(block);          // shares block's parameters and buffers
//   compiled->to(tt::Device::cuda(0));
//   auto y = (*compiled)({x})[0];                // first call: records, compiles, runs
//
// The first call of a key runs the module eagerly while recording, so its result is the
// eager one. What the graph cannot replay (a value read on the host: item(), to_vector,
// printing; an in-place write into a graph value; a move to another device) makes the key
// run eagerly from then on, and the reason is reported (options.explain, explain()). On
// the CPU the graph replays op by op on the reference kernels; on CUDA its fused groups
// (ops/graph/fusion.h) run as fused kernels.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <string>
#include <vector>

#include "core/module.h"
#include "ops/graph/graph.h"

namespace tt {

struct CompileOptions {
  // Print each compiled key's groups (their kernels) and the nodes left unfused with the
  // reason, to standard output, when it is compiled.
  bool explain = false;
  // Fuse on CUDA (off: the graph replays op by op, as on the CPU).
  bool fuse = true;
  // Keys kept; the least recently used one goes first.
  size_t cache_size = 8;
  // On CUDA, capture a key's replay as one CUDA graph (ops/graph/cuda_graph.h) at its
  // second replay (the first warms up) and launch that from then on, captured again when
  // the input tensors change: the host's cost of a forward becomes one launch. The
  // returned tensors are then the graph's own: the next call overwrites them (clone()
  // what must be kept), as with PyTorch's CUDA graphs. A key that cannot be captured
  // replays as without it, and explain() says why.
  bool cuda_graph = false;
};

namespace graph {
struct Program;        // a compiled key: the graph and its steps (ops/graph/program.h)
class CapturedReplay;  // a key's replay as one CUDA graph (ops/graph/cuda_graph.h)
}  // namespace graph

class CompiledModule : public Module {
 public:
  CompiledModule(std::shared_ptr<Module> module, CompileOptions options);
  ~CompiledModule() override;

  std::vector<Tensor> forward(const std::vector<Tensor>& inputs) override;
  std::string name() const override { return module_->name(); }
  const std::shared_ptr<Module>& module() const { return module_; }

  // The report of the most recently compiled or replayed key: its graph, its fused
  // groups with their kernels, the nodes left unfused with the reason, or the reason it
  // runs eagerly. Empty before the first call.
  std::string explain() const;
  // How many keys are cached, and how many forwards recorded a graph (for tests).
  size_t cached_keys() const { return cache_.size(); }
  size_t recordings() const { return recordings_; }
  // The program of the most recent call (its graph and steps); nullptr before the first.
  const graph::Program* program() const { return last_.get(); }
  // Seconds the most recent recording + compile took.
  double last_compile_seconds() const { return last_compile_seconds_; }

 private:
  struct Entry {
    std::string key;
    std::shared_ptr<graph::Program> program;
    int replays = 0;
    std::shared_ptr<graph::CapturedReplay> captured;
    bool not_capturable = false;
  };
  std::vector<Tensor> replay(Entry& entry, const std::vector<Tensor>& inputs);
  std::string key_of(const std::vector<Tensor>& inputs) const;

  std::shared_ptr<Module> module_;
  CompileOptions options_;
  std::list<Entry> cache_;  // most recently used first
  std::shared_ptr<graph::Program> last_;
  size_t recordings_ = 0;
  double last_compile_seconds_ = 0.0;
};

// libtorch's torch::compile habit for C++: the compiled module's parameters are the
// module's ("_orig_mod." in front of each name in state_dict, as PyTorch's compiled
// modules have).
std::shared_ptr<CompiledModule> compile(std::shared_ptr<Module> module,
                                        CompileOptions options = {});

// compile(), its recording forward already made on `inputs`, and the module's buffers
// put back as they were before it: the next call with those inputs is a replay and has
// updated the buffers (batch norm's running statistics) exactly once, as one eager
// forward would. For comparing or tuning the compiled forward against an eager one.
std::shared_ptr<CompiledModule> compile_recorded(std::shared_ptr<Module> module,
                                                 const std::vector<Tensor>& inputs,
                                                 CompileOptions options = {});

}  // namespace tt
