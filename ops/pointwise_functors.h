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
//
// Element types: a functor runs on float (and double on the float64 path) unless it
// declares `static constexpr unsigned kTypes` (kFloating | kIntegral | kBoolean, see
// accepts()); the front end converts every operand to one compute dtype first (PyTorch's
// type promotion), so a functor sees one T. Its result type is what it returns: T for
// arithmetic, bool for comparisons, logic and isnan/isinf (the output's dtype).
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "core/convert.h"

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
TT_POINTWISE_MATH(floor, floorf, floor)
#undef TT_POINTWISE_MATH
TT_HD float pow(float v, float e) { return ::powf(v, e); }
TT_HD double pow(double v, double e) { return ::pow(v, e); }
TT_HD float fmod(float a, float b) { return ::fmodf(a, b); }
TT_HD double fmod(double a, double b) { return ::fmod(a, b); }
TT_HD float copysign(float a, float b) { return ::copysignf(a, b); }
TT_HD double copysign(double a, double b) { return ::copysign(a, b); }
}  // namespace math

// The element types a functor accepts (its kTypes; float and double when absent).
constexpr unsigned kFloating = 1;  // float, double
constexpr unsigned kIntegral = 2;  // int64_t, int32_t, uint8_t
constexpr unsigned kBoolean = 4;   // bool
constexpr unsigned kAllTypes = kFloating | kIntegral | kBoolean;
constexpr unsigned kNumbers = kFloating | kIntegral;

template <typename Fn, typename = void>
struct TypesOf {
  static constexpr unsigned value = kFloating;
};
template <typename Fn>
struct TypesOf<Fn, std::void_t<decltype(Fn::kTypes)>> {
  static constexpr unsigned value = Fn::kTypes;
};
template <typename T>
constexpr DType t_dtype() {
  return DTypeOf<T>::value;
}

template <typename Fn, typename T>
constexpr bool accepts() {
  constexpr unsigned types = TypesOf<Fn>::value;
  if constexpr (std::is_same_v<T, bool>) return (types & kBoolean) != 0;
  if constexpr (std::is_floating_point_v<T>) return (types & kFloating) != 0;
  return (types & kIntegral) != 0;
}

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
  static constexpr unsigned kTypes = kNumbers;
  // Integers wrap (-INT64_MIN = INT64_MIN, uint8 -1 = 255), as PyTorch; through the
  // unsigned type, because signed overflow is undefined in C++.
  template <typename T>
  TT_HD T operator()(T x) const {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(U(0) - static_cast<U>(x));
    } else {
      return -x;
    }
  }
};
struct AbsFn {
  UnaryParams p;
  static constexpr unsigned kTypes = kNumbers;
  template <typename T>
  TT_HD T operator()(T x) const {
    if constexpr (std::is_unsigned_v<T>) {  // uint8: no sign (and no pointless compare)
      return x;
    } else if constexpr (std::is_integral_v<T>) {
      return x < T(0) ? NegFn{}(x) : x;
    } else {
      return math::abs(x);
    }
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
  static constexpr unsigned kTypes = kNumbers;
  // Testing x < 0 (not x > 0) lets NaN through, as PyTorch does.
  template <typename T>
  TT_HD T operator()(T x) const {
    if constexpr (std::is_unsigned_v<T>) {
      return x;
    } else {
      return x < T(0) ? T(0) : x;
    }
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
  // sigmoid(x) * x: the product order of GemmSwishBiasGroupNorm (its PyTorch
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
  // PyTorch special-cases the common exponents (squares, cubes, sqrt, reciprocals): the
  // cube matters too, as GELU written out (x + 0.044715 * x.pow(3)) is memory-bound only
  // without powf.
  template <typename T>
  TT_HD T operator()(T x) const {
    const T e = T(p.a);
    if (e == T(2)) return x * x;
    if (e == T(3)) return x * x * x;
    if (e == T(-2)) return T(1) / (x * x);
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
  static constexpr unsigned kTypes = kAllTypes;
  template <typename T>
  TT_HD T operator()(T x) const {
    return x;
  }
};
struct FillFn {   // fill_: the input is ignored
  UnaryParams p;  // a: the value
  static constexpr unsigned kTypes = kAllTypes;
  template <typename T>
  TT_HD T operator()(T) const {
    return convert_value<T>(p.a);
  }
};
struct LogicalNotFn {
  UnaryParams p;
  static constexpr unsigned kTypes = kAllTypes;
  template <typename T>
  TT_HD bool operator()(T x) const {
    return x == T(0);
  }
};
struct IsNanFn {
  UnaryParams p;
  static constexpr unsigned kTypes = kAllTypes;
  template <typename T>
  TT_HD bool operator()(T x) const {
    return x != x;  // always false for integers and bool
  }
};
struct IsInfFn {
  UnaryParams p;
  static constexpr unsigned kTypes = kAllTypes;
  template <typename T>
  TT_HD bool operator()(T x) const {
    if constexpr (std::is_floating_point_v<T>) {
      return x - x != x - x && x == x;  // inf - inf is NaN; NaN itself is not inf
    } else {
      return false;
    }
  }
};

struct AddFn {
  static constexpr unsigned kTypes = kNumbers;
  // Integers wrap on overflow, as PyTorch; through the unsigned type (signed overflow
  // is undefined in C++).
  template <typename T>
  TT_HD T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      const U ux = static_cast<U>(x), uy = static_cast<U>(y);
      return static_cast<T>(static_cast<U>(ux + uy));
    } else {
      return x + y;
    }
  }
};
struct SubFn {
  static constexpr unsigned kTypes = kNumbers;
  // Integers wrap on overflow, as PyTorch; through the unsigned type (signed overflow
  // is undefined in C++).
  template <typename T>
  TT_HD T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      const U ux = static_cast<U>(x), uy = static_cast<U>(y);
      return static_cast<T>(static_cast<U>(ux - uy));
    } else {
      return x - y;
    }
  }
};
struct MulFn {
  static constexpr unsigned kTypes = kNumbers;
  // Integers wrap on overflow, as PyTorch; through the unsigned type (signed overflow
  // is undefined in C++).
  template <typename T>
  TT_HD T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      const U ux = static_cast<U>(x), uy = static_cast<U>(y);
      return static_cast<T>(static_cast<U>(ux * uy));
    } else {
      return x * y;
    }
  }
};
struct DivFn {
  template <typename T>
  TT_HD T operator()(T x, T y) const {
    return x / y;
  }
};
struct MaximumFn {  // NaN in either propagates
  static constexpr unsigned kTypes = kNumbers;
  template <typename T>
  TT_HD T operator()(T x, T y) const {
    return (x > y || x != x) ? x : y;
  }
};
struct MinimumFn {
  static constexpr unsigned kTypes = kNumbers;
  template <typename T>
  TT_HD T operator()(T x, T y) const {
    return (x < y || x != x) ? x : y;
  }
};

