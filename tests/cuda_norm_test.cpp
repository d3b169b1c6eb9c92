// The CUDA normalisation kernels against the CPU reference ops: the building blocks
// tt::ops::{instance_norm, group_norm, batch_norm} on GPU tensors, and every
// candidate config of every raw launcher of ops/cuda/norm/norm_passes.h (the model
// passes against the composition of the unfused CPU ops). Awkward shapes throughout:
// batch 1, odd lengths (7x13), lengths not a multiple of the vector width, 1x1
// spatial, groups = 1 and groups = C, segments just above a tile. Outputs are
// poisoned with NaN before each launch so that a variant that skips an element fails.
// Tolerance: relative L2 error 1e-5 (the strict-precision bound).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "ops/ops.h"
#include "support/test_util.h"

#if TT_CUDA
#include "core/cuda/stream.h"
#include "ops/cuda/norm/norm_passes.h"
#include "ops/cuda/norm/norm_space.h"
#endif

using ::testing::HasSubstr;
using tt::Device;
using tt::DType;
using tt::Shape;
using tt::Tensor;

namespace {

constexpr double kTol = 1e-5;

#if TT_CUDA
namespace norm = tt::ops::cuda::norm;
const Device kGpu = Device::cuda(0);

cudaStream_t gpu_stream() { return tt::cuda::stream(0); }
float* ptr(const Tensor& t) { return tt::test::float_ptr(t); }
Tensor nan_like(const Shape& s) { return tt::test::nan_filled(s, kGpu); }

// ---- building blocks through the op front end ----

struct InstanceCase {
  Shape shape;
  bool affine;
};

TEST(CudaNorm, InstanceNormMatchesCpu) {
  TT_REQUIRE_CUDA();
  const InstanceCase cases[] = {
      {{1, 1, 7, 13}, false},  {{3, 5, 7, 13}, true},     {{4, 6, 1, 1}, true},
      {{2, 3, 64}, false},     {{2, 3, 1028}, true},      {{1, 2, 181, 181}, true},
      {{2, 2, 2, 3, 5}, true}, {{1, 3, 2, 16386}, false},
  };
  for (const auto& k : cases) {
    SCOPED_TRACE(tt::shape_str(k.shape));
    const Tensor x = Tensor::rand(k.shape, 1);
    Tensor w, b;
    if (k.affine)
      w = Tensor::uniform({k.shape[1]}, 0.5, 1.5, 2), b = Tensor::randn({k.shape[1]}, 3);
    const Tensor want = tt::ops::instance_norm(x, 1e-5, w, b);
    const Tensor got = tt::ops::instance_norm(x.to(kGpu), 1e-5, k.affine ? w.to(kGpu) : w,
                                              k.affine ? b.to(kGpu) : b);
    EXPECT_EQ(got.device(), kGpu);
    EXPECT_LE(tt::test::rel_l2(got, want), kTol);
  }
}

TEST(CudaNorm, InstanceNormOfStridedView) {
  TT_REQUIRE_CUDA();
  // A transposed view and a narrowed view whose first element is not 16-byte aligned.
  const Tensor base = Tensor::rand({2, 3, 9, 12}, 4);
  for (const Tensor& x : {base.transpose(2, 3), base.narrow(3, 1, 11)}) {
    const Tensor want = tt::ops::instance_norm(x);
    const Tensor got = tt::ops::instance_norm(x.to(kGpu));
    EXPECT_LE(tt::test::rel_l2(got, want), kTol);
  }
}

struct GroupCase {
  Shape shape;
  int64_t groups;
};

TEST(CudaNorm, GroupNormMatchesCpu) {
  TT_REQUIRE_CUDA();
  const GroupCase cases[] = {
      {{5, 12}, 3},      {{5, 12}, 1},      {{5, 12}, 12},   {{1, 4096}, 64}, {{2, 6, 7, 13}, 2},
      {{3, 8, 4, 4}, 4}, {{1, 6, 1, 1}, 6}, {{2, 10, 5}, 5}, {{3, 260}, 2},
  };
  for (const auto& k : cases) {
    SCOPED_TRACE(tt::shape_str(k.shape) + " groups " + std::to_string(k.groups));
    const Tensor x = Tensor::randn(k.shape, 5);
    const Tensor w = Tensor::uniform({k.shape[1]}, 0.5, 1.5, 6);
    const Tensor b = Tensor::randn({k.shape[1]}, 7);
    const Tensor want = tt::ops::group_norm(x, k.groups, w, b);
    const Tensor got = tt::ops::group_norm(x.to(kGpu), k.groups, w.to(kGpu), b.to(kGpu));
    EXPECT_LE(tt::test::rel_l2(got, want), kTol);
  }
}

TEST(CudaNorm, BatchNormMatchesCpuInBothModes) {
  TT_REQUIRE_CUDA();
  const Shape shapes[] = {{7, 13}, {2, 5}, {300, 12}, {3, 5, 91}, {2, 4, 1}, {1, 3, 7}, {513, 6}};
  for (const auto& shape : shapes) {
    for (bool training : {true, false}) {
      SCOPED_TRACE(tt::shape_str(shape) + (training ? " training" : " eval"));
      const int64_t c = shape[1];
      const Tensor x = Tensor::uniform(shape, -2.0, 3.0, 8);
      const Tensor w = Tensor::uniform({c}, 0.5, 1.5, 9);
      const Tensor b = Tensor::randn({c}, 10);
      Tensor rm_cpu = Tensor::uniform({c}, -0.5, 0.5, 11);
      Tensor rv_cpu = Tensor::uniform({c}, 0.5, 2.0, 12);
      Tensor rm_gpu = rm_cpu.to(kGpu), rv_gpu = rv_cpu.to(kGpu);
      const Tensor want = tt::ops::batch_norm(x, rm_cpu, rv_cpu, w, b, training, 0.1, 1e-5);
      const Tensor got = tt::ops::batch_norm(x.to(kGpu), rm_gpu, rv_gpu, w.to(kGpu), b.to(kGpu),
                                             training, 0.1, 1e-5);
      EXPECT_LE(tt::test::rel_l2(got, want), kTol);
      // Running statistics: updated in place in training, untouched in eval.
      EXPECT_LE(tt::test::rel_l2(rm_gpu, rm_cpu), 1e-6);
      EXPECT_LE(tt::test::rel_l2(rv_gpu, rv_cpu), 1e-6);
    }
  }
}

// ---- every candidate config of every raw launcher ----

// Segment norm on [N, C, S] as instance norm (groups 0) or group norm.
void check_segment_configs(const Shape& shape, int64_t groups) {
  const int64_t n = shape[0], c = shape[1];
  const int64_t spatial = tt::shape_numel(shape) / (n * c);
  const bool inst = groups == 0;
  const int64_t g = inst ? c : groups, cpg = inst ? 1 : c / groups;
  const Tensor x = Tensor::rand(shape, 20);
  const Tensor w = Tensor::uniform({c}, 0.5, 1.5, 21), b = Tensor::randn({c}, 22);
  const Tensor want =
      inst ? tt::ops::instance_norm(x, 1e-5, w, b) : tt::ops::group_norm(x, groups, w, b);
  const Tensor xg = x.to(kGpu), wg = w.to(kGpu), bg = b.to(kGpu);
  norm::SegmentNormArgs a;
  a.x = ptr(xg), a.segments = n * g, a.length = cpg * spatial, a.groups = g;
  a.channels_per_group = cpg, a.inner = spatial, a.gamma = ptr(wg), a.beta = ptr(bg);
  const auto configs = norm::SegmentConfig::candidates({a.segments, a.length, 4});
  ASSERT_FALSE(configs.empty());
  for (const auto& cfg : configs) {
    SCOPED_TRACE(tt::shape_str(shape) + " " + cfg.str());
    const Tensor out = nan_like(shape);
    a.out = ptr(out);
    norm::launch_segment_norm(cfg, a, gpu_stream());
    EXPECT_LE(tt::test::rel_l2(out, want), kTol);
  }
}

// Every kernel kind and code path at the smallest shapes that reach it, so that the
// test stays quick under compute-sanitizer racecheck (tools/device/check.sh).
TEST(CudaNorm, SegmentNormEveryConfig) {
  TT_REQUIRE_CUDA();
  check_segment_configs({3, 5, 7, 13}, 0);
  check_segment_configs({4, 6, 1, 1}, 0);
  check_segment_configs({2, 3, 64}, 0);
  check_segment_configs({2, 3, 1028}, 0);   // just above a warp's 1024
  check_segment_configs({1, 2, 32772}, 0);  // just above a block's 32768
  // More slices than the persistent pipe grid has clusters, so each cluster loops
  // over several (with a partly filled last slice per CTA): 40 slices just above a
  // quarter of the 262144-float variants, 80 just above a quarter of the 65536 one.
  check_segment_configs({4, 10, 65540}, 0);
  check_segment_configs({2, 40, 16388}, 0);
  check_segment_configs({5, 12}, 3);
  check_segment_configs({5, 12}, 1);
  check_segment_configs({5, 12}, 12);
  check_segment_configs({2, 6, 7, 13}, 2);
}

// Model 2's 1 MiB slices and the largest segment a cluster holds, at full size (too
// slow for racecheck, which SegmentNormEveryConfig covers; memcheck runs this too).
TEST(CudaNorm, SegmentNormEveryConfigFullSizeSlices) {
  TT_REQUIRE_CUDA();
  check_segment_configs({1, 1, 262148}, 0);  // just above a 16-CTA cluster's 262144
  check_segment_configs({1, 2, 512, 512}, 0);
  check_segment_configs({5, 8, 512, 512}, 0);  // pipe variants loop over several slices
  check_segment_configs({4, 50, 256, 256}, 0);
}

TEST(CudaNorm, SegmentNormStatisticsOnly) {
  TT_REQUIRE_CUDA();
  // out == nullptr: only the per-segment mean and M2 (batch norm's [N, C, L] partials).
  const Tensor x = Tensor::uniform({6, 91}, 999.0, 1001.0, 23);  // a large common offset
  const std::vector<float> h = x.to_vector<float>();
  const Tensor xg = x.to(kGpu);
  norm::SegmentNormArgs a;
  a.x = ptr(xg), a.segments = 6, a.length = 91, a.groups = 1, a.inner = 91;
  for (const auto& cfg : norm::SegmentConfig::candidates({6, 91, 4})) {
    SCOPED_TRACE(cfg.str());
    const Tensor mean = nan_like({6}), m2 = nan_like({6});
    a.seg_mean = ptr(mean), a.seg_m2 = ptr(m2);
    norm::launch_segment_norm(cfg, a, gpu_stream());
    const auto gm = mean.to_vector<float>(), gq = m2.to_vector<float>();
    for (int s = 0; s < 6; ++s) {
      double sum = 0, q = 0;
      for (int i = 0; i < 91; ++i) sum += h[s * 91 + i];
      const double mu = sum / 91;
      for (int i = 0; i < 91; ++i) q += (h[s * 91 + i] - mu) * (h[s * 91 + i] - mu);
      EXPECT_NEAR(gm[s], mu, 1e-4);  // a few float32 ulps of 1000
      EXPECT_NEAR(gq[s], q, 1e-5 * q);
    }
  }
}

void check_row_add_mul_configs(int64_t rows, int64_t cols) {
  const Tensor Y = Tensor::randn({rows, cols}, 30), y = Tensor::rand({rows, cols}, 31);
  const Tensor normed = tt::ops::instance_norm(Y.view({rows, 1, cols}), 1e-5).view({rows, cols});
  const Tensor want = tt::ops::mul(tt::ops::add(normed, y), y);
  const Tensor Yg = Y.to(kGpu), yg = y.to(kGpu);
  for (const auto& cfg : norm::SegmentConfig::candidates({rows, cols, 4})) {
    SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols) + " " + cfg.str());
    const Tensor out = nan_like({rows, cols});
    norm::launch_row_norm_add_mul(cfg, ptr(Yg), ptr(yg), ptr(out), rows, cols, 1e-5f, gpu_stream());
    EXPECT_LE(tt::test::rel_l2(out, want), kTol);
  }
}

