// The CPU reference ops against naive float64 loops written here, hand-computed
// values and the PyTorch fixtures in tests/data: edge shapes, broadcasting,
// non-contiguous views, and batch-norm running statistics; and the seed models' fused
// groups as compiled plain-op forwards against the same loops.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/safetensors.h"
#include "core/tensor.h"
#include "ops/graph/compile.h"
#include "ops/ops.h"
#include "support/fn_module.h"
#include "support/seed_forwards.h"

namespace tt {
namespace {

using ::testing::ElementsAre;
using ::testing::FloatEq;

std::vector<double> values_of(const Tensor& t) {
  if (t.dtype() == DType::F64) return t.to_vector<double>();
  const std::vector<float> f = t.to_vector<float>();
  return std::vector<double>(f.begin(), f.end());
}

double relative_l2(const std::vector<double>& got, const std::vector<double>& want) {
  EXPECT_EQ(got.size(), want.size());
  double diff = 0.0, norm = 0.0;
  for (size_t i = 0; i < got.size() && i < want.size(); ++i) {
    diff += (got[i] - want[i]) * (got[i] - want[i]);
    norm += want[i] * want[i];
  }
  return norm == 0.0 ? std::sqrt(diff) : std::sqrt(diff / norm);
}

void expect_close(const Tensor& got, const Shape& shape, const std::vector<double>& want,
                  double bound = 1e-6) {
  EXPECT_EQ(got.sizes(), shape);
  EXPECT_TRUE(got.is_contiguous());
  EXPECT_LE(relative_l2(values_of(got), want), bound);
}

// ---- naive float64 references (row-major, contiguous inputs) ----

std::vector<double> naive_linear(const std::vector<double>& x, const std::vector<double>& w,
                                 const std::vector<double>* b, int64_t rows, int64_t in,
                                 int64_t out) {
  std::vector<double> y(rows * out);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t o = 0; o < out; ++o) {
      double acc = b ? (*b)[o] : 0.0;
      for (int64_t k = 0; k < in; ++k) acc += x[r * in + k] * w[o * in + k];
      y[r * out + o] = acc;
    }
  }
  return y;
}

// Normalises each of `blocks` runs of `len` values; channel of element i of block k is
// channel_of(k, i), and the affine (if non-empty) is per channel.
template <typename ChannelOf>
std::vector<double> naive_block_norm(const std::vector<double>& x, int64_t blocks, int64_t len,
                                     double eps, const std::vector<double>& gamma,
                                     const std::vector<double>& beta, ChannelOf channel_of) {
  std::vector<double> y(x.size());
  for (int64_t k = 0; k < blocks; ++k) {
    double mean = 0.0, var = 0.0;
    for (int64_t i = 0; i < len; ++i) mean += x[k * len + i];
    mean /= len;
    for (int64_t i = 0; i < len; ++i) var += (x[k * len + i] - mean) * (x[k * len + i] - mean);
    var /= len;
    for (int64_t i = 0; i < len; ++i) {
      const int64_t c = channel_of(k, i);
      const double g = gamma.empty() ? 1.0 : gamma[c];
      const double b = beta.empty() ? 0.0 : beta[c];
      y[k * len + i] = (x[k * len + i] - mean) / std::sqrt(var + eps) * g + b;
    }
  }
  return y;
}

std::vector<double> naive_instance_norm(const std::vector<double>& x, int64_t n, int64_t c,
                                        int64_t spatial, double eps,
                                        const std::vector<double>& gamma = {},
                                        const std::vector<double>& beta = {}) {
  return naive_block_norm(x, n * c, spatial, eps, gamma, beta,
                          [c](int64_t k, int64_t) { return k % c; });
}

std::vector<double> naive_group_norm(const std::vector<double>& x, int64_t n, int64_t c,
                                     int64_t spatial, int64_t groups, double eps,
                                     const std::vector<double>& gamma,
                                     const std::vector<double>& beta) {
  const int64_t per_group = c / groups;
  return naive_block_norm(
      x, n * groups, per_group * spatial, eps, gamma, beta,
      [=](int64_t k, int64_t i) { return (k % groups) * per_group + i / spatial; });
}

