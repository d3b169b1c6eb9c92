// The pointwise chain kernel's two paths (ops/cuda/pointwise/chain.h): the source
// generated for a chain compiles with NVRTC for sm_90a without a GPU (every op the chain
// knows, every operand layout, both forms), the disk cache's file name, and on a GPU the
// generated kernel and the interpreter against the ops' functors evaluated on the host,
// per op, with every layout and a transposed operand; DAGs (a step's inputs named, values
// shared, extra outputs) likewise. compile_test's chain cases run
// through tt::compile on both paths too (TT_CHAIN_KERNEL=interpreter for the second).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "support/test_util.h"

#if TT_CUDA
#include "core/cuda/stream.h"
#include "ops/cuda/pointwise/chain.h"
#include "ops/cuda/pointwise/chain_nvrtc.h"
#include "ops/cuda/pointwise/chain_source.h"
#endif

namespace tt::test {
namespace {

#if !TT_CUDA
TEST(ChainSource, NeedsTheCudaBuild) { GTEST_SKIP() << "built without CUDA (TT_CUDA=OFF)"; }
#else

namespace chain = ops::cuda::chain;
namespace pw = ops::pointwise;

constexpr int kUnaryOps = static_cast<int>(pw::UnaryOp::IsInf) + 1;
constexpr int kBinaryOps = static_cast<int>(pw::BinaryOp::LogicalXor) + 1;

// Params that keep every op's result in range and exercise its parameter.
pw::UnaryParams params_of(pw::UnaryOp op) {
  switch (op) {
    case pw::UnaryOp::Pow:
      return {3.0, 0.0};
    case pw::UnaryOp::Clamp:
      return {-0.5, 0.75};
    case pw::UnaryOp::LeakyRelu:
      return {0.1, 0.0};
    case pw::UnaryOp::Fill:
      return {1.25, 0.0};
    default:
      return {0.0, 0.0};
  }
}

// A [rows, cols] chain: operand 0 flat, 1 a row vector, 2 a scalar, 3 a column
// broadcast (strided [1, 0]), 4 x^T (strided [1, rows]).
chain::Chain base_chain(int64_t rows, int64_t cols) {
  chain::Chain c;
  c.rank = 2;
  c.sizes[0] = rows;
  c.sizes[1] = cols;
  c.operand_count = 5;
  c.operands[0].layout = chain::Layout::kFlat;
  c.operands[1].layout = chain::Layout::kRow;
  c.operands[2].layout = chain::Layout::kScalar;
  c.operands[3].layout = chain::Layout::kStrided;
  c.operands[3].strides[0] = 1;
  c.operands[3].strides[1] = 0;
  c.operands[4].layout = chain::Layout::kStrided;
  c.operands[4].strides[0] = 1;
  c.operands[4].strides[1] = rows;
  return c;
}

chain::Step unary(pw::UnaryOp op) { return chain::Step::of(op, params_of(op)); }
chain::Step binary(pw::BinaryOp op, int operand, bool operand_first) {
  return chain::Step::of(op, operand, operand_first);
}

// Chains that together hold every op, binary ops reading every layout on both sides.
std::vector<chain::Chain> every_op_chains(int64_t rows, int64_t cols, bool transposed) {
  std::vector<chain::Chain> out;
  chain::Chain c = base_chain(rows, cols);
  if (!transposed) c.operand_count = 4;  // no x^T: the linear form
  for (int op = 0; op < kUnaryOps; ++op) {
    if (c.step_count + 2 > chain::kMaxSteps) {
      out.push_back(c);
      c.step_count = 0;
    }
    // An add before each unary op keeps the values fresh (fill and the predicates
    // would otherwise flatten the rest of the chain).
    c.steps[c.step_count++] = binary(pw::BinaryOp::Add, op % c.operand_count, false);
    c.steps[c.step_count++] = unary(static_cast<pw::UnaryOp>(op));
  }
  out.push_back(c);
  c.step_count = 0;
  for (int op = 0; op < kBinaryOps; ++op) {
    if (c.step_count == chain::kMaxSteps) {
      out.push_back(c);
      c.step_count = 0;
    }
    c.steps[c.step_count++] =
        binary(static_cast<pw::BinaryOp>(op), (op + 1) % c.operand_count, op % 2 == 1);
  }
  out.push_back(c);
  return out;
}

TEST(ChainSource, EveryOpAndLayoutCompilesWithNvrtcForSm90a) {
  chain::ChainConfig cfg;
  int compiled = 0;
  for (const bool transposed : {false, true}) {
    for (const int vec : {1, 4}) {
      if (transposed && vec == 1) continue;  // the tiled form has no vec
      cfg.vec = vec;
      cfg.items = vec == 4 ? 2 : 1;
      for (const chain::Chain& c : every_op_chains(64, 96, transposed)) {
        EXPECT_EQ(chain::generated_tiled(c), transposed);
        const std::string src = chain::generated_source(c, cfg);
        const chain::NvrtcResult r = chain::nvrtc_compile(src, "sm_90a");
        EXPECT_TRUE(r.ok) << r.log << "\n" << src;
        EXPECT_FALSE(r.cubin.empty());
        ++compiled;
      }
    }
  }
  EXPECT_EQ(compiled, 15);
}

TEST(ChainSource, AFailedCompileReturnsNvrtcsLog) {
  const chain::NvrtcResult r = chain::nvrtc_compile("this is not CUDA", "sm_90a");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.log.find("error"), std::string::npos) << r.log;
}

TEST(ChainSource, TheCacheFileNamesTheSourceHashArchAndNvrtcVersion) {
  chain::Chain c = base_chain(8, 8);
  c.operand_count = 1;
  c.step_count = 1;
  c.steps[0] = unary(pw::UnaryOp::Relu);
  chain::ChainConfig cfg;
  const std::string a = chain::generated_source(c, cfg);
  c.steps[0] = unary(pw::UnaryOp::Tanh);
  const std::string b = chain::generated_source(c, cfg);
  const std::string name = chain::kernel_cache_name(a, "sm_90a");
  EXPECT_EQ(name.rfind("chain-", 0), 0u) << name;
  EXPECT_NE(name.find("-sm_90a-nvrtc" + chain::nvrtc_version() + ".cubin"), std::string::npos)
      << name;
  EXPECT_NE(name, chain::kernel_cache_name(b, "sm_90a"));
  EXPECT_NE(name, chain::kernel_cache_name(a, "sm_100a"));
  EXPECT_EQ(name, chain::kernel_cache_name(a, "sm_90a"));
}

TEST(ChainSource, TheCacheLivesBesideTheTuningDatabase) {
  const char* old = std::getenv("XDG_CACHE_HOME");
  const std::string saved = old ? old : "";
  ::setenv("XDG_CACHE_HOME", "/tmp/tt-chain-test-cache", 1);
  EXPECT_EQ(chain::kernel_cache_dir(), "/tmp/tt-chain-test-cache/tensortune/kernels");
  if (old) {
    ::setenv("XDG_CACHE_HOME", saved.c_str(), 1);
  } else {
    ::unsetenv("XDG_CACHE_HOME");
  }
}

// ---- DAGs (issue 18) ----
chain::Step dag_unary(pw::UnaryOp op, int input, pw::UnaryParams p = {}) {
  chain::Step s = chain::Step::of(op, p);
  s.input = static_cast<int8_t>(input);
  return s;
}
chain::Step dag_binary(pw::BinaryOp op, int a, int b) {
  chain::Step s = chain::Step::of(op, b);
  s.input = static_cast<int8_t>(a);
  return s;
}
constexpr int V(int step) { return chain::kStepRef + step; }

// (a0 + a1) * sigmoid(a2) - a3 (a1 a row, a3 a scalar), with a0 + a1 written too;
// `transposed` reads a2 as x^T (the tiled form).
chain::Chain tree_dag(int64_t rows, int64_t cols, bool transposed) {
  chain::Chain c = base_chain(rows, cols);
  c.operands[2] = transposed ? c.operands[4] : c.operands[0];
  c.operands[3].layout = chain::Layout::kScalar;
  c.operand_count = 4;
  c.steps[c.step_count++] = dag_binary(pw::BinaryOp::Add, 0, 1);
  c.steps[c.step_count++] = dag_unary(pw::UnaryOp::Sigmoid, 2);
  c.steps[c.step_count++] = dag_binary(pw::BinaryOp::Mul, V(0), V(1));
  c.steps[c.step_count++] = dag_binary(pw::BinaryOp::Sub, V(2), 3);
  c.extra_steps[c.extra_count++] = 0;
  return c;
}

// GPT-2's tanh GELU as plain ops: x (operand 0) read by four steps, scalars 1 .. 5.
chain::Chain gelu_dag(int64_t rows, int64_t cols) {
  chain::Chain c;
  c.rank = 2;
  c.sizes[0] = rows, c.sizes[1] = cols;
  c.operand_count = 5;
  for (int k = 1; k < 5; ++k) c.operands[k].layout = chain::Layout::kScalar;
  c.steps[c.step_count++] = dag_unary(pw::UnaryOp::Pow, 0, {3.0, 0.0});  // v0 = x^3
  c.steps[c.step_count++] = dag_binary(pw::BinaryOp::Mul, 1, V(0));      // v1 = c1 * v0
  c.steps[c.step_count++] = dag_binary(pw::BinaryOp::Add, 0, V(1));      // v2 = x + v1
  c.steps[c.step_count++] = dag_binary(pw::BinaryOp::Mul, 2, V(2));      // v3 = c2 * v2
  c.steps[c.step_count++] = dag_unary(pw::UnaryOp::Tanh, V(3));          // v4
  c.steps[c.step_count++] = dag_binary(pw::BinaryOp::Add, 3, V(4));      // v5 = 1 + v4
  c.steps[c.step_count++] = dag_binary(pw::BinaryOp::Mul, 4, 0);         // v6 = 0.5 * x
  c.steps[c.step_count++] = dag_binary(pw::BinaryOp::Mul, V(6), V(5));   // v7
  return c;
}

size_t count_of(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

// The DAG's source is straight-line SSA: each operand loaded once per element (x read by
// four steps is one 16-byte load), each value once in step order, the extra output
// written from its value; it compiles for sm_90a in every form.
TEST(ChainSource, ADagIsStraightLineSsaWithEachInputLoadedOnce) {
  chain::ChainConfig cfg;
  cfg.items = 2;
  const chain::Chain tree = tree_dag(64, 96, false);
  EXPECT_TRUE(tree.dag());
  EXPECT_EQ(tree.str(), "add(a0 a1),sigmoid(a2),mul(v0 v1),sub(v2 a3),out(v0)");
  const std::string src = chain::generated_source(tree, cfg);
  for (const char* line :
       {"float* __restrict__ out, float* __restrict__ out1) {", "const float x0 = r0[u][j];",
        "const float x3 = s3;", "const float v0 = pw::AddFn{}(x0, x1);",
        "const float v1 = pw::SigmoidFn{{", "const float v2 = pw::MulFn{}(v0, v1);",
        "const float v3 = pw::SubFn{}(v2, x3);", "o[0][j] = v3;", "o[1][j] = v0;",
        "*reinterpret_cast<float4*>(out1 + e) = make_float4(o[1][0]"})
    EXPECT_EQ(count_of(src, line), 1u) << line << "\n" << src;
  EXPECT_EQ(count_of(src, "const float v"), 4u) << src;

  const chain::Chain gelu = gelu_dag(64, 96);
  const std::string g = chain::generated_source(gelu, cfg);
  EXPECT_EQ(count_of(g, "reinterpret_cast<const float4*>(a0"), 1u) << g;
  EXPECT_EQ(count_of(g, "const float x0 = "), 1u) << g;
  EXPECT_EQ(count_of(g, "(x0"), 2u) << g;    // pow(x0) and x0 + ...
  EXPECT_EQ(count_of(g, ", x0)"), 1u) << g;  // 0.5 * x0
  EXPECT_EQ(count_of(g, "const float v7 = pw::MulFn{}(v6, v5);"), 1u) << g;

  int compiled = 0;
  for (const chain::Chain& c : {tree, gelu, tree_dag(64, 96, true)}) {
    for (const int vec : {1, 4}) {
      cfg.vec = vec;
      const std::string text = chain::generated_source(c, cfg);
      const chain::NvrtcResult r = chain::nvrtc_compile(text, "sm_90a");
      EXPECT_TRUE(r.ok) << r.log << "\n" << text;
      ++compiled;
    }
  }
  EXPECT_EQ(compiled, 6);
  EXPECT_TRUE(chain::generated_tiled(tree_dag(64, 96, true)));
}

// The cache key (the source's hash) and the tuning key (str()) cover the whole structure:
// the same ops over other refs are another kernel.
TEST(ChainSource, TheKeysCoverTheDagsStructure) {
  const chain::ChainConfig cfg;
  chain::Chain a = tree_dag(64, 96, false);
  chain::Chain b = a;
  b.steps[2] = dag_binary(pw::BinaryOp::Mul, V(1), V(0));  // sigmoid(a2) * (a0 + a1)
  chain::Chain c = a;
  c.extra_count = 0;  // a0 + a1 not written
  EXPECT_NE(a.str(), b.str());
  EXPECT_NE(a.str(), c.str());
  const std::string sa = chain::generated_source(a, cfg), sb = chain::generated_source(b, cfg),
                    sc = chain::generated_source(c, cfg);
  EXPECT_NE(chain::kernel_cache_name(sa, "sm_90a"), chain::kernel_cache_name(sb, "sm_90a"));
  EXPECT_NE(chain::kernel_cache_name(sa, "sm_90a"), chain::kernel_cache_name(sc, "sm_90a"));
  // A chain written with refs that are the chain form's is still a chain.
  chain::Chain straight = base_chain(8, 8);
  straight.operand_count = 2;
  straight.step_count = 2;
  straight.steps[0] = chain::Step::of(pw::BinaryOp::Mul, 1);
  straight.steps[1] = unary(pw::UnaryOp::Relu);
  EXPECT_FALSE(straight.dag());
  EXPECT_EQ(straight.str(), "mul,relu");
}

// A chain the generated kernel cannot run goes to the interpreter, and the reason is
// what explain() shows for its group.
TEST(ChainSource, AChainTheGeneratorRefusesRunsOnTheInterpreterWithTheReason) {
  chain::Chain c = base_chain(8, 8);
  c.operand_count = 1;
  c.operands[0].layout = chain::Layout::kStrided;
  c.operands[0].strides[0] = -8;
  c.operands[0].strides[1] = 1;
  c.step_count = 1;
  c.steps[0] = unary(pw::UnaryOp::Relu);
  chain::set_chain_kernel(chain::ChainKernel::kGenerated);
  const chain::PreparedChain p = chain::prepare_chain(c, {}, 0);
  EXPECT_EQ(p.generated, nullptr);
  EXPECT_EQ(p.how,
            "interpreter: the generated kernel cannot run it (operand 0 has a negative stride)");
  chain::set_chain_kernel(chain::ChainKernel::kInterpreter);
  EXPECT_EQ(chain::prepare_chain(c, {}, 0).how, "interpreter (chosen)");
  chain::set_chain_kernel(chain::ChainKernel::kGenerated);
}

// The chain on the host, element by element, with the same functors (a DAG's refs and
// extra outputs too).
std::vector<float> host_chain(const chain::Chain& c, const std::vector<std::vector<float> >& in) {
  int64_t n = 1;
  for (int d = 0; d < c.rank; ++d) n *= c.sizes[d];
  // The last step's values, then each extra output's.
  std::vector<float> out(static_cast<size_t>(n * (1 + c.extra_count)));
  for (int64_t i = 0; i < n; ++i) {
    int64_t idx[chain::kMaxRank] = {};
    for (int64_t d = c.rank - 1, rest = i; d >= 0; --d) {
      idx[d] = rest % c.sizes[d];
      rest /= c.sizes[d];
    }
    const auto operand = [&](int k) {
      const chain::Operand& o = c.operands[k];
      switch (o.layout) {
        case chain::Layout::kFlat:
          return in[k][i];
        case chain::Layout::kRow:
          return in[k][idx[c.rank - 1]];
        case chain::Layout::kScalar:
          return in[k][0];
        case chain::Layout::kStrided: {
          int64_t off = 0;
          for (int d = 0; d < c.rank; ++d) off += idx[d] * o.strides[d];
          return in[k][off];
        }
      }
      return 0.f;
    };
    std::vector<float> v(static_cast<size_t>(c.step_count));
    const auto ref = [&](int r) {
      return r >= chain::kStepRef ? v[static_cast<size_t>(r - chain::kStepRef)] : operand(r);
    };
    for (int s = 0; s < c.step_count; ++s) {
      const chain::Step& st = c.steps[s];
      const float a = ref(c.input_of(s));
      if (!st.binary) {
        v[s] = pw::with_functor(static_cast<pw::UnaryOp>(st.op), [&](auto* fn) {
          using Fn = std::remove_pointer_t<decltype(fn)>;
          return static_cast<float>(Fn{st.params}(a));
        });
      } else {
        const float w = ref(st.operand);
        v[s] = pw::with_functor(static_cast<pw::BinaryOp>(st.op), [&](auto* fn) {
          using Fn = std::remove_pointer_t<decltype(fn)>;
          return static_cast<float>(st.operand_first ? Fn{}(w, a) : Fn{}(a, w));
        });
      }
    }
    out[static_cast<size_t>(i)] = v.back();
    for (int x = 0; x < c.extra_count; ++x)
      out[static_cast<size_t>((x + 1) * n + i)] = v[static_cast<size_t>(c.extra_steps[x])];
  }
  return out;
}

void expect_close(const std::vector<float>& got, const std::vector<float>& want,
                  const std::string& what) {
  ASSERT_EQ(got.size(), want.size());
  int bad = 0;
  for (size_t i = 0; i < got.size() && bad < 5; ++i) {
    const float g = got[i], w = want[i];
    if (std::isnan(w) ? std::isnan(g) : std::fabs(g - w) <= 1e-5f * (1.f + std::fabs(w))) continue;
    ++bad;
    ADD_FAILURE() << what << ": element " << i << " got " << g << ", want " << w;
  }
}

// Every op on both kernels, the square shape both untransposed and through the tiled
// form, an odd shape for the vec-1 path and the tiles' edges.
TEST(ChainKernel, BothKernelsMatchTheFunctorsOnTheHostForEveryOp) {
  TT_REQUIRE_CUDA();
  const Device gpu = Device::cuda(0);
  for (const auto& [rows, cols] : {std::pair<int64_t, int64_t>{96, 128}, {37, 45}}) {
    std::vector<Tensor> dev;
    std::vector<std::vector<float> > host;
    const Shape shapes[5] = {{rows, cols}, {cols}, {1}, {rows}, {cols, rows}};
    for (int k = 0; k < 5; ++k) {
      const Tensor t = Tensor::randn(shapes[k], 10 + k + rows);
      host.push_back(t.to_vector<float>());
      dev.push_back(t.to(gpu));
    }
    for (const bool transposed : {false, true}) {
      for (chain::Chain c : every_op_chains(rows, cols, transposed)) {
        for (int k = 0; k < c.operand_count; ++k) c.operands[k].data = dev[k].data<float>();
        const std::vector<float> want = host_chain(c, host);
        for (const auto kernel :
             {chain::ChainKernel::kGenerated, chain::ChainKernel::kInterpreter}) {
          chain::set_chain_kernel(kernel);
          chain::ChainConfig cfg;
          cfg.items = 2;
          const chain::PreparedChain p = chain::prepare_chain(c, cfg, 0);
          const bool generated = kernel == chain::ChainKernel::kGenerated;
          EXPECT_EQ(p.generated != nullptr, generated) << p.how;
          Tensor out = Tensor::full({rows, cols}, 12345.0, DType::F32, gpu);
          chain::run_chain(c, out.data<float>(), out.numel(), cfg, 0, tt::cuda::stream(0), &p);
          expect_close(out.to_vector<float>(), want,
                       fmt::format("[{}] {}x{} {}", c.str(), rows, cols, p.how));
        }
      }
    }
  }
  chain::set_chain_kernel(chain::ChainKernel::kGenerated);
}

// Rank 3: the tiled form's outer dim (a batch of transposes, x.transpose(1, 2)), a
// broadcast over the middle dim read 16 bytes at a time, a column broadcast; and an
// operand 4 bytes off 16-byte alignment, which the vec-4 generated kernel cannot load:
// that launch runs on the interpreter, with the same result.
TEST(ChainKernel, Rank3LayoutsAndAMisalignedOperand) {
  TT_REQUIRE_CUDA();
  const Device gpu = Device::cuda(0);
  const int64_t B = 3, R = 20, C = 36;
  const Tensor x = Tensor::randn({B, R, C}, 1), xt = Tensor::randn({B, C, R}, 2);
  const Tensor mid = Tensor::randn({B, 1, C}, 3), col = Tensor::randn({R, 1}, 4);
  const std::vector<std::vector<float> > host = {x.to_vector<float>(), mid.to_vector<float>(),
                                                 col.to_vector<float>(), xt.to_vector<float>()};
  const std::vector<Tensor> dev = {x.to(gpu), mid.to(gpu), col.to(gpu), xt.to(gpu)};
  chain::Chain c;
  c.rank = 3;
  c.sizes[0] = B, c.sizes[1] = R, c.sizes[2] = C;
  c.operand_count = 3;
  c.operands[0].layout = chain::Layout::kFlat;
  c.operands[1].layout = chain::Layout::kStrided;  // [B, 1, C]
  c.operands[1].strides[0] = C, c.operands[1].strides[1] = 0, c.operands[1].strides[2] = 1;
  c.operands[2].layout = chain::Layout::kStrided;  // [R, 1]
  c.operands[2].strides[0] = 0, c.operands[2].strides[1] = 1, c.operands[2].strides[2] = 0;
  c.operands[3].layout = chain::Layout::kStrided;  // [B, C, R] transposed
  c.operands[3].strides[0] = C * R, c.operands[3].strides[1] = 1, c.operands[3].strides[2] = R;
  c.steps[c.step_count++] = binary(pw::BinaryOp::Mul, 1, false);
  c.steps[c.step_count++] = unary(pw::UnaryOp::Tanh);
  c.steps[c.step_count++] = binary(pw::BinaryOp::Sub, 2, true);
  for (int k = 0; k < 4; ++k) c.operands[k].data = dev[k].data<float>();
  chain::set_chain_kernel(chain::ChainKernel::kGenerated);
  for (const bool transposed : {false, true}) {
    if (transposed) {
      c.operand_count = 4;
      c.steps[c.step_count++] = binary(pw::BinaryOp::Add, 3, false);
    }
    const chain::PreparedChain p = chain::prepare_chain(c, {}, 0);
    ASSERT_NE(p.generated, nullptr) << p.how;
    EXPECT_EQ(chain::generated_tiled(c), transposed);
    EXPECT_EQ(p.vec4, !transposed);
    Tensor out = Tensor::full({B, R, C}, 12345.0, DType::F32, gpu);
    chain::run_chain(c, out.data<float>(), out.numel(), {}, 0, tt::cuda::stream(0), &p);
    expect_close(out.to_vector<float>(), host_chain(c, host), c.str() + " " + p.how);
  }
  // Operand 0 read from one float into a larger buffer: 4 bytes past 16-byte alignment.
  const Tensor shifted = Tensor::randn({B * R * C + 1}, 5);
  const Tensor shifted_gpu = shifted.to(gpu);
  std::vector<std::vector<float> > moved = host;
  const std::vector<float> all = shifted.to_vector<float>();
  moved[0].assign(all.begin() + 1, all.end());
  c.operands[0].data = shifted_gpu.data<float>() + 1;
  c.operand_count = 3;
  c.step_count = 3;
  const chain::PreparedChain p = chain::prepare_chain(c, {}, 0);
  ASSERT_TRUE(p.vec4) << p.how;
  Tensor out = Tensor::full({B, R, C}, 12345.0, DType::F32, gpu);
  chain::run_chain(c, out.data<float>(), out.numel(), {}, 0, tt::cuda::stream(0), &p);
  expect_close(out.to_vector<float>(), host_chain(c, moved), "misaligned operand 0");
}

// A second load of the same source is the in-memory entry; a fresh process reads the
// disk cache (the bench's cached-load timing is that case).
TEST(ChainKernel, ASecondPrepareIsServedFromMemory) {
  TT_REQUIRE_CUDA();
  chain::Chain c = base_chain(40, 64);
  c.operand_count = 2;
  c.step_count = 2;
  c.steps[0] = binary(pw::BinaryOp::Mul, 1, false);
  c.steps[1] = unary(pw::UnaryOp::Silu);
  chain::set_chain_kernel(chain::ChainKernel::kGenerated);
  const chain::PreparedChain a = chain::prepare_chain(c, {}, 0);
  const chain::PreparedChain b = chain::prepare_chain(c, {}, 0);
  ASSERT_NE(a.generated, nullptr) << a.how;
  EXPECT_EQ(a.generated, b.generated);
  EXPECT_EQ(b.how, "nvrtc in memory");
}

// DAGs on both kernels against the host: the tree with its extra output (linear and
// tiled forms), GELU's shared x, an odd shape for the vec-1 path. The interpreter runs a
// DAG whole, and says so.
TEST(ChainKernel, DagsOnBothKernelsMatchTheHost) {
  TT_REQUIRE_CUDA();
  const Device gpu = Device::cuda(0);
  for (const auto& [rows, cols] : {std::pair<int64_t, int64_t>{96, 128}, {37, 45}}) {
    const Shape shapes[5] = {{rows, cols}, {cols}, {rows, cols}, {1}, {1}};
    const Shape transposed_shape = {cols, rows};
    std::vector<Tensor> dev;
    std::vector<std::vector<float> > host;
    for (int k = 0; k < 5; ++k) {
      const Tensor t = Tensor::randn(shapes[k], 20 + k + rows);
      host.push_back(t.to_vector<float>());
      dev.push_back(t.to(gpu));
    }
    const Tensor xt = Tensor::randn(transposed_shape, 30 + rows);
    const Tensor xt_gpu = xt.to(gpu);
    std::vector<chain::Chain> dags = {tree_dag(rows, cols, false), tree_dag(rows, cols, true),
                                      gelu_dag(rows, cols)};
    for (size_t d = 0; d < dags.size(); ++d) {
      chain::Chain c = dags[d];
      std::vector<std::vector<float> > in = host;
      for (int k = 0; k < c.operand_count; ++k) c.operands[k].data = dev[k].data<float>();
      if (d == 1) {  // operand 2 read as x^T
        c.operands[2].data = xt_gpu.data<float>();
        in[2] = xt.to_vector<float>();
      }
      if (d == 2) {  // GELU's constants
        const float consts[4] = {0.044715f, 0.7978845608f, 1.f, 0.5f};
        for (int k = 1; k < 5; ++k) {
          in[k] = {consts[k - 1]};
          dev[k] = Tensor::full({1}, consts[k - 1], DType::F32, gpu);
          c.operands[k].data = dev[k].data<float>();
        }
      }
      const std::vector<float> want = host_chain(c, in);
      for (const auto kernel : {chain::ChainKernel::kGenerated, chain::ChainKernel::kInterpreter}) {
        chain::set_chain_kernel(kernel);
        const chain::PreparedChain p = chain::prepare_chain(c, {}, 0);
        const bool generated = kernel == chain::ChainKernel::kGenerated;
        EXPECT_EQ(p.generated != nullptr, generated) << p.how;
        if (!generated) {
          EXPECT_EQ(p.how,
                    "interpreter (chosen); it runs the DAG as one kernel, its values in local "
                    "memory");
        }
        std::vector<Tensor> outs;
        for (int x = 0; x <= c.extra_count; ++x) {
          outs.push_back(Tensor::full({rows, cols}, 12345.0, DType::F32, gpu));
          if (x > 0) c.extra_data[x - 1] = outs.back().data<float>();
        }
        chain::run_chain(c, outs[0].data<float>(), outs[0].numel(), {}, 0, tt::cuda::stream(0), &p);
        std::vector<float> got;
        for (const Tensor& o : outs) {
          const std::vector<float> part = o.to_vector<float>();
          got.insert(got.end(), part.begin(), part.end());
        }
        expect_close(got, want, fmt::format("[{}] {}x{} {}", c.str(), rows, cols, p.how));
      }
    }
  }
  chain::set_chain_kernel(chain::ChainKernel::kGenerated);
}

#endif  // TT_CUDA

}  // namespace
}  // namespace tt::test
