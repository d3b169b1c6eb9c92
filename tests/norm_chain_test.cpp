// Norms with chains (issues 18 and 22): layer_norm and rms_norm after a GEMM group join the
// GEMM + norm plan (GEMM + bias + GELU + LayerNorm is one plan, defined here as a plain-op
// model, no file under ops/ or models/ naming it), and a norm alone takes the pointwise
// chain that computes its input (writing that input too when the graph reads it
// elsewhere: the residual stream) and the one after it. Checked on the CPU: the fusion
// decisions, the compiled replay against eager, the plans' stages (a dry run, with CUDA
// built) and their structural tuning names (the shipped databases' keys); on a GPU:
// compiled CUDA against the CPU reference.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/layers.h"
#include "ops/graph/compile.h"
#include "ops/graph/fusion.h"
#include "ops/graph/program.h"
#include "ops/ops.h"
#include "support/fn_module.h"
#include "support/test_util.h"

#if TT_CUDA
#include <cmath>

#include "core/cuda/runtime.h"
#include "core/cuda/stream.h"
#include "ops/cuda/fused/pattern.h"
#include "ops/cuda/norm/norm_passes.h"
#endif

namespace tt::test {
namespace {

// GEMM + bias + GELU + a row norm (layer_norm with affine, or rms_norm with weight), then
// optionally a ReLU after the norm.
class GemmGeluNorm : public Module {
 public:
  GemmGeluNorm(int64_t in, int64_t out, bool rms, bool relu_after)
      : rms_(rms), relu_after_(relu_after) {
    fc_ = std::make_shared<nn::Linear>(in, out, true, 11);
    register_module("fc", fc_);
    gamma_ = register_parameter("norm_weight", Tensor::randn({out}, 12));
    beta_ = register_parameter("norm_bias", Tensor::randn({out}, 13));
  }
  std::vector<Tensor> forward(const std::vector<Tensor>& in) override {
    const Tensor h = ops::gelu((*fc_)(in[0]));
    const int64_t n = h.size(-1);
    Tensor y = rms_ ? ops::rms_norm(h, {n}, gamma_, 1e-5) : ops::layer_norm(h, {n}, gamma_, beta_);
    if (relu_after_) y = ops::relu(y);
    return {y};
  }
  std::string name() const override { return "GemmGeluNorm"; }

 private:
  bool rms_, relu_after_;
  std::shared_ptr<nn::Linear> fc_;
  Tensor gamma_, beta_;
};

// The residual stream around a pre-LN sublayer: h = x + a; y = relu(layer_norm(h));
// returns h + y and y. h is the norm's input and read again after it.
class ResidualNorm : public Module {
 public:
  explicit ResidualNorm(int64_t n, bool rms) : rms_(rms) {
    gamma_ = register_parameter("weight", Tensor::randn({n}, 21));
    beta_ = register_parameter("bias", Tensor::randn({n}, 22));
    scale_ = register_parameter("scale", Tensor::randn({n}, 23));
  }
  std::vector<Tensor> forward(const std::vector<Tensor>& in) override {
    const Tensor h = in[0] * scale_ + in[1];
    const int64_t n = h.size(-1);
    const Tensor y =
        ops::relu(rms_ ? ops::rms_norm(h, {n}, gamma_) : ops::layer_norm(h, {n}, gamma_, beta_));
    return {h + y, y};
  }
  std::string name() const override { return "ResidualNorm"; }

