// The sm90 tensor-core GEMM family (ops/cuda/gemm/sm90) against a CPU double
// reference: every compiled variant in both modes at small awkward shapes (M, N, K
// not tile multiples, K = 4, K past several promotion intervals, M = 1), persistent and
// plain grids with the other run-time axes moved along (raster order and group,
// promotion interval, store width); every step of the epilogue chain
// (ops/cuda/gemm/epilogue.h) and the column-statistics partials; outputs and partials
// are poisoned with NaN before each launch. Bounds (relative L2 vs float64): tf32 5e-3
// (operands read as TF32: 2^-10 each, a few e-4 on these sums), accurate 2e-6 (float32
// level; the device harness compares it with SGEMM at full size). The variant-space,
// config and epilogue rules need no GPU; the launches skip without an sm_90 GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "support/test_util.h"

#if TT_CUDA && TT_SM90_GEMM
#include <cuda_runtime_api.h>

#include "core/cuda/stream.h"
#include "ops/cuda/gemm/sm90/tc_gemm.h"

namespace {

namespace s9 = tt::ops::cuda::gemm::sm90;
using tt::Device;
using tt::Shape;
using tt::Tensor;

// Launches go on tensortune's stream of device 0 (non-blocking), where the tensors'
// fills and copies run.
bool sm90_available() { return tt::test::cuda_available() && s9::tc_gemm_device_supported(); }

#define REQUIRE_SM90()                                                              \
  do {                                                                              \
    if (!sm90_available()) GTEST_SKIP() << "no sm_90 (Hopper) GPU on this machine"; \
  } while (0)

double bound(s9::TcMode mode) { return mode == s9::TcMode::accurate ? 2e-6 : 5e-3; }

struct Case {
  int64_t m, n, k;
  int64_t ld = 0;  // the residual's row stride (0: N)
  int64_t r0 = 0;  // the residual's and row vector's row of the GEMM's row 0 (Epilogue::row0)
  int64_t res_ld() const { return ld > 0 ? ld : n; }
};

using tt::ops::cuda::gemm::Epilogue;
using tt::ops::cuda::gemm::EpilogueKind;

// Operands of the epilogue steps on the host and on the GPU (per-column vectors, the
// affine and a residual of r0 + M rows, ld apart), drawn once per case.
struct Operands {
  Tensor bias, scale, affine, residual;  // GPU copies
  std::vector<float> hbias, hscale, haff, hres;
  int64_t ld;  // the residual's row stride
  Operands(const Case& c, uint64_t seed) : ld(c.res_ld()) {
    const Device gpu = Device::cuda(0);
    Tensor b = Tensor::uniform(Shape{c.n}, -0.5, 0.5, seed);
    Tensor s = Tensor::uniform(Shape{c.n}, 0.5, 1.5, seed + 1);
    Tensor aff = Tensor::uniform(Shape{4 * c.n}, 0.5, 1.5, seed + 2);
    Tensor res = Tensor::uniform(Shape{(c.r0 + c.m) * c.res_ld()}, -1, 1, seed + 4);
    hbias = b.to_vector<float>(), hscale = s.to_vector<float>(), haff = aff.to_vector<float>();
    hres = res.to_vector<float>();
    bias = b.to(gpu), scale = s.to(gpu), affine = aff.to(gpu), residual = res.to(gpu);
  }
};

// The chain in double, step by step (the kernel computes each step in float32).
double apply_chain_double(const Epilogue& e, const Operands& o, const Case& c, double v, int64_t i,
                          int64_t j) {
  const int64_t row = e.row0 + i;
  using Op = tt::ops::cuda::gemm::EpilogueOp;
  for (int s = 0; s < e.count; ++s) {
    switch (e.steps[s].op) {
      case Op::kAddColumn:
        v += o.hbias[j];
        break;
      case Op::kMulColumn:
        v *= o.hscale[j];
        break;
      case Op::kScale:
        v *= e.steps[s].scalar;
        break;
      case Op::kRelu:
        v = v > 0 ? v : 0;
        break;
      case Op::kSilu:
        v = v / (1 + std::exp(-v));
        break;
      case Op::kGelu:
        v = 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
        break;
      case Op::kGeluTanh:
        v = 0.5 * v * (1 + std::tanh(0.79788456080286535588 * (v + 0.044715 * v * v * v)));
        break;
      case Op::kLeakyRelu:
        v = v > 0 ? v : v * e.steps[s].scalar;
        break;
      case Op::kColumnAffine:
        v = (v * o.haff[j] - o.haff[c.n + j]) * o.haff[2 * c.n + j] + o.haff[3 * c.n + j];
        break;
      case Op::kAddRow:
      case Op::kMulRow:  // the kernel refuses per-row vectors
        return NAN;
      case Op::kAddResidual:
        v += o.hres[row * e.steps[s].ld + j];
        break;
      case Op::kMulResidual:
        v *= o.hres[row * e.steps[s].ld + j];
        break;
    }
  }
  return v;
}

double rel_l2(const std::vector<float>& out, const std::vector<double>& ref) {
  double d2 = 0, r2 = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (!std::isfinite(out[i])) return INFINITY;
    d2 += (out[i] - ref[i]) * (out[i] - ref[i]);
    r2 += ref[i] * ref[i];
  }
  return r2 > 0 ? std::sqrt(d2 / r2) : std::sqrt(d2);
}

