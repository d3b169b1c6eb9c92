// tt::compile's attention rewrite with a mask step (issue 18): which masked and causal
// forms become one scaled_dot_product_attention (groups pinned), which stay unfused and
// why, the rewrite against the eager composition on the CPU at awkward shapes (L != S,
// broadcast masks, causal masks built with tril and with arange comparisons, rows with
// nothing to attend to: NaN as eager), the CUDA lowering against the CPU in every
// precision mode, and the transformer block's causal form.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ops/graph/attention_rewrite.h"
#include "ops/graph/compile.h"
#include "ops/graph/fusion.h"
#include "ops/graph/program.h"
#include "ops/ops.h"
#include "support/fn_module.h"
#include "support/test_util.h"
#include "transformer_block/transformer_block.h"

namespace tt::test {
namespace {

using Fn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

constexpr double kNegInf = -INFINITY;

// A module holding one buffer (a mask registered as GPT-2 registers its tril).
class Holder : public Module {
 public:
  explicit Holder(const Tensor& t) { held = register_buffer("held", t); }
  std::vector<Tensor> forward(const std::vector<Tensor>&) override { return {}; }
  std::string name() const override { return "Holder"; }
  Tensor held;
};

Tensor scores_of(const std::vector<Tensor>& in) {
  return ops::matmul(in[0], in[1].transpose(-2, -1));
}

Tensor attend(const Tensor& s, const Tensor& v) { return ops::matmul(ops::softmax(s, -1), v); }

// arange(n) (int64) on like's device.
Tensor positions(int64_t n, const Tensor& like) {
  return Tensor::arange(0.0, static_cast<double>(n), 1.0, DType::I64, like.device());
}

struct Recorded {
  std::shared_ptr<CompiledModule> compiled;
  std::vector<std::string> groups;
  std::vector<std::string> left_out;
  const graph::Program& program() const { return *compiled->program(); }
};

Recorded record(const Fn& fn, const std::vector<Tensor>& inputs,
                const FnModule::Children& children = {}) {
  Recorded r;
  r.compiled = compile(std::make_shared<FnModule>(fn, children));
  (*r.compiled)(inputs);
  const graph::Graph& g = r.program().graph;
  for (const graph::Group& grp : graph::find_groups(g, &r.left_out))
    r.groups.push_back(graph::group_str(g, grp));
  return r;
}

// The recorded program with its attention groups run as their rewrite and every other
// node op by op: what the CUDA lowering runs, here on the CPU reference. `kernels`
// receives each rewrite's description.
std::vector<Tensor> run_rewritten(const graph::Program& recorded, const std::vector<Tensor>& inputs,
                                  std::vector<std::string>* kernels = nullptr) {
  graph::Program p;
  p.graph = recorded.graph;
  const graph::Graph& g = p.graph;
  std::map<int, std::vector<graph::Step>> at_last;
  std::vector<bool> fused(g.nodes.size(), false);
  for (const graph::Group& grp : graph::find_groups(g)) {
    if (grp.kind != graph::Group::Kind::kAttention) continue;
    std::string why;
    std::vector<graph::Step> steps = graph::attention_steps(g, grp, why);
    EXPECT_FALSE(steps.empty()) << why;
    for (const graph::Step& s : steps)
      if (kernels) kernels->push_back(s.description);
    at_last[grp.nodes.back()] = std::move(steps);
    for (int n : grp.nodes) fused[n] = true;
  }
  const std::vector<graph::Step> singles = graph::node_steps(g);
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const auto it = at_last.find(static_cast<int>(n));
    if (it != at_last.end()) {
      for (const graph::Step& s : it->second) p.steps.push_back(s);
    } else if (!fused[n]) {
      p.steps.push_back(singles[n]);
    }
  }
  return graph::run_program(p, inputs);
}

// got and want agree: NaN at the same elements, the others within `tol` of each other
// relative to want's largest magnitude. Returns how many NaN want has.
size_t expect_close(const Tensor& got, const Tensor& want, double tol) {
  EXPECT_EQ(got.sizes(), want.sizes());
  const std::vector<double> a = got.to(Device::cpu()).to_vector<double>();
  const std::vector<double> b = want.to(Device::cpu()).to_vector<double>();
  double scale = 1e-30, worst = 0.0;
  size_t nans = 0, mismatched = 0;
  for (double x : b)
    if (!std::isnan(x)) scale = std::max(scale, std::abs(x));
  for (size_t i = 0; i < b.size() && i < a.size(); ++i) {
    if (std::isnan(b[i]) || std::isnan(a[i])) {
      nans += std::isnan(b[i]) ? 1 : 0;
      mismatched += std::isnan(a[i]) != std::isnan(b[i]) ? 1 : 0;
      continue;
    }
    worst = std::max(worst, std::abs(a[i] - b[i]) / scale);
  }
  EXPECT_EQ(mismatched, 0u) << "elements NaN in one result only";
  EXPECT_LE(worst, tol);
  return nans;
}

// q [2, 3, L, 8], k and v [2, 3, S, 8].
std::vector<Tensor> qkv(int64_t L, int64_t S, uint64_t seed = 1) {
  return {Tensor::randn({2, 3, L, 8}, seed), Tensor::randn({2, 3, S, 8}, seed + 1),
          Tensor::randn({2, 3, S, 8}, seed + 2)};
}

// A bool tensor of `shape` from a rule on its last two indices (i, j).
Tensor bool_mask(const Shape& shape, const std::function<bool(int64_t, int64_t, int64_t)>& keep) {
  std::vector<bool> m(static_cast<size_t>(shape_numel(shape)));
  const int64_t L = shape[shape.size() - 2], S = shape.back();
  for (size_t x = 0; x < m.size(); ++x) {
    const auto e = static_cast<int64_t>(x);
    m[x] = keep(e / (L * S), (e / S) % L, e % S);
  }
  return Tensor::from_vector(m, shape);
}

// ---- which forms fuse ----

TEST(CompileAttention, MaskedFillAfterTheScaleFusesWithAnInputMask) {
  const Fn f = [](const std::vector<Tensor>& in) {
    const Tensor s = scores_of(in) / 8.0;
    return std::vector<Tensor>{attend(s.masked_fill(in[3], kNegInf), in[2])};
  };
  std::vector<Tensor> in = qkv(5, 7);
  in.push_back(bool_mask({2, 1, 5, 7},
                         [](int64_t b, int64_t i, int64_t j) { return (b + i + j) % 3 == 0; }));
  const Recorded r = record(f, in);
  EXPECT_EQ(r.groups,
            std::vector<std::string>{"attention: matmul -> div -> where -> softmax -> matmul"});
  EXPECT_TRUE(r.left_out.empty());
}

TEST(CompileAttention, WhereKeepBeforeTheScaleAndAdditiveAfterItFuse) {
  const Fn keep = [](const std::vector<Tensor>& in) {
    const Tensor s = ops::where(in[3], scores_of(in), kNegInf) * 0.125;
    return std::vector<Tensor>{attend(s, in[2])};
  };
  std::vector<Tensor> in = qkv(5, 7);
  in.push_back(bool_mask({5, 7}, [](int64_t, int64_t i, int64_t j) { return j != i; }));
  EXPECT_EQ(record(keep, in).groups,
            std::vector<std::string>{"attention: matmul -> where -> mul -> softmax -> matmul"});
  const Fn additive = [](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{attend(scores_of(in) * 0.125 + in[3], in[2])};
  };
  in[3] = Tensor::randn({5, 7}, 9);
  EXPECT_EQ(record(additive, in).groups,
            std::vector<std::string>{"attention: matmul -> mul -> add -> softmax -> matmul"});
}

// GPT-2's mask built in the forward: its nodes join the group (computed once at lowering).
TEST(CompileAttention, AConstantMaskBuiltInTheForwardJoinsTheGroup) {
  const Fn tril = [](const std::vector<Tensor>& in) {
    const int64_t L = in[0].size(-2), S = in[1].size(-2);
    const Tensor mask = Tensor::ones({L, S}).tril();
    const Tensor s = (scores_of(in) / 8.0).masked_fill(mask == 0.0, kNegInf);
    return std::vector<Tensor>{attend(s, in[2])};
  };
  EXPECT_EQ(record(tril, qkv(5, 7)).groups,
            std::vector<std::string>{"attention: matmul -> div -> where -> softmax -> matmul, its "
                                     "constant mask from sub -> le -> where -> eq"});
  const Fn arange = [](const std::vector<Tensor>& in) {
    const int64_t L = in[0].size(-2), S = in[1].size(-2);
    const Tensor above = Tensor::arange(S).unsqueeze(0) > Tensor::arange(L).unsqueeze(1);
    const Tensor s = (scores_of(in) / 8.0).masked_fill(above, kNegInf);
    return std::vector<Tensor>{attend(s, in[2])};
  };
  EXPECT_EQ(
      record(arange, qkv(5, 7)).groups,
      std::vector<std::string>{
          "attention: matmul -> div -> where -> softmax -> matmul, its constant mask from gt"});
}

// A constant mask something else reads too stays computed by its nodes (the group still
// takes it as a constant).
TEST(CompileAttention, AConstantMaskReadElsewhereKeepsItsNodes) {
  const Fn f = [](const std::vector<Tensor>& in) {
    const int64_t L = in[0].size(-2), S = in[1].size(-2);
    const Tensor above = Tensor::arange(S).unsqueeze(0) > Tensor::arange(L).unsqueeze(1);
    const Tensor s = (scores_of(in) / 8.0).masked_fill(above, kNegInf);
    return std::vector<Tensor>{attend(s, in[2]), above};
  };
  EXPECT_EQ(record(f, qkv(5, 7)).groups,
            std::vector<std::string>{"attention: matmul -> div -> where -> softmax -> matmul"});
}

// ---- which forms stay unfused, and why ----

struct Refused {
  const char* what;
  Fn forward;
  const char* reason;
};

TEST(CompileAttention, FormsSdpaDoesNotExpressStayUnfusedWithTheirReason) {
  const std::vector<Refused> cases = {
      {"a finite fill",
       [](const std::vector<Tensor>& in) {
         return std::vector<Tensor>{attend((scores_of(in) / 8.0).masked_fill(in[3], -1e9), in[2])};
       },
       "matmul -> div -> where -> softmax -> matmul (the scores %5): the masked fill is -1e+09, "
       "not -inf: masked keys keep a weight of exp(fill - max), which "
       "scaled_dot_product_attention's boolean mask does not give"},
      {"an additive mask before the scale",
       [](const std::vector<Tensor>& in) {
         const Tensor m = ops::where(in[3], Tensor::full({}, kNegInf), Tensor::zeros({}));
         return std::vector<Tensor>{attend((scores_of(in) + m) / 8.0, in[2])};
       },
       "matmul -> add -> div -> softmax -> matmul (the scores %8): the additive mask comes before "
       "the scale ((q k^T + M) * s is not q k^T * s + M, which scaled_dot_product_attention "
       "computes)"},
      {"a -inf fill before a negative scale",
       [](const std::vector<Tensor>& in) {
         return std::vector<Tensor>{
             attend(scores_of(in).masked_fill(in[3], kNegInf) * -0.125, in[2])};
       },
       "matmul -> where -> mul -> softmax -> matmul (the scores %5): the scale -0.125 after the "
       "-inf fill does not keep it -inf"},
      {"a mask that broadcasts the scores",
       [](const std::vector<Tensor>& in) {
         const Tensor m = in[3].unsqueeze(0).expand({4, 2, 1, 5, 7});
         return std::vector<Tensor>{attend(ops::where(m, scores_of(in), kNegInf), in[2])};
       },
       "matmul -> where -> softmax -> matmul (the scores %5): where broadcasts the scores [2, 3, "
       "5, "
       "7] to [4, 2, 3, 5, 7]; a mask must broadcast to the scores' shape"},
      {"an integer additive mask",
       [](const std::vector<Tensor>& in) {
         return std::vector<Tensor>{attend(scores_of(in) + in[3].to(DType::I64), in[2])};
       },
       "matmul -> add -> softmax -> matmul (the scores %6): the additive mask has dtype int64; "
       "scaled_dot_product_attention adds a float32 one"},
  };
  std::vector<Tensor> in = qkv(5, 7);
  in.push_back(bool_mask({2, 1, 5, 7}, [](int64_t, int64_t i, int64_t j) { return j > i; }));
  for (const Refused& c : cases) {
    const Recorded r = record(c.forward, in);
    for (const std::string& grp : r.groups)
      EXPECT_EQ(grp.find("attention"), std::string::npos) << c.what << ": " << grp;
    EXPECT_EQ(r.left_out, std::vector<std::string>{c.reason}) << c.what;
  }
}

// ---- the rewrite against the eager composition (CPU) ----

struct Case {
  const char* what;
  int64_t L, S;
  Fn forward;
  std::vector<Tensor> extra;  // inputs after q, k, v
  const char* kernel;         // the rewrite's description
  bool nan_rows;              // the mask leaves some rows nothing to attend to
};

std::vector<Case> rewrite_cases() {
  const auto tril_mask = [](const std::vector<Tensor>& in, int64_t diagonal) {
    return Tensor::ones({in[0].size(-2), in[1].size(-2)}, DType::F32, in[0].device())
        .tril(diagonal);
  };
  std::vector<Case> cases;
  for (const auto& [L, S] : std::vector<std::pair<int64_t, int64_t>>{{5, 7}, {7, 5}, {6, 6}}) {
    cases.push_back(
        {"causal, tril built in the forward",
         L,
         S,
         [tril_mask](const std::vector<Tensor>& in) {
           const Tensor s = (scores_of(in) / 8.0).masked_fill(tril_mask(in, 0) == 0.0, kNegInf);
           return std::vector<Tensor>{attend(s, in[2])};
         },
         {},
         "scaled_dot_product_attention (scale 0.125; is_causal: its constant mask is the causal "
         "one)",
         false});
    cases.push_back(
        {"causal, arange comparison, where(keep) before the scale",
         L,
         S,
         [](const std::vector<Tensor>& in) {
           const Tensor keep = positions(in[1].size(-2), in[0]).unsqueeze(0) <=
                               positions(in[0].size(-2), in[0]).unsqueeze(1);
           return std::vector<Tensor>{
               attend(ops::where(keep, scores_of(in), kNegInf) * 0.125, in[2])};
         },
         {},
         "scaled_dot_product_attention (scale 0.125; is_causal: its constant mask is the causal "
         "one)",
         false});
  }
  // Bottom-right aligned (tril with diagonal S - L) is not PyTorch's is_causal for L != S.
  cases.push_back({"bottom-right causal",
                   5,
                   7,
                   [tril_mask](const std::vector<Tensor>& in) {
                     const Tensor m = tril_mask(in, 2) == 0.0;
                     return std::vector<Tensor>{
                         attend((scores_of(in) / 8.0).masked_fill(m, kNegInf), in[2])};
                   },
                   {},
                   "scaled_dot_product_attention (scale 0.125; its constant boolean mask [5, 7] "
                   "computed once)",
                   false});
  // tril(-1): row 0 attends nothing (NaN in eager).
  cases.push_back({"strictly causal: row 0 fully masked",
                   6,
                   6,
                   [tril_mask](const std::vector<Tensor>& in) {
                     const Tensor m = tril_mask(in, -1) == 0.0;
                     return std::vector<Tensor>{
                         attend((scores_of(in) / 8.0).masked_fill(m, kNegInf), in[2])};
                   },
                   {},
                   "scaled_dot_product_attention (scale 0.125; its constant boolean mask [6, 6] "
                   "computed once, the rows it masks fully NaN as eager)",
                   true});
  // Input masks, broadcast [L, S] and [B, 1, L, S], some rows fully masked.
  const Tensor padding = bool_mask({2, 1, 5, 7}, [](int64_t b, int64_t i, int64_t j) {
    return b == 1 && i == 3 ? true : j >= 5 - b;  // masked: true
  });
  cases.push_back({"masked_fill of an input mask [B, 1, L, S]",
                   5,
                   7,
                   [](const std::vector<Tensor>& in) {
                     return std::vector<Tensor>{
                         attend((scores_of(in) / 8.0).masked_fill(in[3], kNegInf), in[2])};
                   },
                   {padding},
                   "scaled_dot_product_attention (scale 0.125; boolean mask [2, 1, 5, 7] read "
                   "each run and inverted, the rows it masks fully NaN as eager)",
                   true});
  // The head merge after it: the NaN rows written through the merged layout's strides.
  cases.push_back({"masked_fill of an input mask, heads merged",
                   5,
                   7,
                   [](const std::vector<Tensor>& in) {
                     const Tensor a =
                         attend((scores_of(in) / 8.0).masked_fill(in[3], kNegInf), in[2]);
                     return std::vector<Tensor>{a.transpose(1, 2).reshape({2, 5, 24})};
                   },
                   {padding},
                   "scaled_dot_product_attention (scale 0.125; boolean mask [2, 1, 5, 7] read "
                   "each run and inverted, the rows it masks fully NaN as eager) into the merged "
                   "heads' layout",
                   true});
  const Tensor keep2d =
      bool_mask({5, 7}, [](int64_t, int64_t i, int64_t j) { return i != 2 && (i + j) % 2 == 0; });
  cases.push_back({"where(keep) of an input mask [L, S]",
                   5,
                   7,
                   [](const std::vector<Tensor>& in) {
                     return std::vector<Tensor>{
                         attend(ops::where(in[3], scores_of(in) / 8.0, kNegInf), in[2])};
                   },
                   {keep2d},
                   "scaled_dot_product_attention (scale 0.125; boolean mask [5, 7] read each run, "
                   "the rows it masks fully NaN as eager)",
                   true});
  Tensor additive = Tensor::randn({2, 1, 5, 7}, 11);
  additive = ops::where(
      bool_mask({2, 1, 5, 7}, [](int64_t b, int64_t i, int64_t j) { return b == 0 && j > i; }),
      Tensor::full({}, kNegInf), additive);
  cases.push_back({"an additive input mask with -inf",
                   5,
                   7,
                   [](const std::vector<Tensor>& in) {
                     return std::vector<Tensor>{attend(scores_of(in) / 8.0 + in[3], in[2])};
                   },
                   {additive},
                   "scaled_dot_product_attention (scale 0.125; additive mask [2, 1, 5, 7] read "
                   "each run, the rows it masks fully NaN as eager)",
                   false});
  return cases;
}

TEST(CompileAttention, TheRewriteMatchesTheEagerCompositionOnTheCpu) {
  for (const Case& c : rewrite_cases()) {
    SCOPED_TRACE(c.what);
    SCOPED_TRACE(testing::Message() << "L " << c.L << ", S " << c.S);
    std::vector<Tensor> in = qkv(c.L, c.S);
    in.insert(in.end(), c.extra.begin(), c.extra.end());
    const Recorded r = record(c.forward, in);
    ASSERT_EQ(r.groups.size(), 1u);
    std::vector<std::string> kernels;
    // A second draw of q, k, v: the replay does not reuse the recording's values.
    std::vector<Tensor> again = qkv(c.L, c.S, 7);
    again.insert(again.end(), c.extra.begin(), c.extra.end());
    const Tensor got = run_rewritten(r.program(), again, &kernels)[0];
    EXPECT_EQ(kernels, std::vector<std::string>{c.kernel});
    const size_t nans = expect_close(got, c.forward(again)[0], 1e-5);
    EXPECT_EQ(nans > 0, c.nan_rows);
  }
}

// A mask held as a buffer is read on each run (load_state_dict may change it).
TEST(CompileAttention, ABufferMaskIsReadEachRun) {
  auto holder = std::make_shared<Holder>(Tensor::ones({6, 6}).tril());
  const Fn f = [holder](const std::vector<Tensor>& in) {
    const Tensor s = (scores_of(in) / 8.0).masked_fill(holder->held == 0.0, kNegInf);
    return std::vector<Tensor>{attend(s, in[2])};
  };
  const Recorded r = record(f, qkv(6, 6), {{"holder", holder}});
  EXPECT_EQ(r.groups,
            std::vector<std::string>{"attention: matmul -> div -> where -> softmax -> matmul"});
  holder->held.copy_(Tensor::ones({6, 6}).triu());
  std::vector<std::string> kernels;
  const Tensor got = run_rewritten(r.program(), qkv(6, 6, 5), &kernels)[0];
  EXPECT_EQ(kernels, std::vector<std::string>{
                         "scaled_dot_product_attention (scale 0.125; boolean mask [6, 6] read each "
                         "run and inverted, the rows it masks fully NaN as eager)"});
  expect_close(got, f(qkv(6, 6, 5))[0], 1e-5);
}

// ---- the transformer block's causal form ----

// The registered small shape (examples/transformer_block/main.cpp): init [64, 4, 256], x
// [2, 16, 64].
std::shared_ptr<examples::TransformerBlock> small_block(bool causal) {
  return std::make_shared<examples::TransformerBlock>(/*width=*/64, /*heads=*/4, /*hidden=*/256,
                                                      /*seed=*/3, causal);
}

TEST(CompileAttention, TheCausalBlockFusesItsMaskAndMatchesEager) {
  auto block = small_block(true);
  auto compiled = compile(block);
  const Tensor x = Tensor::randn({2, 16, 64}, 1), x2 = Tensor::randn({2, 16, 64}, 2);
  (*compiled)({x});
  const graph::Graph& g = compiled->program()->graph;
  std::vector<std::string> groups;
  for (const graph::Group& grp : graph::find_groups(g)) groups.push_back(graph::group_str(g, grp));
  EXPECT_EQ(groups, (std::vector<std::string>{
                        "attention: matmul -> div -> where -> softmax -> matmul -> copy, its "
                        "constant mask from sub -> le -> where -> eq",
                        "gemm+epilogue: linear -> add",
                        "gemm+epilogue: linear -> gelu",
                        "gemm+epilogue: linear -> add",
                    }));
  std::vector<std::string> kernels;
  const Tensor got = run_rewritten(*compiled->program(), {x2}, &kernels)[0];
  EXPECT_EQ(kernels, std::vector<std::string>{
                         "scaled_dot_product_attention (scale 0.25; is_causal: its constant "
                         "mask is the causal one) into the merged heads' layout"});
  const Tensor want = (*block)(x2);
  expect_close(got, want, 1e-5);
  // The CPU replay itself is op by op, bit for bit the eager forward; the mask matters.
  EXPECT_EQ(max_abs_diff((*compiled)({x2})[0], want), 0.0);
  EXPECT_GT(max_abs_diff(want, (*small_block(false))(x2)), 1e-3);
}

// ---- CUDA ----

// Each rewrite case compiled on CUDA against the eager CPU composition in every mode.
TEST(CompileAttention, CudaRewriteMatchesTheCpuInEveryMode) {
  TT_REQUIRE_CUDA();
  const Device gpu = Device::cuda(0);
  for (const Case& c : rewrite_cases()) {
    SCOPED_TRACE(c.what);
    SCOPED_TRACE(testing::Message() << "L " << c.L << ", S " << c.S);
    std::vector<Tensor> in = qkv(c.L, c.S);
    in.insert(in.end(), c.extra.begin(), c.extra.end());
    const Tensor want = c.forward(in)[0];
    std::vector<Tensor> on_gpu;
    for (const Tensor& t : in) on_gpu.push_back(t.to(gpu));
    for (const Precision mode : {Precision::strict, Precision::tf32, Precision::accurate}) {
      const PrecisionGuard guard(mode);
      auto compiled = compile(std::make_shared<FnModule>(c.forward));
      for (int round = 0; round < 2; ++round) {
        const Tensor got = (*compiled)(on_gpu)[0];
        expect_close(got, want, mode == Precision::tf32 ? 2e-3 : 1e-5);
      }
      const std::string report = compiled->explain();
      EXPECT_NE(report.find(std::string("kernel: ") + c.kernel), std::string::npos) << report;
    }
  }
}

// explain() names a refused form with its reason; the ops run one by one, as eager.
TEST(CompileAttention, CudaExplainSaysWhyAFiniteFillStaysUnfused) {
  TT_REQUIRE_CUDA();
  const Fn f = [](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{attend((scores_of(in) / 8.0).masked_fill(in[3], -1e9), in[2])};
  };
  std::vector<Tensor> in = qkv(5, 7);
  in.push_back(bool_mask({5, 7}, [](int64_t, int64_t i, int64_t j) { return j > i; }));
  const Tensor want = f(in)[0];
  for (Tensor& t : in) t = t.to(Device::cuda(0));
  auto compiled = compile(std::make_shared<FnModule>(f));
  (*compiled)(in);
  expect_close((*compiled)(in)[0], want, 1e-5);
  const std::string report = compiled->explain();
  EXPECT_NE(report.find("attention left unfused: matmul -> div -> where -> softmax -> matmul "
                        "(the scores %5): the masked fill is -1e+09, not -inf"),
            std::string::npos)
      << report;
  EXPECT_EQ(report.find("kernel: scaled_dot_product_attention"), std::string::npos) << report;
}

TEST(CompileAttention, CudaCausalBlockMatchesTheCpuInEveryMode) {
  TT_REQUIRE_CUDA();
  auto block = small_block(true);
  const Tensor x = Tensor::randn({2, 16, 64}, 1);
  const Tensor want = (*block)(x);
  block->to(Device::cuda(0));
  auto compiled = compile(block);
  expect_every_mode_matches(*compiled, x.to(Device::cuda(0)), want,
                            [](Precision, const std::string& report) {
                              EXPECT_NE(report.find("kernel: scaled_dot_product_attention (scale "
                                                    "0.25; is_causal: its constant mask is the "
                                                    "causal one) into the merged heads' layout"),
                                        std::string::npos)
                                  << report;
                            });
}

}  // namespace
}  // namespace tt::test
