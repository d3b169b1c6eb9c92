#include "ops/graph/fusion.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>

#include "ops/graph/lower.h"
#include "ops/pointwise_functors.h"

namespace tt::graph {
namespace {

using ops::OpKind;
using ops::pointwise::BinaryOp;
using ops::pointwise::UnaryOp;

struct Uses {
  int count = 0;
  bool via_view = false;
  bool output = false;
};

}  // namespace

std::vector<int> permutation_of(const Value& view, const Value& base) {
  const Shape strides = contiguous_strides(base.sizes);
  const size_t rank = base.sizes.size();
  if (view.offset != 0 || view.sizes.size() != rank) return {};
  std::vector<int> perm(rank, -1);
  std::vector<bool> used(rank, false);
  for (size_t d = 0; d < rank; ++d) {
    for (size_t e = 0; e < rank; ++e) {
      if (!used[e] && view.sizes[d] == base.sizes[e] && view.strides[d] == strides[e]) {
        perm[d] = static_cast<int>(e);
        used[e] = true;
        break;
      }
    }
    if (perm[d] < 0) return {};
  }
  return perm;
}

std::vector<bool> constant_values(const Graph& g) {
  // Values are recorded in order: a node's inputs and a view's base come before it.
  std::vector<bool> c(g.values.size(), false);
  for (size_t v = 0; v < g.values.size(); ++v) {
    const Value& val = g.values[v];
    if (val.kind == ValueKind::kConstant) c[v] = true;
    if (val.kind == ValueKind::kView) c[v] = c[val.index];
    if (val.kind == ValueKind::kNode) {
      c[v] = true;
      for (int in : g.nodes[val.index].inputs) c[v] = c[v] && (in < 0 || c[in]);
    }
  }
  return c;
}

namespace {

std::vector<Uses> count_uses(const Graph& g) {
  std::vector<Uses> uses(g.values.size());
  for (const Node& n : g.nodes) {
    for (int v : n.inputs) {
      const int r = root_of(g, v);
      if (r < 0) continue;
      ++uses[r].count;
      if (r != v) uses[r].via_view = true;
    }
  }
  for (int v : g.outputs) {
    const int r = root_of(g, v);
    if (r >= 0) uses[r].output = true;
  }
  return uses;
}

bool all_float32(const Graph& g, const Node& n) {
  for (int v : n.inputs)
    if (v >= 0 && g.values[v].dtype != DType::F32) return false;
  for (int v : n.outputs)
    if (g.values[v].dtype != DType::F32) return false;
  return true;
}

bool elementwise(const Graph& g, const Node& n) {
  if (n.kind == OpKind::kUnary) {
    const auto op = static_cast<UnaryOp>(n.sub);
    if (op == UnaryOp::Fill) return false;
  } else if (n.kind != OpKind::kBinary) {
    return false;
  }
  return all_float32(g, n);
}

bool is_scalar(const Value& v) { return shape_numel(v.sizes) == 1; }

class Finder {
 public:
  explicit Finder(const Graph& g) : g_(g), uses_(count_uses(g)), group_of_(g.nodes.size(), -1) {}

  const std::vector<std::string>& notes() const { return notes_; }

  std::vector<Group> run() {
    for (size_t i = 0; i < g_.nodes.size(); ++i) try_attention(static_cast<int>(i));
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      const int n = static_cast<int>(i);
      if (group_of_[n] >= 0) continue;
      if (g_.nodes[n].kind == OpKind::kLinear && all_float32(g_, g_.nodes[n])) {
        const int gi = new_group(Group::Kind::kGemmEpilogue, n);
        grow(gi, /*epilogue=*/true);
        try_norm(gi);
      }
    }
    for (size_t i = 0; i < g_.nodes.size(); ++i) try_norm_alone(static_cast<int>(i));
    const bool dags = pointwise_dags();
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      const int n = static_cast<int>(i);
      if (group_of_[n] >= 0 || !elementwise(g_, g_.nodes[n])) continue;
      const int gi = new_group(Group::Kind::kPointwise, n);
      if (dags) {
        grow_dag(gi);
      } else {
        grow(gi, /*epilogue=*/false);
      }
      groups_[gi].outputs = written(groups_[gi].nodes);
    }
    std::vector<Group> out;
    for (const Group& grp : groups_)
      if (grp.nodes.size() >= 2) out.push_back(grp);
    return out;
  }

 private:
  int new_group(Group::Kind kind, int node) {
    Group grp;
    grp.kind = kind;
    grp.nodes = {node};
    grp.output = g_.nodes[node].outputs.at(0);
    groups_.push_back(grp);
    group_of_[node] = static_cast<int>(groups_.size()) - 1;
    return group_of_[node];
  }

