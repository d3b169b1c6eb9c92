// The GEMM stage of the fused ops on the GPU: every own tiled-GEMM variant and
// cuBLASLt (each epilogue) against a float64 CPU reference at awkward shapes (M = 1,
// odd N and K, sizes just above a tile multiple, K smaller than a K step, K = 0,
// unaligned X), the group-norm and column-statistics epilogues, and the four seed
// groups, compiled (tt::compile of their plain-op forwards, support/seed_forwards.h) and
// through every plan of their patterns (support/seed_patterns.h) under every config,
// against the CPU reference (the same forwards on CPU tensors), model 4 in training and
// eval mode including the running statistics. Outputs are poisoned with NaN before each
// launch. Tolerance: relative L2 error 1e-5 (strict float32).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "core/tensor.h"
#include "ops/ops.h"
#include "support/gpu_test.h"
#include "support/host_norms.h"
#include "support/seed_forwards.h"
#include "support/test_util.h"

#if TT_CUDA
#include "core/cuda/stream.h"
#include "ops/cuda/fused/plan.h"
#include "ops/cuda/gemm/cublaslt_gemm.h"
#include "ops/cuda/gemm/gemm.h"
#include "ops/cuda/gemm/gemm_config.h"
#include "ops/cuda/gemm/gemm_space.h"
#include "ops/cuda/gemm/tiled_gemm.h"
#include "support/seed_patterns.h"
#endif

