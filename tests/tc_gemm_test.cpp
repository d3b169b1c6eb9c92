// The sm90 tensor-core GEMM family (ops/cuda/gemm/sm90) against a CPU double
// reference: every compiled variant in both modes at small awkward shapes (M, N, K
// not tile multiples, K past several promotion intervals, M = 1), persistent and
// plain grids with the other run-time axes moved along (raster order and group,
// promotion interval, store width), each epilogue; outputs are poisoned with NaN
// before each launch. The variant-space and config checks need no GPU.
// Bounds (relative L2 vs float64): tf32 5e-3 (operands truncated to 10-bit
// mantissas: 2^-10 each, a few e-4 on these sums), accurate 2e-6 (float32 level; the
// device harness compares it with SGEMM at full size). The problem checks need no
// GPU; the launches skip without an sm_90 GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
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
};

// Reference c = act(x w^T * scale + bias) in double.
std::vector<double> reference(const std::vector<float>& x, const std::vector<float>& w,
                              const Case& c, const std::vector<float>* bias,
                              const std::vector<float>* scale, s9::TcActivation act) {
  std::vector<double> r(c.m * c.n);
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j) {
      double s = 0;
      for (int64_t q = 0; q < c.k; ++q) s += double(x[i * c.k + q]) * double(w[j * c.k + q]);
      if (scale) s *= (*scale)[j];
      if (bias) s += (*bias)[j];
      if (act == s9::TcActivation::relu) s = s > 0 ? s : 0;
      if (act == s9::TcActivation::silu) s = s / (1 + std::exp(-s));
      if (act == s9::TcActivation::gelu) s = 0.5 * s * (1 + std::erf(s / std::sqrt(2.0)));
      r[i * c.n + j] = s;
    }
  return r;
}

double rel_l2(const std::vector<float>& out, const std::vector<double>& ref) {
  double d2 = 0, r2 = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (!std::isfinite(out[i])) return INFINITY;
    d2 += (out[i] - ref[i]) * (out[i] - ref[i]);
    r2 += ref[i] * ref[i];
  }
  return std::sqrt(d2 / r2);
}