  // The one node that reads v, when v may stay out of memory (one direct use, not an
  // output); -1 otherwise.
  int sole_consumer(int v) const {
    const Uses& u = uses_[v];
    if (u.count != 1 || u.via_view || u.output) return -1;
    for (size_t i = 0; i < g_.nodes.size(); ++i)
      for (int in : g_.nodes[i].inputs)
        if (in == v) return static_cast<int>(i);
    return -1;
  }

  // Whether node c, reading the group's output o as one operand, is a step a GEMM
  // epilogue expresses (the lowering checks what the chosen config can apply).
  bool epilogue_step(const Node& c, int o) const {
    if (c.kind == OpKind::kUnary) {
      switch (static_cast<UnaryOp>(c.sub)) {
        case UnaryOp::Relu:
        case UnaryOp::Silu:
        case UnaryOp::GeluErf:
        case UnaryOp::GeluTanh:
        case UnaryOp::LeakyRelu:
          return true;
        default:
          return false;
      }
    }
    const auto op = static_cast<BinaryOp>(c.sub);
    const int other = c.inputs[0] == o ? c.inputs[1] : c.inputs[0];
    const Value& out = g_.values[o];
    const Value& e = g_.values[other];
    if (op == BinaryOp::Div) return c.inputs[0] == o && is_scalar(e);
    if (op != BinaryOp::Add && op != BinaryOp::Mul) return false;
    if (op == BinaryOp::Mul && is_scalar(e)) return true;
    const int64_t n = out.sizes.empty() ? 1 : out.sizes.back();
    const bool column = !e.sizes.empty() && e.sizes.back() == n && shape_numel(e.sizes) == n;
    return column || e.sizes == out.sizes;
  }

