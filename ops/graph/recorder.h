// Records one forward into a Graph (ops/graph/graph.h): the capture::Recorder that the
// front end reports to while tt::compile's first call of a key runs the module eagerly.
// Tensors are told apart by their storage: an unseen tensor over a known storage is a
// view of the value that owns it; one over an unknown storage is a parameter or buffer
// of the module (by handle) or else a constant the forward made.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/capture.h"
#include "core/module.h"
#include "ops/graph/graph.h"

namespace tt::graph {

class GraphRecorder : public capture::Recorder {
 public:
  // The module's parameters and buffers become kParameter values, `inputs` kInput ones.
  GraphRecorder(const Module& module, const std::vector<Tensor>& inputs);

  void op(int kind, int sub, const std::vector<Tensor>& inputs, const capture::Attrs& attrs,
          const std::vector<Tensor>& outputs) override;
  void copy(const Tensor& t, const Tensor& out) override;
  void unreplayable(const Tensor& t, const std::string& what) override;
  void allocated(const Tensor& t) override;

  // The graph with the forward's outputs; the recorder is done after this.
  Graph finish(const std::vector<Tensor>& outputs);

 private:
  int add_value(Value v, const Tensor& t);
  int find(const Tensor& t) const;  // -1 when not a known value
  // Adds a view or a constant when t is unknown; `use` names the reader for a break.
  int lookup(const Tensor& t, const std::string& use);
  int node_output(int node, int index, const Tensor& t);
  void stop(const std::string& reason);

  Graph g_;
  std::vector<Tensor> handles_;                        // per value: the tensor seen
  std::map<const Storage*, std::vector<int>> owners_;  // storage -> values over it
  std::map<const Storage*, std::string> params_;       // storage -> dotted name
  // Allocated outside reported ops and factories (held, so that no later allocation
  // reuses the address while recording).
  std::map<const Storage*, Tensor> unrecorded_;
};

}  // namespace tt::graph
