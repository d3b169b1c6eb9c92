// The basic CUDA ops (add/sub/mul, relu/sigmoid/swish, linear) against the CPU
// reference ops at awkward shapes: one row, odd sizes, broadcasting of every kind,
// rank 8, non-contiguous views, and narrowed views whose first element is not
// 16-byte aligned (which must take the scalar path instead of float4 loads).
//
// add/sub/mul and relu are one IEEE operation per element on both sides, so they
// must agree bit for bit. sigmoid and swish call expf, which CUDA computes within
// 2 ulp, so they are held to 1e-6 relative per element; linear to 1e-5 relative L2.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "ops/ops.h"
#include "support/gpu_test.h"
#include "support/test_util.h"

using tt::Device;
using tt::DType;
using tt::Shape;
using tt::Tensor;

namespace {

using namespace tt::test;  // kGpu (support/gpu_test.h)

using ViewFn = std::function<Tensor(const Tensor&)>;
const ViewFn kWhole = [](const Tensor& t) { return t; };

// An operand: a base tensor drawn on the CPU and the view of it the op receives.
// The GPU operand is the same view of the base's copy on the GPU, so both sides see
// the same strides and offsets.
struct Operand {
  Tensor base;
  ViewFn view = kWhole;
  Tensor cpu() const { return view(base); }
  Tensor gpu() const { return view(base.to(kGpu)); }
};

Operand randn(const Shape& shape, uint64_t seed, ViewFn view = kWhole) {
  return {Tensor::randn(shape, seed), std::move(view)};
}

bool same_bits(float a, float b) {
  uint32_t ua, ub;
  std::memcpy(&ua, &a, 4);
  std::memcpy(&ub, &b, 4);
  return ua == ub;
}

// Every element of gpu within rel_tol * |cpu| of cpu (bit-identical when rel_tol is
// 0); same shape; the GPU result stays on the GPU and is contiguous.
void expect_matches(const Tensor& gpu, const Tensor& cpu, double rel_tol) {
  ASSERT_EQ(gpu.device(), kGpu);
  ASSERT_TRUE(gpu.is_contiguous());
  ASSERT_EQ(gpu.sizes(), cpu.sizes());
  std::vector<float> g = gpu.to_vector<float>(), c = cpu.to_vector<float>();
  int mismatches = 0;
  for (size_t i = 0; i < c.size(); ++i) {
    // Equal values first: inf - inf is NaN and would fail the relative test.
    bool ok = rel_tol == 0.0 ? same_bits(g[i], c[i])
                             : g[i] == c[i] || (std::isnan(g[i]) && std::isnan(c[i])) ||
                                   std::fabs(static_cast<double>(g[i]) - c[i]) <=
                                       rel_tol * std::fabs(static_cast<double>(c[i]));
    if (!ok && ++mismatches <= 5) {
      ADD_FAILURE() << "element " << i << ": GPU " << g[i] << " vs CPU " << c[i]
                    << " (relative tolerance " << rel_tol << ")";
    }
  }
  EXPECT_EQ(mismatches, 0) << "of " << c.size() << " elements";
}

struct BinaryCase {
  std::string name;
  Operand a, b;
};

std::vector<BinaryCase> binary_cases() {
  return {
      {"same shape 7x13", randn({7, 13}, 1), randn({7, 13}, 2)},
      {"one row", randn({1, 13}, 3), randn({1, 13}, 4)},
      {"one element", randn({1}, 5), randn({1}, 6)},
      {"long odd vector (float4 body and tail)", randn({1000003}, 7), randn({1000003}, 8)},
      {"row vector broadcast", randn({7, 13}, 9), randn({13}, 10)},
      {"column times row", randn({7, 1}, 11), randn({1, 13}, 12)},
      {"both sides broadcast, different ranks", randn({3, 1, 5}, 13), randn({4, 1}, 14)},
      {"0-d scalar and matrix", randn({}, 15), randn({7, 13}, 16)},
      {"matrix and one-element vector", randn({7, 13}, 17), randn({1}, 18)},
      {"rank 8", randn({2, 1, 2, 1, 2, 1, 2, 3}, 19), randn({2, 1, 2, 1, 2, 3}, 20)},
      {"transposed input", randn({13, 7}, 21, [](const Tensor& t) { return t.transpose(0, 1); }),
       randn({7, 13}, 22)},
      {"both inputs permuted",
       randn({5, 3, 4}, 23,
             [](const Tensor& t) {
               return t.permute({2, 0, 1});
             }),
       randn({3, 5, 4}, 24,
             [](const Tensor& t) {
               return t.permute({2, 1, 0});
             })},
      {"narrowed columns (non-contiguous) with a row vector",
       randn({7, 13}, 25, [](const Tensor& t) { return t.narrow(1, 1, 12); }), randn({12}, 26)},
      {"misaligned contiguous inputs (scalar path)",
       randn({1003}, 27, [](const Tensor& t) { return t.narrow(0, 1, 1001); }),
       randn({1004}, 28, [](const Tensor& t) { return t.narrow(0, 3, 1001); })},
      {"one aligned and one misaligned input", randn({1001}, 29),
       randn({1002}, 30, [](const Tensor& t) { return t.narrow(0, 1, 1001); })},
      {"large broadcast", randn({1025, 1031}, 31), randn({1031}, 32)},
      {"empty", randn({0, 13}, 33), randn({13}, 34)},
  };
}

using BinaryOp = Tensor (*)(const Tensor&, const Tensor&);

void check_binary_op(const char* name, BinaryOp op) {
  for (const BinaryCase& c : binary_cases()) {
    SCOPED_TRACE(fmt::format("{}: {}: {} and {}", name, c.name, tt::shape_str(c.a.cpu().sizes()),
                             tt::shape_str(c.b.cpu().sizes())));
    Tensor expected = op(c.a.cpu(), c.b.cpu());
    expect_matches(op(c.a.gpu(), c.b.gpu()), expected, 0.0);
    // Swapped operands take the other broadcast direction (and matter for sub).
    expect_matches(op(c.b.gpu(), c.a.gpu()), op(c.b.cpu(), c.a.cpu()), 0.0);
  }
}

struct UnaryCase {
  std::string name;
  Operand x;
};

// randn scaled by 8 reaches the saturated ends of sigmoid.
Operand wide_randn(const Shape& shape, uint64_t seed, ViewFn view = kWhole) {
  return {tt::ops::mul(Tensor::randn(shape, seed), Tensor::full({}, 8.0)), std::move(view)};
}

std::vector<UnaryCase> unary_cases() {
  return {
      {"one element", wide_randn({1}, 41)},
      {"odd matrix", wide_randn({7, 13}, 42)},
      {"one row", wide_randn({1, 13}, 43)},
      {"long odd vector (float4 body and tail)", wide_randn({1000003}, 44)},
      {"misaligned contiguous input (scalar path)",
       wide_randn({1003}, 45, [](const Tensor& t) { return t.narrow(0, 1, 1002); })},
      {"transposed input",
       wide_randn({13, 7}, 46, [](const Tensor& t) { return t.transpose(0, 1); })},
      {"empty", wide_randn({0, 3}, 47)},
  };
}

using UnaryOp = Tensor (*)(const Tensor&);

void check_unary_op(const char* name, UnaryOp op, double rel_tol) {
  for (const UnaryCase& c : unary_cases()) {
    SCOPED_TRACE(fmt::format("{}: {}: {}", name, c.name, tt::shape_str(c.x.cpu().sizes())));
    expect_matches(op(c.x.gpu()), op(c.x.cpu()), rel_tol);
  }
}

}  // namespace

