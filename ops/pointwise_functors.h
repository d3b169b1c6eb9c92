// The pointwise family's functors: one struct per op, written once for both
// backends (__host__ __device__ under nvcc), so the CPU reference and the CUDA
// kernels evaluate the same formula in the same order of operations and agree to a
// few ulp (the CUDA build never uses --use_fast_math; expf/erff/tanhf are CUDA's
// accurate ones).
//
// Adding a pointwise op: one functor here, one row in TT_POINTWISE_UNARY_OPS or
// TT_POINTWISE_BINARY_OPS (which instantiates it in both backends: ops/cpu/pointwise.cpp
// and ops/cuda/pointwise/), one front-end function in ops/ops.cpp, one op-table row.
// Formulas follow PyTorch's float32 kernels (NaN propagation included).
#pragma once

#include <cmath>
#include <cstdint>

#ifdef __CUDACC__
#define TT_HD __host__ __device__ __forceinline__
#else
#define TT_HD inline
#endif

namespace tt::ops::pointwise {

// Per-call scalars of the unary ops that take any (pow's exponent, clamp's bounds,
// leaky_relu's slope, fill's value).
// Kept in double so that the float64 path (T = double) gets the values unrounded; a
// functor converts them to its T, so float32 sees exactly the float it always did.
struct UnaryParams {
  double a = 0.0;
  double b = 0.0;
};

// The math of one scalar type: float calls the float functions (expf, ...), exactly as
// before the functors took a scalar type, so float32 results are unchanged; double
// (the CPU's float64 reference, ops/ops.h Float64Scope) calls the double ones.
namespace math {
#define TT_POINTWISE_MATH(name, float_fn, double_fn)  \
  TT_HD float name(float v) { return ::float_fn(v); } \
  TT_HD double name(double v) { return ::double_fn(v); }
TT_POINTWISE_MATH(abs, fabsf, fabs)
TT_POINTWISE_MATH(exp, expf, exp)
TT_POINTWISE_MATH(log, logf, log)
TT_POINTWISE_MATH(sqrt, sqrtf, sqrt)
TT_POINTWISE_MATH(tanh, tanhf, tanh)
TT_POINTWISE_MATH(erf, erff, erf)
#undef TT_POINTWISE_MATH
TT_HD float pow(float v, float e) { return ::powf(v, e); }
TT_HD double pow(double v, double e) { return ::pow(v, e); }
}  // namespace math

// The formulas' constants, written once in double: each rounds to the float literal
// the float32 kernels always used (checked here), so float results do not change.
constexpr double kSqrtHalf = 0.70710678118654752440;       // 1 / sqrt(2)
constexpr double kSqrtTwoOverPi = 0.79788456080286535588;  // sqrt(2 / pi)
constexpr double kGeluCubic = 0.044715;
static_assert(static_cast<float>(kSqrtHalf) == 0.70710678118654752440f);
static_assert(static_cast<float>(kSqrtTwoOverPi) == 0.79788456080286535588f);
static_assert(static_cast<float>(kGeluCubic) == 0.044715f);

template <typename T>
TT_HD T sigmoid_of(T v) {
  return T(1) / (T(1) + math::exp(-v));
}

// Each functor's operator() is a template over the scalar T (float on both backends,
// double on the CPU's float64 path); UnaryParams' floats convert to T.
struct NegFn {
  UnaryParams p;
  template <typename T>
  TT_HD T operator()(T x) const {
    return -x;
  }
};
struct AbsFn {
  UnaryParams p;
  template <typename T>
  TT_HD T operator()(T x) const {
    return math::abs(x);
  }
};
struct ExpFn {
  UnaryParams p;
  template <typename T>
  TT_HD T operator()(T x) const {
    return math::exp(x);
  }
};
struct LogFn {
  UnaryParams p;
  template <typename T>
  TT_HD T operator()(T x) const {
    return math::log(x);
  }
};
struct SqrtFn {
  UnaryParams p;
  template <typename T>
  TT_HD T operator()(T x) const {
    return math::sqrt(x);
  }
};
struct RsqrtFn {
  UnaryParams p;
  template <typename T>
  TT_HD T operator()(T x) const {
#ifdef __CUDA_ARCH__
    if constexpr (sizeof(T) == sizeof(float)) return ::rsqrtf(x);  // within 2 ulp
#endif
    return T(1) / math::sqrt(x);
  }
};
struct TanhFn {
  UnaryParams p;
  template <typename T>
  TT_HD T operator()(T x) const {
    return math::tanh(x);
  }
};
struct ReluFn {
  UnaryParams p;
  // Testing x < 0 (not x > 0) lets NaN through, as PyTorch does.
  template <typename T>
  TT_HD T operator()(T x) const {
    return x < T(0) ? T(0) : x;
  }
};
struct SigmoidFn {
  UnaryParams p;
  template <typename T>
  TT_HD T operator()(T x) const {
    return sigmoid_of(x);
  }
};
struct SwishFn {
  UnaryParams p;
  // sigmoid(x) * x: the product order of gemm_swish_bias_group_norm (its PyTorch
  // fixture), kept for swish.
  template <typename T>
  TT_HD T operator()(T x) const {
    return sigmoid_of(x) * x;
  }
};
struct SiluFn {
  UnaryParams p;
  // PyTorch's silu kernel: x / (1 + exp(-x)).
  template <typename T>
  TT_HD T operator()(T x) const {
    return x / (T(1) + math::exp(-x));
  }
};
struct GeluErfFn {
  UnaryParams p;
  // 0.5 x (1 + erf(x / sqrt(2))), PyTorch's approximate="none".
  template <typename T>
  TT_HD T operator()(T x) const {
    return T(0.5) * x * (T(1) + math::erf(x * T(kSqrtHalf)));
  }
};
struct GeluTanhFn {
  UnaryParams p;
  // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), PyTorch's approximate="tanh".
  template <typename T>
  TT_HD T operator()(T x) const {
    const T inner = T(kSqrtTwoOverPi) * (x + T(kGeluCubic) * x * x * x);
    return T(0.5) * x * (T(1) + math::tanh(inner));
  }
};
struct LeakyReluFn {
  UnaryParams p;  // a: negative_slope
  template <typename T>
  TT_HD T operator()(T x) const {
    return x > T(0) ? x : x * T(p.a);
  }
};
struct PowFn {
  UnaryParams p;  // a: exponent
  // PyTorch special-cases the common exponents (exact squares, sqrt, reciprocal).
  template <typename T>
  TT_HD T operator()(T x) const {
    const T e = T(p.a);
    if (e == T(2)) return x * x;
    if (e == T(1)) return x;
    if (e == T(0.5)) return math::sqrt(x);
    if (e == T(-1)) return T(1) / x;
    return math::pow(x, e);
  }
};
struct ClampFn {
  UnaryParams p;  // a: min (-inf when absent), b: max (+inf when absent)
  // Comparisons (not fminf/fmaxf) let NaN through; min > max gives max, as PyTorch.
  template <typename T>
  TT_HD T operator()(T x) const {
    const T lo = x < T(p.a) ? T(p.a) : x;
    return lo > T(p.b) ? T(p.b) : lo;
  }
};
struct IdentityFn {  // copies into strided destinations (cat, copy into views)
  UnaryParams p;
  template <typename T>
  TT_HD T operator()(T x) const {
    return x;
  }
};
struct FillFn {   // fill_: the input is ignored
  UnaryParams p;  // a: the value
  template <typename T>
  TT_HD T operator()(T) const {
    return T(p.a);
  }
};

struct AddFn {
  template <typename T>
  TT_HD T operator()(T x, T y) const {
    return x + y;
  }
};
struct SubFn {
  template <typename T>
  TT_HD T operator()(T x, T y) const {
    return x - y;
  }
};
struct MulFn {
  template <typename T>
  TT_HD T operator()(T x, T y) const {
    return x * y;
  }
};
struct DivFn {
  template <typename T>
  TT_HD T operator()(T x, T y) const {
    return x / y;
  }
};
struct MaximumFn {  // NaN in either propagates
  template <typename T>
  TT_HD T operator()(T x, T y) const {
    return (x > y || x != x) ? x : y;
  }
};
struct MinimumFn {
  template <typename T>
  TT_HD T operator()(T x, T y) const {
    return (x < y || x != x) ? x : y;
  }
};

struct WhereFn {
  template <typename T>
  TT_HD T operator()(uint8_t c, T x, T y) const {
    return c ? x : y;
  }
};

}  // namespace tt::ops::pointwise