struct Errors {
  double out = 0, mean = 0, m2 = 0;
};

// Runs one config on fresh inputs (seeded by `seed`) with the chain that `build` makes
// from the operands (and the statistics outputs it may attach), and returns the
// errors of the output and of the statistics partials against float64.
template <class Build>
Errors run_case(const s9::TcConfig& cfg, const Case& c, uint64_t seed, Build&& build) {
  const Device gpu = Device::cuda(0);
  Tensor x = Tensor::uniform(Shape{c.m, c.k}, -1, 1, seed);
  Tensor w = Tensor::uniform(Shape{c.n, c.k}, -1, 1, seed + 1);
  const Operands ops(c, seed + 2);
  const std::vector<float> xv = x.to_vector<float>(), wv = w.to_vector<float>();
  Tensor xg = x.to(gpu), wg = w.to(gpu);
  Tensor out = tt::test::nan_filled(Shape{c.m, c.n}, gpu);
  const int64_t rows = s9::tc_column_stat_rows(cfg);
  const int64_t bands = (c.m + rows - 1) / rows;
  Tensor pmean = tt::test::nan_filled(Shape{bands, c.n}, gpu);
  Tensor pm2 = tt::test::nan_filled(Shape{bands, c.n}, gpu);
  const Epilogue e = build(ops, tt::test::float_ptr(pmean), tt::test::float_ptr(pm2));
  s9::tc_gemm(cfg, tt::test::float_ptr(xg), tt::test::float_ptr(wg), tt::test::float_ptr(out), c.m,
              c.n, c.k, e, tt::cuda::stream(0));
  EXPECT_EQ(cudaStreamSynchronize(tt::cuda::stream(0)), cudaSuccess);
  std::vector<double> ref(c.m * c.n);
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j) {
      double s = 0;
      for (int64_t q = 0; q < c.k; ++q) s += double(xv[i * c.k + q]) * double(wv[j * c.k + q]);
      ref[i * c.n + j] = apply_chain_double(e, ops, c, s, i, j);
    }
  if (e.kind == EpilogueKind::kGroupNorm) {  // gamma = the scale operand, beta = the bias
    const int64_t gs = e.group_size;
    for (int64_t i = 0; i < c.m; ++i)
      for (int64_t g0 = 0; g0 < c.n; g0 += gs) {
        double* v = &ref[i * c.n + g0];
        double mu = 0, var = 0;
        for (int64_t j = 0; j < gs; ++j) mu += v[j];
        mu /= double(gs);
        for (int64_t j = 0; j < gs; ++j) var += (v[j] - mu) * (v[j] - mu);
        const double rstd = 1 / std::sqrt(var / double(gs) + e.eps);
        for (int64_t j = 0; j < gs; ++j)
          v[j] = (v[j] - mu) * rstd * ops.hscale[g0 + j] + ops.hbias[g0 + j];
      }
  }
  Errors err;
  err.out = rel_l2(out.to_vector<float>(), ref);
  if (e.kind == EpilogueKind::kColumnStats) {
    std::vector<double> mean(bands * c.n), m2(bands * c.n);
    for (int64_t b = 0; b < bands; ++b)
      for (int64_t j = 0; j < c.n; ++j) {
        const int64_t r0 = b * rows, r1 = std::min(c.m, r0 + rows);
        double s = 0, d = 0;
        for (int64_t i = r0; i < r1; ++i) s += ref[i * c.n + j];
        const double mu = s / double(r1 - r0);
        for (int64_t i = r0; i < r1; ++i) d += (ref[i * c.n + j] - mu) * (ref[i * c.n + j] - mu);
        mean[b * c.n + j] = mu;
        m2[b * c.n + j] = d;
      }
    err.mean = rel_l2(pmean.to_vector<float>(), mean);
    err.m2 = rel_l2(pm2.to_vector<float>(), m2);
  }
  return err;
}

double run_plain(const s9::TcConfig& cfg, const Case& c, uint64_t seed) {
  return run_case(cfg, c, seed, [](const Operands&, float*, float*) { return Epilogue{}; }).out;
}