// Python's floor division and modulo (the result's sign follows the divisor), as
// torch.floor_divide / torch.remainder. Integer division by zero is refused by the
// front end before a kernel runs (it traps on x86); INT_MIN / -1 wraps.
struct FloorDivideFn {
  static constexpr unsigned kTypes = kNumbers;
  template <typename T>
  TT_HD T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) {
      if (y == T(0)) return T(0);  // unreachable through the front end
      if constexpr (std::is_signed_v<T>) {
        if (y == T(-1)) return NegFn{}(x);
      }
      T q = x / y;
      if (std::is_signed_v<T> && x % y != T(0) && ((x < T(0)) != (y < T(0)))) q = q - T(1);
      return q;
    } else {
      // PyTorch's div_floor_floating, so the same results for huge quotients and -0.
      if (y == T(0)) return x / y;
      const T mod = math::fmod(x, y);
      T div = (x - mod) / y;
      if (mod != T(0) && ((y < T(0)) != (mod < T(0)))) div -= T(1);
      if (div == T(0)) return math::copysign(T(0), x / y);
      T floordiv = math::floor(div);
      if (div - floordiv > T(0.5)) floordiv += T(1);
      return floordiv;
    }
  }
};
struct RemainderFn {
  static constexpr unsigned kTypes = kNumbers;
  template <typename T>
  TT_HD T operator()(T x, T y) const {
    if constexpr (std::is_integral_v<T>) {
      if (y == T(0)) return T(0);  // unreachable through the front end
      if constexpr (std::is_signed_v<T>) {
        if (y == T(-1)) return T(0);
      }
      T r = x % y;
      if (std::is_signed_v<T> && r != T(0) && ((r < T(0)) != (y < T(0)))) r = r + y;
      return r;
    } else {
      T mod = math::fmod(x, y);
      if (mod != T(0) && ((y < T(0)) != (mod < T(0)))) mod += y;
      return mod;
    }
  }
};

// Comparisons and logic: any element type, a bool result.
#define TT_POINTWISE_PREDICATE(name, expr)        \
  struct name {                                   \
    static constexpr unsigned kTypes = kAllTypes; \
    template <typename T>                         \
    TT_HD bool operator()(T x, T y) const {       \
      return expr;                                \
    }                                             \
  };
TT_POINTWISE_PREDICATE(EqFn, x == y)
TT_POINTWISE_PREDICATE(NeFn, x != y)
TT_POINTWISE_PREDICATE(LtFn, x < y)
TT_POINTWISE_PREDICATE(LeFn, x <= y)
TT_POINTWISE_PREDICATE(GtFn, x > y)
TT_POINTWISE_PREDICATE(GeFn, x >= y)
TT_POINTWISE_PREDICATE(LogicalAndFn, x != T(0) && y != T(0))
TT_POINTWISE_PREDICATE(LogicalOrFn, x != T(0) || y != T(0))
TT_POINTWISE_PREDICATE(LogicalXorFn, (x != T(0)) != (y != T(0)))
#undef TT_POINTWISE_PREDICATE

// cond (bool, or uint8 with nonzero = true) ? x : y.
struct WhereFn {
  static constexpr unsigned kTypes = kAllTypes;
  template <typename C, typename T>
  TT_HD T operator()(C c, T x, T y) const {
    return c ? x : y;
  }
};

}  // namespace tt::ops::pointwise