  // The node that reads v, directly or through one view of v that keeps its elements in
  // order (unsqueeze, squeeze, a contiguous reshape), when that is v's only use and v is
  // not an output; `read` is the value it reads. -1 otherwise.
  int sole_consumer_reshaped(int v, int& read) const {
    const Uses& u = uses_[v];
    if (u.count != 1 || u.output) return -1;
    const Value& base = g_.values[v];
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      for (int in : g_.nodes[i].inputs) {
        if (in < 0 || root_of(g_, in) != v) continue;
        const Value& r = g_.values[in];
        const bool reshape = in == v || (r.index == v && r.offset == 0 &&
                                         shape_numel(r.sizes) == shape_numel(base.sizes) &&
                                         contiguous(r) && contiguous(base));
        if (!reshape) return -1;
        read = in;
        return static_cast<int>(i);
      }
    }
    return -1;
  }

  // sigmoid(v) * v (either order), those two being the only reads of v: the nodes of
  // one silu step, or false.
  bool silu_pair(int v, int& sig, int& mul) const {
    const Uses& u = uses_[v];
    if (u.count != 2 || u.via_view || u.output) return false;
    sig = -1;
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      const Node& n = g_.nodes[i];
      if (n.kind == OpKind::kUnary && static_cast<UnaryOp>(n.sub) == UnaryOp::Sigmoid &&
          n.inputs[0] == v)
        sig = static_cast<int>(i);
    }
    if (sig < 0 || group_of_[sig] >= 0 || !all_float32(g_, g_.nodes[sig])) return false;
    const int s = g_.nodes[sig].outputs[0];
    mul = sole_consumer(s);
    if (mul < 0 || group_of_[mul] >= 0) return false;
    const Node& m = g_.nodes[mul];
    return m.kind == OpKind::kBinary && static_cast<BinaryOp>(m.sub) == BinaryOp::Mul &&
           all_float32(g_, m) &&
           ((m.inputs[0] == s && m.inputs[1] == v) || (m.inputs[0] == v && m.inputs[1] == s));
  }

  void add_to(int gi, int node) {
    groups_[gi].nodes.push_back(node);
    groups_[gi].output = g_.nodes[node].outputs[0];
    group_of_[node] = gi;
  }

  // A norm the fused family's plans run right after the GEMM group gi (see fusion.h).
  void try_norm(int gi) {
    const int o = groups_[gi].output;
    const Value& ov = g_.values[o];
    int read = -1;
    const int c = sole_consumer_reshaped(o, read);
    if (c < 0 || group_of_[c] >= 0 || ov.sizes.empty()) return;
    const Node& n = g_.nodes[c];
    if (!all_float32(g_, n) || n.inputs[0] != read) return;
    switch (n.kind) {
      case OpKind::kGroupNorm:
      case OpKind::kBatchNorm:
        // Channels are the GEMM's columns only for the [M, N] output itself.
        if (read != o || ov.sizes.size() != 2) return;
        break;
      case OpKind::kLayerNorm:
      case OpKind::kRmsNorm:
        if (read != o || !row_norm(n)) return;
        break;
      case OpKind::kInstanceNorm: {
        // Per-channel affine does not follow the rows; segments must lie inside rows.
        if (n.inputs[1] >= 0 || n.inputs[2] >= 0) return;
        const Shape& in = g_.values[read].sizes;
        const int64_t segment = shape_numel(Shape(in.begin() + 2, in.end()));
        if (segment <= 0 || ov.sizes.back() % segment != 0) return;
        break;
      }
      default:
        return;
    }
    groups_[gi].kind = Group::Kind::kGemmNorm;
    add_to(gi, c);
    if (n.kind != OpKind::kBatchNorm) grow_after_norm(gi, ov.sizes.back());
  }

  // A layer_norm or rms_norm over its input's last dim alone, of a contiguous float32
  // input.
  bool row_norm(const Node& n) const {
    if ((n.kind != OpKind::kLayerNorm && n.kind != OpKind::kRmsNorm) || !all_float32(g_, n))
      return false;
    const Value& in = g_.values[n.inputs[0]];
    return !in.sizes.empty() && contiguous(in) && n.attrs.ints.size() == 1 &&
           n.attrs.ints[0] == in.sizes.back();
  }

  // Whether v is the input of the (one-node) step c with the output's shape, the step one
  // a GEMM epilogue expresses with v as its running value.
  bool chain_step(int c, int v) const {
    if (c < 0 || group_of_[c] >= 0) return false;
    const Node& cn = g_.nodes[c];
    if (!elementwise(g_, cn) || g_.values[cn.outputs[0]].sizes != g_.values[v].sizes) return false;
    if (cn.inputs[0] != v && (cn.inputs.size() < 2 || cn.inputs[1] != v)) return false;
    return chain_step_of(cn, v);
  }

  // An operand the norm's chain reads as the lowering does: a column vector or residual
  // with unit strides, a constant factor, or a division by a constant power of two
  // (x / c == x * (1 / c) only then); others stay out, so that a norm group never claims
  // a node its lowering would leave to the eager path.
  bool chain_operand(const Node& n, int v) const {
    if (n.kind != OpKind::kBinary) return true;
    const int other = n.inputs[0] == v ? n.inputs[1] : n.inputs[0];
    const Value& e = g_.values[other];
    // Vectors and residuals are read with unit strides.
    if (!is_scalar(e)) return e.sizes == g_.values[v].sizes ? contiguous(e) : e.strides.back() == 1;
    if (e.kind != ValueKind::kConstant) return false;
    if (static_cast<BinaryOp>(n.sub) != BinaryOp::Div) return true;
    const double c = e.tensor.item();
    int exponent = 0;
    return std::isfinite(c) && c != 0.0 && std::frexp(c, &exponent) == 0.5;
  }

  // The elementwise steps after a segment norm (its epilogue chain), each reading the
  // previous one's output index for index as the [M, n] matrix the norm's segments tile.
  // At most six: the norm's affine takes two of a chain's eight steps. A step reading
  // `avoid` (the group's second output) is not taken: the group would read what it writes.
  void grow_after_norm(int gi, int64_t n, int avoid = -1) {
    int read = -1;
    int c = sole_consumer_reshaped(groups_[gi].output, read);
    int v = c >= 0 ? read : groups_[gi].output;
    for (int steps = 0; steps < 6; ++steps) {
      const Value& rv = g_.values[v];
      if (rv.sizes.empty() || rv.sizes.back() != n || !contiguous(rv)) return;
      int sig = -1, mul = -1;
      if (c < 0 && v == groups_[gi].output && silu_pair(v, sig, mul)) {
        add_to(gi, sig);
        add_to(gi, mul);
      } else if (chain_step(c, v) && !reads(g_.nodes[c], avoid)) {
        add_to(gi, c);
      } else {
        return;
      }
      v = groups_[gi].output;
      c = sole_consumer(v);
    }
  }

  // A row norm with its prologue and epilogue chains (fusion.h, kNorm).
  void try_norm_alone(int c) {
    if (group_of_[c] >= 0 || !row_norm(g_.nodes[c])) return;
    const Node& norm = g_.nodes[c];
    const int h = norm.inputs[0];
    if (root_of(g_, h) != h) return;  // read through a view: no producer to fold
    // The prologue, backwards from the norm's input: each step's running value is the
    // output of the step before, read by it alone.
    std::vector<int> pro;
    int v = h;
    while (pro.size() < static_cast<size_t>(kMaxChainSteps)) {
      const int p = producer(v);
      if (p < 0 || group_of_[p] >= 0) break;
      const Node& pn = g_.nodes[p];
      if (!elementwise(g_, pn) || g_.values[pn.outputs[0]].sizes != g_.values[h].sizes) break;
      if (v != h && (uses_[v].count != 1 || uses_[v].via_view || uses_[v].output)) break;
      int main = -1;
      for (int k = 0; k < static_cast<int>(pn.inputs.size()) && main < 0; ++k) {
        const int in = pn.inputs[k];
        if (in >= 0 && g_.values[in].sizes == g_.values[h].sizes && chain_step_of(pn, in))
          main = in;
      }
      if (main < 0) break;
      pro.push_back(p);
      v = main;
    }
    const int gi = new_group(Group::Kind::kNorm, c);
    std::vector<int> nodes(pro.rbegin(), pro.rend());
    for (int p : nodes) group_of_[p] = gi;
    nodes.push_back(c);
    groups_[gi].nodes = nodes;
    grow_after_norm(gi, g_.values[h].sizes.back(), pro.empty() ? -1 : h);
    const int last = groups_[gi].nodes.back();
    const Uses& hu = uses_[h];
    if (!pro.empty() && (hu.count > 1 || hu.output)) {
      // h is written as well; its other readers must run after the group (it runs at its
      // last node) and none of the group's steps may read it.
      bool later = true;
      for (size_t i = 0; i < g_.nodes.size(); ++i) {
        const int node = static_cast<int>(i);
        if (node == c) continue;
        for (int in : g_.nodes[i].inputs)
          if (in >= 0 && root_of(g_, in) == h && (group_of_[node] == gi || node < last))
            later = false;
      }
      if (!later) {  // the prologue stays out
        for (int p : pro) group_of_[p] = -1;
        groups_[gi].nodes.erase(groups_[gi].nodes.begin(),
                                groups_[gi].nodes.begin() + static_cast<int64_t>(pro.size()));
      } else {
        groups_[gi].pre = h;
      }
    }
  }

  static constexpr int kMaxChainSteps = 8;
  // The chain kernel's limits (ops/cuda/pointwise/chain.h), kept backend-neutral here.
  static constexpr int kMaxPointwiseNodes = 16, kMaxPointwiseInputs = 8, kMaxPointwiseOutputs = 4;

  bool reads(const Node& n, int v) const {
    for (int in : n.inputs)
      if (v >= 0 && in >= 0 && root_of(g_, in) == v) return true;
    return false;
  }

  // The node whose output is v, or -1.
  int producer(int v) const {
    for (size_t i = 0; i < g_.nodes.size(); ++i)
      for (int o : g_.nodes[i].outputs)
        if (o == v) return static_cast<int>(i);
    return -1;
  }

  // Whether node n is a GEMM-epilogue step with running value v.
  bool chain_step_of(const Node& n, int v) const {
    if (n.kind == OpKind::kBinary && n.inputs[0] == n.inputs[1]) return false;
    return epilogue_step(n, v) && chain_operand(n, v);
  }

  // Adds the sole consumers of the group's output while they qualify.
  void grow(int gi, bool epilogue) {
    while (true) {
      const int o = groups_[gi].output;
      const int c = sole_consumer(o);
      int sig = -1, mul = -1;
      if (c < 0 && epilogue && silu_pair(o, sig, mul)) {
        add_to(gi, sig);
        add_to(gi, mul);
        continue;
      }
      if (c < 0 || group_of_[c] >= 0) return;
      const Node& cn = g_.nodes[c];
      if (!elementwise(g_, cn) || g_.values[cn.outputs[0]].sizes != g_.values[o].sizes) return;
      if (cn.kind == OpKind::kBinary && cn.inputs[0] == cn.inputs[1]) return;
      if (epilogue && !epilogue_step(cn, o)) return;
      groups_[gi].nodes.push_back(c);
      groups_[gi].output = cn.outputs[0];
      group_of_[c] = gi;
    }
  }

  // matmul(q, kt) -> [a scale, a mask, in either order] -> softmax(last dim) -> matmul(p,
  // v), each intermediate read once by the next (fusion.h, kAttention). A chain of that
  // shape with a step scaled_dot_product_attention does not express stays unfused, and
  // notes_ says why.
  void try_attention(int m1) {
    const Node& a = g_.nodes[m1];
    if (a.kind != OpKind::kMatmul || group_of_[m1] >= 0 || !all_float32(g_, a)) return;
    const int rank = static_cast<int>(g_.values[a.outputs[0]].sizes.size());
    if (rank < 2 || g_.values[a.inputs[0]].sizes.size() != static_cast<size_t>(rank) ||
        g_.values[a.inputs[1]].sizes.size() != static_cast<size_t>(rank))
      return;
    std::vector<int> nodes = {m1};
    int cur = a.outputs[0];
    int next = sole_consumer(cur);
    AttentionSteps steps;
    std::string refused;
    // At most a scale and a mask: a third step is refused by attention_step.
    for (int k = 0; k < 3 && next >= 0 && group_of_[next] < 0; ++k) {
      const Node& n = g_.nodes[next];
      if (n.kind != OpKind::kBinary && n.kind != OpKind::kWhere) break;
      const std::string why = attention_step(next, cur, steps);
      if (refused.empty()) refused = why;
      nodes.push_back(next);
      cur = n.outputs[0];
      next = sole_consumer(cur);
    }
    if (next < 0 || group_of_[next] >= 0) return;
    const Node* n = &g_.nodes[next];
    if (n->kind != OpKind::kSoftmax ||
        !(n->attrs.ints.at(0) == -1 || n->attrs.ints.at(0) == rank - 1))
      return;
    nodes.push_back(next);
    cur = n->outputs[0];
    if ((next = sole_consumer(cur)) < 0 || group_of_[next] >= 0) return;
    n = &g_.nodes[next];
    if (n->kind != OpKind::kMatmul || n->inputs[0] != cur ||
        g_.values[n->inputs[1]].sizes.size() != static_cast<size_t>(rank))
      return;
    nodes.push_back(next);
    if (!refused.empty()) {
      std::string names;
      for (int k : nodes) names += (names.empty() ? "" : " -> ") + node_op_name(g_.nodes[k]);
      notes_.push_back(fmt::format("{} (the scores %{}): {}", names, a.outputs[0], refused));
      return;
    }
    int out = n->outputs[0];
    // The head merge after it (a copy of a permutation of its output) writes its layout
    // directly.
    if (const int copy = permuted_copy_of(out); copy >= 0) {
      nodes.push_back(copy);
      out = g_.nodes[copy].outputs[0];
    }
    const int gi = new_group(Group::Kind::kAttention, m1);
    Group& grp = groups_[gi];
    if (steps.mask_step >= 0) {
      grp.mask = steps.mask;
      if (constant_[root_of(g_, steps.mask)])
        grp.mask_nodes = constant_nodes_for(steps.mask, steps.mask_step);
      nodes.insert(nodes.end(), grp.mask_nodes.begin(), grp.mask_nodes.end());
      std::sort(nodes.begin(), nodes.end());
    }
    grp.nodes = nodes;
    grp.output = out;
    for (int k : nodes) group_of_[k] = gi;
  }

  // The scale and mask steps of an attention chain so far.
  struct AttentionSteps {
    int scale_step = -1;
    int mask_step = -1;
    int mask = -1;          // the mask value
    bool additive = false;  // s + M (else a -inf fill)
  };

  // Whether node c, reading the scores `cur` (q k^T, maybe scaled or masked already), is a
  // step scaled_dot_product_attention expresses: "" when it is (recorded in `steps`), else
  // the reason it is not.
  std::string attention_step(int c, int cur, AttentionSteps& steps) const {
    const Node& n = g_.nodes[c];
    const std::string op = node_op_name(n);
    const Value& scores = g_.values[cur];
    const Value& out = g_.values[n.outputs[0]];
    if (out.dtype != DType::F32) {
      return fmt::format("{} of the scores gives {}, not float32", op, dtype_name(out.dtype));
    }
    if (out.sizes != scores.sizes) {
      return fmt::format(
          "{} broadcasts the scores {} to {}; a mask must broadcast to the scores' shape", op,
          shape_str(scores.sizes), shape_str(out.sizes));
    }
    const bool binary = n.kind == OpKind::kBinary;
    const auto bop = static_cast<BinaryOp>(n.sub);
    if (binary && (bop == BinaryOp::Mul || bop == BinaryOp::Div)) {
      const int other = n.inputs[0] == cur ? n.inputs[1] : n.inputs[0];
      const Value& e = g_.values[other];
      if (other == cur || (bop == BinaryOp::Div && n.inputs[0] != cur) || !is_scalar(e) ||
          e.kind != ValueKind::kConstant) {
        return fmt::format("{} is not a scale of the scores by a constant scalar", op);
      }
      if (steps.scale_step >= 0) return "a second scale of the scores";
      const double value = e.tensor.item();
      const double factor = bop == BinaryOp::Div ? 1.0 / value : value;
      if (steps.mask_step >= 0 && steps.additive) {
        return "the additive mask comes before the scale ((q k^T + M) * s is not q k^T * s + M, "
               "which scaled_dot_product_attention computes)";
      }
      if (steps.mask_step >= 0 && !(std::isfinite(factor) && factor > 0.0)) {
        return fmt::format("the scale {:g} after the -inf fill does not keep it -inf", factor);
      }
      steps.scale_step = c;
      return "";
    }
    const bool where = n.kind == OpKind::kWhere;
    if (!where && !(binary && bop == BinaryOp::Add)) {
      return fmt::format("{} between q k^T and softmax is neither a scale by a constant nor a mask",
                         op);
    }
    if (steps.mask_step >= 0) return "a second mask of the scores";
    if (where) {
      // masked_fill(m, v) records as where(m, v, s); where(keep, s, v) keeps where true.
      if (n.inputs[1] != cur && n.inputs[2] != cur) {
        return "where reads the scores as its condition, not as a branch";
      }
      const int fill = n.inputs[1] == cur ? n.inputs[2] : n.inputs[1];
      const Value& f = g_.values[fill];
      if (fill == cur || !is_scalar(f) || f.kind != ValueKind::kConstant) {
        return "the masked fill is not a constant scalar";
      }
      const double v = f.tensor.item();
      if (!(std::isinf(v) && v < 0)) {
        return fmt::format(
            "the masked fill is {:g}, not -inf: masked keys keep a weight of exp(fill - max), "
            "which scaled_dot_product_attention's boolean mask does not give",
            v);
      }
      steps.mask = n.inputs[0];
      steps.additive = false;
    } else {
      const int other = n.inputs[0] == cur ? n.inputs[1] : n.inputs[0];
      if (other == cur) return "add of the scores to themselves is not a mask";
      if (g_.values[other].dtype != DType::F32) {
        return fmt::format(
            "the additive mask has dtype {}; scaled_dot_product_attention adds a float32 one",
            dtype_name(g_.values[other].dtype));
      }
      steps.mask = other;
      steps.additive = true;
    }
    steps.mask_step = c;
    return "";
  }

  // The nodes that compute the constant mask v and whose outputs nothing but those nodes
  // and the mask step reads (then the lowering's single computation replaces them), in
  // graph order.
  std::vector<int> constant_nodes_for(int v, int step) const {
    std::set<int> cone;
    std::vector<int> todo = {root_of(g_, v)};
    while (!todo.empty()) {
      const int r = root_of(g_, todo.back());
      todo.pop_back();
      if (r < 0 || g_.values[r].kind != ValueKind::kNode) continue;
      if (cone.insert(g_.values[r].index).second)
        for (int in : g_.nodes[g_.values[r].index].inputs) todo.push_back(in);
    }
    for (bool changed = true; changed;) {
      changed = false;
      for (auto it = cone.begin(); it != cone.end();) {
        bool kept = group_of_[*it] < 0;
        for (int o : g_.nodes[*it].outputs) {
          kept = kept && !uses_[o].output;
          for (size_t i = 0; kept && i < g_.nodes.size(); ++i) {
            const int reader = static_cast<int>(i);
            if (reader != step && !cone.count(reader) && reads(g_.nodes[i], o)) kept = false;
          }
        }
        if (kept) {
          ++it;
        } else {
          it = cone.erase(it);
          changed = true;
        }
      }
    }
    return std::vector<int>(cone.begin(), cone.end());
  }

  // The copy node that is the only reader of value a, through a view that permutes a's
  // dims (same storage offset, same elements): -1 when there is none.
  int permuted_copy_of(int a) const {
    const Uses& u = uses_[a];
    if (u.count != 1 || !u.via_view || u.output) return -1;
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      const Node& c = g_.nodes[i];
      if (c.kind != OpKind::kCopy || c.inputs.size() != 1) continue;
      const int v = c.inputs[0];
      if (g_.values[v].kind != ValueKind::kView || g_.values[v].index != a) continue;
      if (g_.values[c.outputs[0]].dtype != g_.values[a].dtype) return -1;
      return permutation_of(g_.values[v], g_.values[a]).empty() ? -1 : static_cast<int>(i);
    }
    return -1;
  }

  // The node whose output value v is (through no view), or -1.
  int node_of(int v) const {
    return v >= 0 && g_.values[v].kind == ValueKind::kNode ? g_.values[v].index : -1;
  }

  // A pointwise group as a DAG (fusion.h): adds every elementwise node next to it (reading
  // one of its values, or producing one it reads) that may join, until none may.
  void grow_dag(int gi) {
    const Shape& shape = g_.values[groups_[gi].output].sizes;
    for (bool grew = true; grew;) {
      grew = false;
      for (size_t i = 0; i < g_.nodes.size(); ++i) {
        const int c = static_cast<int>(i);
        if (group_of_[c] >= 0 || !elementwise(g_, g_.nodes[c]) ||
            g_.values[g_.nodes[c].outputs[0]].sizes != shape || !next_to(gi, c) || !may_join(gi, c))
          continue;
        std::vector<int>& nodes = groups_[gi].nodes;
        nodes.insert(std::upper_bound(nodes.begin(), nodes.end(), c), c);
        group_of_[c] = gi;
        groups_[gi].output = g_.nodes[nodes.back()].outputs[0];
        grew = true;
      }
    }
  }

  bool next_to(int gi, int c) const {
    for (int v : g_.nodes[c].inputs) {
      const int p = node_of(root_of(g_, v));
      if (p >= 0 && group_of_[p] == gi) return true;
    }
    for (int m : groups_[gi].nodes)
      for (int v : g_.nodes[m].inputs)
        if (node_of(root_of(g_, v)) == c) return true;
    return false;
  }

  // Whether node c may join pointwise group gi: every value passing between them is read
  // directly (index for index, not through a view), the kernel's limits hold, and the
  // group grows no cycle through a node (or another group) outside it.
  bool may_join(int gi, int c) const {
    std::vector<int> m = groups_[gi].nodes;
    m.insert(std::upper_bound(m.begin(), m.end(), c), c);
    std::vector<bool> in(g_.nodes.size(), false);
    for (int n : m) in[n] = true;
    std::vector<int> external;
    for (int n : m) {
      for (int v : g_.nodes[n].inputs) {
        const int p = node_of(root_of(g_, v));
        if (p >= 0 && in[p]) {
          if (v != root_of(g_, v)) return false;  // a view of the group's own value
        } else if (std::find(external.begin(), external.end(), v) == external.end()) {
          external.push_back(v);
        }
      }
    }
    if (m.size() > static_cast<size_t>(kMaxPointwiseNodes) ||
        external.size() > static_cast<size_t>(kMaxPointwiseInputs) ||
        written(m).size() > static_cast<size_t>(kMaxPointwiseOutputs))
      return false;
    return !cycle_through_outside(m, in);
  }

  // Whether a node outside `m` (a sorted node set) both depends on m and feeds it; another
  // group counts as one node (it runs as one step), so a path through any of its nodes
  // taints all of them.
  bool cycle_through_outside(const std::vector<int>& m, const std::vector<bool>& in) const {
    const size_t count = g_.nodes.size();
    std::vector<bool> tainted(count, false);
    const auto reads_from = [&](int n, const std::vector<bool>& set) {
      for (int v : g_.nodes[n].inputs) {
        const int p = node_of(root_of(g_, v));
        if (p >= 0 && set[p]) return true;
      }
      return false;
    };
    for (bool more = true; more;) {
      more = false;
      // From node 0: another group's node before the group may be tainted through it.
      for (size_t i = 0; i < count; ++i) {
        const int n = static_cast<int>(i);
        if (in[n] || tainted[n] || !(reads_from(n, in) || reads_from(n, tainted))) continue;
        tainted[n] = more = true;
        if (group_of_[n] < 0) continue;
        for (int k : groups_[group_of_[n]].nodes) tainted[k] = true;
      }
    }
    for (int n : m)
      if (reads_from(n, tainted)) return true;
    return false;
  }

  // The values of `nodes` (sorted) that must be written: read by a node outside them, or
  // returned; the last node's always (its value is the group's `output`).
  std::vector<int> written(const std::vector<int>& nodes) const {
    std::vector<int> out;
    for (int n : nodes) {
      const int v = g_.nodes[n].outputs[0];
      bool needed = n == nodes.back() || uses_[v].output;
      for (size_t i = 0; i < g_.nodes.size() && !needed; ++i) {
        if (std::binary_search(nodes.begin(), nodes.end(), static_cast<int>(i))) continue;
        for (int in : g_.nodes[i].inputs)
          if (in >= 0 && root_of(g_, in) == v) needed = true;
      }
      if (needed) out.push_back(v);
    }
    return out;
  }

  const Graph& g_;
  std::vector<Uses> uses_;
  std::vector<int> group_of_;
  std::vector<Group> groups_;
  std::vector<std::string> notes_;  // attention-shaped chains left unfused, with the reason
  std::vector<bool> constant_ = constant_values(g_);
};