TEST(TcGemm, ProblemRulesAreSentences) {
  alignas(16) static float buf[64];
  EXPECT_EQ(s9::tc_gemm_unsupported_reason(buf, buf, 2, 2, 8), "");
  EXPECT_EQ(s9::tc_gemm_unsupported_reason(buf, buf, 2, 2, 6),
            "K must be a multiple of 4 (the TMA needs 16-byte row pitches), got K=6");
  EXPECT_EQ(s9::tc_gemm_unsupported_reason(buf, buf, 0, 2, 8),
            "M, N and K must be at least 1, got M=0 N=2 K=8");
  EXPECT_NE(s9::tc_gemm_unsupported_reason(buf + 1, buf, 2, 2, 8).find("16-byte aligned"),
            std::string::npos);
}

TEST(TcGemm, VariantTableHasBothModesAndDistinctRows) {
  const auto& v = s9::tc_gemm_variants();
  ASSERT_FALSE(v.empty());
  int tf32 = 0, accurate = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    (v[i].mode == s9::TcMode::accurate ? accurate : tf32) += 1;
    if (v[i].mode == s9::TcMode::accurate) {
      EXPECT_GT(v[i].promote, 0) << s9::to_string(v[i]);
      EXPECT_LE(v[i].promote, 64) << s9::to_string(v[i]);
    }
    for (size_t j = 0; j < i; ++j) EXPECT_NE(s9::to_string(v[i]), s9::to_string(v[j]));
  }
  EXPECT_GT(tf32, 0);
  EXPECT_GT(accurate, 0);
  EXPECT_EQ(s9::tc_gemm_default(s9::TcMode::accurate).promote, 64);
}

TEST(TcGemm, SpaceIsRowsTimesRunTimeAxesAndAllRunnable) {
  const s9::TcRuntimeAxes& ax = s9::tc_gemm_runtime_axes();
  const size_t per_row_tf32 =
      ax.group_m.size() * ax.raster_n.size() * ax.persistent.size() * ax.vec.size();
  for (s9::TcMode mode : {s9::TcMode::tf32, s9::TcMode::accurate}) {
    size_t rows = 0;
    for (const s9::TcConfig& r : s9::tc_gemm_variants()) rows += r.mode == mode;
    const std::vector<s9::TcConfig> space = s9::tc_gemm_space(mode);
    EXPECT_EQ(space.size(),
              rows * per_row_tf32 * (mode == s9::TcMode::accurate ? ax.promote.size() : 1));
    for (const s9::TcConfig& c : space) {
      EXPECT_EQ(c.mode, mode);
      EXPECT_EQ(s9::tc_config_invalid_reason(c), "") << s9::to_string(c);
    }
  }
  // The tuner's sweep in accurate (issue 10): at least 100 variants, from a few kernels.
  EXPECT_GE(s9::tc_gemm_space(s9::TcMode::accurate).size(), 100u);
}

TEST(TcGemm, InvalidRunTimeFieldsAreSentences) {
  s9::TcConfig c = s9::tc_gemm_default(s9::TcMode::accurate);
  c.promote = 48;
  EXPECT_EQ(s9::tc_config_invalid_reason(c),
            "accurate needs promote to be a positive multiple of bk=32, got 48");
  c.promote = 0;
  EXPECT_EQ(s9::tc_config_invalid_reason(c),
            "accurate needs promote to be a positive multiple of bk=32, got 0");
  c = s9::tc_gemm_default(s9::TcMode::tf32);
  c.promote = 64;
  EXPECT_EQ(s9::tc_config_invalid_reason(c), "tf32 takes promote=0 (it never promotes), got 64");
  c.promote = 0;
  c.vec = 3;
  EXPECT_EQ(s9::tc_config_invalid_reason(c), "vec must be 1, 2 or 4, got 3");
  c.vec = 2;
  c.group_m = 0;
  EXPECT_EQ(s9::tc_config_invalid_reason(c), "group_m must be at least 1, got 0");
  c.group_m = 8;
  EXPECT_TRUE(s9::tc_same_kernel(c, s9::tc_gemm_default(s9::TcMode::tf32)));
  c.raster_n = true;
  c.persistent = false;
  c.vec = 1;
  EXPECT_TRUE(s9::tc_same_kernel(c, s9::tc_gemm_default(s9::TcMode::tf32)));
  c.stages += 1;
  EXPECT_FALSE(s9::tc_same_kernel(c, s9::tc_gemm_default(s9::TcMode::tf32)));
}