TEST(CudaElementwise, AddMatchesCpuExactly) {
  TT_REQUIRE_CUDA();
  check_binary_op("add", tt::ops::add);
}

TEST(CudaElementwise, SubMatchesCpuExactly) {
  TT_REQUIRE_CUDA();
  check_binary_op("sub", tt::ops::sub);
}

TEST(CudaElementwise, MulMatchesCpuExactly) {
  TT_REQUIRE_CUDA();
  check_binary_op("mul", tt::ops::mul);
}

TEST(CudaElementwise, GoldenValues) {
  TT_REQUIRE_CUDA();
  Tensor a = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3}, kGpu);
  Tensor row = Tensor::from_vector<float>({10, 20, 30}, {3}, kGpu);
  Tensor col = Tensor::from_vector<float>({-1, 2}, {2, 1}, kGpu);
  EXPECT_EQ(tt::ops::add(a, row).to_vector<float>(), (std::vector<float>{11, 22, 33, 14, 25, 36}));
  EXPECT_EQ(tt::ops::sub(row, a).to_vector<float>(), (std::vector<float>{9, 18, 27, 6, 15, 24}));
  EXPECT_EQ(tt::ops::mul(a, col).to_vector<float>(), (std::vector<float>{-1, -2, -3, 8, 10, 12}));
  Tensor outer = tt::ops::mul(col, row);
  EXPECT_EQ(outer.sizes(), (Shape{2, 3}));
  EXPECT_EQ(outer.to_vector<float>(), (std::vector<float>{-10, -20, -30, 20, 40, 60}));
}