const char* kind_name(Group::Kind k) {
  switch (k) {
    case Group::Kind::kPointwise:
      return "pointwise";
    case Group::Kind::kGemmEpilogue:
      return "gemm+epilogue";
    case Group::Kind::kGemmNorm:
      return "gemm+norm";
    case Group::Kind::kAttention:
      return "attention";
    case Group::Kind::kNorm:
      return "norm";
  }
  return "?";
}

}  // namespace

namespace {

std::atomic<bool>& dags_flag() {
  static std::atomic<bool> on{[] {
    const char* e = std::getenv("TT_POINTWISE_GROUPS");
    return e == nullptr || std::strcmp(e, "chains") != 0;
  }()};
  return on;
}

// The steps in an order that runs each after the steps whose values it reads: their
// order as given wherever that already holds (the earliest ready step first).
bool order_by_dependencies(const Graph& g, std::vector<Step>& steps) {
  const size_t n = steps.size();
  std::vector<int> writer(g.values.size(), -1);
  for (size_t s = 0; s < n; ++s)
    for (int v : steps[s].writes) writer[v] = static_cast<int>(s);
  std::vector<std::vector<size_t>> after(n);
  std::vector<int> waiting(n, 0);
  for (size_t s = 0; s < n; ++s) {
    std::vector<int> deps;
    for (int v : steps[s].reads) {
      const int r = root_of(g, v);
      const int w = r >= 0 ? writer[r] : -1;
      if (w >= 0 && w != static_cast<int>(s) &&
          std::find(deps.begin(), deps.end(), w) == deps.end())
        deps.push_back(w);
    }
    for (int w : deps) after[w].push_back(s);
    waiting[s] = static_cast<int>(deps.size());
  }
  std::vector<Step> out;
  std::vector<bool> done(n, false);
  while (out.size() < n) {
    size_t s = 0;
    while (s < n && (done[s] || waiting[s] > 0)) ++s;
    if (s == n) return false;  // a cycle: find_groups never makes one
    done[s] = true;
    for (size_t t : after[s]) --waiting[t];
    out.push_back(std::move(steps[s]));
  }
  steps = std::move(out);
  return true;
}

}  // namespace