TEST(TcGemm, EpilogueRulesAreSentences) {
  const s9::TcConfig cfg = s9::tc_gemm_default(s9::TcMode::accurate);
  EXPECT_EQ(s9::tc_column_stat_rows(cfg), cfg.bm);
  s9::TcConfig pp = cfg;
  pp.pingpong = true;
  EXPECT_EQ(s9::tc_column_stat_rows(pp), cfg.bm / cfg.consumers);
  alignas(16) static float buf[64];
  Epilogue e;
  e.add_column(buf).relu().scale(2.f).mul_column(buf).column_affine(buf, 4).gelu_tanh();
  EXPECT_TRUE(s9::tc_epilogue_supported(cfg, e));
  // Residual steps (one tensor, at most two) last, combined in the TMA store epilogue
  // (vec=4, the default); no per-row vectors.
  EXPECT_EQ(cfg.vec, 4);
  Epilogue res = e;
  res.add_residual(buf, 4).mul_residual(buf, 4);
  EXPECT_TRUE(s9::tc_epilogue_supported(cfg, res));
  EXPECT_TRUE(s9::tc_epilogue_supported(cfg, Epilogue{}.mul_residual(buf + 4, 8)));
  EXPECT_TRUE(s9::tc_epilogue_supported(cfg, Epilogue{}.add_residual(buf, 4).at_rows(3)));
  EXPECT_EQ(s9::tc_epilogue_unsupported_reason(cfg, Epilogue{}.relu().add_row(buf)),
            "the tensor-core GEMM's epilogue reads no per-row operands, got step 1 (add_row)");
  s9::TcConfig regs = cfg;
  regs.vec = 2;
  EXPECT_EQ(s9::tc_epilogue_unsupported_reason(regs, Epilogue{}.add_residual(buf, 4)),
            "the tensor-core GEMM combines residual steps in its TMA store epilogue (vec=4), got "
            "vec=2");
  EXPECT_EQ(s9::tc_epilogue_unsupported_reason(cfg, Epilogue{}.add_residual(buf, 4).relu()),
            "the tensor-core GEMM combines residual steps as the tile is stored, so they come "
            "last in the chain, got step 0 (add_residual) before step 1 (relu)");
  EXPECT_EQ(s9::tc_epilogue_unsupported_reason(
                cfg, Epilogue{}.add_residual(buf, 4).mul_residual(buf, 4).add_residual(buf, 4)),
            "the tensor-core GEMM combines at most 2 residual steps, got 3");
  EXPECT_EQ(s9::tc_epilogue_unsupported_reason(
                cfg, Epilogue{}.add_residual(buf, 4).mul_residual(buf + 4, 4)),
            "the tensor-core GEMM's residual steps read one tensor, got steps 0 and 1 with "
            "different operands");
  EXPECT_EQ(s9::tc_epilogue_unsupported_reason(cfg, Epilogue{}.add_residual(buf, 6)),
            "the residual's row stride must be a positive multiple of 4 floats (the TMA's "
            "16-byte pitch), got ld=6");
  EXPECT_NE(s9::tc_epilogue_unsupported_reason(cfg, Epilogue{}.add_residual(buf + 1, 4))
                .find("the residual must be 16-byte aligned (the TMA's rule), got its row 0 at "),
            std::string::npos);
  Epilogue res_gn;
  res_gn.add_residual(buf, 8).group_norm(8, nullptr, nullptr, 1e-5f);
  EXPECT_EQ(s9::tc_epilogue_unsupported_reason(cfg, res_gn),
            "the tensor-core GEMM applies residual steps only in a chain without a tile stage "
            "(they are combined after it), got 'add_residual,group_norm(8)'");
  Epilogue no_operand;
  no_operand.steps[0] = {tt::ops::cuda::gemm::EpilogueOp::kAddResidual, 1.f, nullptr, 4};
  no_operand.count = 1;
  EXPECT_EQ(s9::tc_epilogue_unsupported_reason(cfg, no_operand),
            "epilogue step 0 (add_residual) has no operand");
  e.column_stats(buf, buf);
  EXPECT_TRUE(s9::tc_epilogue_supported(cfg, e));
  EXPECT_EQ(s9::tc_epilogue_unsupported_reason(cfg, e.at_rows(3)),
            "column statistics need the chain's row0 to be a multiple of the 128 rows per "
            "partial, got row0=3");
  EXPECT_TRUE(s9::tc_epilogue_supported(cfg, e.at_rows(256)));
  // Plans ask before their partials exist (the launch checks them, RefusesOffDeviceOrOffTable).
  Epilogue no_m2;
  no_m2.column_stats(buf, nullptr);
  EXPECT_TRUE(s9::tc_epilogue_supported(cfg, no_m2));
  // The group norm: whole groups of a power of two from 8 to the tile's BN (128 here).
  for (int64_t gs : {8, 16, 64, 128}) {
    Epilogue gn;
    gn.add_column(buf).silu().group_norm(gs, buf, buf, 1e-5f);
    EXPECT_TRUE(s9::tc_epilogue_supported(cfg, gn)) << gs;
  }
  for (int64_t gs : {4, 24, 256}) {
    Epilogue gn;
    gn.group_norm(gs, nullptr, nullptr, 1e-5f);
    EXPECT_EQ(s9::tc_epilogue_unsupported_reason(cfg, gn),
              "the tensor-core GEMM's group norm needs groups of a power of two from 8 to the "
              "tile's 128 columns, got " +
                  std::to_string(gs));
  }
}