struct NaiveBatchNorm {
  std::vector<double> out, mean, biased_var;
};

// x [n, c, len]; batch statistics per channel.
NaiveBatchNorm naive_batch_norm_train(const std::vector<double>& x, int64_t n, int64_t c,
                                      int64_t len, double eps, const std::vector<double>& gamma,
                                      const std::vector<double>& beta) {
  NaiveBatchNorm r{std::vector<double>(x.size()), std::vector<double>(c, 0.0),
                   std::vector<double>(c, 0.0)};
  const double count = static_cast<double>(n * len);
  auto at = [&](int64_t i, int64_t ch, int64_t l) { return (i * c + ch) * len + l; };
  for (int64_t ch = 0; ch < c; ++ch) {
    for (int64_t i = 0; i < n; ++i)
      for (int64_t l = 0; l < len; ++l) r.mean[ch] += x[at(i, ch, l)];
    r.mean[ch] /= count;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t l = 0; l < len; ++l) {
        const double d = x[at(i, ch, l)] - r.mean[ch];
        r.biased_var[ch] += d * d;
      }
    r.biased_var[ch] /= count;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t l = 0; l < len; ++l)
        r.out[at(i, ch, l)] =
            (x[at(i, ch, l)] - r.mean[ch]) / std::sqrt(r.biased_var[ch] + eps) * gamma[ch] +
            beta[ch];
  }
  return r;
}

Tensor from(const std::vector<float>& v, const Shape& s) { return Tensor::from_vector(v, s); }

// ---- linear ----

TEST(LinearCpu, HandComputedTwoByTwo) {
  const Tensor x = from({1, 2, 3, 4}, {2, 2});
  const Tensor w = from({1, 0, 1, -1, 2, 0.5f}, {3, 2});
  const Tensor b = from({10, 20, 30}, {3});
  const Tensor y = ops::linear(x, w, b);
  EXPECT_EQ(y.sizes(), (Shape{2, 3}));
  // Row [1, 2]: 1+10, 1-2+20, 2+1+30; row [3, 4]: 3+10, 3-4+20, 6+2+30.
  EXPECT_THAT(y.to_vector<float>(), ElementsAre(11, 19, 33, 13, 19, 38));
}

TEST(LinearCpu, OddShapesMatchFloat64Reference) {
  const int64_t rows = 7, in = 13, out = 5;
  const Tensor x = Tensor::uniform({rows, in}, -1, 1, 1);
  const Tensor w = Tensor::uniform({out, in}, -1, 1, 2);
  const Tensor b = Tensor::uniform({out}, -1, 1, 3);
  const std::vector<double> bv = values_of(b);
  expect_close(ops::linear(x, w, b), {rows, out},
               naive_linear(values_of(x), values_of(w), &bv, rows, in, out));
  expect_close(ops::linear(x, w), {rows, out},
               naive_linear(values_of(x), values_of(w), nullptr, rows, in, out));
}

TEST(LinearCpu, BatchOneAndLeadingDimensions) {
  const Tensor w = Tensor::uniform({6, 9}, -1, 1, 4);
  const Tensor x1 = Tensor::uniform({1, 9}, -1, 1, 5);
  expect_close(ops::linear(x1, w), {1, 6},
               naive_linear(values_of(x1), values_of(w), nullptr, 1, 9, 6));
  const Tensor x3 = Tensor::uniform({2, 3, 9}, -1, 1, 6);
  expect_close(ops::linear(x3, w), {2, 3, 6},
               naive_linear(values_of(x3), values_of(w), nullptr, 6, 9, 6));
  const Tensor x0 = Tensor::uniform({9}, -1, 1, 7);
  expect_close(ops::linear(x0, w), {6},
               naive_linear(values_of(x0), values_of(w), nullptr, 1, 9, 6));
}

