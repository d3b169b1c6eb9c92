// A compiled key: the recorded graph and the steps that replay it. A step runs one node
// through the front end (ops/graph/invoke.h) or one fused group as a kernel of a family
// (the CUDA lowering, ops/cuda/fused/lower.h). Values are freed after their last use, so
// the caching allocator reuses their memory for later steps.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ops/graph/graph.h"

namespace tt::graph {

struct Step {
  // kNode: graph.nodes[node]; kFused: `run` reads `reads` and returns one tensor per
  // value of `writes`.
  enum class Kind { kNode, kFused } kind = Kind::kNode;
  int node = -1;
  std::vector<int> reads;
  std::vector<int> writes;
  std::function<std::vector<Tensor>(const std::vector<Tensor>&)> run;
  std::string description;  // the fused group and its kernel, for explain()
};

struct Program {
  Graph graph;
  std::vector<Step> steps;
  std::string report;  // what explain() prints
  bool eager() const { return !graph.break_reason.empty(); }
};

// Runs the steps on `inputs`; returns the graph's outputs.
std::vector<Tensor> run_program(const Program& p, const std::vector<Tensor>& inputs);

// Called by run_program() before each step with the step's index (the tuner marks the
// stream there to time each fused group's share of the forward). One observer at a time;
// an empty function removes it.
using StepObserver = std::function<void(size_t step)>;
void set_step_observer(StepObserver observer);

// The steps of an unfused replay: one per node, in order.
std::vector<Step> node_steps(const Graph& g);

}  // namespace tt::graph