TEST(TcGemm, RefusesOffDeviceOrOffTable) {
  if (!tt::test::cuda_available()) GTEST_SKIP() << "no CUDA device";
  Tensor x = tt::test::nan_filled(Shape{4, 8}, Device::cuda(0));
  float* p = tt::test::float_ptr(x);
  if (!s9::tc_gemm_device_supported()) {
    const std::string msg = tt::test::error_of([&] {
      s9::tc_gemm(s9::tc_gemm_default(s9::TcMode::accurate), p, p, p, 2, 2, 8, Epilogue{},
                  tt::cuda::stream(0));
    });
    EXPECT_NE(msg.find("needs an sm_90 GPU"), std::string::npos) << msg;
    return;
  }
  s9::TcConfig bad = s9::tc_gemm_default(s9::TcMode::tf32);
  bad.stages = 17;
  EXPECT_NE(tt::test::error_of(
                [&] { s9::tc_gemm(bad, p, p, p, 2, 2, 8, Epilogue{}, tt::cuda::stream(0)); })
                .find("no compiled variant matches the config 'tf32 bm=128 bn=256 bk=32 "
                      "stages=17"),
            std::string::npos);
  EXPECT_EQ(tt::test::error_of(
                [&] { s9::tc_gemm(bad, p, p, p, 2, 2, 6, Epilogue{}, tt::cuda::stream(0)); }),
            "tc_gemm: cannot run C[2, 2] = X[2, 6] W[2, 6]^T: K must be a multiple of 4 (the "
            "TMA needs 16-byte row pitches), got K=6.");
  const s9::TcConfig ok = s9::tc_gemm_default(s9::TcMode::tf32);
  Epilogue gn;
  gn.group_norm(4, nullptr, nullptr, 1e-5f);
  EXPECT_EQ(tt::test::error_of([&] { s9::tc_gemm(ok, p, p, p, 2, 2, 8, gn, tt::cuda::stream(0)); }),
            "tc_gemm: cannot apply the epilogue 'group_norm(4)': the tensor-core GEMM's group "
            "norm needs groups of a power of two from 8 to the tile's 256 columns, got 4.");
  gn.group_norm(8, nullptr, nullptr, 1e-5f);
  EXPECT_EQ(
      tt::test::error_of([&] { s9::tc_gemm(ok, p, p, p, 2, 12, 8, gn, tt::cuda::stream(0)); }),
      "tc_gemm: the group norm's groups of 8 channels must divide N=12.");
  Epilogue no_m2;
  no_m2.column_stats(p, nullptr);
  EXPECT_EQ(
      tt::test::error_of([&] { s9::tc_gemm(ok, p, p, p, 2, 2, 8, no_m2, tt::cuda::stream(0)); }),
      "tc_gemm: column statistics need both part_mean and part_m2.");
  // The residual needs the TMA stores, so N % 4 == 0 (never register stores instead).
  Tensor big = tt::test::nan_filled(Shape{64}, Device::cuda(0));
  float* q = tt::test::float_ptr(big);
  EXPECT_NE(tt::test::error_of([&] {
              s9::tc_gemm(ok, q, q, q, 2, 6, 8, Epilogue{}.add_residual(q, 8), tt::cuda::stream(0));
            })
                .find("tc_gemm: the epilogue 'add_residual' combines its residual in the TMA store "
                      "epilogue, which needs N % 4 == 0 and C 16-byte aligned; got N=6 and C at "),
            std::string::npos);
  EXPECT_EQ(tt::test::error_of([&] {
              s9::tc_gemm(ok, q, q, q, 2, 8, 8, Epilogue{}.add_residual(q, 4), tt::cuda::stream(0));
            }),
            "tc_gemm: the residual's rows are ld=4 floats apart, fewer than N=8.");
}

TEST(TcGemm, EveryVariantMatchesDoubleAtAwkwardShapes) {
  REQUIRE_SM90();
  const std::vector<Case> cases = {{1, 64, 36},      {5, 33, 4},     {77, 92, 52},
                                   {130, 257, 1004}, {67, 70, 2052}, {190, 300, 520}};
  uint64_t seed = 100;
  int turn = 0;
  for (s9::TcConfig cfg : s9::tc_gemm_variants()) {
    for (int persistent = 0; persistent < 2; ++persistent) {
      // Each config also moves the run-time axes, so that every value runs somewhere.
      ++turn;
      cfg.persistent = persistent;
      cfg.group_m = persistent ? 8 : 1 + turn % 3;
      cfg.raster_n = turn % 2;
      cfg.vec = (turn / 2) % 3 == 2 ? 4 : 1 + (turn / 2) % 3;  // 1, 2, 4 (TMA stores)
      if (cfg.mode == s9::TcMode::accurate) cfg.promote = 32 << (turn % 3);
      for (const Case& c : cases) {
        const double err = run_plain(cfg, c, seed += 10);
        EXPECT_LE(err, bound(cfg.mode))
            << s9::to_string(cfg) << " at " << c.m << "x" << c.n << "x" << c.k;
      }
    }
  }
}