 private:
  bool rms_;
  Tensor gamma_, beta_, scale_;
};

std::vector<std::string> groups_of(const std::shared_ptr<Module>& m,
                                   const std::vector<Tensor>& in) {
  auto compiled = compile(m);
  (*compiled)(in);
  const graph::Graph& g = compiled->program()->graph;
  std::vector<std::string> groups;
  for (const graph::Group& grp : graph::find_groups(g)) groups.push_back(graph::group_str(g, grp));
  return groups;
}

bool bit_equal(const Tensor& a, const Tensor& b) {
  return a.sizes() == b.sizes() && a.to_vector<float>() == b.to_vector<float>();
}

TEST(NormChainGroups, RowNormsAfterAGemmJoinItsGroup) {
  const Tensor x = Tensor::randn({2, 6, 16}, 1);
  EXPECT_EQ(groups_of(std::make_shared<GemmGeluNorm>(16, 32, false, false), {x}),
            (std::vector<std::string>{"gemm+norm: linear -> gelu -> layer_norm"}));
  EXPECT_EQ(groups_of(std::make_shared<GemmGeluNorm>(16, 32, true, true), {x}),
            (std::vector<std::string>{"gemm+norm: linear -> gelu -> rms_norm -> relu"}));
}

TEST(NormChainGroups, ANormAloneTakesItsPrologueAndEpilogueAndWritesItsInput) {
  const Tensor x = Tensor::randn({3, 5, 16}, 1), a = Tensor::randn({3, 5, 16}, 2);
  // h + y reads h, the norm's input: not a step of the group, which writes h instead.
  EXPECT_EQ(groups_of(std::make_shared<ResidualNorm>(16, false), {x, a}),
            (std::vector<std::string>{
                "norm: mul -> add -> layer_norm -> relu, writing the norm's input too"}));
  EXPECT_EQ(groups_of(std::make_shared<ResidualNorm>(16, true), {x, a}),
            (std::vector<std::string>{
                "norm: mul -> add -> rms_norm -> relu, writing the norm's input too"}));
  // A step after the norm that reads the norm's input stays out of the group.
  auto stream = std::make_shared<FnModule>([](const std::vector<Tensor>& in) {
    const Tensor h = in[0] + in[1];
    return std::vector<Tensor>{h + ops::relu(ops::layer_norm(h, {16}))};
  });
  EXPECT_EQ(
      groups_of(stream, {x, a}),
      (std::vector<std::string>{"norm: add -> layer_norm -> relu, writing the norm's input too"}));
  // A norm whose input is read by another op before it keeps its prologue apart (the
  // group would write that input only after the reader ran); the add and that reader
  // form a pointwise DAG instead, which writes h for the norm.
  auto early = std::make_shared<FnModule>([](const std::vector<Tensor>& in) {
    const Tensor h = in[0] + in[1];
    const Tensor early_use = h * 2.0;
    return std::vector<Tensor>{ops::layer_norm(h, {16}), early_use};
  });
  EXPECT_EQ(groups_of(early, {x, a}), (std::vector<std::string>{"pointwise: add -> mul"}));
}

TEST(NormChainCpu, CompiledReplayEqualsEager) {
  const Tensor x = Tensor::randn({2, 6, 16}, 1), a = Tensor::randn({2, 6, 16}, 2);
  const std::vector<std::pair<std::shared_ptr<Module>, std::vector<Tensor>>> cases = {
      {std::make_shared<GemmGeluNorm>(16, 32, false, false), {x}},
      {std::make_shared<GemmGeluNorm>(16, 32, true, true), {x}},
      {std::make_shared<ResidualNorm>(16, false), {x, a}},
      {std::make_shared<ResidualNorm>(16, true), {x, a}},
  };
  for (const auto& [model, in] : cases) {
    const std::vector<Tensor> want = model->forward(in);
    auto compiled = compile(model);
    for (int round = 0; round < 2; ++round) {
      const std::vector<Tensor> got = (*compiled)(in);
      ASSERT_EQ(got.size(), want.size());
      for (size_t k = 0; k < got.size(); ++k)
        EXPECT_TRUE(bit_equal(got[k], want[k])) << model->name() << " output " << k;
    }
  }
}

#if TT_CUDA
namespace f = ops::cuda::fused;
namespace gemm = ops::cuda::gemm;
const float* const kPtr = f::kAnyOperand;

// The structural names: the shipped databases' keys for models 1 and 3 are unchanged.
TEST(NormChainPlans, StructuralNamesKeepTheShippedKeys) {
  f::FusedPattern m3;
  m3.steps.add_column(kPtr).silu().add_column(kPtr);
  m3.norm = f::NormKind::kSegment;
  m3.groups = 64;
  m3.epilogue.mul_column(kPtr).add_column(kPtr);
  EXPECT_EQ(m3.name(), "gemm[add_column,silu,add_column]>segment_norm[affine]");
  f::FusedPattern m1;
  m1.steps.add_column(kPtr);
  m1.norm = f::NormKind::kSegment;
  m1.epilogue.add_residual(kPtr, 8).mul_residual(kPtr, 8);
  EXPECT_EQ(m1.name(), "gemm[add_column]>segment_norm[add_mul]");
  EXPECT_EQ(m1.stages().segment, std::string("gemm[add_column]>segment_norm[add_mul].segment"));
  f::FusedPattern ln;
  ln.steps.add_column(kPtr).gelu();
  ln.norm = f::NormKind::kSegment;
  ln.rms = true;
  ln.epilogue.mul_column(kPtr).relu();
  EXPECT_EQ(ln.name(), "gemm[add_column,gelu]>rms_norm[mul_column,relu]");
  f::FusedPattern alone;
  alone.gemm = false;
  alone.norm = f::NormKind::kSegment;
  alone.prologue.mul_column(kPtr).add_residual(kPtr, 16);
  alone.epilogue.mul_column(kPtr).add_column(kPtr);
  EXPECT_EQ(alone.name(), "chain[mul_column,add_residual]>segment_norm[affine]");
}

// The stages: a GEMM keeps its scale and bias, the pass's prologue takes the rest; a norm
// without a GEMM is one stage over all rows reading the input, writing the output and
// the pre-norm value.
TEST(NormChainPlans, StagesOfGemmNormAndOfANormAlone) {
  f::FusedPattern ln;
  ln.steps.add_column(kPtr).gelu();
  ln.norm = f::NormKind::kSegment;
  ln.epilogue.mul_column(kPtr).add_column(kPtr);
  const gemm::GemmConfig lt = gemm::GemmConfig::cublaslt(0, 0, 0);
  const f::Plan p =
      f::build_plan(ln, "gemm_gelu_layer_norm", lt, kPtr, kPtr, nullptr, 64, 1024, 256, nullptr);
  EXPECT_EQ(p.str(),
            "gemm_gelu_layer_norm chunk=0 tail=0\ngemm[add_column] -> gemm_out\n"
            "segment_norm[gelu | mul_column,add_column,groups=1] gemm_out -> out");
  ln.rms = true;
  ln.epilogue = gemm::Epilogue();
  ln.epilogue.mul_column(kPtr);
  EXPECT_EQ(f::build_plan(ln, "gemm_gelu_rms_norm", lt, kPtr, kPtr, nullptr, 64, 1024, 256, nullptr)
                .str(),
            "gemm_gelu_rms_norm chunk=0 tail=0\ngemm[add_column] -> gemm_out\n"
            "rms_norm[gelu | mul_column,groups=1] gemm_out -> out");

  f::FusedPattern alone;
  alone.gemm = false;
  alone.norm = f::NormKind::kSegment;
  alone.prologue.add_residual(kPtr, 512);
  alone.epilogue.mul_column(kPtr).add_column(kPtr).relu();
  float* const out = reinterpret_cast<float*>(64);
  float* const pre = reinterpret_cast<float*>(128);
  const f::Plan q = f::build_norm_plan(alone, "residual_norm", kPtr, out, pre, 300, 512, nullptr);
  EXPECT_EQ(q.str(),
            "residual_norm chunk=0 tail=0\n"
            "segment_norm[add_residual | mul_column,add_column,relu,groups=1] in -> out,pre");
  EXPECT_EQ(q.scratch_floats(), 0);
  EXPECT_EQ(f::plan_launches(q), (std::vector<std::string>{"main: segment_norm rows 0+300"}));
  EXPECT_THROW(f::build_plan(alone, "residual_norm", lt, kPtr, kPtr, out, 300, 512, 64, nullptr),
               Error);
}

// ---- GPU: compiled CUDA against the CPU reference ----

std::vector<Tensor> to_cuda(const std::vector<Tensor>& in) {
  std::vector<Tensor> r;
  for (const Tensor& t : in) r.push_back(t.to(Device::cuda(0)));
  return r;
}

struct GpuCase {
  std::shared_ptr<Module> model;
  std::vector<Tensor> inputs;
  const char* kernel;  // the group's kernel line in explain()
};

// The chain launcher under every candidate config (every kernel kind: subwarp, block,
// cluster, pipe, stream, split) against the formula on the host in double: the straight-line
// shapes (silu + bias before the affine; add-mul after a row norm), chains that take the
// switching path, RMS, and the second output.
struct ChainCase {
  const char* what;
  int64_t rows, n, groups;
  bool rms, pre;
  // Builds the prologue and epilogue on the given operands: col [n], res [rows, n].
  std::function<void(gemm::Epilogue&, gemm::Epilogue&, const float*, const float*, int64_t)> chains;
};

TEST(NormChainCuda, LauncherMatchesTheFormulaUnderEveryConfig) {
  TT_REQUIRE_CUDA();
  namespace norm = ops::cuda::norm;
  const ChainCase cases[] = {
      {"silu+bias | affine (model 3)", 32, 4096, 64, false, false,
       [](gemm::Epilogue& p, gemm::Epilogue& e, const float* c, const float*, int64_t) {
         p.silu().add_column(c);
         e.mul_column(c).add_column(c);
       }},
      {"none | add-mul (model 1)", 16, 8192, 1, false, false,
       [](gemm::Epilogue&, gemm::Epilogue& e, const float*, const float* r, int64_t n) {
         e.add_residual(r, n).mul_residual(r, n);
       }},
      {"residual, scale | affine, gelu, with pre", 24, 1024, 1, false, true,
       [](gemm::Epilogue& p, gemm::Epilogue& e, const float* c, const float* r, int64_t n) {
         p.add_residual(r, n).mul_column(c).scale(0.5f);
         e.mul_column(c).add_column(c).gelu();
       }},
      {"rms: bias | weight, relu", 8, 65536, 1, true, true,
       [](gemm::Epilogue& p, gemm::Epilogue& e, const float* c, const float*, int64_t) {
         p.add_column(c);
         e.mul_column(c).relu();
       }},
      {"group norm of 96: leaky_relu | add_row", 40, 768, 8, false, false,
       [](gemm::Epilogue& p, gemm::Epilogue& e, const float*, const float* r, int64_t) {
         p.leaky_relu(0.1f);
         e.add_row(r);
       }},
  };
  const Device gpu = Device::cuda(0);
  for (const ChainCase& c : cases) {
    const Tensor x = Tensor::randn({c.rows, c.n}, 1) * 2.0 + 0.5;
    const Tensor col = Tensor::randn({c.n}, 2), res = Tensor::randn({c.rows, c.n}, 3);
    const std::vector<float> xh = x.to_vector<float>();
    // The host chains read the host tensors (gemm::apply runs on host pointers).
    gemm::Epilogue hp, he, dp, de;
    c.chains(hp, he, col.data<float>(), res.data<float>(), c.n);
    const Tensor dx = x.to(gpu), dcol = col.to(gpu), dres = res.to(gpu);
    c.chains(dp, de, dcol.data<float>(), dres.data<float>(), c.n);
    const int64_t length = c.n / c.groups;
    std::vector<double> want(xh.size()), want_pre(xh.size());
    for (int64_t s = 0; s < c.rows * c.groups; ++s) {
      const int64_t row = s / c.groups, col0 = (s % c.groups) * length;
      double sum = 0, sq = 0;
      std::vector<float> v(length);
      for (int64_t i = 0; i < length; ++i) {
        v[i] = gemm::apply(hp, xh[s * length + i], row, col0 + i);
        want_pre[s * length + i] = v[i];
        sum += v[i];
        sq += double(v[i]) * v[i];
      }
      const double mean = sum / length, var = sq / length - mean * mean;
      const double center = c.rms ? 0.0 : mean;
      const double rstd = 1.0 / std::sqrt((c.rms ? sq / length : var) + 1e-5);
      for (int64_t i = 0; i < length; ++i)
        want[s * length + i] =
            gemm::apply(he, static_cast<float>((v[i] - center) * rstd), row, col0 + i);
    }
    norm::SegmentChainArgs a;
    Tensor out = Tensor::empty({c.rows, c.n}, DType::F32, gpu);
    Tensor pre = Tensor::empty({c.rows, c.n}, DType::F32, gpu);
    a.x = dx.data<float>(), a.out = out.data<float>(), a.pre = c.pre ? pre.data<float>() : nullptr;
    a.rows = c.rows, a.n = c.n, a.groups = c.groups, a.prologue = dp, a.epilogue = de;
    a.rms = c.rms, a.eps = 1e-5f;
    const std::vector<norm::SegmentConfig> configs =
        norm::SegmentConfig::candidates(norm::chain_problem(a));
    ASSERT_FALSE(configs.empty()) << c.what;
    for (const norm::SegmentConfig& cfg : configs) {
      try {
        norm::launch_segment_chain(cfg, a, tt::cuda::stream(0));
      } catch (const Error& e) {
        // A cluster this device cannot co-schedule (the tuner skips such variants too).
        if (std::string(e.what()).find("cannot be scheduled") != std::string::npos) continue;
        throw;
      }
      tt::cuda::synchronize(0);
      const auto check = [&](const Tensor& got_t, const std::vector<double>& ref,
                             const char* which) {
        const std::vector<float> got = got_t.to(Device::cpu()).to_vector<float>();
        double num = 0, den = 0;
        for (size_t i = 0; i < got.size(); ++i)
          num += (got[i] - ref[i]) * (got[i] - ref[i]), den += ref[i] * ref[i];
        EXPECT_LE(std::sqrt(num / den), 1e-5) << c.what << " " << which << " " << cfg.str();
      };
      check(out, want, "out");
      if (c.pre) check(pre, want_pre, "pre");
    }
  }
}

TEST(NormChainCuda, CompiledMatchesTheCpuReference) {
  TT_REQUIRE_CUDA();
  // Rows of 1024 (the transformer's width) and of 96 (short rows: the subwarp kernels).
  const Tensor x = Tensor::randn({4, 64, 256}, 1), r = Tensor::randn({4, 64, 1024}, 2);
  const Tensor a = Tensor::randn({4, 64, 1024}, 3), s = Tensor::randn({8, 96}, 4);
  const Tensor t = Tensor::randn({8, 96}, 5);
  GpuCase cases[] = {
      {std::make_shared<GemmGeluNorm>(256, 1024, false, false),
       {x},
       "fused plan gemm[add_column,gelu]>segment_norm[affine]"},
      {std::make_shared<GemmGeluNorm>(256, 1024, true, true),
       {x},
       "fused plan gemm[add_column,gelu]>rms_norm[mul_column,relu]"},
      {std::make_shared<GemmGeluNorm>(256, 96, false, true),
       {x},
       "fused plan gemm[add_column,gelu]>segment_norm[mul_column,add_column,relu]"},
      {std::make_shared<ResidualNorm>(1024, false),
       {r, a},
       "fused plan chain[mul_column,add_residual]>segment_norm[mul_column,add_column,relu], "
       "writing the norm's input too"},
      {std::make_shared<ResidualNorm>(96, true),
       {s, t},
       "fused plan chain[mul_column,add_residual]>rms_norm[mul_column,relu], writing the "
       "norm's input too"},
  };
  for (GpuCase& c : cases) {
    const std::vector<Tensor> want = c.model->forward(c.inputs);
    c.model->to(Device::cuda(0));
    auto compiled = compile(c.model);
    const std::vector<Tensor> in = to_cuda(c.inputs);
    for (int round = 0; round < 2; ++round) {
      const std::vector<Tensor> got = (*compiled)(in);
      ASSERT_EQ(got.size(), want.size());
      for (size_t k = 0; k < got.size(); ++k)
        EXPECT_LE(rel_l2(got[k], want[k]), 1e-5) << c.model->name() << " output " << k << "\n"
                                                 << compiled->explain();
    }
    EXPECT_NE(compiled->explain().find(c.kernel), std::string::npos) << compiled->explain();
  }
}
#endif

}  // namespace
}  // namespace tt::test