TEST(LinearCpu, NonContiguousInputAndWeight) {
  // x is the transpose of a [13, 7] tensor; w is a narrowed transpose of [13, 8].
  const Tensor xt = Tensor::uniform({13, 7}, -1, 1, 8).transpose(0, 1);
  const Tensor wt = Tensor::uniform({13, 8}, -1, 1, 9).transpose(0, 1).narrow(0, 2, 5);
  ASSERT_FALSE(xt.is_contiguous());
  ASSERT_FALSE(wt.is_contiguous());
  const Tensor b = Tensor::uniform({5}, -1, 1, 10);
  const std::vector<double> bv = values_of(b);
  expect_close(ops::linear(xt, wt, b), {7, 5},
               naive_linear(values_of(xt), values_of(wt), &bv, 7, 13, 5));
}

TEST(LinearCpu, LargeSharedDimensionStaysAccurate) {
  // Big enough for Eigen's blocked, multi-threaded GEMM path.
  const int64_t rows = 67, in = 1031, out = 129;
  const Tensor x = Tensor::rand({rows, in}, 11);
  const Tensor w = Tensor::uniform({out, in}, -0.03, 0.03, 12);
  expect_close(ops::linear(x, w), {rows, out},
               naive_linear(values_of(x), values_of(w), nullptr, rows, in, out), 1e-5);
}

// ---- elementwise ----

TEST(ElementwiseCpu, BroadcastsThreeOneFiveWithFourFive) {
  const Tensor a = Tensor::uniform({3, 1, 5}, -2, 2, 20);
  const Tensor b = Tensor::uniform({4, 5}, -2, 2, 21);
  const std::vector<float> av = a.to_vector<float>(), bv = b.to_vector<float>();
  const Tensor sum = ops::add(a, b), diff = ops::sub(a, b), prod = ops::mul(a, b);
  const Tensor rdiff = ops::sub(b, a);
  for (const Tensor* t : {&sum, &diff, &prod, &rdiff}) EXPECT_EQ(t->sizes(), (Shape{3, 4, 5}));
  const std::vector<float> s = sum.to_vector<float>(), d = diff.to_vector<float>(),
                           p = prod.to_vector<float>(), rd = rdiff.to_vector<float>();
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 4; ++j)
      for (int64_t k = 0; k < 5; ++k) {
        const float x = av[i * 5 + k], y = bv[j * 5 + k];
        const int64_t o = (i * 4 + j) * 5 + k;
        EXPECT_EQ(s[o], x + y);
        EXPECT_EQ(d[o], x - y);
        EXPECT_EQ(p[o], x * y);
        EXPECT_EQ(rd[o], y - x);
      }
}

TEST(ElementwiseCpu, HandComputedRowAndColumnBroadcast) {
  const Tensor column = from({1, 2}, {2, 1});
  const Tensor row = from({10, 20, 30}, {3});
  EXPECT_THAT(ops::add(column, row).to_vector<float>(), ElementsAre(11, 21, 31, 12, 22, 32));
  EXPECT_THAT(ops::mul(row, column).to_vector<float>(), ElementsAre(10, 20, 30, 20, 40, 60));
  const Tensor scalar = from({3}, {});
  EXPECT_THAT(ops::sub(row, scalar).to_vector<float>(), ElementsAre(7, 17, 27));
  EXPECT_EQ(ops::sub(row, scalar).sizes(), (Shape{3}));
}

TEST(ElementwiseCpu, NonContiguousViewsOfEveryKind) {
  // a: transposed; b: narrowed on the inner dimension (stride 1, gaps between rows).
  const Tensor base_a = Tensor::uniform({6, 5}, -1, 1, 22);
  const Tensor base_b = Tensor::uniform({5, 9}, -1, 1, 23);
  const Tensor a = base_a.transpose(0, 1);  // [5, 6]
  const Tensor b = base_b.narrow(1, 2, 6);  // [5, 6]
  ASSERT_FALSE(a.is_contiguous());
  ASSERT_FALSE(b.is_contiguous());
  const std::vector<float> av = base_a.to_vector<float>(), bv = base_b.to_vector<float>();
  const std::vector<float> got = ops::mul(a, b).to_vector<float>();
  ASSERT_EQ(got.size(), 30u);
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t j = 0; j < 6; ++j) EXPECT_EQ(got[i * 6 + j], av[j * 5 + i] * bv[i * 9 + 2 + j]);
}

