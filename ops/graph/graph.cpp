#include "ops/graph/graph.h"

#include <fmt/format.h>

#include "ops/pointwise_functors.h"

namespace tt::graph {

std::string node_op_name(const Node& n) {
  if (n.kind == ops::OpKind::kUnary)
    return ops::pointwise::op_name(static_cast<ops::pointwise::UnaryOp>(n.sub));
  if (n.kind == ops::OpKind::kBinary)
    return ops::pointwise::op_name(static_cast<ops::pointwise::BinaryOp>(n.sub));
  if (n.kind == ops::OpKind::kOther) return n.attrs.text;
  return ops::op_kind_name(n.kind);
}

int root_of(const Graph& g, int v) {
  while (v >= 0 && g.values[v].kind == ValueKind::kView) v = g.values[v].index;
  return v;
}

bool contiguous(const Value& v) { return v.strides == contiguous_strides(v.sizes); }

std::string Graph::value_str(int v) const {
  if (v < 0) return "None";
  const Value& val = values[v];
  switch (val.kind) {
    case ValueKind::kInput:
      return fmt::format("input{}", val.index);
    case ValueKind::kParameter:
      return val.name;
    case ValueKind::kConstant:
      return fmt::format("const{}", shape_str(val.sizes));
    case ValueKind::kView:
      return fmt::format("view({}, {})", value_str(val.index), shape_str(val.sizes));
    case ValueKind::kNode:
      break;
  }
  return fmt::format("%{}", v);
}

std::string Graph::node_str(const Node& n) const {
  std::string args;
  for (int v : n.inputs) args += (args.empty() ? "" : ", ") + value_str(v);
  std::string outs;
  for (int v : n.outputs) outs += (outs.empty() ? "" : ", ") + fmt::format("%{}", v);
  return fmt::format("{} = {}({}) {}", outs, node_op_name(n), args,
                     shape_str(values[n.outputs.at(0)].sizes));
}

std::string Graph::str() const {
  std::string s;
  for (const Node& n : nodes) s += node_str(n) + "\n";
  std::string outs;
  for (int v : outputs) outs += (outs.empty() ? "" : ", ") + value_str(v);
  return s + "return " + outs + "\n";
}

}  // namespace tt::graph