// The TMA rounds tf32's operands to nearest as it loads them (a TFLOAT32 tensor map):
// about 0.6u = 2.6e-4 relative L2 against float64 (cuBLASLt TF32's figure), where the
// tensor core's own truncation of raw float32 operands gives about 7e-4.
TEST(TcGemm, Tf32RoundsOperandsToNearest) {
  REQUIRE_SM90();
  const Case c{256, 512, 1024};
  for (s9::TcConfig cfg : s9::tc_gemm_variants()) {
    if (cfg.mode != s9::TcMode::tf32) continue;
    EXPECT_LT(run_plain(cfg, c, 11), 4e-4) << s9::to_string(cfg);
  }
}

TEST(TcGemm, AccurateIsFarCloserThanTf32AtLongK) {
  REQUIRE_SM90();
  const Case c{33, 65, 8192};
  const double tf32 = run_plain(s9::tc_gemm_default(s9::TcMode::tf32), c, 7);
  const double acc = run_plain(s9::tc_gemm_default(s9::TcMode::accurate), c, 7);
  EXPECT_LE(acc, bound(s9::TcMode::accurate));
  EXPECT_LT(acc * 50, tf32) << "accurate " << acc << " tf32 " << tf32;
}

// Every step the kernel applies, alone and in chains, in both modes (the steps that
// read per-row or per-element operands are refused: EpilogueRulesAreSentences).
TEST(TcGemm, EpilogueChains) {
  REQUIRE_SM90();
  const Case c{70, 132, 260};
  using Build = Epilogue (*)(const Operands&, float*, float*);
  const std::vector<std::pair<const char*, Build>> chains = {
      {"add_column", [](const Operands& o, float*,
                        float*) { return Epilogue{}.add_column(tt::test::float_ptr(o.bias)); }},
      {"mul_column,add_column,relu",
       [](const Operands& o, float*, float*) {
         return Epilogue{}
             .mul_column(tt::test::float_ptr(o.scale))
             .add_column(tt::test::float_ptr(o.bias))
             .relu();
       }},
      {"add_column,silu,scale",
       [](const Operands& o, float*, float*) {
         return Epilogue{}.add_column(tt::test::float_ptr(o.bias)).silu().scale(0.75f);
       }},
      {"gelu,gelu_tanh,leaky_relu",
       [](const Operands&, float*, float*) {
         return Epilogue{}.gelu().gelu_tanh().leaky_relu(0.1f);
       }},
      {"column_affine,relu",
       [](const Operands& o, float*, float*) {
         return Epilogue{}.column_affine(tt::test::float_ptr(o.affine), 132).relu();
       }},
  };
  uint64_t seed = 40;
  for (s9::TcMode mode : {s9::TcMode::tf32, s9::TcMode::accurate}) {
    for (int vec : {4, 2}) {  // N = 132: TMA stores, and stores from registers
      s9::TcConfig cfg = s9::tc_gemm_default(mode);
      cfg.vec = vec;
      for (const auto& [name, build] : chains) {
        const double err = run_case(cfg, c, seed += 10, build).out;
        EXPECT_LE(err, bound(mode)) << s9::to_string(cfg) << " " << name;
      }
    }
  }
}