// X(enum name, functor, op name for messages and tuning keys)
#define TT_POINTWISE_UNARY_OPS(X)         \
  X(Neg, NegFn, "neg")                    \
  X(Abs, AbsFn, "abs")                    \
  X(Exp, ExpFn, "exp")                    \
  X(Log, LogFn, "log")                    \
  X(Sqrt, SqrtFn, "sqrt")                 \
  X(Rsqrt, RsqrtFn, "rsqrt")              \
  X(Tanh, TanhFn, "tanh")                 \
  X(Relu, ReluFn, "relu")                 \
  X(Sigmoid, SigmoidFn, "sigmoid")        \
  X(Swish, SwishFn, "swish")              \
  X(Silu, SiluFn, "silu")                 \
  X(GeluErf, GeluErfFn, "gelu")           \
  X(GeluTanh, GeluTanhFn, "gelu_tanh")    \
  X(LeakyRelu, LeakyReluFn, "leaky_relu") \
  X(Pow, PowFn, "pow")                    \
  X(Clamp, ClampFn, "clamp")              \
  X(Identity, IdentityFn, "copy")         \
  X(Fill, FillFn, "fill")

#define TT_POINTWISE_BINARY_OPS(X) \
  X(Add, AddFn, "add")             \
  X(Sub, SubFn, "sub")             \
  X(Mul, MulFn, "mul")             \
  X(Div, DivFn, "div")             \
  X(Maximum, MaximumFn, "maximum") \
  X(Minimum, MinimumFn, "minimum")

namespace tt::ops::pointwise {

#define TT_POINTWISE_ENUM(name, fn, text) name,
enum class UnaryOp { TT_POINTWISE_UNARY_OPS(TT_POINTWISE_ENUM) };
enum class BinaryOp { TT_POINTWISE_BINARY_OPS(TT_POINTWISE_ENUM) };
#undef TT_POINTWISE_ENUM

inline const char* op_name(UnaryOp op) {
  switch (op) {
#define TT_POINTWISE_NAME(name, fn, text) \
  case UnaryOp::name:                     \
    return text;
    TT_POINTWISE_UNARY_OPS(TT_POINTWISE_NAME)
#undef TT_POINTWISE_NAME
  }
  return "?";
}

inline const char* op_name(BinaryOp op) {
  switch (op) {
#define TT_POINTWISE_NAME(name, fn, text) \
  case BinaryOp::name:                    \
    return text;
    TT_POINTWISE_BINARY_OPS(TT_POINTWISE_NAME)
#undef TT_POINTWISE_NAME
  }
  return "?";
}

}  // namespace tt::ops::pointwise
