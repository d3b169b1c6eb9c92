// Tensor core: construction, views sharing storage, copies, dtype conversion,
// printing, and the Philox random fill.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "core/philox.h"
#include "core/tensor.h"
#include "support/test_util.h"

using ::testing::HasSubstr;
using tt::DType;
using tt::Shape;
using tt::Tensor;

namespace {

Tensor arange(int64_t n, const Shape& shape) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(i);
  return Tensor::from_vector(v, shape);
}

using tt::test::error_of;

}  // namespace

TEST(Tensor, FromVectorRoundTrip) {
  Tensor t = arange(6, {2, 3});
  EXPECT_EQ(t.dim(), 2);
  EXPECT_EQ(t.size(-1), 3);
  EXPECT_EQ(t.numel(), 6);
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_EQ(t.to_vector<float>(), (std::vector<float>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data_ptr()) % 64, 0u);
}

TEST(Tensor, ScalarRankZero) {
  Tensor s = Tensor::full({}, 2.5);
  EXPECT_EQ(s.dim(), 0);
  EXPECT_EQ(s.numel(), 1);
  EXPECT_DOUBLE_EQ(s.item(), 2.5);
}

TEST(Tensor, TransposeSharesStorageAndContiguousCopies) {
  Tensor t = arange(6, {2, 3});
  Tensor tt_ = t.transpose(0, 1);
  EXPECT_TRUE(tt_.shares_storage_with(t));
  EXPECT_FALSE(tt_.is_contiguous());
  EXPECT_EQ(tt_.sizes(), (Shape{3, 2}));
  EXPECT_EQ(tt_.to_vector<float>(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  Tensor c = tt_.contiguous();
  EXPECT_FALSE(c.shares_storage_with(t));
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_EQ(c.to_vector<float>(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
}

TEST(Tensor, ReshapeIsAViewWhenPossible) {
  Tensor t = arange(24, {2, 3, 4});
  Tensor r = t.reshape({6, -1});
  EXPECT_TRUE(r.shares_storage_with(t));
  EXPECT_EQ(r.sizes(), (Shape{6, 4}));
  Tensor p = t.permute({2, 0, 1});
  EXPECT_TRUE(p.reshape({4, 6}).shares_storage_with(t));  // dims 1,2 still merge
  Tensor q = p.reshape({24});                             // not viewable: copies
  EXPECT_FALSE(q.shares_storage_with(t));
  EXPECT_EQ(q.to_vector<float>()[1], 4.0f);
  EXPECT_THAT(error_of([&] { p.view({24}); }), HasSubstr("cannot be viewed as [24]"));
  EXPECT_EQ(error_of([&] {
              t.reshape({5, -1});
            }),
            "view/reshape: shape [5, -1] is invalid for a tensor of shape [2, 3, 4] (24 elements)");
}

TEST(Tensor, UnsqueezeSqueeze) {
  Tensor t = arange(6, {2, 3});
  Tensor u = t.unsqueeze(1).unsqueeze(1);
  EXPECT_EQ(u.sizes(), (Shape{2, 1, 1, 3}));
  EXPECT_EQ(u.squeeze(1).squeeze(1).sizes(), (Shape{2, 3}));
  EXPECT_EQ(u.squeeze().sizes(), (Shape{2, 3}));
  EXPECT_EQ(u.squeeze(0).sizes(), (Shape{2, 1, 1, 3}));  // size 2: unchanged, as in PyTorch
  EXPECT_EQ(t.unsqueeze(-1).sizes(), (Shape{2, 3, 1}));
  EXPECT_EQ(error_of([&] { t.unsqueeze(4); }),
            "unsqueeze: dimension 4 is out of range for a tensor of rank 2");
}

TEST(Tensor, NarrowOffsetsAndWritesThrough) {
  Tensor t = arange(12, {3, 4});
  Tensor n = t.narrow(1, 1, 2);
  EXPECT_EQ(n.to_vector<float>(), (std::vector<float>{1, 2, 5, 6, 9, 10}));
  n.copy_(Tensor::full({3, 2}, -1.0));
  EXPECT_EQ(t.to_vector<float>(), (std::vector<float>{0, -1, -1, 3, 4, -1, -1, 7, 8, -1, -1, 11}));
  EXPECT_EQ(error_of([&] { t.narrow(0, 2, 2); }),
            "narrow: range [2, 4) is out of bounds for dimension 0 of size 3");
}

TEST(Tensor, PermuteErrors) {
  Tensor t = arange(6, {2, 3});
  EXPECT_EQ(error_of([&] { t.permute({0}); }), "permute: got 1 dimensions for a tensor of rank 2");
  EXPECT_EQ(error_of([&] { t.permute({1, 1}); }), "permute: dimension 1 appears twice in [1, 1]");
}

TEST(Tensor, RankLimitAndUndefined) {
  EXPECT_EQ(error_of([&] {
              Tensor::empty({1, 1, 1, 1, 1, 1, 1, 1, 1});
            }),
            "tensor rank 9 exceeds the maximum of 8");
  Tensor u;
  EXPECT_FALSE(u.defined());
  EXPECT_EQ(error_of([&] { (void)u.numel(); }), "operation on an undefined tensor");
}

TEST(Tensor, DTypeConversion) {
  Tensor t = Tensor::from_vector<double>({1.5, -2.25}, {2});
  Tensor f = t.to(DType::F32);
  EXPECT_EQ(f.dtype(), DType::F32);
  EXPECT_EQ(f.to_vector<float>(), (std::vector<float>{1.5f, -2.25f}));
  EXPECT_EQ(t.to(DType::I64).to_vector<int64_t>(), (std::vector<int64_t>{1, -2}));
  EXPECT_EQ(error_of([&] { (void)f.data<double>(); }), "data<float64>(): the tensor holds float32");
}

TEST(Tensor, SetDataRebindsEveryHandle) {
  Tensor a = arange(3, {3});
  Tensor alias = a;
  a.set_data(Tensor::full({2}, 7.0));
  EXPECT_EQ(alias.sizes(), (Shape{2}));
  EXPECT_EQ(alias.to_vector<float>(), (std::vector<float>{7, 7}));
}

TEST(Tensor, PrintsSummary) {
  Tensor t = arange(6, {2, 3});
  EXPECT_EQ(t.str(),
            "tensor(shape=[2, 3], dtype=float32, device=cpu)\n"
            "[[0.0000, 1.0000, 2.0000],\n [3.0000, 4.0000, 5.0000]]");
  Tensor big = arange(10, {10});
  EXPECT_EQ(big.str(4),
            "tensor(shape=[10], dtype=float32, device=cpu)\n"
            "[0.0000, 1.0000, ..., 8.0000, 9.0000]");
}

TEST(Tensor, DeviceParse) {
  EXPECT_EQ(tt::Device::parse("cuda:1"), tt::Device::cuda(1));
  EXPECT_EQ(tt::Device::parse("cpu"), tt::Device::cpu());
  EXPECT_EQ(error_of([] { tt::Device::parse("gpu"); }),
            "unknown device 'gpu': expected 'cpu', 'cuda' or 'cuda:N'");
}

TEST(Random, DeterministicAndShapeIndependent) {
  Tensor a = Tensor::rand({4, 5}, 42);
  Tensor b = Tensor::rand({20}, 42);
  EXPECT_EQ(a.to_vector<float>(), b.to_vector<float>());
  Tensor c = Tensor::rand({20}, 43);
  EXPECT_NE(a.to_vector<float>(), c.to_vector<float>());
}

TEST(Random, UniformMomentsAndRange) {
  Tensor u = Tensor::uniform({200000}, -2.0, 3.0, 7);
  auto v = u.to_vector<float>();
  double sum = 0, lo = 1e9, hi = -1e9;
  for (float x : v) {
    sum += x;
    lo = std::min<double>(lo, x);
    hi = std::max<double>(hi, x);
  }
  EXPECT_NEAR(sum / v.size(), 0.5, 0.02);
  EXPECT_GE(lo, -2.0);
  EXPECT_LT(hi, 3.0);
}

TEST(Random, NormalMoments) {
  auto v = Tensor::randn({400000}, 11).to_vector<float>();
  double s = 0, s2 = 0, s4 = 0;
  for (float x : v) {
    s += x;
    s2 += double(x) * x;
    s4 += double(x) * x * x * x;
  }
  double n = v.size(), mean = s / n, var = s2 / n - mean * mean;
  EXPECT_NEAR(mean, 0.0, 0.01);
  EXPECT_NEAR(var, 1.0, 0.01);
  EXPECT_NEAR(s4 / n, 3.0, 0.05);  // kurtosis of a normal
}

TEST(Random, PhiloxKnownAnswer) {
  // Random123's known-answer test for philox4x32-10 with zero counter and key.
  tt::philox::U4 r = tt::philox::philox4x32_10({0, 0, 0, 0}, 0, 0);
  EXPECT_EQ(r.x, 0x6627e8d5u);
  EXPECT_EQ(r.y, 0xe169c58du);
  EXPECT_EQ(r.z, 0xbc57ac4cu);
  EXPECT_EQ(r.w, 0x9b00dbd8u);
}

TEST(Random, LogAndSinCosAgreeWithLibm) {
  for (double u : {1e-9, 0.001, 0.3, 0.5, 0.70710678, 0.9999, 1.0}) {
    EXPECT_NEAR(tt::philox::log_(u), std::log(u), 1e-14 * std::max(1.0, std::fabs(std::log(u))));
  }
  for (double t = 0; t < 1.0; t += 0.0371) {
    double s, c;
    tt::philox::sincos_2pi_(t, &s, &c);
    EXPECT_NEAR(s, std::sin(2 * M_PI * t), 1e-14);
    EXPECT_NEAR(c, std::cos(2 * M_PI * t), 1e-14);
  }
}