TEST(CudaActivation, ReluMatchesCpuExactly) {
  TT_REQUIRE_CUDA();
  check_unary_op("relu", tt::ops::relu, 0.0);
}

TEST(CudaActivation, SigmoidMatchesCpu) {
  TT_REQUIRE_CUDA();
  check_unary_op("sigmoid", tt::ops::sigmoid, 1e-6);
}

TEST(CudaActivation, SwishMatchesCpu) {
  TT_REQUIRE_CUDA();
  check_unary_op("swish", tt::ops::swish, 1e-6);
}

TEST(CudaActivation, SpecialValues) {
  TT_REQUIRE_CUDA();
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor x = Tensor::from_vector<float>({-inf, -100.0f, -1.0f, -0.0f, 0.0f, 2.0f, 100.0f, inf, nan},
                                        {9}, kGpu);
  std::vector<float> relu = tt::ops::relu(x).to_vector<float>();
  EXPECT_EQ(relu[0], 0.0f);
  EXPECT_EQ(relu[2], 0.0f);
  EXPECT_EQ(relu[5], 2.0f);
  EXPECT_EQ(relu[7], inf);
  EXPECT_TRUE(std::isnan(relu[8])) << "relu must propagate NaN";
  std::vector<float> sig = tt::ops::sigmoid(x).to_vector<float>();
  EXPECT_EQ(sig[0], 0.0f);
  EXPECT_EQ(sig[4], 0.5f);
  EXPECT_EQ(sig[6], 1.0f);
  EXPECT_EQ(sig[7], 1.0f);
  EXPECT_TRUE(std::isnan(sig[8]));
  expect_matches(tt::ops::sigmoid(x), tt::ops::sigmoid(x.cpu()), 1e-6);
  expect_matches(tt::ops::swish(x), tt::ops::swish(x.cpu()), 1e-6);
}

// ---------------------------------------------------------------- linear

