// The user-facing ops of issue 9 on the CPU reference, against values checked
// independently here: hand-computed small cases, identities (softmax rows sum to 1,
// layer_norm rows have mean 0 and variance 1), naive float64 loops (matmul, the
// reductions), PyTorch's result shapes and dtypes, and the exact tt::Error sentence
// of every misuse.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "ops/ops.h"
#include "support/test_util.h"

namespace tt {
namespace {

using test::error_of;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

Tensor t(const std::vector<float>& v, const Shape& shape) { return Tensor::from_vector(v, shape); }

std::vector<float> vals(const Tensor& x) { return x.to_vector<float>(); }

void expect_near_all(const Tensor& got, const std::vector<double>& want, double tol = 1e-6) {
  const std::vector<double> g = got.to_vector<double>();
  ASSERT_EQ(g.size(), want.size());
  for (size_t i = 0; i < g.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(g[i])) << "element " << i;
    } else {
      EXPECT_NEAR(g[i], want[i], tol * std::max(1.0, std::fabs(want[i]))) << "element " << i;
    }
  }
}

// ---------------------------------------------------------------- threads

// Runs first in this binary: the example blocks' small shapes (matmul of [4, 32, 64]
// batches, softmax, layer_norm, reductions, pointwise, cat) stay on the calling
// thread, as the CPU reference's thresholds intend (ops/cpu/parallel.h); OpenMP keeps
// the threads of its first region alive, so /proc/self/task counts any it started.
int thread_count() {
  int n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/task"))
    ++n;
  return n;
}

TEST(CpuThreads, SmallOpsRunOnTheCallingThread) {
  ASSERT_EQ(thread_count(), 1) << "an earlier test started threads";
  const Tensor q = Tensor::randn({4, 32, 64}, 1);
  const Tensor scores = ops::matmul(q, q.transpose(-2, -1)) / 8.0;
  const Tensor attn = ops::matmul(ops::softmax(scores, -1), q);
  const Tensor normed = ops::layer_norm(ops::gelu(attn + 1.0), {64});
  ops::sum(normed, {1});
  ops::var(normed);
  ops::argmax(normed, -1);
  ops::cat({normed, normed}, 2);
  EXPECT_EQ(thread_count(), 1);
}

// ---------------------------------------------------------------- arithmetic

TEST(TensorArithmetic, OperatorsBroadcastAndScalars) {
  const Tensor a = t({1, 2, 3, 4, 5, 6}, {2, 3});
  const Tensor b = t({10, 20, 30}, {3});
  EXPECT_THAT(vals(a + b), ElementsAre(11, 22, 33, 14, 25, 36));
  EXPECT_THAT(vals(a - b), ElementsAre(-9, -18, -27, -6, -15, -24));
  EXPECT_THAT(vals(a * b), ElementsAre(10, 40, 90, 40, 100, 180));
  expect_near_all(a / b, {0.1, 0.1, 0.1, 0.4, 0.25, 0.2});
  EXPECT_THAT(vals(a + 1.0), ElementsAre(2, 3, 4, 5, 6, 7));
  EXPECT_THAT(vals(1.0 - a), ElementsAre(0, -1, -2, -3, -4, -5));
  EXPECT_THAT(vals(2.0 * a), ElementsAre(2, 4, 6, 8, 10, 12));
  expect_near_all(6.0 / a, {6, 3, 2, 1.5, 1.2, 1});
  EXPECT_THAT(vals(a / 2.0), ElementsAre(0.5, 1, 1.5, 2, 2.5, 3));
  EXPECT_THAT(vals(a - 1.0), ElementsAre(0, 1, 2, 3, 4, 5));
  EXPECT_THAT(vals(-a), ElementsAre(-1, -2, -3, -4, -5, -6));
  EXPECT_EQ((a + b).sizes(), (Shape{2, 3}));
  EXPECT_EQ((a + 1.0).dtype(), DType::F32);
  // [2, 1] + [3] -> [2, 3]
  EXPECT_THAT(vals(t({1, 2}, {2, 1}) + b), ElementsAre(11, 21, 31, 12, 22, 32));
}

TEST(TensorArithmetic, DivisionFollowsIeee) {
  const Tensor r = t({1, -1, 0}, {3}) / t({0, 0, 0}, {3});
  const std::vector<float> v = vals(r);
  EXPECT_EQ(v[0], std::numeric_limits<float>::infinity());
  EXPECT_EQ(v[1], -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(v[2]));
}