TEST(ElementwiseCpu, HighRankBroadcastAndLargeParallelRun) {
  const Shape sa{2, 1, 3, 1, 2, 1, 2, 3}, sb{1, 2, 1, 2, 1, 2, 1, 3};
  const Tensor a = Tensor::uniform(sa, -1, 1, 24), b = Tensor::uniform(sb, -1, 1, 25);
  const Tensor c = ops::add(a, b);
  EXPECT_EQ(c.sizes(), (Shape{2, 2, 3, 2, 2, 2, 2, 3}));
  const std::vector<float> av = a.to_vector<float>(), bv = b.to_vector<float>(),
                           cv = c.to_vector<float>();
  // Walk the output index and map it to each input by its own row-major strides.
  const Shape out = c.sizes();
  for (int64_t flat = 0; flat < c.numel(); ++flat) {
    int64_t rest = flat, ia = 0, ib = 0, stride_a = 1, stride_b = 1;
    for (int d = 7; d >= 0; --d) {
      const int64_t i = rest % out[d];
      rest /= out[d];
      ia += (sa[d] == 1 ? 0 : i) * stride_a;
      ib += (sb[d] == 1 ? 0 : i) * stride_b;
      stride_a *= sa[d];
      stride_b *= sb[d];
    }
    ASSERT_EQ(cv[flat], av[ia] + bv[ib]) << "at flat index " << flat;
  }

  // Above the parallel threshold, with a broadcast row.
  const Tensor big = Tensor::uniform({300, 257}, -1, 1, 26);
  const Tensor row = Tensor::uniform({257}, -1, 1, 27);
  const std::vector<float> gv = big.to_vector<float>(), rv = row.to_vector<float>();
  const std::vector<float> sum = ops::add(big, row).to_vector<float>();
  for (int64_t i = 0; i < 300 * 257; ++i) ASSERT_EQ(sum[i], gv[i] + rv[i % 257]);
}

// ---- activations ----

TEST(ActivationCpu, HandComputedValues) {
  const Tensor x = from({-2, -0.5f, 0, 0.5f, 3}, {5});
  EXPECT_THAT(ops::relu(x).to_vector<float>(), ElementsAre(0, 0, 0, 0.5f, 3));
  const std::vector<float> s = ops::sigmoid(x).to_vector<float>();
  const std::vector<float> w = ops::swish(x).to_vector<float>();
  const std::vector<double> xs{-2, -0.5, 0, 0.5, 3};
  for (size_t i = 0; i < xs.size(); ++i) {
    const double sig = 1.0 / (1.0 + std::exp(-xs[i]));
    EXPECT_NEAR(s[i], sig, 1e-6 * std::abs(sig)) << i;
    EXPECT_NEAR(w[i], xs[i] * sig, 1e-6 * std::abs(xs[i] * sig)) << i;
  }
  EXPECT_THAT(s[2], FloatEq(0.5f));
}

TEST(ActivationCpu, ExtremesAndNonContiguousInput) {
  const Tensor x = from({-100, 100, -1e30f, 1e30f}, {4});
  EXPECT_THAT(ops::sigmoid(x).to_vector<float>(), ElementsAre(0, 1, 0, 1));
  EXPECT_THAT(ops::swish(x).to_vector<float>(), ElementsAre(-0.0f, 100, -0.0f, 1e30f));
  const Tensor nan = from({std::nanf("")}, {1});
  EXPECT_TRUE(std::isnan(ops::relu(nan).item()));
  const Tensor t = Tensor::uniform({4, 3}, -1, 1, 30).transpose(0, 1);
  const std::vector<float> tv = t.contiguous().to_vector<float>();
  const Tensor r = ops::relu(t);
  EXPECT_EQ(r.sizes(), (Shape{3, 4}));
  const std::vector<float> rv = r.to_vector<float>();
  for (size_t i = 0; i < tv.size(); ++i) EXPECT_EQ(rv[i], tv[i] < 0 ? 0.0f : tv[i]);
}

// ---- instance norm ----

