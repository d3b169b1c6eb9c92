// The CUDA normalisation kernels against the CPU reference ops: the building blocks
// tt::ops::{instance_norm, group_norm, batch_norm} on GPU tensors, layer_norm against
// a double reference (rows far from zero, strided, misaligned weight), the raw
// launchers' statistics-only path, config text and validity, and misaligned pointers
// (every config of every norm launch is in tests/op_table_test.cpp). Awkward shapes
// throughout: batch 1, odd lengths (7x13), lengths not a multiple of the vector width,
// 1x1 spatial, groups = 1 and groups = C, segments just above a tile. Outputs are
// poisoned with NaN before each launch so that a variant that skips an element fails.
// Tolerance: relative L2 error 1e-5 (the strict-precision bound).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "ops/ops.h"
#include "support/gpu_test.h"
#include "support/row_norm_cases.h"
#include "support/test_util.h"

#if TT_CUDA
#include "core/cuda/stream.h"
#include "ops/cuda/cuda_ops.h"
#include "ops/cuda/norm/norm_passes.h"
#include "ops/cuda/norm/norm_space.h"
#endif

using ::testing::HasSubstr;
using tt::Device;
using tt::DType;
using tt::Shape;
using tt::Tensor;

namespace {

using namespace tt::test;  // kStrictTol, kGpu, gpu_stream, float_ptr, nan_gpu

#if TT_CUDA
namespace norm = tt::ops::cuda::norm;

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
    EXPECT_LE(tt::test::rel_l2(got, want), kStrictTol);
  }
}

TEST(CudaNorm, InstanceNormOfStridedView) {
  TT_REQUIRE_CUDA();
  // A transposed view and a narrowed view whose first element is not 16-byte aligned.
  const Tensor base = Tensor::rand({2, 3, 9, 12}, 4);
  for (const Tensor& x : {base.transpose(2, 3), base.narrow(3, 1, 11)}) {
    const Tensor want = tt::ops::instance_norm(x);
    const Tensor got = tt::ops::instance_norm(x.to(kGpu));
    EXPECT_LE(tt::test::rel_l2(got, want), kStrictTol);
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
    EXPECT_LE(tt::test::rel_l2(got, want), kStrictTol);
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
      EXPECT_LE(tt::test::rel_l2(got, want), kStrictTol);
      // Running statistics: updated in place in training, untouched in eval.
      EXPECT_LE(tt::test::rel_l2(rm_gpu, rm_cpu), 1e-6);
      EXPECT_LE(tt::test::rel_l2(rv_gpu, rv_cpu), 1e-6);
    }
  }
}

// ---- raw launchers ----
// Every config of every norm launch (the spaces' configs, at awkward shapes) is in
// tests/op_table_test.cpp, through the op front end; here what it cannot reach.

// layer_norm over the trailing `len` elements, in double.
Tensor ref_layer_norm(const Tensor& x, int64_t len, const Tensor& w, const Tensor& b, double eps) {
  std::vector<double> v = x.to_vector<double>();
  const std::vector<double> wv = w.defined() ? w.to_vector<double>() : std::vector<double>();
  const std::vector<double> bv = b.defined() ? b.to_vector<double>() : std::vector<double>();
  for (size_t r = 0; r < v.size() / static_cast<size_t>(len); ++r) {
    double* row = v.data() + r * len;
    double mean = 0, m2 = 0;
    for (int64_t c = 0; c < len; ++c) mean += row[c];
    mean /= static_cast<double>(len);
    for (int64_t c = 0; c < len; ++c) m2 += (row[c] - mean) * (row[c] - mean);
    const double scale = 1 / std::sqrt(m2 / static_cast<double>(len) + eps);
    for (int64_t c = 0; c < len; ++c) {
      double y = (row[c] - mean) * scale;
      if (!wv.empty()) y *= wv[c];
      if (!bv.empty()) y += bv[c];
      row[c] = y;
    }
  }
  return Tensor::from_vector(v, x.sizes());
}

TEST(CudaNorm, LayerNormMatchesReference) {
  TT_REQUIRE_CUDA();
  namespace tcu = tt::ops::cuda;
  for (const tt::test::RowNormCase& c : tt::test::row_norm_cases()) {
    SCOPED_TRACE(tt::shape_str(c.shape));
    // Mean 1000 times the spread: a one-pass variance would lose every digit.
    const Tensor x = Tensor::uniform(c.shape, 999.0, 1001.0, 61);
    Tensor w, b;
    if (c.affine) w = Tensor::uniform({c.len}, 0.5, 1.5, 62), b = Tensor::randn({c.len}, 63);
    const Tensor wg = c.affine ? w.to(kGpu) : w, bg = c.affine ? b.to(kGpu) : b;
    EXPECT_LE(tt::test::rel_l2(tcu::layer_norm(x.to(kGpu), c.len, wg, bg, 1e-5),
                               ref_layer_norm(x, c.len, w, b, 1e-5)),
              kStrictTol);
  }
  // Strided input and a weight whose address is not 16-byte aligned.
  const tt::test::StridedRowNorm s;
  EXPECT_LE(
      tt::test::rel_l2(tcu::layer_norm(s.base.to(kGpu).narrow(1, 1, 64), 64,
                                       s.wbase.to(kGpu).narrow(0, 1, 64), Tensor(), 1e-5),
                       ref_layer_norm(s.x().contiguous(), 64, s.w().contiguous(), Tensor(), 1e-5)),
      kStrictTol);
}

TEST(CudaNorm, SegmentNormStatisticsOnly) {
  TT_REQUIRE_CUDA();
  // out == nullptr: only the per-segment mean and M2 (batch norm's [N, C, L] partials).
  const Tensor x = Tensor::uniform({6, 91}, 999.0, 1001.0, 23);  // a large common offset
  const std::vector<float> h = x.to_vector<float>();
  const Tensor xg = x.to(kGpu);
  norm::SegmentNormArgs a;
  a.x = float_ptr(xg), a.segments = 6, a.length = 91, a.groups = 1, a.inner = 91;
  for (const auto& cfg : norm::SegmentConfig::candidates({6, 91, 4})) {
    SCOPED_TRACE(cfg.str());
    const Tensor mean = nan_gpu({6}), m2 = nan_gpu({6});
    a.seg_mean = float_ptr(mean), a.seg_m2 = float_ptr(m2);
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
  a.x = float_ptr(x) + 1, a.out = float_ptr(out) + 1, a.segments = 2, a.length = 64, a.inner = 64;
  const norm::SegmentConfig vec4{norm::SegmentKind::kSubwarp, 256, 16, 4, 1, 1};
  EXPECT_THROW(norm::launch_segment_norm(vec4, a, gpu_stream()), tt::Error);
}

#else

TEST(CudaNorm, SkippedWithoutCuda) { GTEST_SKIP() << "no CUDA device"; }

#endif

}  // namespace