TEST(CudaNorm, RowNormAddMulEveryConfig) {
  TT_REQUIRE_CUDA();
  check_row_add_mul_configs(7, 13);
  check_row_add_mul_configs(1, 64);
  check_row_add_mul_configs(3, 8200);
  check_row_add_mul_configs(16, 8192);
}

void check_swish_group_configs(int64_t rows, int64_t channels, int64_t groups) {
  const Tensor Y = Tensor::uniform({rows, channels}, -3.0, 3.0, 40);
  const Tensor bias = Tensor::randn({channels}, 41);
  const Tensor w = Tensor::uniform({channels}, 0.5, 1.5, 42), b = Tensor::randn({channels}, 43);
  const Tensor want = tt::ops::group_norm(tt::ops::add(tt::ops::swish(Y), bias), groups, w, b);
  const Tensor Yg = Y.to(kGpu), biasg = bias.to(kGpu), wg = w.to(kGpu), bg = b.to(kGpu);
  for (const auto& cfg : norm::SegmentConfig::candidates({rows * groups, channels / groups, 4})) {
    SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(channels) + " groups " +
                 std::to_string(groups) + " " + cfg.str());
    const Tensor out = nan_like({rows, channels});
    norm::launch_swish_bias_group_norm(cfg, ptr(Yg), ptr(biasg), ptr(wg), ptr(bg), ptr(out), rows,
                                       channels, groups, 1e-5f, gpu_stream());
    EXPECT_LE(tt::test::rel_l2(out, want), kTol);
  }
}

