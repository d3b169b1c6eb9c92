#include "ops/graph/attention_rewrite.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <utility>

#include "ops/front_end.h"
#include "ops/graph/invoke.h"
#include "ops/ops.h"
#include "ops/pointwise_functors.h"

namespace tt::graph {
namespace {

using ops::OpKind;
using ops::pointwise::BinaryOp;

constexpr double kInf = std::numeric_limits<double>::infinity();

// How the mask step reads its mask: where(keep, s, -inf) keeps where true;
// masked_fill(m, -inf) (recorded as where(m, -inf, s)) masks where true; s + M adds it.
enum class MaskForm { kNone, kKeep, kMasked, kAdditive };

// The group's nodes by role (fusion.cpp's try_attention formed it).
struct Parts {
  int qk = -1, scale = -1, mask = -1, pv = -1, merge = -1;
  MaskForm form = MaskForm::kNone;
};

bool constant_scalar(const Value& v) {
  return v.kind == ValueKind::kConstant && shape_numel(v.sizes) == 1;
}

Parts parts_of(const Graph& g, const Group& grp) {
  Parts p;
  for (int n : grp.nodes) {
    if (std::find(grp.mask_nodes.begin(), grp.mask_nodes.end(), n) != grp.mask_nodes.end())
      continue;
    const Node& node = g.nodes[n];
    const auto op = static_cast<BinaryOp>(node.sub);
    if (node.kind == OpKind::kMatmul) {
      (p.qk < 0 ? p.qk : p.pv) = n;
    } else if (node.kind == OpKind::kCopy) {
      p.merge = n;
    } else if (node.kind == OpKind::kWhere) {
      // The scores are an op's output, never the constant fill.
      p.mask = n;
      p.form = constant_scalar(g.values[node.inputs[1]]) ? MaskForm::kMasked : MaskForm::kKeep;
    } else if (node.kind == OpKind::kBinary && op == BinaryOp::Add) {
      p.mask = n;
      p.form = MaskForm::kAdditive;
    } else if (node.kind == OpKind::kBinary) {
      p.scale = n;
    }
  }
  return p;
}

double scale_of(const Graph& g, const Node& s) {
  const bool div = static_cast<BinaryOp>(s.sub) == BinaryOp::Div;
  const int c = div || constant_scalar(g.values[s.inputs[1]]) ? s.inputs[1] : s.inputs[0];
  const double value = g.values[c].tensor.item();
  return div ? 1.0 / value : value;
}

// Value v of a graph whose value depends on constants alone (constant_values), computed
// by running the nodes that make it.
Tensor evaluate(const Graph& g, int v, std::map<int, Tensor>& done) {
  if (v < 0) return Tensor();
  if (const auto it = done.find(v); it != done.end()) return it->second;
  const Value& val = g.values[v];
  Tensor t;
  if (val.kind == ValueKind::kView) {
    const Tensor base = evaluate(g, val.index, done);
    t = base.as_strided(val.sizes, val.strides, base.offset() + val.offset);
  } else if (val.kind == ValueKind::kNode) {
    const Node& n = g.nodes[val.index];
    std::vector<Tensor> in;
    for (int i : n.inputs) in.push_back(evaluate(g, i, done));
    const std::vector<Tensor> out = invoke(n, in);
    for (size_t k = 0; k < out.size(); ++k) done[n.outputs[k]] = out[k];
    t = out.at(static_cast<size_t>(val.output));
  } else {
    TT_CHECK(val.kind == ValueKind::kConstant,
             "compile: internal error: the constant mask reads %{}, which is not a constant", v);
    t = val.tensor;
  }
  done[v] = t;
  return t;
}

// What a constant mask (in SDPA's form: boolean true = attend, or additive) is for the
// scores' (L, S): exactly the top-left causal pattern in every plane, and the factor
// (NaN on rows with nothing to attend to, 1 elsewhere; [lead..., L, 1]) when it has such
// rows.
struct ConstantMask {
  bool causal = true;
  Tensor factor;
};

ConstantMask classify(const Tensor& mask, bool additive, int64_t L, int64_t S) {
  Tensor m = mask;
  while (m.dim() < 2) m = m.unsqueeze(0);
  Shape planes = m.sizes();
  planes[planes.size() - 2] = L;
  planes.back() = S;
  // Computed once per key, on the host: the mask's own planes, not the scores' batch.
  const std::vector<double> x = m.expand(planes).to(Device::cpu()).to_vector<double>();
  ConstantMask c;
  const int64_t rows = shape_numel(planes) / std::max<int64_t>(S, 1);
  std::vector<float> factor(static_cast<size_t>(rows), 1.0f);
  bool any_dead = false;
  for (int64_t row = 0; row < rows; ++row) {
    const int64_t i = row % L;
    bool dead = true;
    for (int64_t j = 0; j < S; ++j) {
      const double v = x[static_cast<size_t>(row * S + j)];
      const bool attend = additive ? v != -kInf : v != 0.0;
      dead = dead && !attend;
      // An additive mask is causal only with 0 on the attended keys.
      if (attend != (j <= i) || (additive && attend && v != 0.0)) c.causal = false;
    }
    if (dead) {
      factor[static_cast<size_t>(row)] = std::numeric_limits<float>::quiet_NaN();
      any_dead = true;
    }
  }
  if (any_dead) {
    Shape shape(planes.begin(), planes.end() - 1);
    shape.push_back(1);
    c.factor = Tensor::from_vector(factor, shape, mask.device());
  }
  return c;
}

// The factor of a mask read on each run (its form as the graph has it): NaN on the rows
// it masks fully, 1 elsewhere (`nan_one`: 0-d NaN and 1 on the mask's device).
Tensor dead_row_factor(const Tensor& mask, MaskForm form,
                       const std::pair<Tensor, Tensor>& nan_one) {
  const Tensor m = mask.dim() == 0 ? mask.reshape({1}) : mask;
  Tensor dead;
  if (form == MaskForm::kMasked) dead = ops::all(m, {-1}, true);
  if (form == MaskForm::kKeep) dead = ops::logical_not(ops::any(m, {-1}, true));
  if (form == MaskForm::kAdditive) dead = ops::all(ops::eq(m, -kInf), {-1}, true);
  return ops::where(dead, nan_one.first, nan_one.second);
}

const char* form_name(MaskForm f) { return f == MaskForm::kAdditive ? "additive" : "boolean"; }

}  // namespace

std::vector<Step> attention_steps(const Graph& g, const Group& grp, std::string& why) {
  const Parts parts = parts_of(g, grp);
  const Node& qk = g.nodes[parts.qk];
  const Node& pv = g.nodes[parts.pv];
  const double scale = parts.scale >= 0 ? scale_of(g, g.nodes[parts.scale]) : 1.0;
  const Shape& scores = g.values[qk.outputs[0]].sizes;
  const int64_t L = scores[scores.size() - 2], S = scores.back();
  Step s;
  s.kind = Step::Kind::kFused;
  s.reads = {qk.inputs[0], qk.inputs[1], pv.inputs[1]};
  s.writes = {grp.output};

  const MaskForm form = parts.form;
  Tensor fixed_mask, fixed_factor;
  std::pair<Tensor, Tensor> nan_one;
  bool causal = false, per_run = false;
  std::string what;
  if (form != MaskForm::kNone) {
    const Value& mv = g.values[grp.mask];
    if (constant_values(g)[grp.mask]) {
      std::map<int, Tensor> done;
      Tensor m;
      try {
        m = evaluate(g, grp.mask, done);
        if (form == MaskForm::kMasked) m = ops::logical_not(m);
      } catch (const Error& e) {
        why = fmt::format("computing its constant mask failed: {}", e.what());
        return {};
      }
      const ConstantMask c = classify(m, form == MaskForm::kAdditive, L, S);
      causal = c.causal;
      if (causal) {
        what = "; is_causal: its constant mask is the causal one";
      } else {
        fixed_mask = m;
        fixed_factor = c.factor;
        what = fmt::format("; its constant {} mask {} computed once{}", form_name(form),
                           shape_str(mv.sizes),
                           c.factor.defined() ? ", the rows it masks fully NaN as eager" : "");
      }
    } else {
      per_run = true;
      nan_one = {Tensor::full({}, std::numeric_limits<double>::quiet_NaN(), DType::F32, mv.device),
                 Tensor::full({}, 1.0, DType::F32, mv.device)};
      s.reads.push_back(grp.mask);
      what = fmt::format("; {} mask {} read each run{}, the rows it masks fully NaN as eager",
                         form_name(form), shape_str(mv.sizes),
                         form == MaskForm::kMasked ? " and inverted" : "");
    }
  }
  s.description = fmt::format("scaled_dot_product_attention (scale {:g}{})", scale, what);
  // The result, and the view of it that the attention writes (the same tensor without a
  // head merge).
  std::function<std::pair<Tensor, Tensor>(const Tensor&)> result;
  if (parts.merge >= 0) {
    // The attention's [.., L, Ev] result written through strides into the merged layout:
    // attention dim e lands where the copy's dim d with perm[d] == e is.
    const Node& last = g.nodes[parts.merge];
    const Value& view = g.values[last.inputs[0]];
    const Value& attn = g.values[pv.outputs[0]];
    const std::vector<int> perm = permutation_of(view, attn);
    const Shape merged = view.sizes, merged_strides = contiguous_strides(view.sizes);
    Shape strides(attn.sizes.size());
    for (size_t d = 0; d < perm.size(); ++d) strides[perm[d]] = merged_strides[d];
    const Shape shape = attn.sizes;
    result = [merged, shape, strides](const Tensor& q) {
      const Tensor y = Tensor::empty(merged, DType::F32, q.device());
      return std::make_pair(y, y.as_strided(shape, strides, y.offset()));
    };
    s.description += " into the merged heads' layout";
  } else {
    const Shape shape = g.values[pv.outputs[0]].sizes;
    result = [shape](const Tensor& q) {
      const Tensor y = Tensor::empty(shape, DType::F32, q.device());
      return std::make_pair(y, y);
    };
  }
  s.run = [=](const std::vector<Tensor>& in) {
    Tensor mask = fixed_mask, factor = fixed_factor;
    if (per_run) {
      mask = form == MaskForm::kMasked ? ops::logical_not(in[3]) : in[3];
      factor = dead_row_factor(in[3], form, nan_one);
    }
    const auto [y, out] = result(in[0]);
    ops::detail::scaled_dot_product_attention_into(in[0], in[1].transpose(-2, -1), in[2], scale,
                                                   out, mask, causal);
    if (factor.defined()) out.mul_(factor);
    return std::vector<Tensor>{y};
  };
  return {s};
}

}  // namespace tt::graph