// The residual steps, combined in the TMA store epilogue (issue 18's proj and fc2: bias,
// then the residual add), for every compiled variant in both modes: M and N not tile
// multiples (N % 4 == 0), strided residuals and a row offset (Epilogue::row0), K long enough
// that the residual's first chunks load halfway through the main loop, and more tiles than
// SMs, so that each CTA's buffers take several tiles' residuals and their barriers' phases
// wrap; register-chain steps before them.
TEST(TcGemm, ResidualEpilogue) {
  REQUIRE_SM90();
  const std::vector<Case> cases = {
      {70, 132, 260, 140, 0}, {300, 260, 100, 260, 5}, {4100, 1028, 40, 1036, 3}};
  using Build = Epilogue (*)(const Operands&, float*, float*);
  const std::vector<std::pair<const char*, Build>> chains = {
      {"add_column,add_residual",
       [](const Operands& o, float*, float*) {
         return Epilogue{}
             .add_column(tt::test::float_ptr(o.bias))
             .add_residual(tt::test::float_ptr(o.residual), o.ld);
       }},
      {"mul_column,gelu,add_residual,mul_residual",
       [](const Operands& o, float*, float*) {
         float* r = tt::test::float_ptr(o.residual);
         return Epilogue{}
             .mul_column(tt::test::float_ptr(o.scale))
             .gelu()
             .add_residual(r, o.ld)
             .mul_residual(r, o.ld);
       }},
      {"mul_residual",
       [](const Operands& o, float*, float*) {
         return Epilogue{}.mul_residual(tt::test::float_ptr(o.residual), o.ld);
       }},
  };
  uint64_t seed = 3000;
  int turn = 0;
  for (s9::TcConfig cfg : s9::tc_gemm_variants()) {
    cfg.vec = 4;
    for (const Case& c : cases) {
      ++turn;
      cfg.persistent = turn % 3 != 0;
      const char* name = chains[turn % chains.size()].first;
      const Build build = chains[turn % chains.size()].second;
      const double err = run_case(cfg, c, seed += 10, [&](const Operands& o, float* a, float* b) {
                           return build(o, a, b).at_rows(c.r0);
                         }).out;
      EXPECT_LE(err, bound(cfg.mode)) << s9::to_string(cfg) << " " << name << " at " << c.m << "x"
                                      << c.n << "x" << c.k << " ld=" << c.ld << " row0=" << c.r0;
    }
  }
}

// The group norm in the epilogue (model 3's chain: bias, silu, bias, group norm) for every
// compiled variant, at each power-of-two group size from 8 to the tile's width that its
// BN holds, with M and N not tile multiples where the groups allow it; TMA stores and
// register stores alternate.
TEST(TcGemm, GroupNormEpilogue) {
  REQUIRE_SM90();
  uint64_t seed = 900;
  int turn = 0;
  for (s9::TcConfig cfg : s9::tc_gemm_variants()) {
    for (int64_t gs = 8; gs <= cfg.bn; gs *= 2) {
      if (cfg.bn % gs != 0 || (gs != 8 && gs != 64 && gs != cfg.bn)) continue;
      cfg.vec = ++turn % 2 ? 4 : 2;
      // N: one and a half tiles where the groups divide it, else two tiles.
      const int64_t n = (3 * cfg.bn / 2) % gs == 0 ? 3 * cfg.bn / 2 : 2 * cfg.bn;
      const Case c{70, n, 260};
      const double err = run_case(cfg, c, seed += 10, [gs](const Operands& o, float*, float*) {
                           float* bias = tt::test::float_ptr(o.bias);
                           return Epilogue{}.add_column(bias).silu().add_column(bias).group_norm(
                               gs, tt::test::float_ptr(o.scale), bias, 1e-5f);
                         }).out;
      EXPECT_LE(err, bound(cfg.mode))
          << s9::to_string(cfg) << " groups of " << gs << " at 70x" << n << "x260";
    }
  }
}

// The batch-norm partials (per tile row band and column: mean and M2 over the band's
// rows below M) for every compiled variant, with M not a multiple of the band.
TEST(TcGemm, ColumnStatisticsPartials) {
  REQUIRE_SM90();
  // N = 132 takes the TMA stores, whose buffers the statistics share; 131 and 70 do not.
  const std::vector<Case> cases = {{300, 131, 100}, {1, 70, 8}, {300, 132, 100}};
  uint64_t seed = 500;
  for (const s9::TcConfig& cfg : s9::tc_gemm_variants()) {
    for (const Case& c : cases) {
      const Errors e = run_case(cfg, c, seed += 10, [](const Operands& o, float* pm, float* pm2) {
        return Epilogue{}.add_column(tt::test::float_ptr(o.bias)).relu().column_stats(pm, pm2);
      });
      const std::string what = s9::to_string(cfg) + " at " + std::to_string(c.m) + "x" +
                               std::to_string(c.n) + "x" + std::to_string(c.k);
      EXPECT_LE(e.out, bound(cfg.mode)) << what;
      EXPECT_LE(e.mean, bound(cfg.mode)) << what;
      // M2 sums squared deviations: a relative error near twice the values'.
      EXPECT_LE(e.m2, 2 * bound(cfg.mode)) << what;
    }
  }
}

// TT_TC_STRESS_SHARD="i/n": which share of the stress cases this process runs (every
// n-th from the i-th), so that n processes at once cover every case once between them
// and each stays short enough for 20 rounds under a sanitizer. Unset: "0/1", all.
struct Shard {
  int index = 0, count = 1;
};