// In tt::test: kStrictTol, kGpu, gpu_stream, float_ptr, nan_gpu (support/gpu_test.h).
namespace tt::test {
namespace {

#if TT_CUDA
namespace g = tt::ops::cuda::gemm;
Tensor from_doubles(const std::vector<double>& v, const Shape& s) {
  return Tensor::from_vector(v, s);
}

// ---- config text and validity (no GPU needed, but only built with CUDA) ----

TEST(GemmConfig, TextRoundTripsAndRejectsMalformed) {
  // The text form and parsing are the family descriptor's (gemm_space.h).
  const auto& full = g::gemm_descriptor();
  for (const g::GemmConfig& c : g::own_variants()) {
    EXPECT_EQ(full.parse(c.str()), c) << c.str();
  }
  const g::GemmConfig lt = g::GemmConfig::cublaslt(3, 4096);
  EXPECT_EQ(lt.str(), "impl=cublaslt,algo=3,chunk=4096");
  EXPECT_EQ(g::gemm_descriptor(true, false).parse(lt.str()), lt);
  EXPECT_EQ(full.str(lt), "impl=cublaslt,algo=3,chunk=4096,tail=0");
  EXPECT_THROW(full.parse("impl=tf32,algo=0,chunk=0,tail=0"), tt::Error);
  EXPECT_THROW(full.parse("impl=own,bm=128"), tt::Error);
  EXPECT_THROW(full.parse("impl=cublaslt,algo=x"), tt::Error);
  EXPECT_THROW(full.parse("garbage"), tt::Error);
  const g::GemmConfig split = g::GemmConfig::cublaslt(1, 0, 64);
  EXPECT_EQ(split.str(), "impl=cublaslt,algo=1,tail=64");
  EXPECT_EQ(g::gemm_descriptor(false, true).parse(split.str()), split);
  EXPECT_NE(split, g::GemmConfig::cublaslt(1));
  EXPECT_EQ(*full.why_invalid(full.parse("impl=cublaslt,algo=0,chunk=0,tail=-1")),
            "tail=-1 is not a candidate (0|64|2048|4096|8192)");
  const std::string own_tail = "impl=own,bm=128,bn=128,bk=8,tm=8,tn=8,vec=4,stages=2,tail=64";
  EXPECT_EQ(tt::test::error_of([&] { full.parse(own_tail); }),
            "gemm config " + own_tail + ": 'tail' is not a field of gemm impl=own");
}

TEST(GemmConfig, ValidityFollowsAlignmentAndTable) {
  const g::GemmConfig own = g::own_variants().front();
  EXPECT_TRUE(g::valid(own, {128, 128, 64, 4}));
  EXPECT_FALSE(g::valid(own, {128, 128, 63, 1}));  // width 4 needs K % 4 == 0 and aligned rows
  g::GemmConfig odd = own;
  odd.bm = 96;
  EXPECT_FALSE(g::valid(odd, {128, 128, 64, 4}));  // not compiled
  EXPECT_TRUE(g::valid(g::GemmConfig::own_default_for({1, 1, 3, 1}), {1, 1, 3, 1}));
  EXPECT_TRUE(g::valid(g::GemmConfig::own_default_for({4096, 4096, 64, 4}), {4096, 4096, 64, 4}));
  for (const g::GemmConfig& c : g::candidates({100, 100, 12, 4}))
    EXPECT_TRUE(g::valid(c, {100, 100, 12, 4}));
  // A tail split needs as many head rows as tail rows and no chunking.
  EXPECT_TRUE(g::valid(g::GemmConfig::cublaslt(0, 0, 64), {128, 64, 64, 4}));
  EXPECT_FALSE(g::valid(g::GemmConfig::cublaslt(0, 0, 64), {127, 64, 64, 4}));
  EXPECT_FALSE(g::valid(g::GemmConfig::cublaslt(0, 1024, 64), {32768, 64, 64, 4}));
}

// ---- raw GEMM stage vs float64 ----

struct Problem {
  int64_t m, n, k;
};

const Problem kAwkward[] = {{1, 1, 1},        {1, 127, 129}, {127, 129, 1},  {3, 5, 0},
                            {129, 127, 1003}, {131, 260, 7}, {257, 129, 16}, {65, 200, 33}};

struct Host {
  std::vector<float> x, w, bias, post, affine;
};

Host make_host(const Problem& p, uint64_t seed) {
  auto vec = [&](int64_t n, double lo, double hi, uint64_t s) {
    return Tensor::uniform({n}, lo, hi, seed * 16 + s).to_vector<float>();
  };
  const double bound = 1.0 / std::sqrt(double(std::max<int64_t>(p.k, 1)));
  Host h;
  h.x = vec(p.m * p.k, 0.0, 1.0, 1);
  h.w = vec(p.n * p.k, -bound, bound, 2);
  h.bias = vec(p.n, -1.0, 1.0, 3);
  h.post = vec(p.n, -1.0, 1.0, 4);
  h.affine = vec(4 * p.n, 0.5, 1.5, 5);
  return h;
}

std::vector<double> host_gemm(const Host& h, const Problem& p) {
  std::vector<double> c(p.m * p.n, 0.0);
  for (int64_t i = 0; i < p.m; ++i)
    for (int64_t j = 0; j < p.n; ++j) {
      double s = 0;
      for (int64_t q = 0; q < p.k; ++q) s += double(h.x[i * p.k + q]) * h.w[j * p.k + q];
      c[i * p.n + j] = s;
    }
  return c;
}

Tensor gpu_of(const std::vector<float>& v, const Shape& s) {
  return Tensor::from_vector(v, s).to(kGpu);
}

double swish(double v) { return v / (1.0 + std::exp(-v)); }

TEST(CudaGemm, OwnVariantsMatchFloat64AtAwkwardShapes) {
  TT_REQUIRE_CUDA();
  for (const Problem& p : kAwkward) {
    const Host h = make_host(p, p.m * 7 + p.n);
    const std::vector<double> acc = host_gemm(h, p);
    std::vector<double> full(acc.size()), relu(acc.size());
    for (int64_t i = 0; i < p.m; ++i)
      for (int64_t j = 0; j < p.n; ++j) {
        double v = swish(acc[i * p.n + j] + h.bias[j]) + h.post[j];
        v = (v * h.affine[j] - h.affine[p.n + j]) * h.affine[2 * p.n + j] + h.affine[3 * p.n + j];
        full[i * p.n + j] = v;
        relu[i * p.n + j] = std::max(acc[i * p.n + j] + h.bias[j], 0.0);
      }
    const Tensor x = gpu_of(h.x, {p.m * p.k}), w = gpu_of(h.w, {p.n * p.k});
    const Tensor b = gpu_of(h.bias, {p.n}), post = gpu_of(h.post, {p.n});
    const Tensor aff = gpu_of(h.affine, {4 * p.n});
    const g::Epilogue e_full = g::Epilogue()
                                   .add_column(float_ptr(b))
                                   .silu()
                                   .add_column(float_ptr(post))
                                   .column_affine(float_ptr(aff), p.n);
    const g::Epilogue e_relu = g::Epilogue().add_column(float_ptr(b)).relu();
    for (const g::GemmConfig& cfg : g::own_variants()) {
      SCOPED_TRACE(cfg.str() + " m=" + std::to_string(p.m) + " n=" + std::to_string(p.n) +
                   " k=" + std::to_string(p.k));
      const std::pair<const g::Epilogue*, const std::vector<double>*> cases[] = {
          {nullptr, &acc}, {&e_full, &full}, {&e_relu, &relu}};
      for (const auto& [epi, ref] : cases) {
        const Tensor c = nan_gpu({p.m, p.n});
        g::launch_tiled_gemm(cfg, {float_ptr(x), float_ptr(w), float_ptr(c), p.m, p.n, p.k},
                             epi ? *epi : g::Epilogue{}, gpu_stream());
        EXPECT_LE(tt::test::rel_l2(c, from_doubles(*ref, {p.m, p.n})), kStrictTol);
      }
    }
  }
}

TEST(CudaGemm, UnalignedOperandsFallBackToWidthOne) {
  TT_REQUIRE_CUDA();
  const Problem p{70, 36, 64};
  const Host h = make_host(p, 5);
  const std::vector<double> acc = host_gemm(h, p);
  // X starts one float into its buffer: not 16-byte aligned, so width 4 cannot apply.
  std::vector<float> shifted(1, 0.f);
  shifted.insert(shifted.end(), h.x.begin(), h.x.end());
  const Tensor xbuf = gpu_of(shifted, {p.m * p.k + 1});
  const Tensor x = xbuf.narrow(0, 1, p.m * p.k);
  const Tensor w = gpu_of(h.w, {p.n * p.k});
  for (const g::GemmConfig& cfg : g::own_variants()) {
    SCOPED_TRACE(cfg.str());
    const Tensor c = nan_gpu({p.m, p.n});
    g::launch_tiled_gemm(cfg, {float_ptr(x), float_ptr(w), float_ptr(c), p.m, p.n, p.k}, {},
                         gpu_stream());
    EXPECT_LE(tt::test::rel_l2(c, from_doubles(acc, {p.m, p.n})), kStrictTol);
  }
}

TEST(CudaGemm, CublasLtMatchesFloat64WithEachEpilogue) {
  TT_REQUIRE_CUDA();
  for (const Problem& p : kAwkward) {
    const Host h = make_host(p, p.m + 3 * p.n);
    const std::vector<double> acc = host_gemm(h, p);
    std::vector<double> with_bias(acc.size()), relu(acc.size());
    for (int64_t i = 0; i < p.m; ++i)
      for (int64_t j = 0; j < p.n; ++j) {
        with_bias[i * p.n + j] = acc[i * p.n + j] + h.bias[j];
        relu[i * p.n + j] = std::max(with_bias[i * p.n + j], 0.0);
      }
    const Tensor x = gpu_of(h.x, {p.m * p.k}), w = gpu_of(h.w, {p.n * p.k});
    const Tensor b = gpu_of(h.bias, {p.n});
    const g::Epilogue e_bias = g::Epilogue().add_column(float_ptr(b));
    const g::Epilogue e_relu = g::Epilogue().add_column(float_ptr(b)).relu();
    const std::pair<const g::Epilogue*, const std::vector<double>*> cases[] = {
        {nullptr, &acc}, {&e_bias, &with_bias}, {&e_relu, &relu}};
    // Every algorithm cuBLASLt offers (up to 4); K = 0 is routed to our own kernel.
    int algos = 1;
    if (p.k > 0) algos = static_cast<int>(g::heuristic_algorithms({p.m, p.n, p.k}, 4).size());
    ASSERT_GE(algos, 1);
    for (int algo = 0; algo < algos; ++algo) {
      for (const auto& [epi, ref] : cases) {
        SCOPED_TRACE("algo " + std::to_string(algo) + " m=" + std::to_string(p.m) +
                     " n=" + std::to_string(p.n) + " k=" + std::to_string(p.k));
        const Tensor c = nan_gpu({p.m, p.n});
        g::run_gemm(g::GemmConfig::cublaslt(algo),
                    {float_ptr(x), float_ptr(w), float_ptr(c), p.m, p.n, p.k},
                    epi ? *epi : g::Epilogue{}, 0, gpu_stream());
        EXPECT_LE(tt::test::rel_l2(c, from_doubles(*ref, {p.m, p.n})), kStrictTol);
      }
    }
  }
}

TEST(CudaGemm, CublasLtRejectsAnAlgorithmIndexPastItsList) {
  TT_REQUIRE_CUDA();
  const Tensor x = Tensor::rand({8 * 8}, 1, kGpu), c = Tensor::zeros({8, 8}, DType::F32, kGpu);
  EXPECT_THROW(
      g::run_gemm(g::GemmConfig::cublaslt(1000),
                  {float_ptr(x), float_ptr(x), float_ptr(c), 8, 8, 8}, {}, 0, gpu_stream()),
      tt::Error);
}

// GroupNorm over `groups` groups of swish(x W^T + b) + bias, in float64.
std::vector<double> host_group_norm(const Host& h, const Problem& p, int64_t groups,
                                    const std::vector<float>& gamma,
                                    const std::vector<float>& beta) {
  const std::vector<double> acc = host_gemm(h, p);
  std::vector<double> out(acc.size());
  for (int64_t i = 0; i < p.m; ++i) {
    std::vector<double> z(p.n);
    for (int64_t j = 0; j < p.n; ++j) z[j] = swish(acc[i * p.n + j] + h.bias[j]) + h.post[j];
    group_norm_row(z, groups, gamma.data(), beta.data(), 1e-5, out.data() + i * p.n);
  }
  return out;
}

TEST(CudaGemm, GroupNormEpilogueMatchesFloat64) {
  TT_REQUIRE_CUDA();
  struct Case {
    Problem p;
    int64_t groups;
  };
  // Groups of 64 (the seed model), 32 with N not a tile multiple, 128, and K < BK.
  const Case cases[] = {
      {{130, 256, 67}, 4}, {{67, 384, 100}, 12}, {{33, 512, 64}, 4}, {{1, 128, 5}, 2}};
  for (const Case& cs : cases) {
    const Problem& p = cs.p;
    const Host h = make_host(p, 11 + p.m);
    const auto gamma = Tensor::uniform({p.n}, 0.5, 1.5, 77).to_vector<float>();
    const auto beta = Tensor::uniform({p.n}, -0.5, 0.5, 78).to_vector<float>();
    const std::vector<double> ref = host_group_norm(h, p, cs.groups, gamma, beta);
    const Tensor x = gpu_of(h.x, {p.m * p.k}), w = gpu_of(h.w, {p.n * p.k});
    const Tensor b = gpu_of(h.bias, {p.n}), post = gpu_of(h.post, {p.n});
    const Tensor gg = gpu_of(gamma, {p.n}), bb = gpu_of(beta, {p.n});
    const g::Epilogue e = g::Epilogue()
                              .add_column(float_ptr(b))
                              .silu()
                              .add_column(float_ptr(post))
                              .group_norm(p.n / cs.groups, float_ptr(gg), float_ptr(bb), 1e-5f);
    int tested = 0;
    for (const g::GemmConfig& cfg : g::own_variants()) {
      if (!g::own_epilogue_valid(cfg, {p.m, p.n, p.k, 4}, e)) {
        EXPECT_THROW(g::launch_tiled_gemm(cfg, {float_ptr(x), float_ptr(w), nullptr, p.m, p.n, p.k},
                                          e, gpu_stream()),
                     tt::Error);
        continue;
      }
      SCOPED_TRACE(cfg.str() + " groups=" + std::to_string(cs.groups));
      const Tensor c = nan_gpu({p.m, p.n});
      g::launch_tiled_gemm(cfg, {float_ptr(x), float_ptr(w), float_ptr(c), p.m, p.n, p.k}, e,
                           gpu_stream());
      EXPECT_LE(tt::test::rel_l2(c, from_doubles(ref, {p.m, p.n})), kStrictTol);
      ++tested;
    }
    EXPECT_GT(tested, 0);
  }
}

TEST(CudaGemm, ColumnStatisticsEpilogueMatchesFloat64) {
  TT_REQUIRE_CUDA();
  for (const Problem& p : {Problem{300, 260, 129}, Problem{1, 64, 8}, Problem{129, 33, 3}}) {
    const Host h = make_host(p, 31 + p.m);
    std::vector<double> y = host_gemm(h, p);
    for (int64_t i = 0; i < p.m; ++i)
      for (int64_t j = 0; j < p.n; ++j) y[i * p.n + j] += h.bias[j];
    const Tensor x = gpu_of(h.x, {p.m * p.k}), w = gpu_of(h.w, {p.n * p.k});
    const Tensor b = gpu_of(h.bias, {p.n});
    for (const g::GemmConfig& cfg : g::own_variants()) {
      SCOPED_TRACE(cfg.str() + " m=" + std::to_string(p.m));
      const int64_t parts = g::own_column_stat_parts(cfg, p.m);
      const Tensor c = nan_gpu({p.m, p.n}), pm = nan_gpu({parts, p.n}), p2 = nan_gpu({parts, p.n});
      const g::Epilogue e =
          g::Epilogue().add_column(float_ptr(b)).column_stats(float_ptr(pm), float_ptr(p2));
      g::launch_tiled_gemm(cfg, {float_ptr(x), float_ptr(w), float_ptr(c), p.m, p.n, p.k}, e,
                           gpu_stream());
      std::vector<double> rmean(parts * p.n), rm2(parts * p.n);
      for (int64_t q = 0; q < parts; ++q) {
        const int64_t r0 = q * cfg.bm, r1 = std::min(p.m, r0 + cfg.bm);
        for (int64_t j = 0; j < p.n; ++j) {
          double mu = 0, s2 = 0;
          for (int64_t i = r0; i < r1; ++i) mu += y[i * p.n + j];
          mu /= double(r1 - r0);
          for (int64_t i = r0; i < r1; ++i) s2 += (y[i * p.n + j] - mu) * (y[i * p.n + j] - mu);
          rmean[q * p.n + j] = mu, rm2[q * p.n + j] = s2;
        }
      }
      EXPECT_LE(tt::test::rel_l2(c, from_doubles(y, {p.m, p.n})), kStrictTol);
      EXPECT_LE(tt::test::rel_l2(pm, from_doubles(rmean, {parts, p.n})), kStrictTol);
      // M2 sums squared deviations of float32 values: a few ulp of each deviation.
      EXPECT_LE(tt::test::rel_l2(p2, from_doubles(rm2, {parts, p.n})), 1e-4);
    }
  }
}

// ---- the seed groups vs the CPU reference: compiled, and each plan under every config ----

namespace f = tt::ops::cuda::fused;

struct Linear {
  Tensor x, w, b;  // CPU
};
Linear make_linear(int64_t m, int64_t n, int64_t k, uint64_t seed) {
  const double bound = 1.0 / std::sqrt(double(std::max<int64_t>(k, 1)));
  return {Tensor::rand({m, k}, seed), Tensor::uniform({n, k}, -bound, bound, seed + 1),
          Tensor::uniform({n}, -bound, bound, seed + 2)};
}
Tensor gpu(const Tensor& t) { return t.to(kGpu); }
std::vector<Tensor> gpu(const std::vector<Tensor>& ts) {
  std::vector<Tensor> out;
  for (const Tensor& t : ts) out.push_back(gpu(t));
  return out;
}
using Mnk = std::tuple<int64_t, int64_t, int64_t>;

// The seed forward compiled on the GPU (its replay: the fused plan under the tuned
// configs), whose report must show the fused plan or the GEMM with its epilogue.
std::vector<Tensor> compiled(const FnModule::Fn& fn, const std::vector<Tensor>& in) {
  std::string explain;
  std::vector<Tensor> out = seed::compiled_replay(fn, gpu(in), &explain);
  EXPECT_TRUE(explain.find("fused plan") != std::string::npos ||
              explain.find("(tuned as gemm[") != std::string::npos)
      << explain;
  return out;
}

// Configs that exercise every plan: cuBLASLt plain and chunked (small chunks so that
// several run), our own default and each own tile shape.
std::vector<g::GemmConfig> plans(int64_t m) {
  std::vector<g::GemmConfig> out = {g::GemmConfig::cublaslt(0),
                                    g::GemmConfig::cublaslt(0, std::max<int64_t>(1, m / 3))};
  for (const g::GemmConfig& c : g::own_variants()) out.push_back(c);
  return out;
}

// The pattern's plan under `cfg` on x [m, k], w [n, k] into out [m, n], with a scratch
// tensor of the size it asks for; returns whether it ran as one kernel.
bool run_pattern(const f::FusedPattern& p, const g::GemmConfig& cfg, const Tensor& x,
                 const Tensor& w, const Tensor& out) {
  const f::Plan plan = seed::plan_of(p, cfg, float_ptr(x), float_ptr(w), float_ptr(out), x.size(0),
                                     w.size(0), x.size(1));
  const Tensor work =
      Tensor::empty({std::max<int64_t>(1, plan.scratch_floats())}, DType::F32, kGpu);
  f::run_plan(plan, float_ptr(work), 0, gpu_stream());
  return plan.stages.size() == 1;
}

TEST(CudaGemmFused, BiasReluMatchesCpu) {
  TT_REQUIRE_CUDA();
  for (const auto& [m, n, k] : std::vector<Mnk>{{1, 1, 1}, {7, 130, 33}, {129, 257, 64}}) {
    const Linear l = make_linear(m, n, k, 100 + m);
    const Tensor ref = seed::bias_relu(l.x, l.w, l.b);
    const auto fn = [](const std::vector<Tensor>& in) {
      return std::vector<Tensor>{seed::bias_relu(in[0], in[1], in[2])};
    };
    EXPECT_LE(tt::test::rel_l2(compiled(fn, {l.x, l.w, l.b})[0], ref), kStrictTol);
    const Tensor x = gpu(l.x), w = gpu(l.w), b = gpu(l.b);
    for (const g::GemmConfig& cfg : plans(m)) {
      SCOPED_TRACE(cfg.str());
      const Tensor out = nan_gpu({m, n});
      run_pattern(seed::bias_relu_pattern(float_ptr(b)), cfg, x, w, out);
      EXPECT_LE(tt::test::rel_l2(out, ref), kStrictTol);
    }
  }
}

TEST(CudaGemmFused, InstanceNormAddMulMatchesCpu) {
  TT_REQUIRE_CUDA();
  for (const auto& [m, n, k] : std::vector<Mnk>{{1, 8, 3}, {5, 131, 40}, {130, 256, 129}}) {
    const Linear l = make_linear(m, n, k, 200 + m);
    const Tensor y = Tensor::rand({m, n}, 300 + m);
    const Tensor ref = seed::instance_norm_add_mul(l.x, y, l.w, l.b);
    const auto fn = [](const std::vector<Tensor>& in) {
      return std::vector<Tensor>{seed::instance_norm_add_mul(in[0], in[1], in[2], in[3])};
    };
    EXPECT_LE(tt::test::rel_l2(compiled(fn, {l.x, y, l.w, l.b})[0], ref), kStrictTol);
    const Tensor x = gpu(l.x), w = gpu(l.w), b = gpu(l.b), yg = gpu(y);
    for (const g::GemmConfig& cfg : plans(m)) {
      SCOPED_TRACE(cfg.str());
      const Tensor out = nan_gpu({m, n});
      run_pattern(seed::instance_norm_add_mul_pattern(float_ptr(b), float_ptr(yg), 1e-5f, n), cfg,
                  x, w, out);
      EXPECT_LE(tt::test::rel_l2(out, ref), kStrictTol);
    }
  }
}

TEST(CudaGemmFused, SwishBiasGroupNormMatchesCpuWithEveryPlan) {
  TT_REQUIRE_CUDA();
  struct Case {
    int64_t m, n, k, groups;
  };
  // Groups of 32 and 64 (fused in a 128-wide tile), 8 (too small for a tile: GEMM +
  // pass), 256 (fused only in the 256-wide tile), and one group.
  for (const Case& c : std::vector<Case>{
           {3, 96, 33, 3}, {130, 256, 70, 4}, {5, 40, 9, 5}, {33, 512, 17, 2}, {2, 64, 8, 1}}) {
    SCOPED_TRACE("m=" + std::to_string(c.m) + " n=" + std::to_string(c.n) +
                 " groups=" + std::to_string(c.groups));
    const Linear l = make_linear(c.m, c.n, c.k, 400 + c.m);
    const Tensor bias = Tensor::randn({c.n}, 500), gw = Tensor::uniform({c.n}, 0.5, 1.5, 501);
    const Tensor gb = Tensor::uniform({c.n}, -0.5, 0.5, 502);
    const Tensor ref = seed::swish_bias_group_norm(l.x, l.w, l.b, bias, c.groups, gw, gb);
    const int64_t groups = c.groups;
    const auto fn = [groups](const std::vector<Tensor>& in) {
      return std::vector<Tensor>{
          seed::swish_bias_group_norm(in[0], in[1], in[2], in[3], groups, in[4], in[5])};
    };
    EXPECT_LE(tt::test::rel_l2(compiled(fn, {l.x, l.w, l.b, bias, gw, gb})[0], ref), kStrictTol);
    const Tensor x = gpu(l.x), w = gpu(l.w), b = gpu(l.b), bg = gpu(bias), gwg = gpu(gw),
                 gbg = gpu(gb);
    int fused = 0;
    // Tail splits too: of one row, of half the rows, and longer than the problem (one
    // GEMM then).
    std::vector<g::GemmConfig> configs = plans(c.m);
    for (int64_t tail : {int64_t{1}, std::max<int64_t>(1, c.m / 2), int64_t{64}})
      configs.push_back(g::GemmConfig::cublaslt(0, 0, tail));
    for (const g::GemmConfig& cfg : configs) {
      SCOPED_TRACE(cfg.str());
      const Tensor out = nan_gpu({c.m, c.n});
      fused +=
          run_pattern(seed::swish_bias_group_norm_pattern(c.groups, float_ptr(b), float_ptr(bg),
                                                          float_ptr(gwg), float_ptr(gbg)),
                      cfg, x, w, out);
      EXPECT_LE(tt::test::rel_l2(out, ref), kStrictTol);
    }
    if (c.groups != 5) {
      EXPECT_GT(fused, 0) << "no config ran the one-kernel plan";
    }
  }
}

TEST(CudaGemmFused, ScaleBatchNormMatchesCpuInTrainingAndEval) {
  TT_REQUIRE_CUDA();
  for (const auto& [m, n, k] : std::vector<Mnk>{{2, 5, 3}, {300, 130, 65}, {129, 64, 8}}) {
    const Linear l = make_linear(m, n, k, 600 + m);
    const Tensor scale = Tensor::randn({n}, 601), bw = Tensor::uniform({n}, 0.5, 1.5, 602);
    const Tensor bb = Tensor::uniform({n}, -0.5, 0.5, 603);
    const Tensor rm0 = Tensor::uniform({n}, -0.1, 0.1, 604);
    const Tensor rv0 = Tensor::uniform({n}, 0.9, 1.1, 605);
    for (bool training : {true, false}) {
      SCOPED_TRACE(std::string(training ? "train" : "eval") + " m=" + std::to_string(m));
      const Tensor rm_ref = rm0.clone(), rv_ref = rv0.clone();
      const Tensor ref =
          seed::scale_batch_norm(l.x, l.w, l.b, scale, rm_ref, rv_ref, bw, bb, training);
      {
        const auto fn = [training](const std::vector<Tensor>& in) {
          return std::vector<Tensor>{seed::scale_batch_norm(in[0], in[1], in[2], in[3], in[4],
                                                            in[5], in[6], in[7], training)};
        };
        const std::vector<Tensor> in = gpu({l.x, l.w, l.b, scale, rm0, rv0, bw, bb});
        EXPECT_LE(tt::test::rel_l2(seed::compiled_replay(fn, in)[0], ref), kStrictTol);
        EXPECT_LE(tt::test::rel_l2(in[4], rm_ref), kStrictTol);
        EXPECT_LE(tt::test::rel_l2(in[5], rv_ref), kStrictTol);
      }
      const Tensor x = gpu(l.x), w = gpu(l.w), b = gpu(l.b), sg = gpu(scale), bwg = gpu(bw),
                   bbg = gpu(bb);
      // Tail splits too (training splits at a whole number of the statistics pass's
      // 256 rows per partial: 300 rows with a tail of 1 or 44 do, 129 rows do not).
      std::vector<g::GemmConfig> configs = plans(m);
      for (int64_t tail : {int64_t{1}, int64_t{44}, std::max<int64_t>(1, m / 2)})
        configs.push_back(g::GemmConfig::cublaslt(0, 0, tail));
      for (const g::GemmConfig& cfg : configs) {
        SCOPED_TRACE(cfg.str());
        const Tensor rm = gpu(rm0).clone(), rv = gpu(rv0).clone(), out = nan_gpu({m, n});
        const f::BatchNormParams bn{float_ptr(sg), float_ptr(bwg), float_ptr(bbg), float_ptr(rm),
                                    float_ptr(rv)};
        run_pattern(seed::scale_batch_norm_pattern(training, float_ptr(b), bn), cfg, x, w, out);
        EXPECT_LE(tt::test::rel_l2(out, ref), kStrictTol);
        EXPECT_LE(tt::test::rel_l2(rm, rm_ref), kStrictTol);
        EXPECT_LE(tt::test::rel_l2(rv, rv_ref), kStrictTol);
      }
    }
  }
}

#endif  // TT_CUDA

}  // namespace
}  // namespace tt::test