TEST(TensorArithmetic, InPlaceOpsWriteThroughViews) {
  Tensor a = t({1, 2, 3, 4, 5, 6}, {2, 3});
  a.add_(t({1, 1, 1}, {3}));
  EXPECT_THAT(vals(a), ElementsAre(2, 3, 4, 5, 6, 7));
  a.sub_(1.0).mul_(2.0).div_(2.0);
  EXPECT_THAT(vals(a), ElementsAre(1, 2, 3, 4, 5, 6));
  // A column of a row-major matrix is a strided view; writing it changes the base.
  a.narrow(1, 1, 1).mul_(10.0);
  EXPECT_THAT(vals(a), ElementsAre(1, 20, 3, 4, 50, 6));
  a.transpose(0, 1).narrow(0, 2, 1).fill_(-1.0);
  EXPECT_THAT(vals(a), ElementsAre(1, 20, -1, 4, 50, -1));
  a.zero_();
  EXPECT_THAT(vals(a), ElementsAre(0, 0, 0, 0, 0, 0));
  // x.add_(x) reads each element before writing it.
  Tensor x = t({1, 2}, {2});
  x.add_(x);
  EXPECT_THAT(vals(x), ElementsAre(2, 4));
}

TEST(TensorArithmetic, Errors) {
  const Tensor a = t({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(error_of([&] {
              a + t({1, 2}, {2});
            }),
            "add: shapes [2, 3] and [2] cannot be broadcast: dimension -1 has size 3 in the first "
            "and 2 in the second, and neither is 1");
  EXPECT_EQ(error_of([&] {
              t({1, 2, 3}, {3}).add_(a);
            }),
            "add_: other of shape [2, 3] broadcasts with self of shape [3] to [2, 3], but an "
            "in-place op cannot change self's shape");
  EXPECT_EQ(error_of([&] { t({1}, {1}).expand({3}).mul_(2.0); }),
            "mul_: self (shape [3], strides [0]) has several elements at one memory location (an "
            "expanded view); clone() it before writing in place");
  EXPECT_EQ(error_of([&] { a / Tensor::zeros({3}, DType::BF16); }),
            "div: b has dtype bfloat16, which has no kernels; expected float32, int64, int32, "
            "uint8 or bool");
  EXPECT_EQ(error_of([&] { Tensor() * 2.0; }), "mul: the tensor operand is undefined");
}

// ---------------------------------------------------------------- pointwise

TEST(Pointwise, HandComputedValues) {
  const Tensor x = t({-2, -0.5, 0, 0.5, 2}, {5});
  expect_near_all(ops::abs(x), {2, 0.5, 0, 0.5, 2});
  expect_near_all(ops::neg(x), {2, 0.5, 0, -0.5, -2});
  expect_near_all(ops::exp(x), {std::exp(-2.0), std::exp(-0.5), 1, std::exp(0.5), std::exp(2.0)});
  expect_near_all(ops::tanh(x),
                  {std::tanh(-2.0), std::tanh(-0.5), 0, std::tanh(0.5), std::tanh(2.0)});
  expect_near_all(ops::relu(x), {0, 0, 0, 0.5, 2});
  expect_near_all(ops::leaky_relu(x), {-0.02, -0.005, 0, 0.5, 2});
  expect_near_all(ops::leaky_relu(x, 0.2), {-0.4, -0.1, 0, 0.5, 2});
  expect_near_all(ops::clamp(x, -1.0, 1.0), {-1, -0.5, 0, 0.5, 1});
  expect_near_all(ops::clamp(x, std::nullopt, 0.0), {-2, -0.5, 0, 0, 0});
  expect_near_all(ops::clamp(x, 0.0, std::nullopt), {0, 0, 0, 0.5, 2});
  expect_near_all(ops::clamp(x, 1.0, -1.0), {-1, -1, -1, -1, -1});  // min > max gives max
  expect_near_all(ops::pow(x, 2.0), {4, 0.25, 0, 0.25, 4});
  expect_near_all(ops::pow(x, 3.0), {-8, -0.125, 0, 0.125, 8});
  const auto phi = [](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); };
  expect_near_all(ops::gelu(x), {phi(-2), phi(-0.5), 0, phi(0.5), phi(2)});
  const auto gelu_tanh = [](double v) {
    return 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
  };
  expect_near_all(ops::gelu(x, "tanh"),
                  {gelu_tanh(-2), gelu_tanh(-0.5), 0, gelu_tanh(0.5), gelu_tanh(2)});
  const auto silu = [](double v) { return v / (1 + std::exp(-v)); };
  expect_near_all(ops::silu(x), {silu(-2), silu(-0.5), 0, silu(0.5), silu(2)});
  const Tensor p = t({0.25, 1, 4, 9}, {4});
  expect_near_all(ops::sqrt(p), {0.5, 1, 2, 3});
  expect_near_all(ops::rsqrt(p), {2, 1, 0.5, 1.0 / 3});
  expect_near_all(ops::log(p), {std::log(0.25), 0, std::log(4.0), std::log(9.0)});
  expect_near_all(ops::pow(p, 0.5), {0.5, 1, 2, 3});
  expect_near_all(ops::pow(p, -1.5), {8, 1, 0.125, 1.0 / 27});
}

TEST(Pointwise, NanPropagatesAsInPyTorch) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor a = t({nan, 1, 2}, {3});
  const Tensor b = t({0, nan, 1}, {3});
  expect_near_all(ops::maximum(a, b), {NAN, NAN, 2});
  expect_near_all(ops::minimum(a, b), {NAN, NAN, 1});
  expect_near_all(ops::clamp(a, 0.0, 1.0), {NAN, 1, 1});
  expect_near_all(ops::relu(a), {NAN, 1, 2});
}