TEST(CudaNorm, SwishBiasGroupNormEveryConfig) {
  TT_REQUIRE_CUDA();
  check_swish_group_configs(5, 12, 3);
  check_swish_group_configs(4, 12, 1);
  check_swish_group_configs(4, 12, 12);
  check_swish_group_configs(3, 260, 2);
  check_swish_group_configs(33, 4096, 64);
}

// Model 4's pass: batch_norm(Y * scale) through the column launchers, every stats
// config with the default affine config and every affine config with the default
// stats config.
void check_scale_batch_norm(int64_t rows, int64_t cols, bool training) {
  const Tensor Y = Tensor::randn({rows, cols}, 50);
  const Tensor scale = Tensor::uniform({cols}, -2.0, 2.0, 51);
  const Tensor w = Tensor::uniform({cols}, 0.5, 1.5, 52), b = Tensor::randn({cols}, 53);
  const Tensor rm0 = Tensor::uniform({cols}, -0.5, 0.5, 54);
  const Tensor rv0 = Tensor::uniform({cols}, 0.5, 2.0, 55);
  Tensor rm_want = rm0.clone(), rv_want = rv0.clone();
  const Tensor want =
      tt::ops::batch_norm(tt::ops::mul(Y, scale), rm_want, rv_want, w, b, training, 0.1, 1e-5);
  const Tensor Yg = Y.to(kGpu), sg = scale.to(kGpu), wg = w.to(kGpu), bg = b.to(kGpu);

  const norm::ColumnProblem cp{rows, cols, 4};
  const norm::AffineProblem ap{rows * cols, cols, 1, 4};
  auto run = [&](const norm::ColumnStatsConfig& stats, const norm::AffineConfig& aff) {
    SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols) + " " + stats.str() + " " +
                 aff.str());
    const Tensor rm = rm0.to(kGpu), rv = rv0.to(kGpu);
    const Tensor affine = nan_like({4, cols}), out = nan_like({rows, cols});
    if (training) {
      const int64_t parts = norm::column_stats_parts(stats, rows);
      const Tensor part = nan_like({2, parts, cols});
      norm::launch_column_stats(stats, ptr(Yg), rows, cols, ptr(part), ptr(part) + parts * cols,
                                gpu_stream());
      norm::launch_batch_norm_finalize(ptr(part), ptr(part) + parts * cols, parts, stats.chunk_rows,
                                       rows, cols, ptr(sg), ptr(wg), ptr(bg), ptr(rm), ptr(rv),
                                       0.1f, 1e-5f, ptr(affine), gpu_stream());
    } else {
      norm::launch_batch_norm_eval_affine(cols, ptr(sg), ptr(wg), ptr(bg), ptr(rm), ptr(rv), 1e-5f,
                                          ptr(affine), gpu_stream());
    }
    norm::launch_channel_affine(aff, ptr(Yg), ptr(out), ptr(affine), rows * cols, cols, 1,
                                gpu_stream());
    EXPECT_LE(tt::test::rel_l2(out, want), kTol);
    EXPECT_LE(tt::test::rel_l2(rm, rm_want), 1e-6);
    EXPECT_LE(tt::test::rel_l2(rv, rv_want), 1e-6);
  };
  const auto def_stats = norm::ColumnStatsConfig::default_for(cp);
  const auto def_aff = norm::AffineConfig::default_for(ap);
  if (training)
    for (const auto& cfg : norm::ColumnStatsConfig::candidates(cp)) run(cfg, def_aff);
  for (const auto& cfg : norm::AffineConfig::candidates(ap)) run(def_stats, cfg);
}

