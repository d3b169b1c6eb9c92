#include "ops/graph/recorder.h"

#include <fmt/format.h>

namespace tt::graph {

GraphRecorder::GraphRecorder(const Module& module, const std::vector<Tensor>& inputs) {
  for (const auto& [name, t] : module.named_parameters()) params_[t.storage().get()] = name;
  for (const auto& [name, t] : module.named_buffers()) params_[t.storage().get()] = name;
  for (size_t i = 0; i < inputs.size(); ++i) {
    Value v;
    v.kind = ValueKind::kInput;
    v.index = static_cast<int>(i);
    g_.inputs.push_back(add_value(v, inputs[i]));
  }
}

int GraphRecorder::add_value(Value v, const Tensor& t) {
  v.sizes = t.sizes();
  v.strides = t.strides();
  v.dtype = t.dtype();
  v.device = t.device();
  const int id = static_cast<int>(g_.values.size());
  g_.values.push_back(std::move(v));
  handles_.push_back(t);
  owners_[t.storage().get()].push_back(id);
  return id;
}

int GraphRecorder::find(const Tensor& t) const {
  const auto it = owners_.find(t.storage().get());
  if (it == owners_.end()) return -1;
  for (int id : it->second)
    if (handles_[id].is_same(t)) return id;
  return -1;
}

int GraphRecorder::lookup(const Tensor& t, const std::string& use) {
  if (!t.defined()) return -1;
  if (const int id = find(t); id >= 0) return id;
  const auto it = owners_.find(t.storage().get());
  Value v;
  if (it != owners_.end()) {
    // A view of a known storage, relative to the value that owns it (the first seen).
    const int base = it->second.front();
    v.kind = ValueKind::kView;
    v.index = base;
    v.offset = t.offset() - handles_[base].offset();
    return add_value(v, t);
  }
  const auto param = params_.find(t.storage().get());
  if (param != params_.end()) {
    // The parameter itself (or the first view of it seen: its handle is kept).
    v.kind = ValueKind::kParameter;
    v.name = param->second;
    v.tensor = t;
    return add_value(v, t);
  }
  if (unrecorded_.count(t.storage().get())) {
    stop(
        fmt::format("{} reads a tensor made outside the graph's ops (by an op tt::compile does "
                    "not record, or filled on the host)",
                    use));
  }
  v.kind = ValueKind::kConstant;
  v.tensor = t;
  return add_value(v, t);
}

void GraphRecorder::allocated(const Tensor& t) { unrecorded_.emplace(t.storage().get(), t); }

int GraphRecorder::node_output(int node, int index, const Tensor& t) {
  if (owners_.count(t.storage().get())) {
    stop(fmt::format("{} returned a view of a tensor the graph already holds",
                     node_op_name(g_.nodes[node])));
  }
  Value v;
  v.kind = ValueKind::kNode;
  v.index = node;
  v.output = index;
  return add_value(v, t);
}

void GraphRecorder::stop(const std::string& reason) {
  if (g_.break_reason.empty()) g_.break_reason = reason;
}

void GraphRecorder::op(int kind, int sub, const std::vector<Tensor>& inputs,
                       const capture::Attrs& attrs, const std::vector<Tensor>& outputs) {
  Node n;
  n.kind = static_cast<ops::OpKind>(kind);
  n.sub = sub;
  n.attrs = attrs;
  for (const Tensor& t : inputs) n.inputs.push_back(lookup(t, node_op_name(n)));
  const int id = static_cast<int>(g_.nodes.size());
  g_.nodes.push_back(n);
  for (size_t i = 0; i < outputs.size(); ++i) {
    const int out = node_output(id, static_cast<int>(i), outputs[i]);
    g_.nodes[id].outputs.push_back(out);
  }
}

void GraphRecorder::copy(const Tensor& t, const Tensor& out) {
  // A copy of something the graph does not compute (a constant) is a constant too.
  if (!owners_.count(t.storage().get()) && !params_.count(t.storage().get())) return;
  op(static_cast<int>(ops::OpKind::kCopy), 0, {t}, {{static_cast<int64_t>(out.dtype())}, {}, {}},
     {out});
}

void GraphRecorder::unreplayable(const Tensor& t, const std::string& what) {
  if (!t.defined()) return stop(what);  // nothing to attribute it to
  const Storage* s = t.storage().get();
  if (!owners_.count(s) && !params_.count(s)) return;  // a constant: nothing depends on it
  const int id = find(t);
  std::string who = "a tensor of the graph";
  if (id >= 0) {
    const Value& v = g_.values[id];
    if (v.kind == ValueKind::kInput) who = fmt::format("input {}", v.index);
    if (v.kind == ValueKind::kNode)
      who = fmt::format("the output of {}", node_op_name(g_.nodes[v.index]));
  } else if (params_.count(s)) {
    who = fmt::format("'{}'", params_.at(s));
  }
  stop(fmt::format("{}: {}", who, what));
}

Graph GraphRecorder::finish(const std::vector<Tensor>& outputs) {
  for (const Tensor& t : outputs) {
    TT_CHECK(t.defined(), "compile: the forward returned an undefined tensor");
    g_.outputs.push_back(lookup(t, "the forward's output"));
  }
  return std::move(g_);
}

}  // namespace tt::graph