TEST(Pointwise, MaximumMinimumWhereBroadcast) {
  const Tensor a = t({1, 5, 3, 7}, {2, 2});
  const Tensor b = t({4, 4}, {2});
  EXPECT_THAT(vals(ops::maximum(a, b)), ElementsAre(4, 5, 4, 7));
  EXPECT_THAT(vals(ops::minimum(a, b)), ElementsAre(1, 4, 3, 4));
  const Tensor cond = Tensor::from_vector<uint8_t>({1, 0}, {2});
  EXPECT_THAT(vals(ops::where(cond, a, b)), ElementsAre(1, 4, 3, 4));
  const Tensor col = Tensor::from_vector<uint8_t>({0, 1}, {2, 1});
  EXPECT_THAT(vals(ops::where(col, a, t({-1}, {}))), ElementsAre(-1, -1, 3, 7));
}

TEST(Pointwise, ReadsTransposedViewsInPlace) {
  const Tensor a = Tensor::arange(0.0, 6.0, 1.0, DType::F32, Device::cpu()).reshape({2, 3});
  const Tensor at = a.transpose(0, 1);  // [3, 2], strides [1, 3]
  EXPECT_THAT(vals(ops::exp(at)), ElementsAreArray(vals(ops::exp(at.contiguous()))));
  EXPECT_THAT(vals(at + at), ElementsAre(0, 6, 2, 8, 4, 10));
}

TEST(Pointwise, Errors) {
  const Tensor x = t({1, 2}, {2});
  EXPECT_EQ(error_of([&] { ops::gelu(x, "erf"); }),
            "gelu: approximate must be 'none' or 'tanh' but is 'erf'");
  EXPECT_EQ(error_of([&] { ops::clamp(x, std::nullopt, std::nullopt); }),
            "clamp: at least one of min and max must be given, but both are absent");
  EXPECT_EQ(error_of([&] { ops::where(x, x, x); }),
            "where: condition has dtype float32 but must be bool (or uint8: 0 = false, nonzero = "
            "true)");
  EXPECT_EQ(error_of([&] { ops::exp(Tensor()); }), "exp: input is undefined; expected a tensor");
  // Integers compute in float32 (PyTorch's promotion); bfloat16 has no kernels.
  EXPECT_EQ(ops::tanh(Tensor::arange(3)).dtype(), DType::F32);
  EXPECT_EQ(error_of([&] { ops::tanh(Tensor::zeros({3}, DType::BF16)); }),
            "tanh: input has dtype bfloat16, which has no kernels; expected float32, int64, "
            "int32, uint8 or bool");
  EXPECT_EQ(error_of([&] {
              ops::where(Tensor::from_vector<uint8_t>({1, 0, 1}, {3}), x, x);
            }),
            "where: shapes [3] and [2] cannot be broadcast: dimension -1 has size 3 in the first "
            "and 2 in the second, and neither is 1");
}

// ---------------------------------------------------------------- matmul

std::vector<double> naive_bmm(const std::vector<double>& a, const std::vector<double>& b,
                              int64_t batch, int64_t n, int64_t k, int64_t p, bool b_shared) {
  std::vector<double> out(static_cast<size_t>(batch * n * p), 0.0);
  for (int64_t i = 0; i < batch; ++i)
    for (int64_t r = 0; r < n; ++r)
      for (int64_t c = 0; c < p; ++c) {
        double acc = 0.0;
        for (int64_t j = 0; j < k; ++j)
          acc += a[(i * n + r) * k + j] * b[((b_shared ? 0 : i) * k + j) * p + c];
        out[(i * n + r) * p + c] = acc;
      }
  return out;
}