TEST(InstanceNormCpu, OddShapeWithAndWithoutAffine) {
  const int64_t n = 2, c = 3, h = 5, w = 7;
  const Tensor x = Tensor::uniform({n, c, h, w}, -3, 5, 40);
  const Tensor gamma = Tensor::uniform({c}, 0.5, 2, 41);
  const Tensor beta = Tensor::uniform({c}, -1, 1, 42);
  expect_close(ops::instance_norm(x), {n, c, h, w},
               naive_instance_norm(values_of(x), n, c, h * w, 1e-5));
  expect_close(
      ops::instance_norm(x, 1e-3, gamma, beta), {n, c, h, w},
      naive_instance_norm(values_of(x), n, c, h * w, 1e-3, values_of(gamma), values_of(beta)));
  const Tensor x3 = Tensor::uniform({1, 4, 13}, -1, 1, 43);  // rank 3, batch 1
  expect_close(ops::instance_norm(x3), {1, 4, 13},
               naive_instance_norm(values_of(x3), 1, 4, 13, 1e-5));
}

TEST(InstanceNormCpu, OneByOneSpatialGivesTheBias) {
  // A single value per slice has zero deviation: the output is exactly beta.
  const Tensor x = Tensor::uniform({2, 3, 1, 1}, -5, 5, 44);
  const Tensor beta = from({0.25f, -1, 4}, {3});
  EXPECT_THAT(ops::instance_norm(x, 1e-5, Tensor::ones({3}), beta).to_vector<float>(),
              ElementsAre(0.25f, -1, 4, 0.25f, -1, 4));
  EXPECT_THAT(ops::instance_norm(x).to_vector<float>(), ElementsAre(0, 0, 0, 0, 0, 0));
}

TEST(InstanceNormCpu, LongRowsWithLargeOffsetStayAccurate) {
  // Mean 1000, spread 1: a one-pass float variance would lose most digits here.
  const int64_t len = 1 << 20;
  const Tensor x = Tensor::uniform({1, 2, len}, 1000, 1001, 45);
  expect_close(ops::instance_norm(x), {1, 2, len},
               naive_instance_norm(values_of(x), 1, 2, len, 1e-5), 1e-5);
}

TEST(InstanceNormCpu, NonContiguousInput) {
  const Tensor base = Tensor::uniform({2, 6, 3, 4}, -1, 1, 46);
  const Tensor x = base.permute({0, 1, 3, 2}).narrow(1, 1, 4);  // [2, 4, 4, 3]
  ASSERT_FALSE(x.is_contiguous());
  expect_close(ops::instance_norm(x), {2, 4, 4, 3},
               naive_instance_norm(values_of(x), 2, 4, 12, 1e-5));
}

TEST(InstanceNormCpu, MatchesPyTorchFixtures) {
  for (const char* name : {"instnorm2d_small", "instnorm2d_medium"}) {
    const auto file =
        safetensors::load(std::string(TT_TEST_DATA_DIR) + "/" + name + ".safetensors");
    const Tensor out = ops::instance_norm(file.tensors.at("input.0"));
    EXPECT_LE(relative_l2(values_of(out), values_of(file.tensors.at("expected.out"))), 1e-5)
        << name;
  }
}

// ---- group norm ----

TEST(GroupNormCpu, GroupsFromOneToChannels) {
  const int64_t n = 7, c = 12, len = 5;
  const Tensor x = Tensor::uniform({n, c, len}, -2, 3, 50);
  const Tensor gamma = Tensor::uniform({c}, 0.5, 2, 51);
  const Tensor beta = Tensor::uniform({c}, -1, 1, 52);
  for (int64_t groups : {1, 3, 4, 12}) {
    expect_close(
        ops::group_norm(x, groups, gamma, beta), {n, c, len},
        naive_group_norm(values_of(x), n, c, len, groups, 1e-5, values_of(gamma), values_of(beta)));
  }
  expect_close(ops::group_norm(x, 4, Tensor(), Tensor()), {n, c, len},
               naive_group_norm(values_of(x), n, c, len, 4, 1e-5, {}, {}));
}

