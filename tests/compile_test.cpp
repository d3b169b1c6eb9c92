// tt::compile: what is recorded (the graph of a forward, views folded, parameters by
// name), when a key replays or records again, graph breaks with their reasons, the fusion
// decisions (pinned for the transformer block), and compiled-vs-eager agreement over
// thousands of random graphs on the CPU (op-by-op replay: bit-identical) and hundreds on
// CUDA (fused kernels against the CPU reference, strict float32 bound).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "models/models.h"
#include "ops/graph/compile.h"
#include "ops/graph/fusion.h"
#include "ops/graph/program.h"
#include "support/fn_module.h"
#include "support/test_util.h"
#include "transformer_block/transformer_block.h"

#if TT_CUDA
#include "ops/cuda/gemm/gemm_config.h"
#include "ops/cuda/pointwise/chain.h"
#endif

namespace tt::test {
namespace {

using Fn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

bool bit_equal(const Tensor& a, const Tensor& b) {
  if (a.sizes() != b.sizes() || a.dtype() != b.dtype()) return false;
  if (a.dtype() == DType::I64) return a.to_vector<int64_t>() == b.to_vector<int64_t>();
  const std::vector<double> x = a.to_vector<double>(), y = b.to_vector<double>();
  for (size_t i = 0; i < x.size(); ++i)
    if (!(x[i] == y[i] || (std::isnan(x[i]) && std::isnan(y[i])))) return false;
  return true;
}

std::shared_ptr<examples::TransformerBlock> small_block() {
  return std::make_shared<examples::TransformerBlock>(/*width=*/32, /*heads=*/4, /*hidden=*/64,
                                                      /*seed=*/3);
}

TEST(Compile, TransformerBlockOnCpuReplaysBitIdentical) {
  auto block = small_block();
  auto compiled = compile(block);
  const Tensor x1 = Tensor::randn({2, 8, 32}, 1), x2 = Tensor::randn({2, 8, 32}, 2);
  const Tensor first = (*compiled)({x1})[0];  // records
  const Tensor again = (*compiled)({x2})[0];  // replays
  EXPECT_TRUE(bit_equal(first, (*block)(x1)));
  EXPECT_TRUE(bit_equal(again, (*block)(x2)));
  EXPECT_EQ(compiled->recordings(), 1u);
  EXPECT_NE(compiled->explain().find("cpu: replayed op by op"), std::string::npos)
      << compiled->explain();
}

TEST(Compile, SharesTheModulesParametersUnderOrigMod) {
  auto block = small_block();
  auto compiled = compile(block);
  const auto params = compiled->named_parameters();
  ASSERT_EQ(params.size(), block->named_parameters().size());
  EXPECT_EQ(params.front().first, "_orig_mod.ln1.weight");
  EXPECT_TRUE(params.front().second.is_same(block->named_parameters().front().second));
  // A weight loaded after compiling is what the replay reads.
  const Tensor x = Tensor::randn({1, 4, 32}, 5);
  (*compiled)({x});
  block->fc2->weight.copy_(Tensor::randn({32, 64}, 9));
  EXPECT_TRUE(bit_equal((*compiled)({x})[0], (*block)(x)));
}

TEST(Compile, RecordsOpsWithViewsFoldedAndParametersByName) {
  auto lin = std::make_shared<nn::Linear>(4, 3, true, 1);
  auto m = std::make_shared<FnModule>(
      [lin](const std::vector<Tensor>& in) {
        const Tensor y = ops::gelu((*lin)(in[0].transpose(0, 1)), "tanh");
        return std::vector<Tensor>{ops::softmax(y * 0.5, -1)};
      },
      FnModule::Children{{"fc", lin}});
  auto compiled = compile(m);
  (*compiled)({Tensor::randn({4, 5}, 1)});
  const std::string report = compiled->explain();
  EXPECT_NE(report.find("= linear(view(input0, [5, 4]), fc.weight, fc.bias) [5, 3]"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("= gelu_tanh(%"), std::string::npos) << report;
  EXPECT_NE(report.find("= mul(%"), std::string::npos) << report;
  EXPECT_NE(report.find("const[]) [5, 3]"), std::string::npos) << report;
  EXPECT_NE(report.find("= softmax(%"), std::string::npos) << report;
}

TEST(Compile, NewShapesRecordAgainAndTheCacheIsBounded) {
  auto block = small_block();
  CompileOptions options;
  options.cache_size = 2;
  auto compiled = compile(block, options);
  for (int64_t t : {4, 5, 6, 4}) {
    const Tensor x = Tensor::randn({1, t, 32}, static_cast<uint64_t>(t));
    EXPECT_TRUE(bit_equal((*compiled)({x})[0], (*block)(x))) << t;
  }
  EXPECT_EQ(compiled->cached_keys(), 2u);
  EXPECT_EQ(compiled->recordings(), 4u);  // T=4 had been evicted by 5 and 6
  compiled->set_precision(Precision::tf32);
  (*compiled)({Tensor::randn({1, 4, 32}, 1)});
  EXPECT_EQ(compiled->recordings(), 5u);  // the precision is part of the key
}

TEST(Compile, HostReadsAndInPlaceWritesBreakTheGraphAndStayRight) {
  auto reads = std::make_shared<FnModule>([](const std::vector<Tensor>& in) {
    const double s = ops::sum(in[0]).item();  // data-dependent value on the host
    return std::vector<Tensor>{in[0] * s};
  });
  auto compiled = compile(reads);
  for (uint64_t seed : {1, 2}) {
    const Tensor x = Tensor::randn({3, 4}, seed);
    EXPECT_TRUE(bit_equal((*compiled)({x})[0], (*reads)({x})[0]));
  }
  EXPECT_NE(
      compiled->explain().find("graph break: the output of sum: its values are read on the host "
                               "(item/to_vector/printing); this key runs eagerly"),
      std::string::npos)
      << compiled->explain();

  auto writes = std::make_shared<FnModule>([](const std::vector<Tensor>& in) {
    in[0].add_(1.0);
    return std::vector<Tensor>{ops::relu(in[0])};
  });
  auto compiled_writes = compile(writes);
  const Tensor x = Tensor::randn({3, 4}, 3);
  const Tensor expected = ops::relu(x + 1.0);
  EXPECT_TRUE(bit_equal((*compiled_writes)({x.clone()})[0], expected));
  EXPECT_TRUE(bit_equal((*compiled_writes)({x.clone()})[0], expected));
  EXPECT_NE(compiled_writes->explain().find("graph break: input 0: add_ writes into it in place"),
            std::string::npos)
      << compiled_writes->explain();
}

// A tensor no reported op made (filled on the host here; an op that does not report
// itself is the same) cannot be replayed: the key runs eagerly.
TEST(Compile, TensorsMadeOutsideTheGraphsOpsBreakIt) {
  auto m = std::make_shared<FnModule>([](const std::vector<Tensor>& in) {
    Tensor t = Tensor::empty(in[0].sizes());
    float* p = t.data<float>();
    for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<float>(i);
    return std::vector<Tensor>{in[0] + t};
  });
  auto compiled = compile(m);
  for (uint64_t seed : {1, 2}) {
    const Tensor x = Tensor::randn({2, 3}, seed);
    EXPECT_TRUE(bit_equal((*compiled)({x})[0], (*m)({x})[0]));
  }
  EXPECT_NE(compiled->explain().find("graph break: add reads a tensor made outside the graph's "
                                     "ops (by an op tt::compile does not record, or filled on "
                                     "the host); this key runs eagerly"),
            std::string::npos)
      << compiled->explain();
}

TEST(Compile, RejectsANullModule) {
  EXPECT_EQ(error_of([] { compile(nullptr); }), "compile: the module is null");
}

// The fusion decisions of the block, backend-neutral: the attention pattern, the three
// linears whose epilogue takes the following op (the residual adds after proj and fc2 go
// into the GEMM's epilogue in every mode: TransformerBlockOnCudaMatchesTheCpuReference);
// the qkv linear (read through the head split's views), the norms and the merge-heads copy
// stay alone.
TEST(Compile, TransformerBlockGroups) {
  auto compiled = compile(small_block());
  (*compiled)({Tensor::randn({2, 8, 32}, 1)});
  const graph::Graph& g = compiled->program()->graph;
  std::vector<std::string> groups;
  for (const graph::Group& grp : graph::find_groups(g)) groups.push_back(graph::group_str(g, grp));
  EXPECT_EQ(groups, (std::vector<std::string>{
                        "attention: matmul -> div -> softmax -> matmul -> copy",
                        "gemm+epilogue: linear -> add",
                        "gemm+epilogue: linear -> gelu",
                        "gemm+epilogue: linear -> add",
                    }));
}

// The five seed models written as their plain-op forwards (shared/SEED_MODELS.md): the
// groups the compiler forms from each, the structures of the fused family's plans
// (ops/cuda/fused/pattern.h). Model 3's sigmoid(h) * h is one silu step; model 1's
// instance norm reads the GEMM's output through unsqueeze views, its add and mul
// through squeeze views.
std::vector<std::string> groups_of(const Fn& forward, const std::vector<Tensor>& inputs,
                                   const FnModule::Children& children) {
  auto compiled = compile(std::make_shared<FnModule>(forward, children));
  (*compiled)(inputs);
  const graph::Graph& g = compiled->program()->graph;
  std::vector<std::string> groups;
  for (const graph::Group& grp : graph::find_groups(g)) groups.push_back(graph::group_str(g, grp));
  return groups;
}

TEST(Compile, SeedModelsAsPlainOpsGroups) {
  auto fc = std::make_shared<nn::Linear>(16, 8, true, 1);
  auto fc_nobias = std::make_shared<nn::Linear>(16, 8, false, 1);
  const Tensor x = Tensor::randn({4, 16}, 1), y = Tensor::randn({4, 8}, 2);
  const Tensor bias = Tensor::randn({8}, 3), scale = Tensor::randn({8}, 4);
  const Tensor gamma = Tensor::randn({8}, 5), beta = Tensor::randn({8}, 6);
  const Tensor mean = Tensor::zeros({8}), var = Tensor::ones({8});
  // 1 GemmInstanceNormAddMul
  EXPECT_EQ(groups_of(
                [fc](const std::vector<Tensor>& in) {
                  const Tensor h = (*fc)(in[0]).unsqueeze(1).unsqueeze(1);
                  const Tensor n = ops::instance_norm(h).squeeze(1).squeeze(1);
                  return std::vector<Tensor>{(n + in[1]) * in[1]};
                },
                {x, y}, {{"fc", fc}}),
            (std::vector<std::string>{"gemm+norm: linear -> instance_norm -> add -> mul"}));
  // 2 InstanceNorm2dModel: one op
  EXPECT_EQ(groups_of(
                [](const std::vector<Tensor>& in) {
                  return std::vector<Tensor>{ops::instance_norm(in[0])};
                },
                {Tensor::randn({2, 3, 4, 4}, 7)}, {}),
            std::vector<std::string>{});
  // 3 GemmSwishBiasGroupNorm
  EXPECT_EQ(groups_of(
                [fc, bias, gamma, beta](const std::vector<Tensor>& in) {
                  const Tensor h = (*fc)(in[0]);
                  const Tensor a = ops::sigmoid(h) * h + bias;
                  return std::vector<Tensor>{ops::group_norm(a, 4, gamma, beta)};
                },
                {x}, {{"fc", fc}}),
            (std::vector<std::string>{"gemm+norm: linear -> sigmoid -> mul -> add -> group_norm"}));
  // 4 GemmScaleBatchNorm (eval)
  EXPECT_EQ(groups_of(
                [fc, scale, mean, var, gamma, beta](const std::vector<Tensor>& in) {
                  return std::vector<Tensor>{
                      ops::batch_norm((*fc)(in[0]) * scale, mean, var, gamma, beta, false)};
                },
                {x}, {{"fc", fc}}),
            (std::vector<std::string>{"gemm+norm: linear -> mul -> batch_norm"}));
  // 5 GemmBiasReLU
  EXPECT_EQ(groups_of(
                [fc_nobias, bias](const std::vector<Tensor>& in) {
                  return std::vector<Tensor>{ops::relu((*fc_nobias)(in[0]) + bias)};
                },
                {x}, {{"fc", fc_nobias}}),
            (std::vector<std::string>{"gemm+epilogue: linear -> add -> relu"}));
}

// Pointwise groups: a chain through broadcasts groups, and so does a value read twice (a
// DAG: b = tanh(a) * a, written out since it is returned); a value read through a view
// ends its group.
TEST(Compile, PointwiseGroupLegality) {
  auto m = std::make_shared<FnModule>([](const std::vector<Tensor>& in) {
    const Tensor a = ops::exp(in[0] * in[1]) + 1.0;  // mul -> exp -> add
    const Tensor b = ops::tanh(a) * a;               // a is read twice: joins as a DAG
    const Tensor c = ops::relu(b).transpose(0, 1);   // read through a view next
    return std::vector<Tensor>{ops::sigmoid(c) - 2.0, b};
  });
  auto compiled = compile(m);
  (*compiled)({Tensor::randn({4, 6}, 1), Tensor::randn({6}, 2)});
  const graph::Graph& g = compiled->program()->graph;
  std::vector<std::string> groups;
  for (const graph::Group& grp : graph::find_groups(g)) groups.push_back(graph::group_str(g, grp));
  EXPECT_EQ(groups, (std::vector<std::string>{"pointwise: mul -> exp -> add -> tanh -> mul -> relu",
                                              "pointwise: sigmoid -> sub"}));
}

// ---- pointwise DAGs (issue 18) ----
// A pointwise group's structure as the tests pin it: its kind and node count, its
// expression and how many values it writes (not the nodes' order: the order C++ evaluates
// an expression's operands in is the compiler's).
struct DagGroup {
  std::string nodes;  // "pointwise: 4 nodes"
  std::string expression;
  size_t outputs;
  bool operator==(const DagGroup& o) const {
    return nodes == o.nodes && expression == o.expression && outputs == o.outputs;
  }
};
std::ostream& operator<<(std::ostream& os, const DagGroup& d) {
  return os << "{" << d.nodes << " | " << d.expression << " | " << d.outputs << " outputs}";
}

std::vector<DagGroup> dag_groups(const Fn& forward, const std::vector<Tensor>& inputs) {
  auto compiled = compile(std::make_shared<FnModule>(forward));
  (*compiled)(inputs);
  const graph::Graph& g = compiled->program()->graph;
  std::vector<DagGroup> out;
  for (const graph::Group& grp : graph::find_groups(g))
    out.push_back(
        {fmt::format("{}: {} nodes", graph::group_str(g, grp).substr(0, 9), grp.nodes.size()),
         graph::group_expression(g, grp), grp.outputs.size()});
  return out;
}

// The shapes real models are full of, each one group: GPT-2's tanh GELU written out in
// plain ops (x read four times), swish, a tree of three inputs, and a value read inside
// the group and outside it (written as a second output).
const Fn kGeluPlain = [](const std::vector<Tensor>& in) {
  const Tensor& x = in[0];
  return std::vector<Tensor>{0.5 * x *
                             (1.0 + ops::tanh(0.7978845608 * (x + 0.044715 * x.pow(3.0))))};
};
const Fn kSwish = [](const std::vector<Tensor>& in) {
  return std::vector<Tensor>{in[0] * ops::sigmoid(in[0])};
};
const Fn kTree = [](const std::vector<Tensor>& in) {
  return std::vector<Tensor>{(in[0] + in[1]) * ops::sigmoid(in[2]) - 1.0};
};
const Fn kTwoOutputs = [](const std::vector<Tensor>& in) {
  const Tensor h = in[0] + in[1];  // the residual stream: returned and read inside
  return std::vector<Tensor>{ops::relu(h) * in[2], h};
};

TEST(CompileDag, RealShapesAreOneGroupEach) {
  const Tensor x = Tensor::randn({4, 8}, 1), y = Tensor::randn({4, 8}, 2);
  const Tensor z = Tensor::randn({4, 8}, 3), row = Tensor::randn({8}, 4);
  EXPECT_EQ(dag_groups(kGeluPlain, {x}),
            (std::vector<DagGroup>{
                {"pointwise: 8 nodes",
                 "0.5 * x0 * (1 + tanh(0.797885 * (x0 + 0.044715 * pow(x0, 3))))", 1}}));
  EXPECT_EQ(dag_groups(kSwish, {x}),
            (std::vector<DagGroup>{{"pointwise: 2 nodes", "x0 * sigmoid(x0)", 1}}));
  // The broadcast row is read by its own strides.
  EXPECT_EQ(dag_groups(kTree, {x, row, z}),
            (std::vector<DagGroup>{{"pointwise: 4 nodes", "(x0 + x1) * sigmoid(x2) - 1", 1}}));
  EXPECT_EQ(dag_groups(kTwoOutputs, {x, y, z}),
            (std::vector<DagGroup>{{"pointwise: 3 nodes", "y0 = x0 + x1; y1 = relu(y0) * x2", 2}}));
}

// A value read twice inside the group is named once; one read through a view (x^T) is
// not index for index, so its reader starts a group of its own, reading it from memory.
TEST(CompileDag, SharedValuesAreNamedAndViewsOfTheGroupsValuesSplitIt) {
  const Tensor x = Tensor::randn({6, 6}, 1), y = Tensor::randn({6, 6}, 2);
  EXPECT_EQ(
      dag_groups(
          [](const std::vector<Tensor>& in) {
            const Tensor t = in[0] - in[1];
            return std::vector<Tensor>{ops::exp(t) / (t * t + 2.0)};
          },
          {x, y}),
      (std::vector<DagGroup>{{"pointwise: 5 nodes", "t0 = x0 - x1; exp(t0) / (t0 * t0 + 2)", 1}}));
  EXPECT_EQ(dag_groups(
                [](const std::vector<Tensor>& in) {
                  const Tensor t = ops::tanh(in[0] + in[1]);
                  return std::vector<Tensor>{t.transpose(0, 1) * t - 1.0};
                },
                {x, y}),
            (std::vector<DagGroup>{{"pointwise: 2 nodes", "tanh(x0 + x1)", 1},
                                   {"pointwise: 2 nodes", "x0 * x1 - 1", 1}}));
}

// A group never grows a cycle through a node outside it: h -> sum (not pointwise) ->
// h * s would make the group both feed and read the reduction. Another group counts as
// one node: a path through any of its nodes closes a cycle too.
TEST(CompileDag, NoCycleThroughANodeOutsideTheGroup) {
  const Tensor x = Tensor::randn({4, 8}, 1), y = Tensor::randn({4, 8}, 2);
  EXPECT_EQ(dag_groups(
                [](const std::vector<Tensor>& in) {
                  const Tensor h = ops::exp(in[0] + in[1]);
                  const Tensor s = ops::sum(h, {-1}, true);
                  return std::vector<Tensor>{ops::tanh(h * s) + 1.0};
                },
                {x, y}),
            (std::vector<DagGroup>{{"pointwise: 2 nodes", "exp(x0 + x1)", 1},
                                   {"pointwise: 3 nodes", "tanh(x0 * x1) + 1", 1}}));
  // The first group (exp, tanh, mul) writes u, which p reads through a view, and reads q
  // through one: q may not join p's group, which would then both read the first group's
  // output and feed it, though no node path closes the cycle.
  EXPECT_EQ(dag_groups(
                [](const std::vector<Tensor>& in) {
                  const Tensor u = ops::exp(in[0]);
                  const Tensor p = u.transpose(0, 1) + 1.0;
                  const Tensor q = in[1] * 2.0;
                  const Tensor r = p + q;
                  const Tensor t = ops::tanh(u);
                  return std::vector<Tensor>{r, t * q.transpose(0, 1)};
                },
                {Tensor::randn({4, 4}, 1), Tensor::randn({4, 4}, 2)}),
            (std::vector<DagGroup>{{"pointwise: 3 nodes", "y0 = exp(x0); y1 = tanh(y0) * x1", 2},
                                   {"pointwise: 2 nodes", "x0 + 1 + x1", 1}}));
}

// TT_POINTWISE_GROUPS=chains (set_pointwise_dags(false)) forms the straight chains the
// DAGs replace, to measure one against the other: the tree is two chains.
TEST(CompileDag, TheChainSplitFormOnRequest) {
  graph::set_pointwise_dags(false);
  const Tensor x = Tensor::randn({4, 8}, 1);
  const std::vector<DagGroup> chains = dag_groups(
      [](const std::vector<Tensor>& in) {
        const Tensor s = ops::sigmoid(in[2]);  // in this order: the chain starts here
        const Tensor a = in[0] + in[1];
        return std::vector<Tensor>{a * s - 1.0};
      },
      {x, x + 1.0, x * 2.0});
  graph::set_pointwise_dags(true);
  EXPECT_EQ(chains, (std::vector<DagGroup>{{"pointwise: 3 nodes", "x0 * sigmoid(x1) - 1", 1}}));
}

// Compiled on CUDA, each case agrees with the CPU reference, runs as one fused step, and
// explain() prints its expression; a DAG's value read by a node placed between the
// group's nodes (the matmul) is written before that node runs. On both chain kernels.
#if !TT_CUDA
TEST(CompileDag, CudaMatchesTheCpuReference) { GTEST_SKIP() << "built without CUDA (TT_CUDA=OFF)"; }
#else
TEST(CompileDag, CudaMatchesTheCpuReference) {
  TT_REQUIRE_CUDA();
  const Device gpu = Device::cuda(0);
  const Fn read_between = [](const std::vector<Tensor>& in) {
    const Tensor h = in[0] + in[1];
    const Tensor m = ops::matmul(h, in[2].transpose(0, 1));  // reads h before the group ends
    return std::vector<Tensor>{ops::sigmoid(h) * h, m};
  };
  struct Case {
    const char* name;
    Fn fn;
    const char* expression;
  } cases[] = {
      {"gelu", kGeluPlain, "0.5 * x0 * (1 + tanh(0.797885 * (x0 + 0.044715 * pow(x0, 3))))"},
      {"swish", kSwish, "x0 * sigmoid(x0)"},
      {"tree", kTree, "(x0 + x1) * sigmoid(x2) - 1"},
      {"two outputs", kTwoOutputs, "y0 = x0 + x1; y1 = relu(y0) * x2"},
      {"read between", read_between, "y0 = x0 + x1; y1 = sigmoid(y0) * y0"}};
  const std::vector<Tensor> in = {Tensor::randn({64, 96}, 1), Tensor::randn({64, 96}, 2),
                                  Tensor::randn({64, 96}, 3)};
  const std::vector<Tensor> in_gpu = {in[0].to(gpu), in[1].to(gpu), in[2].to(gpu)};
  for (const bool interpreter : {false, true}) {
    ops::cuda::chain::set_chain_kernel(interpreter ? ops::cuda::chain::ChainKernel::kInterpreter
                                                   : ops::cuda::chain::ChainKernel::kGenerated);
    for (const Case& c : cases) {
      auto compiled = compile(std::make_shared<FnModule>(c.fn));
      const std::vector<Tensor> want = c.fn(in);
      for (int round = 0; round < 2; ++round) {
        const std::vector<Tensor> got = (*compiled)(in_gpu);
        ASSERT_EQ(got.size(), want.size());
        for (size_t k = 0; k < got.size(); ++k)
          EXPECT_LE(rel_l2(got[k], want[k]), 1e-5) << c.name << " output " << k << "\n"
                                                   << compiled->explain();
      }
      const std::string report = compiled->explain();
      EXPECT_NE(report.find(std::string("expression: ") + c.expression), std::string::npos)
          << report;
      EXPECT_NE(report.find(interpreter ? "interpreter (chosen)" : "nvrtc"), std::string::npos)
          << report;
      int fused = 0;
      for (const graph::Step& s : compiled->program()->steps)
        fused += s.kind == graph::Step::Kind::kFused;
      EXPECT_EQ(fused, 1) << report;
    }
  }
  ops::cuda::chain::set_chain_kernel(ops::cuda::chain::ChainKernel::kGenerated);
}
#endif

// ---- random graphs ----
// A random forward of 3-10 ops over two [rows, cols] inputs: pointwise ops (unary, binary
// with a broadcast partner or a scalar), views (transpose, a reshape), reductions over the
// last dim with keepdim, softmax, layer_norm, matmul and linear with fixed weights (made
// outside the forward: constants of the graph). The recipe is
// drawn once; the forward replays it on any inputs of the same shapes.
struct RandomGraph {
  struct Op {
    int kind;
    int which;
    int partner;
    double scalar;
  };
  std::vector<Op> ops;
  Shape shape;

  static RandomGraph draw(uint64_t seed) {
    std::mt19937_64 rng(seed);
    RandomGraph r;
    const int64_t rows = 1 + static_cast<int64_t>(rng() % 7),
                  cols = 1 + static_cast<int64_t>(rng() % 9);
    r.shape = {rows, cols};
    const int n = 3 + static_cast<int>(rng() % 8);
    for (int i = 0; i < n; ++i) {
      const Op op{static_cast<int>(rng() % 12), static_cast<int>(rng() % 16),
                  static_cast<int>(rng() % 64),
                  static_cast<double>(static_cast<int>(rng() % 7) - 3) / 2};
      r.ops.push_back(op);
    }
    return r;
  }

  std::vector<Tensor> operator()(const std::vector<Tensor>& in) const {
    std::vector<Tensor> pool = {in[0], in[1]};
    Tensor cur = in[0];
    for (const Op& op : ops) {
      // A partner that broadcasts into cur's shape, else a scalar.
      Tensor partner;
      for (size_t k = 0; k < pool.size(); ++k) {
        const Tensor& p = pool[(op.partner + k) % pool.size()];
        if (p.dim() <= cur.dim() && broadcasts_into(p.sizes(), cur.sizes())) {
          partner = p;
          break;
        }
      }
      switch (op.kind) {
        case 0:
        case 1:
        case 2: {
          static const std::vector<std::function<Tensor(const Tensor&)>> unary = {
              [](const Tensor& x) { return ops::tanh(x); },
              [](const Tensor& x) { return ops::sigmoid(x); },
              [](const Tensor& x) { return ops::relu(x); },
              [](const Tensor& x) { return ops::abs(x); },
              [](const Tensor& x) { return ops::neg(x); },
              [](const Tensor& x) { return ops::silu(x); },
              [](const Tensor& x) { return ops::gelu(x); },
              [](const Tensor& x) { return ops::gelu(x, "tanh"); },
              [](const Tensor& x) { return ops::leaky_relu(x, 0.2); },
              [](const Tensor& x) { return ops::clamp(x, -1.0, 0.5); },
              [](const Tensor& x) { return ops::swish(x); },
              [](const Tensor& x) { return ops::pow(x, 2.0); },
              [](const Tensor& x) { return ops::exp(ops::tanh(x)); },
              [](const Tensor& x) { return ops::sqrt(ops::abs(x)); },
              [](const Tensor& x) { return ops::rsqrt(ops::abs(x) + 1.0); },
              [](const Tensor& x) { return ops::log(ops::abs(x) + 1.0); },
          };
          cur = unary[op.which % unary.size()](cur);
          break;
        }
        case 3:
        case 4:
        case 5: {
          const Tensor& p = partner;
          switch (op.which % 7) {
            case 0:
              cur = cur + p;
              break;
            case 1:
              cur = p - cur;
              break;
            case 2:
              cur = cur * p;
              break;
            case 3:
              cur = ops::maximum(cur, p);
              break;
            case 4:
              cur = ops::minimum(p, cur);
              break;
            case 5:
              cur = cur * op.scalar;
              break;
            default:
              cur = cur / (op.scalar == 0.0 ? 4.0 : op.scalar);
              break;
          }
          break;
        }
        case 6:
          if (cur.dim() >= 2) cur = cur.transpose(0, 1);
          break;
        case 7:
          cur = cur.reshape({-1, cur.size(-1)});
          break;
        case 8: {
          const int which = op.which % 3;
          cur = which == 0   ? ops::sum(cur, {-1}, true)
                : which == 1 ? ops::mean(cur, {-1}, true)
                             : ops::amax(cur, {-1}, true);
          break;
        }
        case 9:
          cur = op.which % 2 ? ops::softmax(cur, -1) : ops::layer_norm(cur, {cur.size(-1)});
          break;
        case 10:
          cur = ops::matmul(cur, cur.transpose(-2, -1).contiguous()) * 0.25;
          break;
        default:
          cur = ops::linear(cur, linear_weight(1 + op.which % 9, cur.size(-1), cur.device()));
          break;
      }
      pool.push_back(cur);
    }
    return {cur, pool[pool.size() / 2]};
  }

  static bool broadcasts_into(const Shape& a, const Shape& b) {
    for (size_t k = 0; k < a.size(); ++k) {
      const int64_t sa = a[a.size() - 1 - k], sb = b[b.size() - 1 - k];
      if (sa != 1 && sa != sb) return false;
    }
    return true;
  }
  // A fixed weight per (out, in, device): the same tensor on every call of the forward,
  // as a model's parameters are.
  static Tensor linear_weight(int64_t out, int64_t in, Device device) {
    static std::map<std::string, Tensor> cache;
    const std::string key = std::to_string(out) + "x" + std::to_string(in) + device.str();
    auto it = cache.find(key);
    if (it == cache.end())
      it = cache.emplace(key, (Tensor::randn({out, in}, out * 131 + in) * 0.3).to(device)).first;
    return it->second;
  }
};

TEST(CompileRandomGraphs, CpuReplayIsBitIdenticalToEager) {
  int compiled_graphs = 0, norm_groups = 0, written_twice = 0;
  for (uint64_t seed = 0; seed < 2000; ++seed) {
    const RandomGraph r = RandomGraph::draw(seed);
    auto m = std::make_shared<FnModule>([&r](const std::vector<Tensor>& in) { return r(in); });
    auto compiled = compile(m);
    for (uint64_t round = 0; round < 2; ++round) {  // records, then replays
      const std::vector<Tensor> in = {Tensor::randn(r.shape, seed * 7 + round),
                                      Tensor::randn({r.shape.back()}, seed * 7 + round + 3)};
      const std::vector<Tensor> got = (*compiled)(in), want = r(in);
      ASSERT_EQ(got.size(), want.size());
      for (size_t k = 0; k < got.size(); ++k)
        ASSERT_TRUE(bit_equal(got[k], want[k])) << "seed " << seed << "\n" << compiled->explain();
    }
    ASSERT_EQ(compiled->recordings(), 1u) << seed;
    ++compiled_graphs;
    // The fusion decisions on the same graph (backend-neutral): each node in one group at
    // most; a norm group's second output is read by none of its nodes and by no node that
    // runs before the group (at its last node).
    const graph::Graph& g = compiled->program()->graph;
    std::vector<int> owner(g.nodes.size(), -1);
    for (const graph::Group& grp : graph::find_groups(g)) {
      for (int n : grp.nodes) {
        ASSERT_EQ(owner[n], -1) << "seed " << seed << ": node " << n << " in two groups";
        owner[n] = grp.nodes.front();
      }
      norm_groups += grp.kind == graph::Group::Kind::kNorm;
      if (grp.pre < 0) continue;
      for (size_t i = 0; i < g.nodes.size(); ++i) {
        for (int v : g.nodes[i].inputs) {
          if (v < 0 || graph::root_of(g, v) != grp.pre) continue;
          const bool the_norm =
              owner[i] == grp.nodes.front() && (g.nodes[i].kind == ops::OpKind::kLayerNorm ||
                                                g.nodes[i].kind == ops::OpKind::kRmsNorm);
          ASSERT_TRUE(static_cast<int>(i) > grp.nodes.back() || the_norm)
              << "seed " << seed << ": node " << i << " reads the norm group's input";
        }
      }
    }
    // Each group runs as one step: with every group contracted to one unit, the graph
    // keeps no cycle (a pointwise DAG never closes one through the nodes outside it).
    for (const graph::Group& grp : graph::find_groups(g))
      written_twice += grp.kind == graph::Group::Kind::kPointwise && grp.outputs.size() > 1;
    const size_t count = g.nodes.size();
    const auto unit = [&](size_t n) { return owner[n] >= 0 ? static_cast<size_t>(owner[n]) : n; };
    std::vector<std::vector<size_t>> after(count);
    std::vector<int> waiting(count, 0);
    for (size_t i = 0; i < count; ++i) {
      for (int v : g.nodes[i].inputs) {
        const int r = graph::root_of(g, v);
        if (r < 0 || g.values[r].kind != graph::ValueKind::kNode) continue;
        const size_t from = unit(static_cast<size_t>(g.values[r].index)), to = unit(i);
        if (from == to) continue;
        after[from].push_back(to);
        ++waiting[to];
      }
    }
    std::vector<size_t> ready;
    for (size_t u = 0; u < count; ++u)
      if (unit(u) == u && waiting[u] == 0) ready.push_back(u);
    size_t units = 0, done = 0;
    for (size_t u = 0; u < count; ++u) units += unit(u) == u;
    while (!ready.empty()) {
      const size_t u = ready.back();
      ready.pop_back();
      ++done;
      for (size_t t : after[u])
        if (--waiting[t] == 0) ready.push_back(t);
    }
    ASSERT_EQ(done, units) << "seed " << seed << ": the groups form a cycle\n" << g.str();
  }
  EXPECT_EQ(compiled_graphs, 2000);
  EXPECT_GT(norm_groups, 0);
  EXPECT_GT(written_twice, 0);  // DAG groups with a second output occur
}

TEST(CompileRandomGraphs, CudaFusedMatchesTheCpuReference) {
  TT_REQUIRE_CUDA();
  int fused_groups = 0;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    const RandomGraph r = RandomGraph::draw(seed);
    auto m = std::make_shared<FnModule>([&r](const std::vector<Tensor>& in) { return r(in); });
    auto compiled = compile(m);
    for (uint64_t round = 0; round < 2; ++round) {
      const std::vector<Tensor> in = {Tensor::randn(r.shape, seed * 7 + round),
                                      Tensor::randn({r.shape.back()}, seed * 7 + round + 3)};
      const std::vector<Tensor> want = r(in);
      const std::vector<Tensor> got =
          (*compiled)({in[0].to(Device::cuda(0)), in[1].to(Device::cuda(0))});
      for (size_t k = 0; k < got.size(); ++k) {
        ASSERT_EQ(got[k].sizes(), want[k].sizes()) << seed;
        // Relative L2, or absolute where a result is all cancellation (a sum over a
        // layer_norm's row is ~1e-7 of noise on either device).
        const double rel = rel_l2(got[k], want[k]), abs = max_abs_diff(got[k], want[k]);
        ASSERT_TRUE(rel <= 1e-5 || abs <= 1e-5)
            << "seed " << seed << " output " << k << ": relative L2 " << rel << ", max |diff| "
            << abs << "\n"
            << compiled->explain();
      }
    }
    for (const graph::Step& s : compiled->program()->steps)
      fused_groups += s.kind == graph::Step::Kind::kFused;
  }
  // Most random graphs have at least one fusable chain.
  EXPECT_GT(fused_groups, 100);
}

// Whether device 0 runs the sm90 tensor-core GEMM family (accurate's GEMMs).
bool gemm_tc_device() {
#if TT_CUDA
  return tt::ops::cuda::gemm::tc_device_supported(0);
#else
  return false;
#endif
}

// The block on CUDA in strict, tf32 and accurate against the CPU reference: in strict the
// GEMMs stay cuBLASLt's (it applies the bias, the chain kernel the rest); in tf32 fc1's
// GELU moves into the tensor-core kernel's epilogue; in accurate every GEMM is the
// tensor-core kernel's, the residual adds of proj and fc2 in its epilogue too.
TEST(Compile, TransformerBlockOnCudaMatchesTheCpuReference) {
  TT_REQUIRE_CUDA();
  auto block = small_block();
  const Tensor x = Tensor::randn({2, 8, 32}, 1);
  const Tensor want = (*block)(x);
  block->to(Device::cuda(0));
  auto compiled = compile(block);
  expect_every_mode_matches(
      *compiled, x.to(Device::cuda(0)), want, [](Precision mode, const std::string& report) {
        EXPECT_NE(report.find("gemm+epilogue: linear -> gelu"), std::string::npos) << report;
        if (mode == Precision::accurate && gemm_tc_device()) {
          EXPECT_NE(report.find("[add_column,add_residual] on impl=tc"), std::string::npos)
              << report;
          EXPECT_EQ(report.find("then chain [add"), std::string::npos) << report;
          return;
        }
        if (mode == Precision::accurate) return;  // no tc family here: the strict kernels
        // The residual adds after proj and fc2 are cuBLASLt's C matrix in strict and tf32.
        EXPECT_NE(report.find("[add_column,add_residual] on impl=cublaslt"), std::string::npos)
            << report;
        EXPECT_NE(report.find("kernel: scaled_dot_product_attention (scale 0.353553) into the "
                              "merged heads' layout"),
                  std::string::npos)
            << report;
        EXPECT_NE(report.find(mode == Precision::strict ? "[add_column] on impl=cublaslt,algo=0, "
                                                          "then chain [gelu]"
                                                        : "[add_column,gelu] on impl=tc"),
                  std::string::npos)
            << report;
      });
}

// The five seeds, registered as KernelBench's plain-op forwards (shared/SEED_MODELS.md):
// compiled, they compute what they compute eagerly. On the CPU the replay is op by op.
struct SeedCase {
  const char* model;
  const char* kernel;  // the compiled group's kernel line on CUDA ("" for none)
};
const SeedCase kSeedCases[] = {
    {"GemmInstanceNormAddMul", "fused plan gemm[add_column]>segment_norm[add_mul]"},
    {"InstanceNorm2dModel", ""},
    {"GemmSwishBiasGroupNorm", "fused plan gemm[add_column,silu,add_column]>segment_norm[affine]"},
    {"GemmScaleBatchNorm", "fused plan gemm[add_column,mul_column]>batch_norm[train]"},
    {"GemmBiasReLU", "(tuned as gemm[add_column,relu])"},
};

TEST(Compile, SeedModelsCompiledOnCpuMatchTheirEagerForwards) {
  for (const SeedCase& c : kSeedCases) {
    const models::ModelInfo info = models::find_model(c.model);
    auto model = models::build_model(c.model, info.small.init, 1);
    model->eval();  // the batch norm's running statistics stay put between the calls
    const std::vector<Tensor> in = models::random_inputs(info.small.input_shapes, 1);
    const Tensor want = model->forward(in)[0];
    auto compiled = compile(model);
    for (int round = 0; round < 2; ++round)
      EXPECT_LE(rel_l2((*compiled)(in)[0], want), 1e-6) << c.model;
    EXPECT_EQ(compiled->recordings(), 1u);
  }
}

// On CUDA each seed's group is one plan of the fused family, under its structural tuning
// name, and matches the CPU reference; in training mode the running statistics too.
TEST(Compile, SeedModelsCompiledOnCudaAreTheFusedPlans) {
  TT_REQUIRE_CUDA();
  for (const SeedCase& c : kSeedCases) {
    const models::ModelInfo info = models::find_model(c.model);
    auto cpu = models::build_model(c.model, info.small.init, 1);
    const std::vector<Tensor> in = models::random_inputs(info.small.input_shapes, 1);
    const Tensor want = cpu->forward(in)[0];
    cpu->forward(in);  // the running statistics after two forwards
    auto gpu = models::build_model(c.model, info.small.init, 1);
    gpu->to(Device::cuda(0));
    auto compiled = compile(gpu);
    std::vector<Tensor> gin;
    for (const Tensor& t : in) gin.push_back(t.to(Device::cuda(0)));
    (*compiled)(gin);                        // records (eager)
    const Tensor got = (*compiled)(gin)[0];  // the fused replay
    EXPECT_LE(rel_l2(got, want), 1e-5) << c.model << "\n" << compiled->explain();
    const auto cpu_buffers = cpu->named_buffers(), gpu_buffers = gpu->named_buffers();
    ASSERT_EQ(cpu_buffers.size(), gpu_buffers.size());
    for (size_t b = 0; b < cpu_buffers.size(); ++b)
      EXPECT_LE(rel_l2(gpu_buffers[b].second, cpu_buffers[b].second), 1e-5)
          << c.model << " " << cpu_buffers[b].first;
    if (*c.kernel) {
      EXPECT_NE(compiled->explain().find(c.kernel), std::string::npos) << compiled->explain();
    }
  }
}

// CompileOptions::cuda_graph on the CPU: nothing to capture, the replay runs op by op and
// the report says why.
TEST(CompileCudaGraph, OnTheCpuTheReplayRunsAsWithoutIt) {
  auto block = small_block();
  const Tensor x = Tensor::randn({2, 8, 32}, 1);
  const Tensor want = (*block)(x);
  CompileOptions options;
  options.cuda_graph = true;
  auto compiled = compile(block, options);
  for (int call = 0; call < 4; ++call) EXPECT_EQ(rel_l2((*compiled)({x})[0], want), 0.0);
  EXPECT_NE(compiled->explain().find("replay: not a CUDA graph: an input is on the CPU\n"),
            std::string::npos)
      << compiled->explain();
}

// On CUDA the third call captures the replay and launches it; a call with the same
// input tensors launches the graph as it is (writing the same output tensors), one with
// other tensors captures again. Every launch gives what the plain replay gives bit for
// bit, and updates the running statistics as the plain replay does.
TEST(CompileCudaGraph, LaunchesMatchThePlainReplayBitForBit) {
  TT_REQUIRE_CUDA();
  const Device gpu = Device::cuda(0);
  for (const char* name : {"GemmScaleBatchNorm", "GemmSwishBiasGroupNorm"}) {
    const models::ModelInfo info = models::find_model(name);
    auto plain_model = models::build_model(name, info.small.init, 2);
    auto graph_model = models::build_model(name, info.small.init, 2);
    plain_model->to(gpu), graph_model->to(gpu);
    CompileOptions options;
    options.cuda_graph = true;
    auto plain = compile(plain_model), graphed = compile(graph_model, options);
    const std::vector<Tensor> a = models::random_inputs(info.small.input_shapes, 10, gpu);
    const std::vector<Tensor> b = models::random_inputs(info.small.input_shapes, 11, gpu);
    Tensor previous;
    int call = 0;
    for (const auto* in : {&a, &a, &a, &a, &b, &a}) {
      const Tensor want = (*plain)(*in)[0].clone();
      const Tensor got = (*graphed)(*in)[0];
      EXPECT_EQ(rel_l2(got, want), 0.0) << name << " call " << call;
      if (call == 3) {
        EXPECT_EQ(got.data_ptr(), previous.data_ptr()) << name;
      }
      previous = got;
      ++call;
    }
    EXPECT_NE(graphed->explain().find("replay: one CUDA graph\n"), std::string::npos)
        << graphed->explain();
    const auto pb = plain_model->named_buffers(), gb = graph_model->named_buffers();
    ASSERT_EQ(pb.size(), gb.size());
    for (size_t i = 0; i < pb.size(); ++i)
      EXPECT_EQ(rel_l2(gb[i].second, pb[i].second), 0.0) << name;
  }
}

// A strided input (here transposed) is read in place by the captured graph too.
TEST(CompileCudaGraph, AStridedInputIsReadInPlace) {
  TT_REQUIRE_CUDA();
  auto block = small_block();
  const Tensor x = Tensor::randn({2, 32, 8}, 1).transpose(1, 2);
  const Tensor want = (*block)(x);
  block->to(Device::cuda(0));
  CompileOptions options;
  options.cuda_graph = true;
  auto compiled = compile(block, options);
  const Tensor xg = Tensor::randn({2, 32, 8}, 1).to(Device::cuda(0)).transpose(1, 2);
  for (int call = 0; call < 4; ++call) EXPECT_LE(rel_l2((*compiled)({xg})[0], want), 1e-5);
  EXPECT_NE(compiled->explain().find("replay: one CUDA graph\n"), std::string::npos)
      << compiled->explain();
}

}  // namespace
}  // namespace tt::test