void set_pointwise_dags(bool on) { dags_flag() = on; }
bool pointwise_dags() { return dags_flag(); }

std::vector<Group> find_groups(const Graph& g, std::vector<std::string>* left_out) {
  Finder finder(g);
  std::vector<Group> groups = finder.run();
  if (left_out) *left_out = finder.notes();
  return groups;
}

std::string group_str(const Graph& g, const Group& group) {
  std::string names, mask;
  for (int n : group.nodes) {
    const bool of_mask =
        std::find(group.mask_nodes.begin(), group.mask_nodes.end(), n) != group.mask_nodes.end();
    std::string& list = of_mask ? mask : names;
    list += (list.empty() ? "" : " -> ") + node_op_name(g.nodes[n]);
  }
  return fmt::format("{}: {}{}{}", kind_name(group.kind), names,
                     group.pre >= 0 ? ", writing the norm's input too" : "",
                     mask.empty() ? "" : ", its constant mask from " + mask);
}

void compile_program(Program& p, bool fuse) {
  const Graph& g = p.graph;
  std::string& r = p.report;
  r = fmt::format("compiled graph: {} nodes, {} values\n", g.nodes.size(), g.values.size());
  if (p.eager()) {
    r += fmt::format("graph break: {}; this key runs eagerly\n", g.break_reason);
    return;
  }
  Device device = Device::cpu();
  for (const Value& v : g.values)
    if (!v.device.is_cpu()) device = v.device;
  if (device.is_cpu() || !fuse) {
    p.steps = node_steps(g);
    r += fmt::format("{}: replayed op by op\n", device.is_cpu() ? "cpu" : "fusion off");
    r += g.str();
    return;
  }

  std::vector<std::string> left_out;
  const std::vector<Group> groups = find_groups(g, &left_out);
  for (const std::string& why : left_out) r += "attention left unfused: " + why + "\n";
  std::map<int, size_t> group_at_last_node;  // last node of a lowered group -> its index
  std::vector<std::vector<Step>> lowered(groups.size());
  std::vector<bool> in_lowered_group(g.nodes.size(), false);
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    std::string why;
    lowered[gi] = lower_group(g, groups[gi], why);
    const std::string names = group_str(g, groups[gi]);
    if (lowered[gi].empty()) {
      r += fmt::format("group {} ({}) left unfused: {}\n", gi, names, why);
      continue;
    }
    r += fmt::format("group {} ({})\n", gi, names);
    if (groups[gi].kind == Group::Kind::kPointwise)
      r += fmt::format("  expression: {}\n", group_expression(g, groups[gi]));
    for (const Step& s : lowered[gi]) r += "  kernel: " + s.description + "\n";
    group_at_last_node[groups[gi].nodes.back()] = gi;
    for (int n : groups[gi].nodes) in_lowered_group[n] = true;
  }
  const std::vector<Step> singles = node_steps(g);
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const auto it = group_at_last_node.find(static_cast<int>(n));
    if (it != group_at_last_node.end()) {
      for (Step& s : lowered[it->second]) p.steps.push_back(std::move(s));
    } else if (!in_lowered_group[n]) {
      p.steps.push_back(singles[n]);
      r += fmt::format("alone: {}\n", g.node_str(g.nodes[n]));
    }
  }
  if (!order_by_dependencies(g, p.steps)) {
    p.steps = singles;
    r += "the fused steps' dependencies form a cycle: replayed op by op\n";
  }
}

}  // namespace tt::graph