// Runs one config on fresh inputs (seeded by `seed`) and returns the error.
double run_case(const s9::TcConfig& cfg, const Case& c, uint64_t seed,
                s9::TcActivation act = s9::TcActivation::none, bool with_bias = false,
                bool with_scale = false) {
  const Device gpu = Device::cuda(0);
  Tensor x = Tensor::uniform(Shape{c.m, c.k}, -1, 1, seed);
  Tensor w = Tensor::uniform(Shape{c.n, c.k}, -1, 1, seed + 1);
  Tensor b = Tensor::uniform(Shape{c.n}, -0.5, 0.5, seed + 2);
  Tensor sc = Tensor::uniform(Shape{c.n}, 0.5, 1.5, seed + 3);
  const std::vector<float> xv = x.to_vector<float>(), wv = w.to_vector<float>();
  const std::vector<float> bv = b.to_vector<float>(), sv = sc.to_vector<float>();
  Tensor xg = x.to(gpu), wg = w.to(gpu), bg = b.to(gpu), sg = sc.to(gpu);
  Tensor out = tt::test::nan_filled(Shape{c.m, c.n}, gpu);
  s9::TcEpilogue e;
  e.bias = with_bias ? tt::test::float_ptr(bg) : nullptr;
  e.scale = with_scale ? tt::test::float_ptr(sg) : nullptr;
  e.act = act;
  s9::tc_gemm(cfg, tt::test::float_ptr(xg), tt::test::float_ptr(wg), tt::test::float_ptr(out), c.m,
              c.n, c.k, e, tt::cuda::stream(0));
  EXPECT_EQ(cudaStreamSynchronize(tt::cuda::stream(0)), cudaSuccess);
  return rel_l2(out.to_vector<float>(),
                reference(xv, wv, c, with_bias ? &bv : nullptr, with_scale ? &sv : nullptr, act));
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
      EXPECT_LE(v[i].promote, 128) << s9::to_string(v[i]);
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
  c.vec = 4;
  EXPECT_EQ(s9::tc_config_invalid_reason(c), "vec must be 1 or 2, got 4");
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

TEST(TcGemm, RefusesOffDeviceOrOffTable) {
  if (!tt::test::cuda_available()) GTEST_SKIP() << "no CUDA device";
  Tensor x = tt::test::nan_filled(Shape{4, 8}, Device::cuda(0));
  float* p = tt::test::float_ptr(x);
  if (!s9::tc_gemm_device_supported()) {
    const std::string msg = tt::test::error_of([&] {
      s9::tc_gemm(s9::tc_gemm_default(s9::TcMode::accurate), p, p, p, 2, 2, 8, {},
                  tt::cuda::stream(0));
    });
    EXPECT_NE(msg.find("needs an sm_90 GPU"), std::string::npos) << msg;
    return;
  }
  s9::TcConfig bad = s9::tc_gemm_default(s9::TcMode::tf32);
  bad.stages = 17;
  EXPECT_NE(tt::test::error_of([&] { s9::tc_gemm(bad, p, p, p, 2, 2, 8, {}, tt::cuda::stream(0)); })
                .find("no compiled variant matches the config 'tf32 bm=128 bn=256 bk=32 "
                      "stages=17"),
            std::string::npos);
  EXPECT_EQ(
      tt::test::error_of([&] { s9::tc_gemm(bad, p, p, p, 2, 2, 6, {}, tt::cuda::stream(0)); }),
      "tc_gemm: cannot run C[2, 2] = X[2, 6] W[2, 6]^T: K must be a multiple of 4 (the "
      "TMA needs 16-byte row pitches), got K=6.");
}

TEST(TcGemm, EveryVariantMatchesDoubleAtAwkwardShapes) {
  REQUIRE_SM90();
  const std::vector<Case> cases = {{1, 64, 36}, {77, 93, 52}, {130, 257, 1004}, {67, 70, 2052}};
  uint64_t seed = 100;
  int turn = 0;
  for (s9::TcConfig cfg : s9::tc_gemm_variants()) {
    for (int persistent = 0; persistent < 2; ++persistent) {
      // Each config also moves the run-time axes, so that every value runs somewhere.
      ++turn;
      cfg.persistent = persistent;
      cfg.group_m = persistent ? 8 : 1 + turn % 3;
      cfg.raster_n = turn % 2;
      cfg.vec = 1 + (turn / 2) % 2;
      if (cfg.mode == s9::TcMode::accurate) cfg.promote = 32 << (turn % 3);
      for (const Case& c : cases) {
        const double err = run_case(cfg, c, seed += 10);
        EXPECT_LE(err, bound(cfg.mode))
            << s9::to_string(cfg) << " at " << c.m << "x" << c.n << "x" << c.k;
      }
    }
  }
}

TEST(TcGemm, AccurateIsFarCloserThanTf32AtLongK) {
  REQUIRE_SM90();
  const Case c{33, 65, 8192};
  const double tf32 = run_case(s9::tc_gemm_default(s9::TcMode::tf32), c, 7);
  const double acc = run_case(s9::tc_gemm_default(s9::TcMode::accurate), c, 7);
  EXPECT_LE(acc, bound(s9::TcMode::accurate));
  EXPECT_LT(acc * 50, tf32) << "accurate " << acc << " tf32 " << tf32;
}

TEST(TcGemm, Epilogues) {
  REQUIRE_SM90();
  const Case c{70, 131, 260};
  for (s9::TcMode mode : {s9::TcMode::tf32, s9::TcMode::accurate}) {
    for (s9::TcActivation act : {s9::TcActivation::none, s9::TcActivation::relu,
                                 s9::TcActivation::silu, s9::TcActivation::gelu}) {
      for (int bs = 0; bs < 4; ++bs) {
        const double err = run_case(s9::tc_gemm_default(mode), c, 40 + bs, act, bs & 1, bs & 2);
        EXPECT_LE(err, bound(mode)) << s9::to_string(mode) << " act " << static_cast<int>(act)
                                    << " bias " << (bs & 1) << " scale " << (bs & 2);
      }
    }
  }
}

}  // namespace

#else

TEST(TcGemm, NotBuilt) { GTEST_SKIP() << "built without CUDA or without the sm_90a GEMM family"; }

#endif
