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
struct UnaryParams {
  float a = 0.0f;
  float b = 0.0f;
};

TT_HD float sigmoid_of(float v) { return 1.0f / (1.0f + ::expf(-v)); }

struct NegFn {
  UnaryParams p;
  TT_HD float operator()(float x) const { return -x; }
};
struct AbsFn {
  UnaryParams p;
  TT_HD float operator()(float x) const { return ::fabsf(x); }
};
struct ExpFn {
  UnaryParams p;
  TT_HD float operator()(float x) const { return ::expf(x); }
};
struct LogFn {
  UnaryParams p;
  TT_HD float operator()(float x) const { return ::logf(x); }
};
struct SqrtFn {
  UnaryParams p;
  TT_HD float operator()(float x) const { return ::sqrtf(x); }
};
struct RsqrtFn {
  UnaryParams p;
  TT_HD float operator()(float x) const {
#ifdef __CUDA_ARCH__
    return ::rsqrtf(x);  // within 2 ulp
#else
    return 1.0f / ::sqrtf(x);
#endif
  }
};
struct TanhFn {
  UnaryParams p;
  TT_HD float operator()(float x) const { return ::tanhf(x); }
};
struct ReluFn {
  UnaryParams p;
  // Testing x < 0 (not x > 0) lets NaN through, as PyTorch does.
  TT_HD float operator()(float x) const { return x < 0.0f ? 0.0f : x; }
};
struct SigmoidFn {
  UnaryParams p;
  TT_HD float operator()(float x) const { return sigmoid_of(x); }
};
struct SwishFn {
  UnaryParams p;
  // sigmoid(x) * x: the product order of gemm_swish_bias_group_norm (its PyTorch
  // fixture), kept for swish.
  TT_HD float operator()(float x) const { return sigmoid_of(x) * x; }
};
struct SiluFn {
  UnaryParams p;
  // PyTorch's silu kernel: x / (1 + exp(-x)).
  TT_HD float operator()(float x) const { return x / (1.0f + ::expf(-x)); }
};
struct GeluErfFn {
  UnaryParams p;
  // 0.5 x (1 + erf(x / sqrt(2))), PyTorch's approximate="none".
  TT_HD float operator()(float x) const {
    return 0.5f * x * (1.0f + ::erff(x * 0.70710678118654752440f));
  }
};
struct GeluTanhFn {
  UnaryParams p;
  // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), PyTorch's approximate="tanh".
  TT_HD float operator()(float x) const {
    const float inner = 0.79788456080286535588f * (x + 0.044715f * x * x * x);
    return 0.5f * x * (1.0f + ::tanhf(inner));
  }
};
struct LeakyReluFn {
  UnaryParams p;  // a: negative_slope
  TT_HD float operator()(float x) const { return x > 0.0f ? x : x * p.a; }
};
struct PowFn {
  UnaryParams p;  // a: exponent
  // PyTorch special-cases the common exponents (exact squares, sqrt, reciprocal).
  TT_HD float operator()(float x) const {
    if (p.a == 2.0f) return x * x;
    if (p.a == 1.0f) return x;
    if (p.a == 0.5f) return ::sqrtf(x);
    if (p.a == -1.0f) return 1.0f / x;
    return ::powf(x, p.a);
  }
};
struct ClampFn {
  UnaryParams p;  // a: min (-inf when absent), b: max (+inf when absent)
  // Comparisons (not fminf/fmaxf) let NaN through; min > max gives max, as PyTorch.
  TT_HD float operator()(float x) const {
    const float lo = x < p.a ? p.a : x;
    return lo > p.b ? p.b : lo;
  }
};
struct IdentityFn {  // copies into strided destinations (cat, copy into views)
  UnaryParams p;
  TT_HD float operator()(float x) const { return x; }
};
struct FillFn {   // fill_: the input is ignored
  UnaryParams p;  // a: the value
  TT_HD float operator()(float) const { return p.a; }
};

struct AddFn {
  TT_HD float operator()(float x, float y) const { return x + y; }
};
struct SubFn {
  TT_HD float operator()(float x, float y) const { return x - y; }
};
struct MulFn {
  TT_HD float operator()(float x, float y) const { return x * y; }
};
struct DivFn {
  TT_HD float operator()(float x, float y) const { return x / y; }
};
struct MaximumFn {  // NaN in either propagates
  TT_HD float operator()(float x, float y) const { return (x > y || x != x) ? x : y; }
};
struct MinimumFn {
  TT_HD float operator()(float x, float y) const { return (x < y || x != x) ? x : y; }
};

struct WhereFn {
  TT_HD float operator()(uint8_t c, float x, float y) const { return c ? x : y; }
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
