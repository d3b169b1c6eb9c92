// group_expression (fusion.h): a pointwise group printed as the user wrote it, for
// explain(). Operators keep their precedence; a right operand of the same precedence is
// parenthesized, so the text also says the order the floats are combined in.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "ops/graph/fusion.h"
#include "ops/pointwise_functors.h"

namespace tt::graph {
namespace {

using ops::OpKind;
using ops::pointwise::BinaryOp;
using ops::pointwise::UnaryOp;

constexpr int kLeaf = 4;  // a name, a number or a call: never parenthesized

struct Text {
  std::string s;
  int prec = kLeaf;
};

std::string number(double c) {
  const std::string s = fmt::format("{:g}", c);
  return c < 0 ? "(" + s + ")" : s;
}

class Printer {
 public:
  Printer(const Graph& g, const Group& grp) : g_(g), grp_(grp) {
    for (int n : grp.nodes) {
      in_group_[g.nodes[n].outputs[0]] = n;
      for (int v : g.nodes[n].inputs) ++uses_[v];
    }
    outputs_ = grp.outputs.empty() ? std::vector<int>{grp.output} : grp.outputs;
    int y = 0, t = 0;
    for (int n : grp.nodes) {
      const int v = g.nodes[n].outputs[0];
      const bool out = std::find(outputs_.begin(), outputs_.end(), v) != outputs_.end();
      if (out && (outputs_.size() > 1 || uses_[v] > 0)) {
        names_[v] = fmt::format("y{}", y++);
      } else if (uses_[v] > 1) {
        names_[v] = fmt::format("t{}", t++);
      }
    }
  }

  std::string run() {
    std::string r;
    const auto add = [&](const std::string& s) { r += (r.empty() ? "" : "; ") + s; };
    for (int n : grp_.nodes) {
      const int v = g_.nodes[n].outputs[0];
      if (const auto it = names_.find(v); it != names_.end())
        add(it->second + " = " + node_text(g_.nodes[n]).s);
    }
    // A single output that nothing inside reads is the expression itself.
    if (names_.find(grp_.output) == names_.end()) add(value_text(grp_.output).s);
    return r;
  }

 private:
  Text value_text(int v) {
    if (const auto it = names_.find(v); it != names_.end()) return {it->second};
    if (const auto it = in_group_.find(v); it != in_group_.end())
      return node_text(g_.nodes[it->second]);
    const Value& val = g_.values[v];
    if (val.kind == ValueKind::kConstant && shape_numel(val.sizes) == 1 && val.tensor.defined())
      return {number(val.tensor.item())};
    if (const auto it = inputs_.find(v); it != inputs_.end()) return {it->second};
    const std::string name = fmt::format("x{}", inputs_.size());
    inputs_[v] = name;
    return {name};
  }

  static std::string wrap(const Text& t, int prec, bool strict) {
    return t.prec < prec || (strict && t.prec == prec) ? "(" + t.s + ")" : t.s;
  }

  Text node_text(const Node& n) {
    if (n.kind == OpKind::kBinary) {
      const auto op = static_cast<BinaryOp>(n.sub);
      const Text a = value_text(n.inputs[0]), b = value_text(n.inputs[1]);
      const char* sym = op == BinaryOp::Add   ? "+"
                        : op == BinaryOp::Sub ? "-"
                        : op == BinaryOp::Mul ? "*"
                        : op == BinaryOp::Div ? "/"
                                              : nullptr;
      if (sym == nullptr) return {fmt::format("{}({}, {})", node_op_name(n), a.s, b.s)};
      const int prec = op == BinaryOp::Add || op == BinaryOp::Sub ? 1 : 2;
      return {fmt::format("{} {} {}", wrap(a, prec, false), sym, wrap(b, prec, true)), prec};
    }
    const auto op = static_cast<UnaryOp>(n.sub);
    const Text a = value_text(n.inputs[0]);
    const auto real = [&](size_t k) { return fmt::format("{:g}", n.attrs.reals.at(k)); };
    switch (op) {
      case UnaryOp::Neg:
        return {"-" + wrap(a, 3, false), 3};
      case UnaryOp::Pow:
      case UnaryOp::LeakyRelu:
        return {fmt::format("{}({}, {})", node_op_name(n), a.s, real(0))};
      case UnaryOp::Clamp:
        return {fmt::format("clamp({}, {}, {})", a.s, real(0), real(1))};
      default:
        return {fmt::format("{}({})", node_op_name(n), a.s)};
    }
  }

  const Graph& g_;
  const Group& grp_;
  std::map<int, int> in_group_;  // value -> the group's node that makes it
  std::map<int, int> uses_;      // value -> reads by the group's nodes
  std::map<int, std::string> names_, inputs_;
  std::vector<int> outputs_;
};

}  // namespace

std::string group_expression(const Graph& g, const Group& group) { return Printer(g, group).run(); }

}  // namespace tt::graph
