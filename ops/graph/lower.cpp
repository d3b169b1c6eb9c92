#include "ops/graph/lower.h"

#if TT_CUDA
#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <map>
#include <utility>

#include "core/cuda/stream.h"
#include "ops/cuda/cuda_ops.h"
#include "ops/cuda/fused/pattern.h"
#include "ops/cuda/gemm/gemm.h"
#include "ops/cuda/gemm/gemm_tensor.h"
#include "ops/cuda/norm/norm_space.h"
#include "ops/cuda/pointwise/chain.h"
#include "ops/front_end.h"
#include "ops/graph/attention_rewrite.h"
#include "ops/ops.h"
#include "ops/pointwise_functors.h"
#endif

namespace tt::graph {

#if !TT_CUDA

std::vector<Step> lower_group(const Graph&, const Group&, std::string& why) {
  why = "this build has no CUDA backend";
  return {};
}

#else

namespace {

namespace chain = ops::cuda::chain;
namespace gemm = ops::cuda::gemm;
namespace norm = ops::cuda::norm;
using ops::OpKind;
using ops::cuda::fused::kAnyOperand;
using ops::pointwise::BinaryOp;
using ops::pointwise::UnaryOp;

constexpr int kTemp = -2;  // an operand that is the step's own intermediate (a GEMM's output)

// How operand value v (shape broadcastable into `out`) is read by the chain kernel.
bool layout_of(const Value& v, const Shape& out, chain::Operand& o, std::string& why) {
  const int rank = static_cast<int>(out.size());
  if (shape_numel(v.sizes) == 1) {
    o.layout = chain::Layout::kScalar;
    return true;
  }
  if (v.sizes == out && contiguous(v)) {
    o.layout = chain::Layout::kFlat;
    return true;
  }
  if (rank > chain::kMaxRank) {
    why = fmt::format("the output has rank {}, past the chain kernel's {}", rank, chain::kMaxRank);
    return false;
  }
  const int lead = rank - static_cast<int>(v.sizes.size());
  bool row = !out.empty() && shape_numel(v.sizes) == out.back() && !v.sizes.empty() &&
             v.sizes.back() == out.back() && v.strides.back() == 1;
  o.layout = row ? chain::Layout::kRow : chain::Layout::kStrided;
  for (int d = 0; d < rank; ++d) {
    const int vd = d - lead;
    o.strides[d] = vd < 0 || v.sizes[vd] == 1 ? 0 : v.strides[vd];
  }
  return true;
}

// Whether nodes[i] and nodes[i + 1] are sigmoid(v) * v (either order) with v = `main`:
// the fusion rule groups them as one silu step (fusion.cpp: silu_pair).
bool silu_at(const Graph& g, const std::vector<int>& nodes, size_t i, int main) {
  if (i + 1 >= nodes.size()) return false;
  const Node& a = g.nodes[nodes[i]];
  const Node& b = g.nodes[nodes[i + 1]];
  if (a.kind != OpKind::kUnary || static_cast<UnaryOp>(a.sub) != UnaryOp::Sigmoid ||
      a.inputs[0] != main || b.kind != OpKind::kBinary ||
      static_cast<BinaryOp>(b.sub) != BinaryOp::Mul)
    return false;
  const int s = a.outputs[0];
  return (b.inputs[0] == s && b.inputs[1] == main) || (b.inputs[0] == main && b.inputs[1] == s);
}

// A chain over `nodes`, starting from operand `start` (kTemp: the step's intermediate),
// which holds value `start_value` of the graph.
struct ChainPlan {
  chain::Chain c;
  std::vector<int> operands;    // value id per chain operand (kTemp for the intermediate)
  chain::ChainConfig config;    // chosen when the group is lowered
  chain::PreparedChain kernel;  // likewise: the generated kernel, or why the interpreter
};

bool same_config(const chain::ChainConfig& a, const chain::ChainConfig& b) {
  return a.threads == b.threads && a.vec == b.vec && a.items == b.items;
}

void choose_chain_kernel(ChainPlan& plan, int64_t numel, int device) {
  plan.config = chain::choose_config(plan.c, numel, device);
  plan.kernel = chain::prepare_chain(plan.c, plan.config, device);
}

std::string chain_description(const ChainPlan& plan) {
  return fmt::format("pointwise {} [{}] threads={},vec={},items={} {}",
                     plan.c.dag() ? "dag" : "chain", plan.c.str(), plan.config.threads,
                     plan.config.vec, plan.config.items, plan.kernel.how);
}

// The chain's output shape, and a function giving graph value v's operand index (added on
// first use; -1 with `why` past the kernel's limits).
std::function<int(int)> chain_operands(const Graph& g, const Shape& out, ChainPlan& plan,
                                       std::string& why) {
  chain::Chain& c = plan.c;
  c.rank = std::max<int>(1, static_cast<int>(out.size()));
  if (out.empty()) {
    c.sizes[0] = 1;
  } else if (static_cast<int>(out.size()) <= chain::kMaxRank) {
    for (size_t d = 0; d < out.size(); ++d) c.sizes[d] = out[d];
  }
  return [&g, out, &plan, &why](int v) -> int {
    chain::Chain& c = plan.c;
    for (size_t k = 0; k < plan.operands.size(); ++k)
      if (plan.operands[k] == v) return static_cast<int>(k);
    if (static_cast<int>(plan.operands.size()) == chain::kMaxOperands) {
      why = fmt::format("the chain reads more than {} tensors", chain::kMaxOperands);
      return -1;
    }
    chain::Operand o;
    if (v != kTemp && !layout_of(g.values[v], out, o, why)) return -1;
    c.operands[plan.operands.size()] = o;
    plan.operands.push_back(v);
    c.operand_count = static_cast<int>(plan.operands.size());
    return c.operand_count - 1;
  };
}

bool build_chain(const Graph& g, const std::vector<int>& nodes, int start, int start_value,
                 ChainPlan& plan, std::string& why) {
  chain::Chain& c = plan.c;
  const auto operand =
      chain_operands(g, g.values[g.nodes[nodes.back()].outputs[0]].sizes, plan, why);
  if ((c.first = operand(start)) < 0) return false;
  int prev = start_value;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& node = g.nodes[nodes[i]];
    if (c.step_count == chain::kMaxSteps) {
      why = fmt::format("the chain has more than {} ops", chain::kMaxSteps);
      return false;
    }
    chain::Step& s = c.steps[c.step_count++];
    s.op = static_cast<uint8_t>(node.sub);
    if (silu_at(g, nodes, i, prev)) {  // sigmoid(v) * v: one step
      s.op = static_cast<uint8_t>(UnaryOp::Silu);
      s.params = {0.0, 0.0};
      prev = g.nodes[nodes[++i]].outputs[0];
      continue;
    }
    if (node.kind == OpKind::kUnary) {
      s.params = {node.attrs.reals.at(0), node.attrs.reals.at(1)};
    } else {
      s.binary = true;
      const bool main_first = node.inputs[0] == prev;
      s.operand_first = !main_first;
      const int other = main_first ? node.inputs[1] : node.inputs[0];
      if ((s.operand = static_cast<int8_t>(operand(other))) < 0) return false;
    }
    prev = node.outputs[0];
  }
  return true;
}

// A pointwise group (fusion.h: a DAG) as a chain kernel's steps, each value once in graph
// order, each step naming its inputs; the written values besides the last are its extra
// outputs. A group that is a straight chain gets the chain form (the interpreter's fast
// loop, and the tuning keys chains have always had).
bool build_dag(const Graph& g, const Group& grp, ChainPlan& plan, std::string& why) {
  chain::Chain& c = plan.c;
  const auto operand = chain_operands(g, g.values[grp.output].sizes, plan, why);
  std::map<int, int> step_of;  // value -> the step that computes it
  const auto ref = [&](int v) {
    const auto it = step_of.find(v);
    return it != step_of.end() ? chain::kStepRef + it->second : operand(v);
  };
  for (int n : grp.nodes) {
    const Node& node = g.nodes[n];
    if (c.step_count == chain::kMaxSteps) {
      why = fmt::format("the group has more than {} ops", chain::kMaxSteps);
      return false;
    }
    chain::Step& s = c.steps[c.step_count];
    s.op = static_cast<uint8_t>(node.sub);
    if ((s.input = static_cast<int8_t>(ref(node.inputs[0]))) < 0) return false;
    if (node.kind == OpKind::kUnary) {
      s.params = {node.attrs.reals.at(0), node.attrs.reals.at(1)};
    } else {
      s.binary = true;
      if ((s.operand = static_cast<int8_t>(ref(node.inputs[1]))) < 0) return false;
    }
    step_of[node.outputs[0]] = c.step_count++;
  }
  for (int v : grp.outputs) {
    if (v == grp.output) continue;
    if (c.extra_count == chain::kMaxExtraOutputs) {
      why = fmt::format("the group writes more than {} values", chain::kMaxExtraOutputs + 1);
      return false;
    }
    c.extra_steps[c.extra_count++] = static_cast<int8_t>(step_of.at(v));
  }
  // The chain form, where each step applies to the one before (on either side).
  bool straight = c.extra_count == 0 && c.steps[0].input < chain::kStepRef &&
                  (!c.steps[0].binary || c.steps[0].operand < chain::kStepRef);
  for (int k = 1; k < c.step_count && straight; ++k) {
    const chain::Step& s = c.steps[k];
    const int prev = chain::kStepRef + k - 1;
    straight = (s.input == prev && (!s.binary || s.operand < chain::kStepRef)) ||
               (s.binary && s.operand == prev && s.input < chain::kStepRef);
  }
  if (!straight) return true;
  c.first = c.steps[0].input;
  for (int k = 0; k < c.step_count; ++k) {
    chain::Step& s = c.steps[k];
    if (k > 0 && s.input != chain::kStepRef + k - 1) {  // the running value on the right
      s.operand = s.input;
      s.operand_first = true;
    }
    s.input = chain::kPrevious;
  }
  return true;
}

// The chain's kernel as a step function: `in` holds the tensors of plan.operands (less
// kTemp) in order; `temp` is the intermediate. Returns the output, then the extra ones.
std::vector<Tensor> run_chain_plan(const ChainPlan& plan, const Shape& out_shape,
                                   const std::vector<Tensor>& in, size_t first_in,
                                   const Tensor& temp) {
  chain::Chain c = plan.c;
  size_t next = first_in;
  Device device = temp.defined() ? temp.device() : in.at(first_in).device();
  for (size_t k = 0; k < plan.operands.size(); ++k) {
    const Tensor& t = plan.operands[k] == kTemp ? temp : in.at(next++);
    c.operands[k].data = t.data<float>();
    device = t.device();
  }
  std::vector<Tensor> outs;
  for (int x = 0; x <= c.extra_count; ++x) {
    outs.push_back(Tensor::empty(out_shape, DType::F32, device));
    if (x > 0) c.extra_data[x - 1] = outs.back().data<float>();
  }
  Tensor& out = outs[0];
  tt::cuda::DeviceGuard guard(device.index);
  // The config is looked up again on every run, as every kernel's is, so that `tt tune`
  // sees the chain and a config it forces (or a database entry saved since) runs; the
  // kernel prepared at lowering serves as long as the config is the same.
  const chain::ChainConfig cfg = chain::choose_config(plan.c, out.numel(), device.index);
  const bool lowered = same_config(cfg, plan.config);
  const chain::PreparedChain other =
      lowered ? chain::PreparedChain{} : chain::prepare_chain(plan.c, cfg, device.index);
  chain::run_chain(c, out.data<float>(), out.numel(), cfg, device.index,
                   tt::cuda::stream(device.index), lowered ? &plan.kernel : &other);
  return outs;
}

std::vector<Step> lower_pointwise(const Graph& g, const Group& grp, std::string& why) {
  auto plan = std::make_shared<ChainPlan>();
  if (!build_dag(g, grp, *plan, why)) return {};
  const Value& out = g.values[grp.output];
  choose_chain_kernel(*plan, shape_numel(out.sizes), out.device.index);
  Step s;
  s.kind = Step::Kind::kFused;
  s.reads = plan->operands;
  // The last node's value first (the kernel's `out`), then the extra outputs in order.
  s.writes = {grp.output};
  for (int x = 0; x < plan->c.extra_count; ++x)
    s.writes.push_back(g.nodes[grp.nodes[static_cast<size_t>(plan->c.extra_steps[x])]].outputs[0]);
  const Shape shape = g.values[grp.output].sizes;
  s.run = [plan, shape](const std::vector<Tensor>& in) {
    return run_chain_plan(*plan, shape, in, 0, Tensor());
  };
  s.description = chain_description(*plan);
  return {s};
}

// One epilogue step of node n reading the GEMM's running value; false when the
// epilogue has no such step (the chain kernel runs it after the GEMM instead).
struct EpilogueSpec {
  gemm::EpilogueOp op;
  int operand = -1;  // value id (column vector or residual), -1 for none
  float scalar = 1.f;
};

bool epilogue_spec(const Graph& g, const Node& n, int main, EpilogueSpec& spec) {
  if (n.kind == OpKind::kUnary) {
    // The activations an epilogue applies, by the pointwise op they are.
    static constexpr std::pair<UnaryOp, gemm::EpilogueOp> kActivations[] = {
        {UnaryOp::Relu, gemm::EpilogueOp::kRelu},
        {UnaryOp::Silu, gemm::EpilogueOp::kSilu},
        {UnaryOp::GeluErf, gemm::EpilogueOp::kGelu},
        {UnaryOp::GeluTanh, gemm::EpilogueOp::kGeluTanh},
        {UnaryOp::LeakyRelu, gemm::EpilogueOp::kLeakyRelu}};
    for (const auto& [unary, op] : kActivations) {
      if (static_cast<UnaryOp>(n.sub) != unary) continue;
      spec.op = op;
      if (op == gemm::EpilogueOp::kLeakyRelu) spec.scalar = static_cast<float>(n.attrs.reals.at(0));
      return true;
    }
    return false;
  }
  if (n.kind != OpKind::kBinary) return false;
  const auto op = static_cast<BinaryOp>(n.sub);
  const int other = n.inputs[0] == main ? n.inputs[1] : n.inputs[0];
  const Value& e = g.values[other];
  const Shape& out = g.values[main].sizes;
  if (shape_numel(e.sizes) == 1 && (op == BinaryOp::Mul || op == BinaryOp::Div)) {
    if (e.kind != ValueKind::kConstant || (op == BinaryOp::Div && n.inputs[0] != main))
      return false;
    const double c = e.tensor.item();
    if (op == BinaryOp::Div) {
      int exponent = 0;
      // x / c == x * (1 / c) exactly only when c is a power of two.
      if (!(std::isfinite(c) && c != 0.0 && std::frexp(c, &exponent) == 0.5)) return false;
    }
    spec.op = gemm::EpilogueOp::kScale;
    spec.scalar = static_cast<float>(op == BinaryOp::Div ? 1.0 / c : c);
    return true;
  }
  if (op != BinaryOp::Add && op != BinaryOp::Mul) return false;
  spec.operand = other;
  const bool column = !e.sizes.empty() && e.sizes.back() == out.back() &&
                      shape_numel(e.sizes) == out.back() && e.strides.back() == 1;
  if (column) {
    spec.op = op == BinaryOp::Add ? gemm::EpilogueOp::kAddColumn : gemm::EpilogueOp::kMulColumn;
    return true;
  }
  if (e.sizes == out && contiguous(e)) {
    spec.op = op == BinaryOp::Add ? gemm::EpilogueOp::kAddResidual : gemm::EpilogueOp::kMulResidual;
    return true;
  }
  return false;
}

// `e` with the first `count` specs appended; `data` gives each operand's pointer (fake
// ones for the support query).
template <typename DataOf>
gemm::Epilogue append_steps(gemm::Epilogue e, const std::vector<EpilogueSpec>& specs, size_t count,
                            int64_t n, DataOf data) {
  for (size_t k = 0; k < count; ++k) {
    const EpilogueSpec& s = specs[k];
    const bool residual =
        s.op == gemm::EpilogueOp::kAddResidual || s.op == gemm::EpilogueOp::kMulResidual;
    e.push(s.op, s.operand >= 0 ? data(k) : nullptr, s.scalar, residual ? n : 0);
  }
  return e;
}

// The epilogue of the bias and the first `count` specs.
template <typename DataOf>
gemm::Epilogue make_epilogue(const float* bias, const std::vector<EpilogueSpec>& specs,
                             size_t count, int64_t n, DataOf data) {
  gemm::Epilogue e;
  e.add_column(bias);
  return append_steps(e, specs, count, n, data);
}

// The epilogue specs of grp.nodes[from, to) reading the running value `main`, each with
// the index just past its nodes (a silu is two nodes); they stop at the first node that
// is no epilogue step.
struct Specs {
  std::vector<EpilogueSpec> specs;
  std::vector<size_t> ends;
};

Specs epilogue_specs(const Graph& g, const std::vector<int>& nodes, size_t from, size_t to,
                     int main) {
  Specs r;
  for (size_t k = from; k < to;) {
    EpilogueSpec spec;
    if (silu_at(g, nodes, k, main)) {
      spec.op = gemm::EpilogueOp::kSilu;
      k += 2;
    } else if (epilogue_spec(g, g.nodes[nodes[k]], main, spec)) {
      ++k;
    } else {
      break;
    }
    main = g.nodes[nodes[k - 1]].outputs[0];
    r.specs.push_back(spec);
    r.ends.push_back(k);
  }
  return r;
}

// x [..., k] as the dense [m, k] a GEMM reads.
Tensor rows_of(const Tensor& x) { return gemm::dense(x.reshape({-1, x.size(-1)})); }

std::vector<Step> lower_gemm(const Graph& g, const Group& grp, std::string& why) {
  const Node& lin = g.nodes[grp.nodes.front()];
  const int x = lin.inputs[0], w = lin.inputs[1], b = lin.inputs[2];
  const int device = g.values[x].device.index;
  const int64_t n_out = g.values[w].sizes.at(0);
  const Specs found = epilogue_specs(g, grp.nodes, 1, grp.nodes.size(), lin.outputs[0]);
  const std::vector<EpilogueSpec>& specs = found.specs;
  // The most steps a config applies in the GEMM itself (the support query needs only
  // non-null pointers); the rest run as a chain after it.
  std::optional<gemm::GemmConfig> config;
  size_t fused = specs.size() + 1;
  while (fused-- > 0) {
    const gemm::Epilogue e = make_epilogue(b >= 0 ? kAnyOperand : nullptr, specs, fused, n_out,
                                           [&](size_t) { return kAnyOperand; });
    if ((config = ops::cuda::linear_epilogue_config(g.values[x].sizes, g.values[w].sizes, e, b >= 0,
                                                    device)))
      break;
  }
  if (!config) fused = 0;
  const size_t first_rest = fused == 0 ? 1 : found.ends[fused - 1];
  std::vector<int> rest(grp.nodes.begin() + static_cast<int64_t>(first_rest), grp.nodes.end());
  const int gemm_value = g.nodes[grp.nodes[first_rest - 1]].outputs[0];  // what the GEMM writes
  auto plan = std::make_shared<ChainPlan>();
  if (!rest.empty()) {
    if (!build_chain(g, rest, kTemp, gemm_value, *plan, why)) return {};
    choose_chain_kernel(*plan, shape_numel(g.values[grp.output].sizes), device);
  }
  // When the whole group is one GEMM, its config is looked up when it runs under the
  // group's structural name (fused/pattern.h), so a group tuned there (by `tt tune` of
  // any model with a group of the same structure) runs its winner.
  std::optional<gemm::GemmStage> stage;
  if (rest.empty()) {
    ops::cuda::fused::FusedPattern f;
    f.steps = make_epilogue(b >= 0 ? kAnyOperand : nullptr, specs, fused, n_out,
                            [&](size_t) { return kAnyOperand; });
    stage = f.stages().gemm;
  }

  Step s;
  s.kind = Step::Kind::kFused;
  s.reads = {x, w};
  if (b >= 0) s.reads.push_back(b);
  for (size_t k = 0; k < fused; ++k)
    if (specs[k].operand >= 0) s.reads.push_back(specs[k].operand);
  const size_t chain_first = s.reads.size();
  for (int v : plan->operands)
    if (v != kTemp) s.reads.push_back(v);
  s.writes = {grp.output};
  const bool bias = b >= 0;
  const Shape shape = g.values[grp.output].sizes;
  s.run = [=](const std::vector<Tensor>& in) {
    size_t next = bias ? 3 : 2;
    std::vector<const float*> data(fused, nullptr);
    for (size_t k = 0; k < fused; ++k)
      if (specs[k].operand >= 0) data[k] = in.at(next++).data<float>();
    const Tensor bc = bias ? in[2].contiguous() : Tensor();
    const gemm::Epilogue e = make_epilogue(bias ? bc.data<float>() : nullptr, specs, fused, n_out,
                                           [&](size_t k) { return data[k]; });
    std::optional<gemm::GemmConfig> cfg = config;
    if (stage) {
      const gemm::GemmProblem problem = gemm::problem_of(rows_of(in[0]), gemm::dense(in[1]));
      const gemm::GemmConfig tuned = gemm::choose_gemm(*stage, problem, device);
      if (gemm::epilogue_supported(tuned, problem, e)) cfg = tuned;
    }
    Tensor y = ops::cuda::linear_epilogue(in[0], in[1], e, bias, cfg);
    if (plan->operands.empty()) return std::vector<Tensor>{y};
    return std::vector<Tensor>{run_chain_plan(*plan, shape, in, chain_first, y)[0]};
  };
  const gemm::Epilogue shown = make_epilogue(bias ? kAnyOperand : nullptr, specs, fused, n_out,
                                             [&](size_t) { return kAnyOperand; });
  s.description = fmt::format("linear with epilogue [{}] on {}", shown.str(),
                              config ? config->str() : std::string("the tuned config"));
  if (stage) s.description += fmt::format(" (tuned as {})", stage->name);
  if (!plan->operands.empty())
    s.description += fmt::format(", then chain [{}] ({})", plan->c.str(), plan->kernel.how);
  return {s};
}

// The passes' configs from the tuning database (norm_space.h: choose_*) under the
// group's pass names, per pass problem; a pass the stages do not name keeps its
// launcher's default.
gemm::PassConfigs tuned_passes(const ops::cuda::fused::FusedStages& stages, int device) {
  gemm::PassConfigs passes;
  if (stages.segment != nullptr) {
    passes.segment = [name = std::string(stages.segment), device](const norm::SegmentProblem& p) {
      return norm::choose_segment(name, p, device);
    };
  }
  if (stages.column_stats != nullptr) {
    passes.column_stats = [name = std::string(stages.column_stats),
                           device](const norm::ColumnProblem& p) {
      return norm::choose_column_stats(name, p, device);
    };
  }
  if (stages.affine != nullptr) {
    passes.affine = [name = std::string(stages.affine), device](const norm::AffineProblem& p) {
      return norm::choose_affine(name, p, device);
    };
  }
  return passes;
}

// Runs `plan` on `device`'s stream with a scratch tensor of the size it asks for (the
// caching allocator frees it after the queued work).
void run_planned(const ops::cuda::fused::Plan& plan, Device device) {
  const int64_t floats = plan.scratch_floats();
  const Tensor work = floats > 0 ? Tensor::empty({floats}, DType::F32, device) : Tensor();
  ops::cuda::fused::run_plan(plan, work.defined() ? work.data<float>() : nullptr, device.index,
                             tt::cuda::stream(device.index));
}

bool is_norm(OpKind k) {
  return k == OpKind::kInstanceNorm || k == OpKind::kGroupNorm || k == OpKind::kLayerNorm ||
         k == OpKind::kRmsNorm || k == OpKind::kBatchNorm;
}

size_t norm_index(const Graph& g, const Group& grp) {
  size_t at = 0;
  while (at < grp.nodes.size() && !is_norm(g.nodes[grp.nodes[at]].kind)) ++at;
  return at;
}

// The specs of the steps after the norm at grp.nodes[norm_at] (its epilogue chain), which
// read its output (the first maybe through a view); false when one is no epilogue step.
bool post_norm_specs(const Graph& g, const Group& grp, size_t norm_at, Specs& post,
                     std::string& why) {
  if (norm_at + 1 >= grp.nodes.size()) return true;
  const int out = g.nodes[grp.nodes[norm_at]].outputs[0];
  int main = out;
  for (int in : g.nodes[grp.nodes[norm_at + 1]].inputs)
    if (in >= 0 && root_of(g, in) == out) main = in;
  post = epilogue_specs(g, grp.nodes, norm_at + 1, grp.nodes.size(), main);
  if (post.ends.empty() || post.ends.back() != grp.nodes.size()) {
    why = "a step after the norm is no epilogue step";
    return false;
  }
  return true;
}

// The norm's epilogue chain: its affine (either part may be absent), then the steps after
// it.
template <typename DataOf>
gemm::Epilogue norm_epilogue(const float* gamma, const float* beta, const Specs& post, int64_t n,
                             DataOf data) {
  gemm::Epilogue e;
  e.mul_column(gamma).add_column(beta);
  return append_steps(e, post.specs, post.specs.size(), n, data);
}

const float* any_if(int v) { return v >= 0 ? kAnyOperand : nullptr; }

// A linear, its epilogue steps, a norm and the steps after it, as the plan of its structure
// (fused/pattern.h). The GEMM's config and the passes' are looked up when it runs, under
// the structure's names.
std::vector<Step> lower_gemm_norm(const Graph& g, const Group& grp, std::string& why) {
  namespace fused = ops::cuda::fused;
  const Node& lin = g.nodes[grp.nodes.front()];
  const int x = lin.inputs[0], w = lin.inputs[1], b = lin.inputs[2];
  const int64_t n_out = g.values[w].sizes.at(0);
  const size_t norm_at = norm_index(g, grp);
  const Specs found = epilogue_specs(g, grp.nodes, 1, norm_at, lin.outputs[0]);
  if (found.specs.size() > 0 ? found.ends.back() != norm_at : norm_at != 1) {
    why = "a step before the norm is no GEMM epilogue step";
    return {};
  }
  const std::vector<EpilogueSpec>& specs = found.specs;
  if (specs.size() + (b >= 0 ? 1 : 0) > static_cast<size_t>(gemm::Epilogue::kMaxSteps)) {
    why = "more steps before the norm than an epilogue holds";
    return {};
  }
  Specs post;
  if (!post_norm_specs(g, grp, norm_at, post, why)) return {};
  const Node& norm = g.nodes[grp.nodes[norm_at]];
  fused::FusedPattern f;
  f.steps = make_epilogue(b >= 0 ? kAnyOperand : nullptr, specs, specs.size(), n_out,
                          [&](size_t) { return kAnyOperand; });
  // The values the step reads, in order: x, w, [b], the steps' operands, the norm's, then
  // those of the steps after it.
  Step s;
  s.kind = Step::Kind::kFused;
  s.reads = {x, w};
  if (b >= 0) s.reads.push_back(b);
  for (const EpilogueSpec& spec : specs)
    if (spec.operand >= 0) s.reads.push_back(spec.operand);
  const size_t norm_first = s.reads.size();
  std::vector<int> norm_operands;  // graph inputs of the norm that are given, by slot
  const auto take = [&](int v) {
    norm_operands.push_back(v);
    if (v >= 0) s.reads.push_back(v);
  };
  switch (norm.kind) {
    case OpKind::kGroupNorm:
      f.norm = fused::NormKind::kSegment;
      f.groups = norm.attrs.ints.at(0);
      f.eps = static_cast<float>(norm.attrs.reals.at(0));
      take(norm.inputs[1]), take(norm.inputs[2]);
      break;
    case OpKind::kLayerNorm:
    case OpKind::kRmsNorm:
      f.norm = fused::NormKind::kSegment;
      f.rms = norm.kind == OpKind::kRmsNorm;
      f.eps = static_cast<float>(norm.attrs.reals.at(0));
      take(norm.inputs[1]), take(f.rms ? -1 : norm.inputs[2]);
      break;
    case OpKind::kInstanceNorm: {
      f.norm = fused::NormKind::kSegment;
      const Shape& in = g.values[norm.inputs[0]].sizes;
      f.groups = n_out / shape_numel(Shape(in.begin() + 2, in.end()));
      f.eps = static_cast<float>(norm.attrs.reals.at(0));
      break;
    }
    default: {  // kBatchNorm
      const bool training = norm.attrs.ints.at(0) != 0;
      f.norm = training ? fused::NormKind::kBatchTrain : fused::NormKind::kBatchEval;
      f.momentum = static_cast<float>(norm.attrs.reals.at(0));
      f.eps = static_cast<float>(norm.attrs.reals.at(1));
      for (int k = 1; k <= 4; ++k) {
        const int v = norm.inputs[k];
        if (v >= 0 && !contiguous(g.values[v])) {
          why = "a batch norm statistic or parameter is not contiguous";
          return {};
        }
        take(v);
      }
      break;
    }
  }
  const bool segment = f.norm == fused::NormKind::kSegment;
  if (segment)
    f.epilogue = norm_epilogue(norm_operands.size() > 0 ? any_if(norm_operands[0]) : nullptr,
                               norm_operands.size() > 1 ? any_if(norm_operands[1]) : nullptr, post,
                               n_out, [&](size_t) { return kAnyOperand; });
  for (const EpilogueSpec& spec : post.specs)
    if (spec.operand >= 0) s.reads.push_back(spec.operand);
  const fused::FusedStages stages = f.stages();
  const bool bias = b >= 0;
  const Shape shape = g.values[grp.output].sizes;
  const int device = g.values[x].device.index;
  s.writes = {grp.output};
  s.run = [=](const std::vector<Tensor>& in) {
    tt::cuda::DeviceGuard guard(device);
    const Tensor xd = rows_of(in[0]), wd = gemm::dense(in[1]);
    const gemm::GemmProblem problem = gemm::problem_of(xd, wd);
    fused::FusedPattern p = f;
    std::vector<Tensor> keep;  // dense copies, alive until the plan is queued
    const auto dense = [&](size_t i) {
      keep.push_back(gemm::dense(in.at(i)));
      return keep.back().data<float>();
    };
    size_t next = bias ? 3 : 2;
    gemm::Epilogue e;
    e.add_column(bias ? dense(2) : nullptr);
    for (const EpilogueSpec& spec : specs) {
      gemm::EpilogueStep st = f.steps.steps[e.count];
      if (spec.operand >= 0) st.data = dense(next++);
      e.steps[e.count++] = st;
    }
    p.steps = e;
    next = norm_first;
    // The norm's operands by slot (nullptr: absent); batch norm's in place (its running
    // statistics are updated), the others as dense copies where needed.
    std::vector<float*> given;
    for (int v : norm_operands)
      given.push_back(v < 0     ? nullptr
                      : segment ? const_cast<float*>(dense(next++))
                                : in.at(next++).data<float>());
    if (segment) {
      std::vector<const float*> data;
      for (const EpilogueSpec& spec : post.specs)
        data.push_back(spec.operand >= 0 ? dense(next++) : nullptr);
      p.epilogue = norm_epilogue(given.size() > 0 ? given[0] : nullptr,
                                 given.size() > 1 ? given[1] : nullptr, post, problem.n,
                                 [&](size_t k) { return data[k]; });
    } else {
      p.running_mean = given[0], p.running_var = given[1];
      p.bn_gamma = given[2], p.bn_beta = given[3];
    }
    const gemm::GemmConfig cfg =
        gemm::choose_gemm(stages.gemm, problem, device, stages.gemm.groups_in_key ? f.groups : 0);
    const gemm::PassConfigs passes = tuned_passes(stages, device);
    Tensor out = Tensor::empty(shape, DType::F32, in[0].device());
    run_planned(fused::build_plan(p, stages.gemm.name, cfg, xd.data<float>(), wd.data<float>(),
                                  out.data<float>(), problem.m, problem.n, problem.k, &passes),
                in[0].device());
    return std::vector<Tensor>{out};
  };
  s.description = fmt::format("fused plan {}", stages.gemm.name);
  return {s};
}

// A layer_norm or rms_norm with its prologue and epilogue chains (fusion.h, kNorm), as
// the plan of one segment-norm stage without a GEMM; the norm's input is written too
// when the group has `pre`.
std::vector<Step> lower_norm(const Graph& g, const Group& grp, std::string& why) {
  namespace fused = ops::cuda::fused;
  const size_t norm_at = norm_index(g, grp);
  const Node& norm = g.nodes[grp.nodes[norm_at]];
  const int h = norm.inputs[0];
  const int64_t n = g.values[h].sizes.back();
  int x = h;  // the value the kernel reads: the prologue's running value at its start
  Specs pro;
  if (norm_at > 0) {
    const Node& first = g.nodes[grp.nodes.front()];
    x = -1;
    for (int in : first.inputs) {
      EpilogueSpec spec;
      if (in >= 0 && g.values[in].sizes == g.values[h].sizes && epilogue_spec(g, first, in, spec)) {
        x = in;
        break;
      }
    }
    if (x >= 0) pro = epilogue_specs(g, grp.nodes, 0, norm_at, x);
    if (x < 0 || pro.ends.empty() || pro.ends.back() != norm_at) {
      why = "a step before the norm is no epilogue step";
      return {};
    }
  }
  Specs post;
  if (!post_norm_specs(g, grp, norm_at, post, why)) return {};
  const bool rms = norm.kind == OpKind::kRmsNorm;
  const int gamma = norm.inputs[1], beta = rms ? -1 : norm.inputs[2];
  Step s;
  s.kind = Step::Kind::kFused;
  s.reads = {x};
  for (const EpilogueSpec& spec : pro.specs)
    if (spec.operand >= 0) s.reads.push_back(spec.operand);
  for (int v : {gamma, beta})
    if (v >= 0) s.reads.push_back(v);
  for (const EpilogueSpec& spec : post.specs)
    if (spec.operand >= 0) s.reads.push_back(spec.operand);
  fused::FusedPattern f;
  f.gemm = false;
  f.norm = fused::NormKind::kSegment;
  f.rms = rms;
  f.eps = static_cast<float>(norm.attrs.reals.at(0));
  const auto any = [](size_t) { return kAnyOperand; };
  f.prologue = append_steps(gemm::Epilogue(), pro.specs, pro.specs.size(), n, any);
  f.epilogue = norm_epilogue(any_if(gamma), any_if(beta), post, n, any);
  const fused::FusedStages stages = f.stages();
  const Shape shape = g.values[grp.output].sizes, pre_shape = g.values[h].sizes;
  const bool pre = grp.pre >= 0;
  const int device = g.values[x].device.index;
  s.writes = {grp.output};
  if (pre) s.writes.push_back(grp.pre);
  s.run = [=](const std::vector<Tensor>& in) {
    tt::cuda::DeviceGuard guard(device);
    std::vector<Tensor> keep;  // dense copies, alive until the plan is queued
    const auto dense = [&](size_t i) {
      keep.push_back(gemm::dense(in.at(i)));
      return keep.back().data<float>();
    };
    const float* xd = dense(0);
    size_t next = 1;
    const auto operands = [&](const Specs& sp) {
      std::vector<const float*> data;
      for (const EpilogueSpec& spec : sp.specs)
        data.push_back(spec.operand >= 0 ? dense(next++) : nullptr);
      return data;
    };
    const std::vector<const float*> pro_data = operands(pro);
    const float* gp = gamma >= 0 ? dense(next++) : nullptr;
    const float* bp = beta >= 0 ? dense(next++) : nullptr;
    const std::vector<const float*> post_data = operands(post);
    fused::FusedPattern p = f;
    p.prologue = append_steps(gemm::Epilogue(), pro.specs, pro.specs.size(), n,
                              [&](size_t k) { return pro_data[k]; });
    p.epilogue = norm_epilogue(gp, bp, post, n, [&](size_t k) { return post_data[k]; });
    std::vector<Tensor> outs{Tensor::empty(shape, DType::F32, in[0].device())};
    if (pre) outs.push_back(Tensor::empty(pre_shape, DType::F32, in[0].device()));
    const gemm::PassConfigs passes = tuned_passes(stages, device);
    run_planned(fused::build_norm_plan(p, stages.gemm.name, xd, outs[0].data<float>(),
                                       pre ? outs[1].data<float>() : nullptr, outs[0].numel() / n,
                                       n, &passes),
                in[0].device());
    return outs;
  };
  s.description =
      fmt::format("fused plan {}{}", stages.gemm.name, pre ? ", writing the norm's input too" : "");
  return {s};
}

// matmul(q, kt) [scale, mask] -> softmax -> matmul(., v) as one
// scaled_dot_product_attention: the [.., L, S] scores never exist (the rewrite is
// backend-neutral: ops/graph/attention_rewrite.h).
std::vector<Step> lower_attention(const Graph& g, const Group& grp, std::string& why) {
  return attention_steps(g, grp, why);
}

}  // namespace

std::vector<Step> lower_group(const Graph& g, const Group& group, std::string& why) {
  switch (group.kind) {
    case Group::Kind::kPointwise:
      return lower_pointwise(g, group, why);
    case Group::Kind::kGemmEpilogue:
      return lower_gemm(g, group, why);
    case Group::Kind::kGemmNorm:
      return lower_gemm_norm(g, group, why);
    case Group::Kind::kAttention:
      return lower_attention(g, group, why);
    case Group::Kind::kNorm:
      return lower_norm(g, group, why);
  }
  return {};
}

#endif

}  // namespace tt::graph