Shard stress_shard() {
  const char* env = std::getenv("TT_TC_STRESS_SHARD");
  Shard s;
  if (!env) return s;
  char slash = 0, rest = 0;
  if (std::sscanf(env, "%d%c%d%c", &s.index, &slash, &s.count, &rest) != 3 || slash != '/' ||
      s.count < 1 || s.index < 0 || s.index >= s.count) {
    ADD_FAILURE() << "TT_TC_STRESS_SHARD must be i/n with 0 <= i < n, got '" << env << "'";
    return Shard{};
  }
  return s;
}

// The contention stress (issue 21): every compiled variant with each epilogue (none, a
// column chain, the group norm, the column statistics), TMA stores and register stores,
// at shapes with partial tiles, repeated TT_TC_STRESS_ROUNDS times (default 2), this
// process's TT_TC_STRESS_SHARD of them. Every shard also runs the cases that failed
// under contention before the fix (the tf32 256x128 ping-pong 5-stage variant's column
// statistics at 300x131x100 and 300x132x100, both store paths): the ping-pong
// statistics overwrote that variant's mbarriers, which gave inf column means whenever
// a warp lagged. Alone it is a plain check; tools/device/stress_proof.sh runs it from 6
// processes at once under racecheck and synccheck, 20 rounds.
TEST(TcGemm, StressEveryVariantEveryEpilogue) {
  REQUIRE_SM90();
  const char* env = std::getenv("TT_TC_STRESS_ROUNDS");
  const int rounds = env ? std::max(1, std::atoi(env)) : 2;
  const Shard shard = stress_shard();
  using Build = Epilogue (*)(const Operands&, float*, float*);
  const Build column_stats = [](const Operands& o, float* pm, float* pm2) {
    return Epilogue{}.add_column(tt::test::float_ptr(o.bias)).relu().column_stats(pm, pm2);
  };
  const std::vector<std::pair<const char*, Build>> epilogues = {
      {"none", [](const Operands&, float*, float*) { return Epilogue{}; }},
      {"add_column,relu",
       [](const Operands& o, float*, float*) {
         return Epilogue{}.add_column(tt::test::float_ptr(o.bias)).relu();
       }},
      {"group_norm(8)",
       [](const Operands& o, float*, float*) {
         float* bias = tt::test::float_ptr(o.bias);
         return Epilogue{}.add_column(bias).group_norm(8, tt::test::float_ptr(o.scale), bias,
                                                       1e-5f);
       }},
      {"column_stats", column_stats},
  };
  uint64_t seed = 7000;
  int runs = 0;
  auto check = [&](const s9::TcConfig& cfg, const char* name, Build build, const Case& c,
                   int round) {
    const Errors e = run_case(cfg, c, seed += 10, build);
    ++runs;
    const std::string what = s9::to_string(cfg) + " " + name + " at " + std::to_string(c.m) + "x" +
                             std::to_string(c.n) + "x" + std::to_string(c.k) + ", round " +
                             std::to_string(round);
    EXPECT_LE(e.out, bound(cfg.mode)) << what;
    EXPECT_LE(e.mean, bound(cfg.mode)) << what;
    EXPECT_LE(e.m2, 2 * bound(cfg.mode)) << what;
  };
  int pinned = 0;
  for (int round = 0; round < rounds; ++round) {
    for (s9::TcConfig cfg : s9::tc_gemm_variants()) {
      if (cfg.mode == s9::TcMode::tf32 && cfg.pingpong && cfg.bm == 256 && cfg.bn == 128 &&
          cfg.stages == 5) {
        for (int vec : {4, 2}) {
          cfg.vec = vec;
          for (const Case& c : {Case{300, 131, 100}, Case{300, 132, 100}}) {
            check(cfg, "column_stats (pinned)", column_stats, c, round);
            ++pinned;
          }
        }
      }
    }
    int index = 0;
    for (s9::TcConfig cfg : s9::tc_gemm_variants()) {
      for (int vec : {4, 2}) {
        cfg.vec = vec;
        for (const auto& [name, build] : epilogues) {
          // N = 136 (whole groups of 8, TMA stores) and 131 (register stores only);
          // M past two ping-pong tiles, so one consumer's epilogue meets the other's loop.
          for (const Case& c : {Case{300, 136, 100}, Case{300, 131, 100}}) {
            if (name[0] == 'g' && c.n % 8 != 0) continue;
            if (index++ % shard.count == shard.index) check(cfg, name, build, c, round);
          }
        }
      }
    }
  }
  EXPECT_EQ(pinned, 4 * rounds) << "the ping-pong 256x128 5-stage tf32 variant is not compiled";
  std::printf("stress shard %d/%d: %d GEMMs, %d of them the pinned ping-pong cases\n", shard.index,
              shard.count, runs, pinned);
}

}  // namespace

#else

TEST(TcGemm, NotBuilt) { GTEST_SKIP() << "built without CUDA or without the sm_90a GEMM family"; }

#endif