TEST(CudaNorm, ScaleBatchNormEveryConfig) {
  TT_REQUIRE_CUDA();
  for (bool training : {true, false}) {
    check_scale_batch_norm(7, 13, training);
    check_scale_batch_norm(2, 6, training);
    check_scale_batch_norm(257, 130, training);  // a chunk and a column block just exceeded
    check_scale_batch_norm(1000, 4096, training);
  }
}

TEST(CudaNorm, ConfigTextRoundTripsAndRejectsBadConfigs) {
  // The text form and parsing are the family descriptors' (norm_space.h).
  for (const auto& c : norm::SegmentConfig::all())
    EXPECT_EQ(norm::segment_descriptor().parse(c.str()), c) << c.str();
  for (const auto& c : norm::ColumnStatsConfig::all())
    EXPECT_EQ(norm::column_stats_descriptor().parse(c.str()), c) << c.str();
  for (const auto& c : norm::AffineConfig::all())
    EXPECT_EQ(norm::affine_descriptor().parse(c.str()), c) << c.str();
  EXPECT_EQ(tt::test::error_of([] { norm::segment_descriptor().parse("impl=block,threads=256"); }),
            "segment norm config impl=block,threads=256 has no field 'vec'");
  EXPECT_EQ(norm::segment_descriptor().parse("impl=block,threads=256,vec=4,items=8"),
            (norm::SegmentConfig{norm::SegmentKind::kBlock, 256, 256, 4, 8, 1, 0}));
  EXPECT_THAT(
      tt::test::error_of(
          [] { norm::segment_descriptor().parse("impl=tile,threads=256,vec=4,items=8"); }),
      HasSubstr("impl must be one of subwarp|block|stream|cluster|pipe|split but got 'tile'"));
  // Not compiled, or not fitting the problem: invalid, and the launcher says so.
  norm::SegmentConfig odd{norm::SegmentKind::kBlock, 256, 256, 4, 3, 1};
  EXPECT_FALSE(norm::valid(odd, {10, 100, 4}));
  norm::SegmentConfig vec4{norm::SegmentKind::kBlock, 256, 256, 4, 1, 1};
  EXPECT_FALSE(norm::valid(vec4, {10, 91, 4}));    // 91 is not a multiple of 4
  EXPECT_FALSE(norm::valid(vec4, {10, 2048, 4}));  // 1024 floats on chip < 2048
  EXPECT_FALSE(norm::valid(vec4, {10, 1024, 2}));  // pointers aligned to 2 floats only
  EXPECT_TRUE(norm::valid(vec4, {10, 1024, 4}));
  // Every problem has a valid default.
  for (int64_t len : {1, 3, 64, 91, 1000, 8192, 32773, 262144, 262147})
    EXPECT_TRUE(norm::valid(norm::SegmentConfig::default_for({4, len, 1}), {4, len, 1})) << len;
}

TEST(CudaNorm, LauncherRejectsMisalignedPointers) {
  TT_REQUIRE_CUDA();
  const Tensor x = Tensor::rand({2, 65}, 60).to(kGpu);
  const Tensor out = Tensor::empty({2, 65}, DType::F32, kGpu);
  norm::SegmentNormArgs a;
  a.x = ptr(x) + 1, a.out = ptr(out) + 1, a.segments = 2, a.length = 64, a.inner = 64;
  const norm::SegmentConfig vec4{norm::SegmentKind::kSubwarp, 256, 16, 4, 1, 1};
  EXPECT_THROW(norm::launch_segment_norm(vec4, a, gpu_stream()), tt::Error);
}

#else

TEST(CudaNorm, SkippedWithoutCuda) { GTEST_SKIP() << "no CUDA device"; }

#endif

}  // namespace