TEST(Matmul, AgainstNaiveDoubleLoops) {
  const Tensor a = Tensor::randn({3, 5, 7}, 1);
  const Tensor b = Tensor::randn({3, 7, 4}, 2);
  const Tensor out = ops::matmul(a, b);
  EXPECT_EQ(out.sizes(), (Shape{3, 5, 4}));
  expect_near_all(out, naive_bmm(a.to_vector<double>(), b.to_vector<double>(), 3, 5, 7, 4, false),
                  1e-5);
  expect_near_all(ops::bmm(a, b), out.to_vector<double>(), 0);
  // A 2-D right operand broadcasts over the batch.
  const Tensor w = Tensor::randn({7, 4}, 3);
  expect_near_all(ops::matmul(a, w),
                  naive_bmm(a.to_vector<double>(), w.to_vector<double>(), 3, 5, 7, 4, true), 1e-5);
}

TEST(Matmul, TransposedViewsGiveTheSameResult) {
  const Tensor a = Tensor::randn({4, 6}, 4);
  const Tensor bt = Tensor::randn({5, 6}, 5);  // b = bt^T, a strided view
  const Tensor got = ops::matmul(a, bt.transpose(0, 1));
  expect_near_all(
      got,
      naive_bmm(a.to_vector<double>(), bt.transpose(0, 1).to_vector<double>(), 1, 4, 6, 5, false),
      1e-5);
}

TEST(Matmul, OneDimensionalOperandsAndBroadcastShapes) {
  const Tensor v = t({1, 2, 3}, {3});
  const Tensor m = t({1, 0, 0, 1, 1, 1}, {3, 2});
  const Tensor dot = ops::matmul(v, v);
  EXPECT_EQ(dot.dim(), 0);
  EXPECT_FLOAT_EQ(dot.item<float>(), 14.0f);
  const Tensor vm = ops::matmul(v, m);  // [3] x [3, 2] -> [2]
  EXPECT_EQ(vm.sizes(), (Shape{2}));
  EXPECT_THAT(vals(vm), ElementsAre(4, 5));
  const Tensor mv = ops::matmul(m.transpose(0, 1), v);  // [2, 3] x [3] -> [2]
  EXPECT_THAT(vals(mv), ElementsAre(4, 5));
  EXPECT_EQ(ops::matmul(Tensor::ones({2, 1, 4, 3}), Tensor::ones({5, 3, 6})).sizes(),
            (Shape{2, 5, 4, 6}));
  EXPECT_EQ(ops::matmul(Tensor::ones({2, 4, 3}), v).sizes(), (Shape{2, 4}));
  EXPECT_EQ(ops::matmul(v, Tensor::ones({2, 3, 4})).sizes(), (Shape{2, 4}));
  const Tensor empty_k = ops::matmul(Tensor::ones({2, 0}), Tensor::ones({0, 3}));
  EXPECT_THAT(vals(empty_k), ElementsAre(0, 0, 0, 0, 0, 0));
}

TEST(Matmul, Errors) {
  EXPECT_EQ(error_of([] {
              ops::matmul(Tensor::ones({2, 3}), Tensor::ones({4, 5}));
            }),
            "matmul: a of shape [2, 3] and b of shape [4, 5] cannot be multiplied: a has 3 "
            "columns but b has 4 rows");
  EXPECT_EQ(error_of([] { ops::matmul(Tensor::ones({}), Tensor::ones({3})); }),
            "matmul: both operands need at least 1 dimension but have shapes [] and [3] (0-D)");
  EXPECT_EQ(error_of([] {
              ops::matmul(Tensor::ones({2, 2, 3}), Tensor::ones({3, 3, 1}));
            }),
            "matmul: shapes [2] and [3] cannot be broadcast: dimension -1 has size 2 in the first "
            "and 3 in the second, and neither is 1");
  EXPECT_EQ(error_of([] {
              ops::bmm(Tensor::ones({2, 3}), Tensor::ones({2, 3, 4}));
            }),
            "bmm: both operands must be 3-D [batch, n, m] and [batch, m, p] but have shapes [2, "
            "3] and [2, 3, 4]");
  EXPECT_EQ(error_of([] {
              ops::bmm(Tensor::ones({2, 2, 3}), Tensor::ones({3, 3, 4}));
            }),
            "bmm: batch sizes differ: 2 in a (shape [2, 2, 3]) and 3 in b (shape [3, 3, 4])");
}

// ---------------------------------------------------------------- reductions

