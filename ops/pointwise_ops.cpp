// Front end of the pointwise family (ops/pointwise_functors.h): checks, result
// allocation and dispatch of every unary, binary and where op, their scalar forms,
// and the Tensor operators and in-place members declared in core/tensor.h.
#include <cmath>
#include <limits>
#include <string>

#include "ops/broadcast.h"
#include "ops/cpu/cpu_ops.h"
#include "ops/front_end.h"
#include "ops/ops.h"
#if TT_CUDA
#include "ops/cuda/pointwise/pointwise.h"
#endif

namespace tt::ops {
namespace {

using namespace detail;
using pointwise::BinaryOp;
using pointwise::UnaryOp;
using pointwise::UnaryParams;

void run_unary(const char* op, UnaryOp kind, const UnaryParams& params, const Tensor& x,
               const Tensor& out) {
  if (x.device().is_cpu()) return cpu::unary(kind, params, x, out);
#if TT_CUDA
  (void)op;  // named only in the error of a build without CUDA
  cuda::unary(kind, params, x, out);
#else
  fail_without_cuda(op, x.device());
#endif
}

void run_binary(const char* op, BinaryOp kind, const Tensor& a, const Tensor& b,
                const Tensor& out) {
  if (a.device().is_cpu()) return cpu::binary(kind, a, b, out);
#if TT_CUDA
  (void)op;
  cuda::binary(kind, a, b, out);
#else
  fail_without_cuda(op, a.device());
#endif
}

Tensor unary_op(const char* op, UnaryOp kind, const Tensor& x, UnaryParams params = {}) {
  check_required(op, "input", x);
  Tensor out = Tensor::empty(x.sizes(), x.dtype(), x.device());
  run_unary(op, kind, params, x, out);
  return out;
}

Tensor binary_op(const char* op, BinaryOp kind, const Tensor& a, const Tensor& b) {
  required_on_one_device(op, {{"a", a}, {"b", b}});
  Tensor out = Tensor::empty(broadcast_shapes(op, a.sizes(), b.sizes()), a.dtype(), a.device());
  run_binary(op, kind, a, b, out);
  return out;
}

// A Python number in a float32 op: a float32 0-d tensor on the tensor's device (a
// float64 one for a float64 tensor: PyTorch's number never changes the tensor's dtype).
Tensor scalar_on(const char* op, const Tensor& like, double value) {
  TT_CHECK(like.defined(), "{}: the tensor operand is undefined", op);
  return Tensor::full({}, value, like.dtype() == DType::F64 ? DType::F64 : DType::F32,
                      like.device());
}

const Tensor& binary_inplace(const char* op, BinaryOp kind, const Tensor& self,
                             const Tensor& other) {
  check_required(op, "self", self);
  check_required(op, "other", other);
  common_device(op, {{"self", self}, {"other", other}});
  const Shape shape = broadcast_shapes(op, self.sizes(), other.sizes());
  TT_CHECK(shape == self.sizes(),
           "{}: other of shape {} broadcasts with self of shape {} to {}, but an in-place op "
           "cannot change self's shape",
           op, shape_str(other.sizes()), shape_str(self.sizes()), shape_str(shape));
  check_write(op, self, {{"other", other}});
  run_binary(op, kind, self, other, self);
  return self;
}

}  // namespace

// ---- binary ----

Tensor add(const Tensor& a, const Tensor& b) { return binary_op("add", BinaryOp::Add, a, b); }
Tensor sub(const Tensor& a, const Tensor& b) { return binary_op("sub", BinaryOp::Sub, a, b); }
Tensor mul(const Tensor& a, const Tensor& b) { return binary_op("mul", BinaryOp::Mul, a, b); }
Tensor div(const Tensor& a, const Tensor& b) { return binary_op("div", BinaryOp::Div, a, b); }
Tensor maximum(const Tensor& a, const Tensor& b) {
  return binary_op("maximum", BinaryOp::Maximum, a, b);
}
Tensor minimum(const Tensor& a, const Tensor& b) {
  return binary_op("minimum", BinaryOp::Minimum, a, b);
}

Tensor add(const Tensor& a, double b) { return add(a, scalar_on("add", a, b)); }
Tensor sub(const Tensor& a, double b) { return sub(a, scalar_on("sub", a, b)); }
Tensor mul(const Tensor& a, double b) { return mul(a, scalar_on("mul", a, b)); }
Tensor div(const Tensor& a, double b) { return div(a, scalar_on("div", a, b)); }

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  const char* op = "where";
  TT_CHECK(cond.defined(), "{}: condition is undefined; expected a uint8 tensor", op);
  TT_CHECK(cond.dtype() == DType::U8,
           "{}: condition has dtype {} but must be uint8 (0 = false, nonzero = true)", op,
           dtype_name(cond.dtype()));
  check_required(op, "a", a);
  check_required(op, "b", b);
  const Device device = common_device(op, {{"condition", cond}, {"a", a}, {"b", b}});
  const Shape shape =
      broadcast_shapes(op, broadcast_shapes(op, cond.sizes(), a.sizes()), b.sizes());
  Tensor out = Tensor::empty(shape, a.dtype(), device);
  if (device.is_cpu()) {
    cpu::where(cond, a, b, out);
    return out;
  }
#if TT_CUDA
  cuda::where(cond, a, b, out);
  return out;
#else
  fail_without_cuda(op, device);
#endif
}

