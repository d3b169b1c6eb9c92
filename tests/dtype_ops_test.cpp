// Issue 20 (part A) on the CPU reference: the bool dtype and int32 as computing
// dtypes, conversions (with the defined saturation of NaN and out-of-range floats),
// printing by dtype, safetensors BOOL/I32/U8, comparisons, logic, masking, integer
// math with PyTorch's type promotion. Expected values are exact (PyTorch's, worked by
// hand). CPU-vs-CUDA agreement of every op is tests/op_table_test.cpp's; the
// conversions' agreement is at the end here (skips without a GPU).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "core/safetensors.h"
#include "core/tensor.h"
#include "ops/ops.h"
#include "support/test_util.h"

namespace tt {
namespace {

using test::error_of;
namespace ops = tt::ops;

Tensor i64(const std::vector<int64_t>& v, const Shape& s) { return Tensor::from_vector(v, s); }
Tensor i64(const std::vector<int64_t>& v) { return i64(v, {static_cast<int64_t>(v.size())}); }
Tensor f32(const std::vector<float>& v) {
  return Tensor::from_vector(v, {static_cast<int64_t>(v.size())});
}
Tensor bools(const std::vector<bool>& v) {
  return Tensor::from_vector(v, {static_cast<int64_t>(v.size())});
}
std::vector<bool> B(const Tensor& t) {
  EXPECT_EQ(t.dtype(), DType::Bool);
  return t.to_vector<bool>();
}
std::vector<int64_t> I(const Tensor& t) { return t.to_vector<int64_t>(); }

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// ---------------------------------------------------------------- dtypes

TEST(DTypes, BoolIsOneBytePyTorchsBool) {
  EXPECT_EQ(dtype_size(DType::Bool), 1u);
  EXPECT_STREQ(dtype_name(DType::Bool), "bool");
  EXPECT_STREQ(dtype_safetensors_name(DType::Bool), "BOOL");
  EXPECT_EQ(dtype_from_safetensors_name("BOOL"), DType::Bool);
  const Tensor b = bools({true, false, true});
  EXPECT_EQ(b.dtype(), DType::Bool);
  EXPECT_EQ(b.to_vector<bool>(), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(b.to_vector<int64_t>(), (std::vector<int64_t>{1, 0, 1}));
  EXPECT_TRUE(Tensor::full({}, 3.0, DType::Bool).item<bool>());
  EXPECT_FALSE(Tensor::zeros({1}, DType::Bool).item<bool>());
}

TEST(DTypes, PromoteTypesAsPyTorch) {
  EXPECT_EQ(promote_types(DType::I64, DType::F32), DType::F32);
  EXPECT_EQ(promote_types(DType::U8, DType::I32), DType::I32);
  EXPECT_EQ(promote_types(DType::I32, DType::I64), DType::I64);
  EXPECT_EQ(promote_types(DType::Bool, DType::U8), DType::U8);
  EXPECT_EQ(promote_types(DType::F32, DType::F64), DType::F64);
  EXPECT_EQ(promote_types(DType::Bool, DType::Bool), DType::Bool);
}

TEST(DTypes, FromVectorAndToVectorForEveryDType) {
  EXPECT_EQ(Tensor::from_vector(std::vector<int32_t>{-3, 7}, {2}).to_vector<int32_t>(),
            (std::vector<int32_t>{-3, 7}));
  EXPECT_EQ(Tensor::from_vector(std::vector<uint8_t>{0, 255}, {2}).to_vector<uint8_t>(),
            (std::vector<uint8_t>{0, 255}));
  EXPECT_EQ(Tensor::from_vector(std::vector<uint8_t>{0, 255}, {2}).dtype(), DType::U8);
  EXPECT_EQ(i64({INT64_MAX}).item<int64_t>(), INT64_MAX);  // exact, not through double
}

TEST(DTypes, ConversionsTruncateAndSaturate) {
  const Tensor x = f32({2.7f, -2.7f, kNaN, kInf, -kInf, 3e10f, -3e10f, 0.0f});
  EXPECT_EQ(I(x.to(DType::I64)),
            (std::vector<int64_t>{2, -2, 0, INT64_MAX, INT64_MIN, 30000001024, -30000001024, 0}));
  EXPECT_EQ(x.to(DType::I32).to_vector<int32_t>(),
            (std::vector<int32_t>{2, -2, 0, INT32_MAX, INT32_MIN, INT32_MAX, INT32_MIN, 0}));
  EXPECT_EQ(x.to(DType::U8).to_vector<uint8_t>(),
            (std::vector<uint8_t>{2, 0, 0, 255, 0, 255, 0, 0}));
  EXPECT_EQ(B(x.to(DType::Bool)),
            (std::vector<bool>{true, true, true, true, true, true, true, false}));
  // Integers wrap when narrowed, as PyTorch.
  EXPECT_EQ(i64({300, -1}).to(DType::U8).to_vector<uint8_t>(), (std::vector<uint8_t>{44, 255}));
  EXPECT_EQ(bools({true, false}).to(DType::F32).to_vector<float>(),
            (std::vector<float>{1.0f, 0.0f}));
  EXPECT_EQ(
      Tensor::from_vector(std::vector<uint8_t>{7, 200}, {2}).to(DType::F32).to_vector<float>(),
      (std::vector<float>{7.0f, 200.0f}));
  EXPECT_EQ(i64({-5}).to(DType::F64).item<double>(), -5.0);
  EXPECT_EQ(error_of([] { Tensor::zeros({2}, DType::BF16).to(DType::F32); }),
            "to: cannot convert bfloat16 to float32; conversions exist between float32, float64, "
            "int64, int32, uint8 and bool");
}

// ---------------------------------------------------------------- printing

TEST(DTypes, PrintsByDType) {
  EXPECT_EQ(i64({7, -2}).str(), "tensor(shape=[2], dtype=int64, device=cpu)\n[7, -2]");
  EXPECT_EQ(bools({true, false}).str(), "tensor(shape=[2], dtype=bool, device=cpu)\n[True, False]");
  EXPECT_EQ(Tensor::from_vector(std::vector<uint8_t>{0, 255}, {2}).str(),
            "tensor(shape=[2], dtype=uint8, device=cpu)\n[0, 255]");
  EXPECT_EQ(f32({1e-7f}).str(), "tensor(shape=[1], dtype=float32, device=cpu)\n[1.0000e-07]");
  EXPECT_EQ(f32({1.5f, 2e4f}).str(),
            "tensor(shape=[2], dtype=float32, device=cpu)\n[1.5000e+00, 2.0000e+04]");
  EXPECT_EQ(f32({0.5f, kNaN, -kInf}).str(),
            "tensor(shape=[3], dtype=float32, device=cpu)\n[0.5000, nan, -inf]");
  EXPECT_EQ(f32({1.0f, 5000.0f}).str(),  // integral values stay fixed up to 1e8
            "tensor(shape=[2], dtype=float32, device=cpu)\n[1.0000, 5000.0000]");
  EXPECT_EQ(i64({1, 2, 3, 4, 5}).str(4),
            "tensor(shape=[5], dtype=int64, device=cpu)\n[1, 2, ..., 4, 5]");
}

// ---------------------------------------------------------------- safetensors

TEST(DTypes, SafetensorsRoundTripsBoolInt32Uint8) {
  const std::string path = ::testing::TempDir() + "/dtypes20.safetensors";
  std::map<std::string, Tensor> tensors{
      {"b", bools({true, false, true})},
      {"i", Tensor::from_vector(std::vector<int32_t>{-1, 2}, {2})},
      {"u", Tensor::from_vector(std::vector<uint8_t>{9, 250}, {1, 2})}};
  safetensors::save(path, tensors);
  const safetensors::File back = safetensors::load(path);
  EXPECT_EQ(back.tensors.at("b").dtype(), DType::Bool);
  EXPECT_EQ(B(back.tensors.at("b")), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(back.tensors.at("i").to_vector<int32_t>(), (std::vector<int32_t>{-1, 2}));
  EXPECT_EQ(back.tensors.at("u").sizes(), (Shape{1, 2}));
  EXPECT_EQ(back.tensors.at("u").to_vector<uint8_t>(), (std::vector<uint8_t>{9, 250}));
  std::remove(path.c_str());
}

// ---------------------------------------------------------------- comparisons

TEST(Comparisons, GiveBoolWithBroadcastingAndScalars) {
  const Tensor a = f32({1.0f, 2.0f, kNaN});
  const Tensor b = f32({2.0f});
  EXPECT_EQ(B(ops::eq(a, b)), (std::vector<bool>{false, true, false}));
  EXPECT_EQ(B(ops::ne(a, b)), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(B(ops::lt(a, b)), (std::vector<bool>{true, false, false}));
  EXPECT_EQ(B(ops::le(a, b)), (std::vector<bool>{true, true, false}));
  EXPECT_EQ(B(ops::gt(a, 1.0)), (std::vector<bool>{false, true, false}));
  EXPECT_EQ(B(ops::ge(a, 1.0)), (std::vector<bool>{true, true, false}));
  EXPECT_EQ(B(a > 0.0), (std::vector<bool>{true, true, false}));
  EXPECT_EQ(B(a == b), (std::vector<bool>{false, true, false}));
  EXPECT_EQ(B(a != 2.0), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(B(a <= b), (std::vector<bool>{true, true, false}));
  EXPECT_EQ(B(a < 2.0), (std::vector<bool>{true, false, false}));
  EXPECT_EQ(B(a >= b), (std::vector<bool>{false, true, false}));
  // Broadcast [2, 1] against [3]: a [2, 3] bool result.
  const Tensor col = i64({0, 2}, {2, 1});
  const Tensor c = ops::lt(col, i64({1, 2, 3}));
  EXPECT_EQ(c.sizes(), (Shape{2, 3}));
  EXPECT_EQ(B(c), (std::vector<bool>{true, true, true, false, false, true}));
}

TEST(Comparisons, PromoteMixedDTypes) {
  // int64 against float32: compared in float32 (2 < 2.5).
  EXPECT_EQ(B(ops::lt(i64({2, 3}), f32({2.5f, 2.5f}))), (std::vector<bool>{true, false}));
  EXPECT_EQ(B(ops::eq(i64({2, 3}), 3.0)), (std::vector<bool>{false, true}));
  // Large int64 values compare exactly among themselves.
  EXPECT_EQ(B(ops::eq(i64({INT64_MAX}), i64({INT64_MAX - 1}))), (std::vector<bool>{false}));
  EXPECT_EQ(B(ops::eq(bools({true, false}), i64({1, 1}))), (std::vector<bool>{true, false}));
}

// ---------------------------------------------------------------- logic

TEST(Logic, LogicalOpsAndOperatorsOnBool) {
  const Tensor p = bools({true, true, false, false});
  const Tensor q = bools({true, false, true, false});
  EXPECT_EQ(B(ops::logical_and(p, q)), (std::vector<bool>{true, false, false, false}));
  EXPECT_EQ(B(ops::logical_or(p, q)), (std::vector<bool>{true, true, true, false}));
  EXPECT_EQ(B(ops::logical_xor(p, q)), (std::vector<bool>{false, true, true, false}));
  EXPECT_EQ(B(ops::logical_not(p)), (std::vector<bool>{false, false, true, true}));
  EXPECT_EQ(B(p & q), (std::vector<bool>{true, false, false, false}));
  EXPECT_EQ(B(p | q), (std::vector<bool>{true, true, true, false}));
  EXPECT_EQ(B(p ^ q), (std::vector<bool>{false, true, true, false}));
  EXPECT_EQ(B(~p), (std::vector<bool>{false, false, true, true}));
  // Any dtype: nonzero is true (NaN too).
  EXPECT_EQ(B(ops::logical_and(f32({0.0f, kNaN}), i64({5, 5}))), (std::vector<bool>{false, true}));
  EXPECT_EQ(error_of([&] {
              (void)(p & i64({1, 1, 1, 1}));
            }),
            "operator&: expected bool tensors but got int64 (bitwise ops on integers are not "
            "supported; use logical_and/or/xor/not for any dtype)");
}

TEST(Logic, IsNanIsInf) {
  const Tensor x = f32({1.0f, kNaN, kInf, -kInf});
  EXPECT_EQ(B(ops::isnan(x)), (std::vector<bool>{false, true, false, false}));
  EXPECT_EQ(B(ops::isinf(x)), (std::vector<bool>{false, false, true, true}));
  EXPECT_EQ(B(ops::isnan(i64({1, 2}))), (std::vector<bool>{false, false}));
}

TEST(Logic, AnyAllWholeAndPerDim) {
  const Tensor x = bools({true, false, false, false, true, true}).reshape({2, 3});
  EXPECT_TRUE(ops::any(x).item<bool>());
  EXPECT_FALSE(ops::all(x).item<bool>());
  EXPECT_EQ(ops::any(x).dim(), 0);
  EXPECT_EQ(B(ops::any(x, 1)), (std::vector<bool>{true, true}));
  EXPECT_EQ(B(ops::all(x, 1)), (std::vector<bool>{false, false}));
  EXPECT_EQ(B(ops::any(x, 0)), (std::vector<bool>{true, true, true}));
  const Tensor k = ops::all(x, {0}, true);
  EXPECT_EQ(k.sizes(), (Shape{1, 3}));
  EXPECT_EQ(B(k), (std::vector<bool>{false, false, false}));
  EXPECT_TRUE(ops::all(i64({3, -1})).item<bool>());  // any dtype
  EXPECT_FALSE(ops::any(Tensor::zeros({0}, DType::Bool)).item<bool>());
  EXPECT_TRUE(ops::all(Tensor::zeros({0}, DType::Bool)).item<bool>());
}

// ---------------------------------------------------------------- where and masking

TEST(Masking, WhereTakesBoolAndScalars) {
  const Tensor c = bools({true, false, true});
  const Tensor a = f32({1.0f, 2.0f, 3.0f});
  EXPECT_EQ(ops::where(c, a, f32({-1.0f})).to_vector<float>(), (std::vector<float>{1, -1, 3}));
  EXPECT_EQ(ops::where(c, a, 0.5).to_vector<float>(), (std::vector<float>{1, 0.5f, 3}));
  EXPECT_EQ(ops::where(c, 9.0, a).to_vector<float>(), (std::vector<float>{9, 2, 9}));
  // uint8 conditions are still accepted.
  const Tensor u = Tensor::from_vector(std::vector<uint8_t>{0, 7, 0}, {3});
  EXPECT_EQ(ops::where(u, a, 0.0).to_vector<float>(), (std::vector<float>{0, 2, 0}));
  // int64 branches stay int64; with a double scalar they become float32 (PyTorch).
  EXPECT_EQ(ops::where(c, i64({1, 2, 3}), i64({-1})).dtype(), DType::I64);
  EXPECT_EQ(I(ops::where(c, i64({1, 2, 3}), i64({-1}))), (std::vector<int64_t>{1, -1, 3}));
  EXPECT_EQ(ops::where(c, i64({1, 2, 3}), 2.5).dtype(), DType::F32);
  EXPECT_EQ(error_of([&] { ops::where(a, a, a); }),
            "where: condition has dtype float32 but must be bool (or uint8: 0 = false, nonzero "
            "= true)");
}

TEST(Masking, MaskedFillBroadcastsTheMask) {
  const Tensor scores = Tensor::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
  const Tensor pad = bools({false, false, true});  // a padding mask over the last dim
  const Tensor filled = ops::masked_fill(scores, pad, -INFINITY);
  EXPECT_EQ(filled.to_vector<float>(), (std::vector<float>{1, 2, -kInf, 4, 5, -kInf}));
  EXPECT_EQ(I(ops::masked_fill(i64({1, 2}), bools({true, false}), 7.9)),
            (std::vector<int64_t>{7, 2}));
  EXPECT_EQ(ops::masked_fill(scores, pad, Tensor::full({}, 0.0)).to_vector<float>(),
            (std::vector<float>{1, 2, 0, 4, 5, 0}));
  EXPECT_EQ(error_of([&] { ops::masked_fill(scores, Tensor::ones({3}), 0.0); }),
            "masked_fill: mask must be a bool tensor but is float32");
  EXPECT_EQ(error_of([&] { ops::masked_fill(pad, scores > 0.0, 0.0); }),
            "masked_fill: mask of shape [2, 3] must broadcast to the input's shape [3], but they "
            "broadcast to [2, 3]");
}

TEST(Masking, TriuTrilOfTheLastTwoDimsBatched) {
  const Tensor x =
      Tensor::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, {2, 2, 3});
  EXPECT_EQ(ops::triu(x).to_vector<float>(),
            (std::vector<float>{1, 2, 3, 0, 5, 6, 7, 8, 9, 0, 11, 12}));
  EXPECT_EQ(ops::tril(x).to_vector<float>(),
            (std::vector<float>{1, 0, 0, 4, 5, 0, 7, 0, 0, 10, 11, 0}));
  EXPECT_EQ(ops::triu(x, 1).to_vector<float>(),
            (std::vector<float>{0, 2, 3, 0, 0, 6, 0, 8, 9, 0, 0, 12}));
  EXPECT_EQ(ops::tril(x, -1).to_vector<float>(),
            (std::vector<float>{0, 0, 0, 4, 0, 0, 0, 0, 0, 10, 0, 0}));
  // The causal mask of attention: ones above the diagonal, as bool.
  const Tensor causal = ops::triu(Tensor::ones({3, 3}, DType::Bool), 1);
  EXPECT_EQ(causal.dtype(), DType::Bool);
  EXPECT_EQ(B(causal),
            (std::vector<bool>{false, true, true, false, false, true, false, false, false}));
  EXPECT_EQ(error_of([] { ops::triu(Tensor::ones({3})); }),
            "triu: input must have at least 2 dimensions but has shape [3]");
}

// ---------------------------------------------------------------- integer math

TEST(IntegerMath, ArithmeticKeepsTheIntegerDType) {
  const Tensor a = i64({7, -7, 5});
  const Tensor b = i64({2, 2, -3});
  EXPECT_EQ(I(ops::add(a, b)), (std::vector<int64_t>{9, -5, 2}));
  EXPECT_EQ(I(ops::sub(a, b)), (std::vector<int64_t>{5, -9, 8}));
  EXPECT_EQ(I(ops::mul(a, b)), (std::vector<int64_t>{14, -14, -15}));
  EXPECT_EQ(I(ops::neg(a)), (std::vector<int64_t>{-7, 7, -5}));
  EXPECT_EQ(I(ops::abs(a)), (std::vector<int64_t>{7, 7, 5}));
  EXPECT_EQ(I(ops::maximum(a, b)), (std::vector<int64_t>{7, 2, 5}));
  EXPECT_EQ(ops::add(a, b).dtype(), DType::I64);
  const Tensor c = Tensor::from_vector(std::vector<int32_t>{3, -4}, {2});
  EXPECT_EQ(ops::mul(c, c).dtype(), DType::I32);
  EXPECT_EQ(ops::mul(c, c).to_vector<int32_t>(), (std::vector<int32_t>{9, 16}));
  // Overflow wraps, as PyTorch.
  EXPECT_EQ(I(ops::add(i64({INT64_MAX}), i64({1}))), (std::vector<int64_t>{INT64_MIN}));
  // True division of integers is float32.
  EXPECT_EQ(ops::div(a, b).dtype(), DType::F32);
  EXPECT_EQ(ops::div(a, b).to_vector<float>(), (std::vector<float>{3.5f, -3.5f, 5.0f / -3.0f}));
  // exp of an integer computes in float32.
  EXPECT_EQ(ops::exp(i64({0})).to_vector<float>(), (std::vector<float>{1.0f}));
}

TEST(IntegerMath, FloorDivideAndRemainderFollowPython) {
  const Tensor a = i64({7, -7, 7, -7, 0});
  const Tensor b = i64({2, 2, -2, -2, 3});
  EXPECT_EQ(I(ops::floor_divide(a, b)), (std::vector<int64_t>{3, -4, -4, 3, 0}));
  EXPECT_EQ(I(ops::remainder(a, b)), (std::vector<int64_t>{1, 1, -1, -1, 0}));
  EXPECT_EQ(I(ops::floor_divide(i64({INT64_MIN}), i64({-1}))), (std::vector<int64_t>{INT64_MIN}));
  const Tensor x = f32({7.5f, -7.5f, 7.5f, -7.5f});
  const Tensor y = f32({2.0f, 2.0f, -2.0f, -2.0f});
  EXPECT_EQ(ops::floor_divide(x, y).to_vector<float>(), (std::vector<float>{3, -4, -4, 3}));
  EXPECT_EQ(ops::remainder(x, y).to_vector<float>(),
            (std::vector<float>{1.5f, 0.5f, -0.5f, -1.5f}));
  EXPECT_EQ(ops::remainder(x, 2.0).to_vector<float>(),
            (std::vector<float>{1.5f, 0.5f, 1.5f, 0.5f}));
  EXPECT_EQ(error_of([&] {
              ops::floor_divide(a, i64({1, 0, 1, 1, 1}));
            }),
            "floor_divide: integer division by zero (b has a zero element and the operands are "
            "int64)");
}

TEST(IntegerMath, TypePromotionWithFloats) {
  EXPECT_EQ(ops::add(i64({1, 2}), f32({0.5f, 0.5f})).dtype(), DType::F32);
  EXPECT_EQ(ops::add(i64({1, 2}), f32({0.5f, 0.5f})).to_vector<float>(),
            (std::vector<float>{1.5f, 2.5f}));
  // A double scalar lifts an integer tensor to float32 ...
  EXPECT_EQ(ops::add(i64({1, 2}), 0.5).dtype(), DType::F32);
  EXPECT_EQ(ops::mul(i64({1, 2}), 2.0).to_vector<float>(), (std::vector<float>{2, 4}));
  // ... a 0-d int64 tensor does not lift an int32 one (same category).
  const Tensor c = Tensor::from_vector(std::vector<int32_t>{3}, {1});
  EXPECT_EQ(ops::add(c, Tensor::full({}, 2.0, DType::I64)).dtype(), DType::I32);
  EXPECT_EQ(ops::add(bools({true}), Tensor::full({1}, 2.0, DType::U8)).dtype(), DType::U8);
  // In place: the result must fit self's dtype.
  const Tensor s = i64({1, 2});
  s.add_(i64({10, 20}));
  EXPECT_EQ(I(s), (std::vector<int64_t>{11, 22}));
  EXPECT_EQ(error_of([&] { s.add_(0.5); }),
            "add_: the result of int64 and float32 is float32, which cannot be written into "
            "self's int64 in place");
  s.fill_(4.0);
  EXPECT_EQ(I(s), (std::vector<int64_t>{4, 4}));
}

TEST(IntegerMath, IntegralScalarsKeepTheIntegerDType) {
  const Tensor ids = i64({4, -3, 7});
  EXPECT_EQ((ids + 1).dtype(), DType::I64);
  EXPECT_EQ(I(ids + 1), (std::vector<int64_t>{5, -2, 8}));
  EXPECT_EQ(I(2 * ids - 1), (std::vector<int64_t>{7, -7, 13}));
  EXPECT_EQ(I(10 - ids), (std::vector<int64_t>{6, 13, 3}));
  EXPECT_EQ(I(ops::remainder(ids, 2)), (std::vector<int64_t>{0, 1, 1}));
  EXPECT_EQ(I(ops::floor_divide(ids, 2)), (std::vector<int64_t>{2, -2, 3}));
  EXPECT_EQ(I(ops::add(ids, INT64_C(1) << 60)),
            (std::vector<int64_t>{(INT64_C(1) << 60) + 4, (INT64_C(1) << 60) - 3,
                                  (INT64_C(1) << 60) + 7}));
  EXPECT_EQ(B(ids == 7), (std::vector<bool>{false, false, true}));
  EXPECT_EQ(B(ops::gt(ids, 0)), (std::vector<bool>{true, false, true}));
  const Tensor c = Tensor::from_vector(std::vector<int32_t>{1, 2}, {2});
  EXPECT_EQ((c * 3).dtype(), DType::I32);
  // A float tensor stays float; a double scalar lifts integers to float32.
  EXPECT_EQ((f32({1.5f}) + 1).dtype(), DType::F32);
  EXPECT_EQ((f32({1.5f}) + 1).item<float>(), 2.5f);
  EXPECT_EQ((ids + 1.0).dtype(), DType::F32);
  EXPECT_EQ(I(ops::where(ids > 0, ids, 0)), (std::vector<int64_t>{4, 0, 7}));
  EXPECT_EQ(I(ops::where(ids > 0, -1, ids)), (std::vector<int64_t>{-1, -3, -1}));
  const Tensor counter = i64({1, 2});
  counter.add_(1);
  counter.mul_(3);
  counter.sub_(2);
  EXPECT_EQ(I(counter), (std::vector<int64_t>{4, 7}));
}

TEST(IntegerMath, Reductions) {
  const Tensor x = i64({3, -1, 4, 1, -5, 9}, {2, 3});
  EXPECT_EQ(ops::sum(x).dtype(), DType::I64);
  EXPECT_EQ(ops::sum(x).item<int64_t>(), 11);
  EXPECT_EQ(I(ops::sum(x, {1})), (std::vector<int64_t>{6, 5}));
  EXPECT_EQ(I(ops::amax(x, {0})), (std::vector<int64_t>{3, -1, 9}));
  EXPECT_EQ(I(ops::amin(x, {1})), (std::vector<int64_t>{-1, -5}));
  EXPECT_EQ(I(ops::argmax(x, 1)), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(I(ops::argmin(x)), (std::vector<int64_t>{4}));
  // int32 and bool sum to int64, as PyTorch.
  const Tensor c = Tensor::from_vector(std::vector<int32_t>{INT32_MAX, 1}, {2});
  EXPECT_EQ(ops::sum(c).dtype(), DType::I64);
  EXPECT_EQ(ops::sum(c).item<int64_t>(), int64_t{INT32_MAX} + 1);
  EXPECT_EQ(ops::sum(bools({true, true, false})).item<int64_t>(), 2);
  EXPECT_EQ(ops::amax(c).dtype(), DType::I32);
}

TEST(IntegerMath, Cumsum) {
  const Tensor x = i64({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(I(ops::cumsum(x, 1)), (std::vector<int64_t>{1, 3, 6, 4, 9, 15}));
  EXPECT_EQ(I(ops::cumsum(x, 0)), (std::vector<int64_t>{1, 2, 3, 5, 7, 9}));
  EXPECT_EQ(ops::cumsum(bools({true, true}), 0).dtype(), DType::I64);
  EXPECT_EQ(ops::cumsum(f32({0.5f, 0.25f, 1.0f}), -1).to_vector<float>(),
            (std::vector<float>{0.5f, 0.75f, 1.75f}));
}

TEST(IntegerMath, RandintIsSeededAndInRange) {
  const Tensor r = Tensor::randint(-3, 4, {1000}, 7);
  EXPECT_EQ(r.dtype(), DType::I64);
  const std::vector<int64_t> v = I(r);
  std::vector<int> seen(7, 0);
  for (int64_t x : v) {
    ASSERT_GE(x, -3);
    ASSERT_LT(x, 4);
    ++seen[static_cast<size_t>(x + 3)];
  }
  for (int count : seen) EXPECT_GT(count, 100);  // every value drawn (about 143 each)
  EXPECT_EQ(I(Tensor::randint(-3, 4, {1000}, 7)), v);
  EXPECT_NE(I(Tensor::randint(-3, 4, {1000}, 8)), v);
  // Element i depends on (seed, i) only, not on the shape.
  EXPECT_EQ(I(Tensor::randint(-3, 4, {10, 100}, 7)), v);
  // The full int64 range does not overflow.
  (void)Tensor::randint(INT64_MIN, INT64_MAX, {8}, 1);
  manual_seed(5);
  const Tensor a = Tensor::randint(0, 100, {16});
  const Tensor b = Tensor::randint(0, 100, {16});
  EXPECT_NE(I(a), I(b));
  manual_seed(5);
  EXPECT_EQ(I(Tensor::randint(0, 100, {16})), I(a));
  EXPECT_EQ(error_of([] { Tensor::randint(3, 3, {2}, 0); }),
            "randint: low (3) must be below high (3) to give values in [low, high)");
}

// ---------------------------------------------------------------- the GPU

TEST(DTypesCuda, RandintMatchesTheCpu) {
  TT_REQUIRE_CUDA();
  EXPECT_EQ(I(Tensor::randint(-50, 1000, {3, 1001}, 11, Device::cuda(0))),
            I(Tensor::randint(-50, 1000, {3, 1001}, 11)));
}

TEST(DTypesCuda, ConversionsAgreeWithTheCpuBitForBit) {
  TT_REQUIRE_CUDA();
  const Device gpu = Device::cuda(0);
  const Tensor x = f32({2.7f, -2.7f, kNaN, kInf, -kInf, 3e10f, -3e10f, 0.0f, 255.5f, -0.5f});
  for (DType from : {DType::F32, DType::I64, DType::I32, DType::U8, DType::Bool}) {
    const Tensor src = x.to(from);
    for (DType to : {DType::F32, DType::F64, DType::I64, DType::I32, DType::U8, DType::Bool}) {
      const Tensor want = src.to(to);
      const Tensor got = src.to(gpu).to(to).cpu();
      ASSERT_EQ(got.dtype(), to);
      const std::vector<double> g = got.to_vector<double>(), w = want.to_vector<double>();
      for (size_t i = 0; i < w.size(); ++i) {
        EXPECT_TRUE(g[i] == w[i] || (std::isnan(g[i]) && std::isnan(w[i])))
            << dtype_name(from) << " -> " << dtype_name(to) << " element " << i;
      }
    }
  }
  EXPECT_EQ(bools({true, false}).to(gpu).str(),
            "tensor(shape=[2], dtype=bool, device=cuda:0)\n[True, False]");
}

}  // namespace
}  // namespace tt