TEST(Reductions, HandComputed) {
  const Tensor x = t({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_FLOAT_EQ(ops::sum(x).item<float>(), 21.0f);
  EXPECT_EQ(ops::sum(x).dim(), 0);
  EXPECT_THAT(vals(ops::sum(x, {0})), ElementsAre(5, 7, 9));
  EXPECT_THAT(vals(ops::sum(x, {-1})), ElementsAre(6, 15));
  EXPECT_EQ(ops::sum(x, {1}, true).sizes(), (Shape{2, 1}));
  EXPECT_EQ(ops::sum(x, {0, 1}, true).sizes(), (Shape{1, 1}));
  EXPECT_THAT(vals(ops::mean(x, {1})), ElementsAre(2, 5));
  expect_near_all(ops::var(x, {1}), {1, 1});
  expect_near_all(ops::var(x, {1}, false), {2.0 / 3, 2.0 / 3});
  expect_near_all(ops::std(x), {std::sqrt(17.5 / 5)});
  EXPECT_THAT(vals(ops::amax(x, {0})), ElementsAre(4, 5, 6));
  EXPECT_THAT(vals(ops::amin(x, {1})), ElementsAre(1, 4));
  const Tensor y = t({3, 1, 3, 0, 7, 7}, {2, 3});
  const Tensor am = ops::argmax(y, 1);
  EXPECT_EQ(am.dtype(), DType::I64);
  EXPECT_THAT(am.to_vector<int64_t>(), ElementsAre(0, 1));  // ties: the first index
  EXPECT_THAT(ops::argmin(y, 1).to_vector<int64_t>(), ElementsAre(1, 0));
  EXPECT_EQ(ops::argmax(y).item<int64_t>(), 4);  // flattened
  EXPECT_EQ(ops::argmax(y, std::nullopt, true).sizes(), (Shape{1, 1}));
  EXPECT_EQ(ops::argmax(y, 0, true).sizes(), (Shape{1, 3}));
  // Scalars reduce to themselves.
  EXPECT_FLOAT_EQ(ops::sum(Tensor::full({}, 2.5)).item<float>(), 2.5f);
  EXPECT_EQ(ops::sum(Tensor::full({}, 2.5), {-1}).dim(), 0);
  // An empty sum is 0; the mean of nothing is nan; one value has no unbiased variance.
  EXPECT_THAT(vals(ops::sum(Tensor::ones({0, 2}), {0})), ElementsAre(0, 0));
  EXPECT_TRUE(std::isnan(ops::mean(Tensor::ones({0})).item<float>()));
  EXPECT_TRUE(std::isnan(ops::var(Tensor::ones({1})).item<float>()));
}

TEST(Reductions, AgainstNaiveLoopsOverPermutedViews) {
  const Tensor x = Tensor::randn({4, 5, 6}, 7).permute({2, 0, 1});  // [6, 4, 5], strided
  const std::vector<double> v = x.contiguous().to_vector<double>();
  // Reduce dims {0, 2} of [6, 4, 5]: 4 results of 30 values each.
  std::vector<double> s(4, 0.0), m(4, -1e30), sq(4, 0.0);
  for (int64_t i = 0; i < 6; ++i)
    for (int64_t j = 0; j < 4; ++j)
      for (int64_t k = 0; k < 5; ++k) {
        const double e = v[(i * 4 + j) * 5 + k];
        s[j] += e;
        m[j] = std::max(m[j], e);
      }
  for (int64_t i = 0; i < 6; ++i)
    for (int64_t j = 0; j < 4; ++j)
      for (int64_t k = 0; k < 5; ++k) {
        const double d = v[(i * 4 + j) * 5 + k] - s[j] / 30;
        sq[j] += d * d;
      }
  expect_near_all(ops::sum(x, {0, -1}), s, 1e-6);
  expect_near_all(ops::amax(x, {2, 0}), m, 0);
  std::vector<double> var(4);
  for (int j = 0; j < 4; ++j) var[j] = sq[j] / 29;
  expect_near_all(ops::var(x, {0, 2}), var, 1e-6);
}

TEST(Reductions, Errors) {
  const Tensor x = Tensor::ones({2, 3});
  EXPECT_EQ(error_of([&] { ops::sum(x, {2}); }),
            "sum: dimension 2 is out of range for a tensor of rank 2 (expected a dim in [-2, 1])");
  EXPECT_EQ(error_of([&] {
              ops::mean(x, {1, -1});
            }),
            "mean: dimension 1 appears more than once in the dim list [1, -1]");
  EXPECT_EQ(error_of([&] {
              ops::amax(Tensor::ones({0, 3}), {0});
            }),
            "amax: cannot reduce over dimension 0 of size 0 (input shape [0, 3]); the result "
            "would have no value");
  EXPECT_EQ(error_of([&] { ops::argmax(Tensor::ones({0})); }),
            "argmax: cannot reduce over dimension 0 of size 0 (input shape [0]); the result would "
            "have no value");
  EXPECT_EQ(error_of([&] { ops::argmin(x, -3); }),
            "argmin: dimension -3 is out of range for a tensor of rank 2 (expected a dim in [-2, "
            "1])");
  EXPECT_EQ(error_of([&] { ops::var(Tensor::arange(4)); }),
            "var: input has dtype int64 but only float32 is supported");
}

// ---------------------------------------------------------------- softmax and norms

TEST(Softmax, RowsSumToOneAndMatchTheFormula) {
  const Tensor x = Tensor::randn({3, 4, 5}, 11) * 10.0;
  for (int64_t dim : {0, 1, -1}) {
    const Tensor s = ops::softmax(x, dim);
    EXPECT_EQ(s.sizes(), x.sizes());
    expect_near_all(ops::sum(s, {dim}), std::vector<double>(x.numel() / x.size(dim), 1.0), 1e-6);
    const Tensor ls = ops::log_softmax(x, dim);
    expect_near_all(ops::exp(ls), s.to_vector<double>(), 1e-5);
  }
  expect_near_all(ops::softmax(t({1, 2, 3}, {3}), 0),
                  {std::exp(1.0) / (std::exp(1.0) + std::exp(2.0) + std::exp(3.0)),
                   std::exp(2.0) / (std::exp(1.0) + std::exp(2.0) + std::exp(3.0)),
                   std::exp(3.0) / (std::exp(1.0) + std::exp(2.0) + std::exp(3.0))});
  // Max subtraction: large logits neither overflow nor lose the answer.
  expect_near_all(ops::softmax(t({1000, 1000}, {2}), 0), {0.5, 0.5});
  expect_near_all(ops::log_softmax(t({1000, 0}, {2}), 0), {0, -1000});
  EXPECT_EQ(error_of([&] { ops::softmax(x, 3); }),
            "softmax: dimension 3 is out of range for a tensor of rank 3 (expected a dim in [-3, "
            "2])");
}

TEST(Norms, LayerNormRowsHaveMeanZeroVarianceOne) {
  const Tensor x = Tensor::randn({4, 3, 8}, 12) * 3.0 + 5.0;
  const Tensor y = ops::layer_norm(x, {3, 8}, Tensor(), Tensor(), 0.0);
  expect_near_all(ops::mean(y, {1, 2}), std::vector<double>(4, 0.0), 1e-6);
  expect_near_all(ops::var(y, {1, 2}, false), std::vector<double>(4, 1.0), 1e-5);
  // Affine: y * w + b, elementwise over normalized_shape.
  const Tensor w = Tensor::randn({8}, 13), b = Tensor::randn({8}, 14);
  const Tensor ya = ops::layer_norm(x, {8}, w, b);
  const Tensor plain = ops::layer_norm(x, {8});
  expect_near_all(ya, (plain * w + b).to_vector<double>(), 1e-5);
  // Hand-computed: [1, 3] -> mean 2, biased var 1 -> [-1, 1] / sqrt(1 + eps).
  expect_near_all(ops::layer_norm(t({1, 3}, {1, 2}), {2}),
                  {-1 / std::sqrt(1 + 1e-5), 1 / std::sqrt(1 + 1e-5)});
}

TEST(Norms, RmsNormHandComputed) {
  // [3, 4]: mean of squares 12.5.
  const double r = 1 / std::sqrt(12.5 + std::numeric_limits<float>::epsilon());
  expect_near_all(ops::rms_norm(t({3, 4}, {1, 2}), {2}), {3 * r, 4 * r});
  const double r2 = 1 / std::sqrt(12.5 + 0.5);
  expect_near_all(ops::rms_norm(t({3, 4}, {1, 2}), {2}, t({2, -1}, {2}), 0.5), {6 * r2, -4 * r2});
}

TEST(Norms, Errors) {
  const Tensor x = Tensor::ones({2, 3});
  EXPECT_EQ(error_of([&] { ops::layer_norm(x, {4}); }),
            "layer_norm: input of shape [2, 3] does not end with normalized_shape [4]; expected "
            "[*, 4]");
  EXPECT_EQ(error_of([&] { ops::layer_norm(x, {3}, Tensor::ones({4})); }),
            "layer_norm: weight has shape [4] but must have normalized_shape [3]");
  EXPECT_EQ(error_of([&] { ops::layer_norm(x, {}); }),
            "layer_norm: normalized_shape is empty; expected the sizes of the trailing dims to "
            "normalise");
  EXPECT_EQ(error_of([&] { ops::layer_norm(x, {3}, Tensor(), Tensor(), -1.0); }),
            "layer_norm: eps must be finite and >= 0 but is -1");
  EXPECT_EQ(error_of([&] {
              ops::rms_norm(x, {2, 3, 1});
            }),
            "rms_norm: input of shape [2, 3] does not end with normalized_shape [2, 3, 1]; "
            "expected [*, 2, 3, 1]");
}

// ---------------------------------------------------------------- shape and creation

TEST(Shape, CatStackSplitChunk) {
  const Tensor a = t({1, 2, 3, 4}, {2, 2});
  const Tensor b = t({5, 6}, {2, 1});
  EXPECT_THAT(vals(ops::cat({a, b}, 1)), ElementsAre(1, 2, 5, 3, 4, 6));
  EXPECT_THAT(vals(ops::cat({a, b.transpose(0, 1)}, -2)), ElementsAre(1, 2, 3, 4, 5, 6));
  const Tensor s = ops::stack({a, a * 2.0}, -1);
  EXPECT_EQ(s.sizes(), (Shape{2, 2, 2}));
  EXPECT_THAT(vals(s), ElementsAre(1, 2, 2, 4, 3, 6, 4, 8));
  EXPECT_EQ(ops::stack({a, a}).sizes(), (Shape{2, 2, 2}));
  const Tensor r = Tensor::arange(0.0, 7.0, 1.0, DType::F32, Device::cpu());
  const std::vector<Tensor> parts = ops::split(r, 3);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_THAT(vals(parts[2]), ElementsAre(6));
  EXPECT_TRUE(parts[1].shares_storage_with(r));
  const std::vector<Tensor> sized = ops::split(r, std::vector<int64_t>{2, 5});
  EXPECT_THAT(vals(sized[1]), ElementsAre(2, 3, 4, 5, 6));
  const std::vector<Tensor> chunks = ops::chunk(r, 3);  // ceil(7 / 3) = 3: sizes 3, 3, 1
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks[0].numel(), 3);
  EXPECT_EQ(chunks[2].numel(), 1);
  EXPECT_EQ(ops::chunk(Tensor::ones({6}), 4).size(), 3u);  // PyTorch: 2, 2, 2
}

TEST(Shape, SelectExpandFlatten) {
  const Tensor x = Tensor::arange(0.0, 24.0, 1.0, DType::F32, Device::cpu()).reshape({2, 3, 4});
  EXPECT_THAT(vals(x.select(1, -1)), ElementsAre(8, 9, 10, 11, 20, 21, 22, 23));
  EXPECT_EQ(ops::select(x, 0, 1).sizes(), (Shape{3, 4}));
  EXPECT_EQ(x.flatten(1).sizes(), (Shape{2, 12}));
  EXPECT_EQ(x.flatten(0, 1).sizes(), (Shape{6, 4}));
  EXPECT_EQ(ops::flatten(x, -2, -1).sizes(), (Shape{2, 12}));
  EXPECT_EQ(x.flatten().sizes(), (Shape{24}));
  EXPECT_EQ(Tensor::full({}, 1.0).flatten().sizes(), (Shape{1}));
  const Tensor e = t({1, 2}, {2, 1}).expand({3, -1, 4});
  EXPECT_EQ(e.sizes(), (Shape{3, 2, 4}));
  EXPECT_EQ(e.stride(0), 0);
  EXPECT_THAT(vals(e.select(0, 2).select(0, 1)), ElementsAre(2, 2, 2, 2));
  EXPECT_EQ(error_of([&] { x.select(3, 0); }),
            "select: dimension 3 is out of range for a tensor of rank 3");
  EXPECT_EQ(error_of([&] { x.select(1, 3); }),
            "select: index 3 is out of range for dimension 1 of size 3");
  EXPECT_EQ(error_of([&] {
              x.expand({2, 5, 4});
            }),
            "expand: the tensor of shape [2, 3, 4] cannot be expanded to [2, 5, 4]: dimension 1 "
            "has size 3 (only size-1 dimensions can be expanded)");
  EXPECT_EQ(error_of([&] { x.flatten(2, 1); }),
            "flatten: start_dim 2 comes after end_dim 1 (after counting negative dims from the "
            "end of a tensor of rank 3)");
}

TEST(Shape, Errors) {
  const Tensor a = Tensor::ones({2, 2});
  EXPECT_EQ(error_of([&] { ops::cat({}); }), "cat: expected a non-empty list of tensors");
  EXPECT_EQ(error_of([&] {
              ops::cat({a, Tensor::ones({2, 3})}, 0);
            }),
            "cat: tensor 1 has shape [2, 3] but tensor 0 has shape [2, 2]; sizes must match "
            "except in dimension 0");
  EXPECT_EQ(error_of([&] {
              ops::cat({a, Tensor::ones({2})});
            }),
            "cat: tensor 1 has 1 dimensions (shape [2]) but tensor 0 has 2 (shape [2, 2])");
  EXPECT_EQ(error_of([&] {
              ops::cat({a, Tensor::arange(4).reshape({2, 2})});
            }),
            "cat: tensor 1 has dtype int64 but tensor 0 has float32");
  EXPECT_EQ(error_of([&] {
              ops::stack({a, Tensor::ones({2})});
            }),
            "stack: tensor 1 has shape [2] but tensor 0 has shape [2, 2]; all must have the same "
            "shape");
  EXPECT_EQ(error_of([&] { ops::stack({a}, 3); }),
            "stack: dimension 3 is out of range for a tensor of rank 3 (expected a dim in [-3, "
            "2])");
  EXPECT_EQ(error_of([&] { ops::split(a, 0); }),
            "split: split_size must be positive but is 0 (dimension 0 has size 2)");
  EXPECT_EQ(error_of([&] {
              ops::split(a, std::vector<int64_t>{1, 2}, 1);
            }),
            "split: split sizes [1, 2] add up to 3 but dimension 1 has size 2");
  EXPECT_EQ(error_of([&] { ops::chunk(a, 0); }), "chunk: chunks must be positive but is 0");
}

TEST(Creation, ArangeLikeAndItem) {
  const Tensor i = Tensor::arange(5);
  EXPECT_EQ(i.dtype(), DType::I64);
  EXPECT_THAT(i.to_vector<int64_t>(), ElementsAre(0, 1, 2, 3, 4));
  EXPECT_THAT(Tensor::arange(2, 9, 3).to_vector<int64_t>(), ElementsAre(2, 5, 8));
  const Tensor f = Tensor::arange(0.0, 1.0, 0.25);
  EXPECT_EQ(f.dtype(), DType::F32);
  EXPECT_THAT(vals(f), ElementsAre(0, 0.25, 0.5, 0.75));
  EXPECT_THAT(Tensor::arange(5, 0, -2).to_vector<int64_t>(), ElementsAre(5, 3, 1));
  EXPECT_EQ(Tensor::arange(0).numel(), 0);
  EXPECT_EQ(error_of([] { Tensor::arange(0, 5, 0); }),
            "arange: step must be finite and nonzero but is 0");
  EXPECT_EQ(error_of([] { Tensor::arange(5, 0, 1); }),
            "arange: the step 1 goes away from end 0 starting at 5");
  const Tensor x = Tensor::arange(0.0, 6.0, 1.0, DType::F64, Device::cpu()).reshape({2, 3});
  EXPECT_EQ(zeros_like(x).dtype(), DType::F64);
  EXPECT_EQ(ones_like(x).sizes(), (Shape{2, 3}));
  EXPECT_THAT(full_like(x, 7.0).to_vector<double>(), ElementsAre(7, 7, 7, 7, 7, 7));
  EXPECT_EQ(Tensor::full({}, 3.0).item<int64_t>(), 3);
  EXPECT_FLOAT_EQ(Tensor::full({1, 1}, 2.5).item<float>(), 2.5f);
  EXPECT_EQ(error_of([&] { x.item<double>(); }),
            "item: the tensor has 6 elements, expected exactly 1");
}

TEST(Creation, GlobalGeneratorIsReproducibleAndAdvances) {
  manual_seed(42);
  const std::vector<float> a = Tensor::rand({8}).to_vector<float>();
  const std::vector<float> b = Tensor::randn({8}).to_vector<float>();
  manual_seed(42);
  EXPECT_EQ(Tensor::rand({8}).to_vector<float>(), a);
  EXPECT_EQ(Tensor::randn({8}).to_vector<float>(), b);
  EXPECT_NE(Tensor::rand({8}).to_vector<float>(), a);  // the next draw differs
  manual_seed(43);
  EXPECT_NE(Tensor::rand({8}).to_vector<float>(), a);
  // The explicit-seed forms ignore the generator.
  EXPECT_EQ(Tensor::rand({8}, 5).to_vector<float>(), Tensor::rand({8}, 5).to_vector<float>());
}

// ---------------------------------------------------------------- printing

TEST(Printing, SummarisesLargeTensorsWithTheCornerValues) {
  const Tensor x = Tensor::arange(0.0, 100.0, 1.0, DType::F32, Device::cpu()).reshape({10, 10});
  EXPECT_EQ(x.str(4),
            "tensor(shape=[10, 10], dtype=float32, device=cpu)\n"
            "[[0.0000, 1.0000, ..., 8.0000, 9.0000],\n"
            " [10.0000, 11.0000, ..., 18.0000, 19.0000],\n"
            " ...,\n"
            " [80.0000, 81.0000, ..., 88.0000, 89.0000],\n"
            " [90.0000, 91.0000, ..., 98.0000, 99.0000]]");
  EXPECT_EQ(x.transpose(0, 1).narrow(0, 0, 2).str(),
            "tensor(shape=[2, 10], dtype=float32, device=cpu)\n"
            "[[0.0000, 10.0000, 20.0000, ..., 70.0000, 80.0000, 90.0000],\n"
            " [1.0000, 11.0000, 21.0000, ..., 71.0000, 81.0000, 91.0000]]");
  EXPECT_EQ(Tensor::full({}, 1.5).str(), "tensor(shape=[], dtype=float32, device=cpu)\n1.5000");
}

}  // namespace
}  // namespace tt
