#include "ops/graph/program.h"

#include <algorithm>
#include <utility>

#include "ops/graph/invoke.h"

namespace tt::graph {
namespace {

// The values of one run: inputs, parameters and constants by handle, node outputs as
// the steps make them, views built from their base on each read.
class Env {
 public:
  Env(const Graph& g, const std::vector<Tensor>& inputs)
      : g_(g), inputs_(inputs), values_(g.values.size()) {}

  Tensor get(int v) {
    if (v < 0) return Tensor();
    const Value& val = g_.values[v];
    switch (val.kind) {
      case ValueKind::kInput:
        return inputs_.at(val.index);
      case ValueKind::kParameter:
      case ValueKind::kConstant:
        return val.tensor;
      case ValueKind::kView: {
        const Tensor base = get(val.index);
        return base.as_strided(val.sizes, val.strides, base.offset() + val.offset);
      }
      case ValueKind::kNode:
        break;
    }
    TT_CHECK(values_[v].defined(), "compile: value %{} is read before a step wrote it", v);
    return values_[v];
  }
  void set(int v, Tensor t) { values_[v] = std::move(t); }
  void release(int v) { values_[v] = Tensor(); }

 private:
  const Graph& g_;
  const std::vector<Tensor>& inputs_;
  std::vector<Tensor> values_;
};

StepObserver& step_observer() {
  static StepObserver o;
  return o;
}

}  // namespace

void set_step_observer(StepObserver observer) { step_observer() = std::move(observer); }

std::vector<Step> node_steps(const Graph& g) {
  std::vector<Step> steps;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Step s;
    s.kind = Step::Kind::kNode;
    s.node = static_cast<int>(i);
    s.reads = g.nodes[i].inputs;
    s.writes = g.nodes[i].outputs;
    steps.push_back(std::move(s));
  }
  return steps;
}

std::vector<Tensor> run_program(const Program& p, const std::vector<Tensor>& inputs) {
  const Graph& g = p.graph;
  // The last step that reads each node value (through views too); graph outputs stay.
  std::vector<int> last_use(g.values.size(), -1);
  for (size_t s = 0; s < p.steps.size(); ++s)
    for (int v : p.steps[s].reads)
      if (const int r = root_of(g, v); r >= 0) last_use[r] = static_cast<int>(s);
  for (int v : g.outputs)
    if (const int r = root_of(g, v); r >= 0) last_use[r] = static_cast<int>(p.steps.size());

  Env env(g, inputs);
  for (size_t s = 0; s < p.steps.size(); ++s) {
    const Step& step = p.steps[s];
    if (step_observer()) step_observer()(s);
    std::vector<Tensor> in;
    in.reserve(step.reads.size());
    for (int v : step.reads) in.push_back(env.get(v));
    std::vector<Tensor> out =
        step.kind == Step::Kind::kNode ? invoke(g.nodes[step.node], in) : step.run(in);
    for (size_t k = 0; k < step.writes.size(); ++k) env.set(step.writes[k], out.at(k));
    for (int v : step.reads)
      if (const int r = root_of(g, v); r >= 0 && last_use[r] == static_cast<int>(s)) env.release(r);
  }
  std::vector<Tensor> outputs;
  for (int v : g.outputs) outputs.push_back(env.get(v));
  return outputs;
}

}  // namespace tt::graph