namespace {

struct LinearCase {
  std::string name;
  Operand x, weight;
  bool has_bias;
  Operand bias;
};

Operand uniform(const Shape& shape, double bound, uint64_t seed, ViewFn view = kWhole) {
  return {Tensor::uniform(shape, -bound, bound, seed), std::move(view)};
}

// nn.Linear's initialisation: U(-1/sqrt(in), 1/sqrt(in)) for weight and bias.
LinearCase make_linear(std::string name, int64_t rows, int64_t in, int64_t out, bool has_bias,
                       uint64_t seed) {
  const double bound = in > 0 ? 1.0 / std::sqrt(static_cast<double>(in)) : 1.0;
  return {std::move(name), uniform({rows, in}, 1.0, seed), uniform({out, in}, bound, seed + 1),
          has_bias, uniform({out}, bound, seed + 2)};
}

std::vector<LinearCase> linear_cases() {
  std::vector<LinearCase> cases = {
      make_linear("one row, bias as float4", 1, 64, 32, true, 100),
      make_linear("odd sizes, scalar bias", 7, 13, 5, true, 110),
      make_linear("no bias", 7, 13, 5, false, 120),
      make_linear("mid-sized odd", 257, 300, 129, true, 130),
      // A long reduction: TF32 (10-bit mantissa) would miss 1e-5 by two orders.
      make_linear("long reduction, strict float32", 33, 4096, 65, true, 140),
      make_linear("no input features", 3, 0, 4, true, 150),
      make_linear("no rows", 0, 5, 3, true, 160),
  };
  LinearCase batched = make_linear("3-D input", 6, 17, 9, true, 170);
  batched.x.view = [](const Tensor& t) { return t.reshape({2, 3, 17}); };
  cases.push_back(batched);

  LinearCase transposed = make_linear("transposed input and weight views", 13, 7, 5, true, 180);
  transposed.x.base = Tensor::uniform({7, 13}, -1, 1, 181);
  transposed.x.view = [](const Tensor& t) { return t.transpose(0, 1); };
  transposed.weight.base = Tensor::uniform({7, 5}, -0.3, 0.3, 182);
  transposed.weight.view = [](const Tensor& t) { return t.transpose(0, 1); };
  cases.push_back(transposed);

  LinearCase misaligned = make_linear("misaligned input rows and bias", 7, 13, 8, true, 190);
  misaligned.x.base = Tensor::uniform({8, 13}, -1, 1, 191);
  misaligned.x.view = [](const Tensor& t) { return t.narrow(0, 1, 7); };
  misaligned.bias.base = Tensor::uniform({9}, -0.3, 0.3, 192);
  misaligned.bias.view = [](const Tensor& t) { return t.narrow(0, 1, 8); };
  cases.push_back(misaligned);
  return cases;
}

}  // namespace

TEST(CudaLinear, MatchesCpu) {
  TT_REQUIRE_CUDA();
  for (const LinearCase& c : linear_cases()) {
    SCOPED_TRACE(fmt::format("{}: x {} weight {}", c.name, tt::shape_str(c.x.cpu().sizes()),
                             tt::shape_str(c.weight.cpu().sizes())));
    Tensor expected =
        tt::ops::linear(c.x.cpu(), c.weight.cpu(), c.has_bias ? c.bias.cpu() : Tensor());
    Tensor got = tt::ops::linear(c.x.gpu(), c.weight.gpu(), c.has_bias ? c.bias.gpu() : Tensor());
    ASSERT_EQ(got.device(), kGpu);
    ASSERT_EQ(got.sizes(), expected.sizes());
    if (expected.numel() == 0) continue;
    EXPECT_LE(tt::test::rel_l2(got, expected), 1e-5);
  }
}

TEST(CudaLinear, GoldenValues) {
  TT_REQUIRE_CUDA();
  Tensor x = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3}, kGpu);
  Tensor w = Tensor::from_vector<float>({1, 0, 0, 0, 1, 0, 1, 1, 1, 1, -1, 0.5f}, {4, 3}, kGpu);
  Tensor b = Tensor::from_vector<float>({0.5f, -1, 0, 10}, {4}, kGpu);
  Tensor y = tt::ops::linear(x, w, b);
  EXPECT_EQ(y.sizes(), (Shape{2, 4}));
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{1.5f, 1, 6, 10.5f, 4.5f, 4, 15, 12}));
  EXPECT_EQ(tt::ops::linear(x, w).to_vector<float>(),
            (std::vector<float>{1, 2, 6, 0.5f, 4, 5, 15, 2}));
}

TEST(CudaLinear, NoInputFeaturesGivesTheBias) {
  TT_REQUIRE_CUDA();
  Tensor x = Tensor::zeros({3, 0}, DType::F32, kGpu);
  Tensor w = Tensor::zeros({2, 0}, DType::F32, kGpu);
  Tensor b = Tensor::from_vector<float>({1.5f, -2}, {2}, kGpu);
  EXPECT_EQ(tt::ops::linear(x, w, b).to_vector<float>(),
            (std::vector<float>{1.5f, -2, 1.5f, -2, 1.5f, -2}));
  EXPECT_EQ(tt::ops::linear(x, w).to_vector<float>(), std::vector<float>(6, 0.0f));
}