TEST(GroupNormCpu, TwoDimensionalBatchOneAndNonContiguous) {
  const Tensor gamma = Tensor::uniform({8}, 0.5, 2, 53);
  const Tensor beta = Tensor::uniform({8}, -1, 1, 54);
  const Tensor x1 = Tensor::uniform({1, 8}, -1, 1, 55);
  expect_close(
      ops::group_norm(x1, 2, gamma, beta), {1, 8},
      naive_group_norm(values_of(x1), 1, 8, 1, 2, 1e-5, values_of(gamma), values_of(beta)));
  const Tensor xt = Tensor::uniform({8, 13}, -1, 1, 56).transpose(0, 1);  // [13, 8]
  ASSERT_FALSE(xt.is_contiguous());
  expect_close(
      ops::group_norm(xt, 4, gamma, beta, 1e-2), {13, 8},
      naive_group_norm(values_of(xt), 13, 8, 1, 4, 1e-2, values_of(gamma), values_of(beta)));
}

// ---- batch norm ----

TEST(BatchNormCpu, TrainingTwoDimensionalUpdatesRunningStats) {
  const int64_t n = 7, c = 13;
  const Tensor x = Tensor::uniform({n, c}, -2, 4, 60);
  const Tensor gamma = Tensor::uniform({c}, 0.5, 2, 61);
  const Tensor beta = Tensor::uniform({c}, -1, 1, 62);
  const Tensor running_mean = Tensor::uniform({c}, -1, 1, 63);
  const Tensor running_var = Tensor::uniform({c}, 0.5, 2, 64);
  const std::vector<double> rm0 = values_of(running_mean), rv0 = values_of(running_var);
  const double momentum = 0.3;

  const NaiveBatchNorm ref =
      naive_batch_norm_train(values_of(x), n, c, 1, 1e-5, values_of(gamma), values_of(beta));
  expect_close(ops::batch_norm(x, running_mean, running_var, gamma, beta, true, momentum), {n, c},
               ref.out);

  std::vector<double> want_mean(c), want_var(c);
  for (int64_t i = 0; i < c; ++i) {
    want_mean[i] = (1 - momentum) * rm0[i] + momentum * ref.mean[i];
    want_var[i] = (1 - momentum) * rv0[i] + momentum * ref.biased_var[i] * n / (n - 1);
  }
  EXPECT_LE(relative_l2(values_of(running_mean), want_mean), 1e-6);
  EXPECT_LE(relative_l2(values_of(running_var), want_var), 1e-6);
}

TEST(BatchNormCpu, TrainingThreeDimensionalAndStridedRunningStats) {
  const int64_t n = 3, c = 4, len = 5;
  const Tensor x = Tensor::uniform({n, c, len}, -1, 1, 65);
  const Tensor gamma = Tensor::ones({c}), beta = Tensor::zeros({c});
  // Running stats as strided views of a [c, 2] buffer: updated in place through the view.
  const Tensor stats = Tensor::zeros({c, 2});
  const Tensor running_mean = stats.narrow(1, 0, 1).squeeze(1);
  Tensor running_var = stats.narrow(1, 1, 1).squeeze(1);
  running_var.copy_(Tensor::ones({c}));
  ASSERT_FALSE(running_mean.is_contiguous());

  const NaiveBatchNorm ref =
      naive_batch_norm_train(values_of(x), n, c, len, 1e-5, values_of(gamma), values_of(beta));
  expect_close(ops::batch_norm(x, running_mean, running_var, gamma, beta, true), {n, c, len},
               ref.out);
  const std::vector<float> s = stats.to_vector<float>();
  const double count = n * len;
  for (int64_t i = 0; i < c; ++i) {
    EXPECT_NEAR(s[2 * i], 0.1 * ref.mean[i], 2e-7) << i;
    EXPECT_NEAR(s[2 * i + 1], 0.9 + 0.1 * ref.biased_var[i] * count / (count - 1), 2e-7) << i;
  }
}