// X(enum name, functor, op name for messages and tuning keys)
#define TT_POINTWISE_UNARY_OPS(X)            \
  X(Neg, NegFn, "neg")                       \
  X(Abs, AbsFn, "abs")                       \
  X(Exp, ExpFn, "exp")                       \
  X(Log, LogFn, "log")                       \
  X(Sqrt, SqrtFn, "sqrt")                    \
  X(Rsqrt, RsqrtFn, "rsqrt")                 \
  X(Tanh, TanhFn, "tanh")                    \
  X(Relu, ReluFn, "relu")                    \
  X(Sigmoid, SigmoidFn, "sigmoid")           \
  X(Swish, SwishFn, "swish")                 \
  X(Silu, SiluFn, "silu")                    \
  X(GeluErf, GeluErfFn, "gelu")              \
  X(GeluTanh, GeluTanhFn, "gelu_tanh")       \
  X(LeakyRelu, LeakyReluFn, "leaky_relu")    \
  X(Pow, PowFn, "pow")                       \
  X(Clamp, ClampFn, "clamp")                 \
  X(Identity, IdentityFn, "copy")            \
  X(Fill, FillFn, "fill")                    \
  X(LogicalNot, LogicalNotFn, "logical_not") \
  X(IsNan, IsNanFn, "isnan")                 \
  X(IsInf, IsInfFn, "isinf")

#define TT_POINTWISE_BINARY_OPS(X)              \
  X(Add, AddFn, "add")                          \
  X(Sub, SubFn, "sub")                          \
  X(Mul, MulFn, "mul")                          \
  X(Div, DivFn, "div")                          \
  X(Maximum, MaximumFn, "maximum")              \
  X(Minimum, MinimumFn, "minimum")              \
  X(FloorDivide, FloorDivideFn, "floor_divide") \
  X(Remainder, RemainderFn, "remainder")        \
  X(Eq, EqFn, "eq")                             \
  X(Ne, NeFn, "ne")                             \
  X(Lt, LtFn, "lt")                             \
  X(Le, LeFn, "le")                             \
  X(Gt, GtFn, "gt")                             \
  X(Ge, GeFn, "ge")                             \
  X(LogicalAnd, LogicalAndFn, "logical_and")    \
  X(LogicalOr, LogicalOrFn, "logical_or")       \
  X(LogicalXor, LogicalXorFn, "logical_xor")

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

namespace tt::ops::pointwise {

// Whether op has a kernel for elements of dtype t, and the dtype of its result there
// (t, or bool for the predicates); host code (the front end and the launchers).
template <typename Fn>
bool fn_accepts(DType t) {
  if (!dtype_has_kernels(t)) return false;
  return visit_dtype(t, "pointwise", [](auto zero) { return accepts<Fn, decltype(zero)>(); });
}
template <typename Fn, int Arity>
DType fn_result_dtype(DType t) {
  return visit_dtype(t, "pointwise", [](auto zero) {
    using T = decltype(zero);
    if constexpr (!accepts<Fn, T>()) {
      return t_dtype<T>();
    } else if constexpr (Arity == 1) {
      return t_dtype<decltype(std::declval<Fn>()(T{}))>();
    } else {
      return t_dtype<decltype(std::declval<Fn>()(T{}, T{}))>();
    }
  });
}

// f(static_cast<Fn*>(nullptr)) for op's functor type Fn.
template <typename F>
decltype(auto) with_functor(UnaryOp op, F&& f) {
  switch (op) {
#define TT_POINTWISE_FUNCTOR(name, fn, text) \
  case UnaryOp::name:                        \
    return f(static_cast<fn*>(nullptr));
    TT_POINTWISE_UNARY_OPS(TT_POINTWISE_FUNCTOR)
#undef TT_POINTWISE_FUNCTOR
  }
  return f(static_cast<IdentityFn*>(nullptr));  // unreachable: every op has a case
}
template <typename F>
decltype(auto) with_functor(BinaryOp op, F&& f) {
  switch (op) {
#define TT_POINTWISE_FUNCTOR(name, fn, text) \
  case BinaryOp::name:                       \
    return f(static_cast<fn*>(nullptr));
    TT_POINTWISE_BINARY_OPS(TT_POINTWISE_FUNCTOR)
#undef TT_POINTWISE_FUNCTOR
  }
  return f(static_cast<AddFn*>(nullptr));  // unreachable: every op has a case
}

template <typename Op>
bool op_accepts(Op op, DType t) {
  return with_functor(op,
                      [t](auto* fn) { return fn_accepts<std::remove_pointer_t<decltype(fn)>>(t); });
}
template <typename Op>
DType op_result_dtype(Op op, DType t) {
  constexpr int arity = std::is_same_v<Op, UnaryOp> ? 1 : 2;
  return with_functor(
      op, [t](auto* fn) { return fn_result_dtype<std::remove_pointer_t<decltype(fn)>, arity>(t); });
}

}  // namespace tt::ops::pointwise