// ---- unary ----

Tensor neg(const Tensor& x) { return unary_op("neg", UnaryOp::Neg, x); }
Tensor abs(const Tensor& x) { return unary_op("abs", UnaryOp::Abs, x); }
Tensor exp(const Tensor& x) { return unary_op("exp", UnaryOp::Exp, x); }
Tensor log(const Tensor& x) { return unary_op("log", UnaryOp::Log, x); }
Tensor sqrt(const Tensor& x) { return unary_op("sqrt", UnaryOp::Sqrt, x); }
Tensor rsqrt(const Tensor& x) { return unary_op("rsqrt", UnaryOp::Rsqrt, x); }
Tensor tanh(const Tensor& x) { return unary_op("tanh", UnaryOp::Tanh, x); }
Tensor relu(const Tensor& x) { return unary_op("relu", UnaryOp::Relu, x); }
Tensor sigmoid(const Tensor& x) { return unary_op("sigmoid", UnaryOp::Sigmoid, x); }
Tensor swish(const Tensor& x) { return unary_op("swish", UnaryOp::Swish, x); }
Tensor silu(const Tensor& x) { return unary_op("silu", UnaryOp::Silu, x); }

Tensor pow(const Tensor& x, double exponent) {
  return unary_op("pow", UnaryOp::Pow, x, {exponent, 0.0});
}

Tensor clamp(const Tensor& x, std::optional<double> min, std::optional<double> max) {
  TT_CHECK(min.has_value() || max.has_value(),
           "clamp: at least one of min and max must be given, but both are absent");
  constexpr double inf = std::numeric_limits<double>::infinity();
  return unary_op("clamp", UnaryOp::Clamp, x, {min ? *min : -inf, max ? *max : inf});
}

Tensor gelu(const Tensor& x, const std::string& approximate) {
  TT_CHECK(approximate == "none" || approximate == "tanh",
           "gelu: approximate must be 'none' or 'tanh' but is '{}'", approximate);
  return unary_op("gelu", approximate == "none" ? UnaryOp::GeluErf : UnaryOp::GeluTanh, x);
}

Tensor leaky_relu(const Tensor& x, double negative_slope) {
  return unary_op("leaky_relu", UnaryOp::LeakyRelu, x, {negative_slope, 0.0});
}

}  // namespace tt::ops

// ---- Tensor operators and in-place members (declared in core/tensor.h) ----

namespace tt {

Tensor operator+(const Tensor& a, const Tensor& b) { return ops::add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return ops::sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return ops::mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return ops::div(a, b); }
Tensor operator+(const Tensor& a, double b) { return ops::add(a, b); }
Tensor operator-(const Tensor& a, double b) { return ops::sub(a, b); }
Tensor operator*(const Tensor& a, double b) { return ops::mul(a, b); }
Tensor operator/(const Tensor& a, double b) { return ops::div(a, b); }
Tensor operator+(double a, const Tensor& b) { return ops::add(ops::scalar_on("add", b, a), b); }
Tensor operator-(double a, const Tensor& b) { return ops::sub(ops::scalar_on("sub", b, a), b); }
Tensor operator*(double a, const Tensor& b) { return ops::mul(ops::scalar_on("mul", b, a), b); }
Tensor operator/(double a, const Tensor& b) { return ops::div(ops::scalar_on("div", b, a), b); }
Tensor operator-(const Tensor& a) { return ops::neg(a); }

const Tensor& Tensor::add_(const Tensor& other) const {
  return ops::binary_inplace("add_", ops::BinaryOp::Add, *this, other);
}
const Tensor& Tensor::sub_(const Tensor& other) const {
  return ops::binary_inplace("sub_", ops::BinaryOp::Sub, *this, other);
}
const Tensor& Tensor::mul_(const Tensor& other) const {
  return ops::binary_inplace("mul_", ops::BinaryOp::Mul, *this, other);
}
const Tensor& Tensor::div_(const Tensor& other) const {
  return ops::binary_inplace("div_", ops::BinaryOp::Div, *this, other);
}
const Tensor& Tensor::add_(double other) const {
  return add_(ops::scalar_on("add_", *this, other));
}
const Tensor& Tensor::sub_(double other) const {
  return sub_(ops::scalar_on("sub_", *this, other));
}
const Tensor& Tensor::mul_(double other) const {
  return mul_(ops::scalar_on("mul_", *this, other));
}
const Tensor& Tensor::div_(double other) const {
  return div_(ops::scalar_on("div_", *this, other));
}

const Tensor& Tensor::fill_(double value) const {
  ops::detail::check_required("fill_", "self", *this);
  ops::detail::check_write("fill_", *this, {});
  ops::run_unary("fill_", ops::UnaryOp::Fill, {value, 0.0}, *this, *this);
  return *this;
}

}  // namespace tt