TEST(BatchNormCpu, EvalUsesRunningStatsAndUpdatesNothing) {
  const Tensor x = from({1, 2, 3, 4, 5, 6}, {2, 3});
  const Tensor running_mean = from({1, 2, 3}, {3});
  const Tensor running_var = from({4, 1, 0.25f}, {3});
  const Tensor gamma = from({2, 1, 1}, {3});
  const Tensor beta = from({0, 1, -1}, {3});
  const Tensor y = ops::batch_norm(x, running_mean, running_var, gamma, beta, false, 0.1, 0.0);
  // (x - rm) / sqrt(rv) * gamma + beta, column by column.
  EXPECT_THAT(y.to_vector<float>(), ElementsAre(0, 1, -1, 3, 4, 5));
  EXPECT_THAT(running_mean.to_vector<float>(), ElementsAre(1, 2, 3));
  EXPECT_THAT(running_var.to_vector<float>(), ElementsAre(4, 1, 0.25f));

  // Batch 1 is fine in eval mode.
  const Tensor y1 =
      ops::batch_norm(x.narrow(0, 1, 1), running_mean, running_var, gamma, beta, false, 0.1, 0.0);
  EXPECT_THAT(y1.to_vector<float>(), ElementsAre(3, 4, 5));
}

TEST(BatchNormCpu, TrainingWithoutRunningStatsOrAffine) {
  const Tensor x = Tensor::uniform({9, 6}, -1, 1, 66);
  const NaiveBatchNorm ref = naive_batch_norm_train(
      values_of(x), 9, 6, 1, 1e-5, std::vector<double>(6, 1.0), std::vector<double>(6, 0.0));
  expect_close(ops::batch_norm(x, Tensor(), Tensor(), Tensor(), Tensor(), true), {9, 6}, ref.out);
}

TEST(BatchNormCpu, LargeBatchUsesBothThreadsAccurately) {
  const int64_t n = 4099, c = 37;
  const Tensor x = Tensor::uniform({n, c}, 500, 502, 67);
  const NaiveBatchNorm ref = naive_batch_norm_train(
      values_of(x), n, c, 1, 1e-5, std::vector<double>(c, 1.0), std::vector<double>(c, 0.0));
  expect_close(ops::batch_norm(x, Tensor(), Tensor(), Tensor(), Tensor(), true), {n, c}, ref.out,
               1e-5);
}

// ---- the seed models' fused groups on the CPU: their plain-op forwards compiled ----
// (support/seed_forwards.h; tt::compile replays them op by op on the CPU.)

// fn compiled: the recording call, then the replay, whose result is returned.
Tensor compiled(const test::FnModule::Fn& fn, const std::vector<Tensor>& in) {
  auto module = compile(std::make_shared<test::FnModule>(fn));
  (*module)(in);
  return (*module)(in)[0];
}

// x [rows, in], w [out, in] and b [out] uniform in [-1, 1); a per-column vector v
// (normal) and a norm's gamma and beta; h = x W^T + b in float64 (from seed on).
struct LinearCase {
  Tensor x, w, b, v, gamma, beta;
  std::vector<double> h;
};
LinearCase linear_case(int64_t rows, int64_t in, int64_t out, uint64_t seed) {
  LinearCase c{Tensor::uniform({rows, in}, -1, 1, seed),
               Tensor::uniform({out, in}, -1, 1, seed + 1),
               Tensor::uniform({out}, -1, 1, seed + 2),
               Tensor::randn({out}, seed + 3),
               Tensor::uniform({out}, 0.5, 2, seed + 4),
               Tensor::uniform({out}, -1, 1, seed + 5),
               {}};
  const std::vector<double> bv = values_of(c.b);
  c.h = naive_linear(values_of(c.x), values_of(c.w), &bv, rows, in, out);
  return c;
}

TEST(SeedGroupsCpu, BiasReluMatchesNaive) {
  const LinearCase l = linear_case(5, 11, 9, 70);
  std::vector<double> want = l.h;
  for (double& v : want) v = std::max(v, 0.0);
  const auto fn = [](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{test::seed::bias_relu(in[0], in[1], in[2])};
  };
  expect_close(compiled(fn, {l.x, l.w, l.b}), {5, 9}, want);
}

TEST(SeedGroupsCpu, SwishBiasGroupNormMatchesNaive) {
  const int64_t rows = 6, out = 12, groups = 3;
  const LinearCase l = linear_case(rows, 10, out, 73);
  const std::vector<double> biasv = values_of(l.v);
  std::vector<double> h = l.h;
  for (size_t i = 0; i < h.size(); ++i) h[i] = h[i] / (1 + std::exp(-h[i])) + biasv[i % out];
  const auto fn = [](const std::vector<Tensor>& t) {
    return std::vector<Tensor>{
        test::seed::swish_bias_group_norm(t[0], t[1], t[2], t[3], groups, t[4], t[5])};
  };
  expect_close(
      compiled(fn, {l.x, l.w, l.b, l.v, l.gamma, l.beta}), {rows, out},
      naive_group_norm(h, rows, out, 1, groups, 1e-5, values_of(l.gamma), values_of(l.beta)));
}

TEST(SeedGroupsCpu, ScaleBatchNormTrainAndEval) {
  const int64_t rows = 8, out = 5;
  const LinearCase l = linear_case(rows, 7, out, 80);
  const std::vector<double> sv = values_of(l.v);
  std::vector<double> h = l.h;
  for (size_t i = 0; i < h.size(); ++i) h[i] *= sv[i % out];
  const NaiveBatchNorm ref =
      naive_batch_norm_train(h, rows, out, 1, 1e-5, values_of(l.gamma), values_of(l.beta));
  const auto forward = [](bool training) {
    return [training](const std::vector<Tensor>& t) {
      return std::vector<Tensor>{
          test::seed::scale_batch_norm(t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], training)};
    };
  };
  // The replay's running statistics: the recording call updates copies of them.
  const Tensor running_mean = Tensor::zeros({out}), running_var = Tensor::ones({out});
  expect_close(test::seed::compiled_replay(forward(true), {l.x, l.w, l.b, l.v, running_mean,
                                                           running_var, l.gamma, l.beta})[0],
               {rows, out}, ref.out);
  std::vector<double> want_mean(out), want_var(out);
  for (int64_t c = 0; c < out; ++c) {
    want_mean[c] = 0.1 * ref.mean[c];
    want_var[c] = 0.9 + 0.1 * ref.biased_var[c] * rows / (rows - 1);
  }
  EXPECT_LE(relative_l2(values_of(running_mean), want_mean), 1e-6);
  EXPECT_LE(relative_l2(values_of(running_var), want_var), 1e-6);

  // Eval with the stats just updated: normalises with them and leaves them alone.
  const std::vector<double> rm = values_of(running_mean), rv = values_of(running_var);
  std::vector<double> want_eval(h.size());
  const std::vector<double> g = values_of(l.gamma), be = values_of(l.beta);
  for (size_t i = 0; i < h.size(); ++i) {
    const size_t c = i % out;
    want_eval[i] = (h[i] - rm[c]) / std::sqrt(rv[c] + 1e-5) * g[c] + be[c];
  }
  expect_close(
      compiled(forward(false), {l.x, l.w, l.b, l.v, running_mean, running_var, l.gamma, l.beta}),
      {rows, out}, want_eval);
  EXPECT_EQ(values_of(running_mean), rm);
  EXPECT_EQ(values_of(running_var), rv);
}

TEST(SeedGroupsCpu, InstanceNormAddMulNormalisesEachRow) {
  const int64_t rows = 4, out = 10;
  const LinearCase l = linear_case(rows, 6, out, 90);
  const Tensor y = Tensor::rand({rows, out}, 93);
  const std::vector<double> yv = values_of(y);
  std::vector<double> want = naive_instance_norm(l.h, rows, 1, out, 1e-5);
  for (size_t i = 0; i < want.size(); ++i) want[i] = (want[i] + yv[i]) * yv[i];
  const auto fn = [](const std::vector<Tensor>& t) {
    return std::vector<Tensor>{test::seed::instance_norm_add_mul(t[0], t[1], t[2], t[3])};
  };
  expect_close(compiled(fn, {l.x, y, l.w, l.b}), {rows, out}, want);
}

}  // namespace
}  // namespace tt
