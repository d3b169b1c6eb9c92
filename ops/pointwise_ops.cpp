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
#include "ops/promote.h"
#include "ops/record.h"
#if TT_CUDA
#include "ops/cuda/pointwise/pointwise.h"
#endif

namespace tt::ops {
namespace {

using namespace detail;
using pointwise::BinaryOp;
using pointwise::UnaryOp;
using pointwise::UnaryParams;

// `op` is named only in the error of a build without CUDA.
void run_unary([[maybe_unused]] const char* op, UnaryOp kind, const UnaryParams& params,
               const Tensor& x, const Tensor& out) {
  TT_DISPATCH(op, x.device(), cpu::unary(kind, params, x, out), cuda::unary(kind, params, x, out));
}

void run_binary([[maybe_unused]] const char* op, BinaryOp kind, const Tensor& a, const Tensor& b,
                const Tensor& out) {
  TT_DISPATCH(op, a.device(), cpu::binary(kind, a, b, out), cuda::binary(kind, a, b, out));
}

// The dtype `op` computes in for operands promoted to `t`: t where the op has a
// kernel for it, else float32 for integers and bool (PyTorch's integer-to-float
// promotion of exp, sqrt, true division, ...); an error otherwise.
template <typename Kind>
DType compute_dtype(const char* op, Kind kind, DType t) {
  if (pointwise::op_accepts(kind, t)) return t;
  if (!dtype_is_floating(t) && pointwise::op_accepts(kind, DType::F32)) return DType::F32;
  TT_FAIL("{}: dtype {} is not supported by this op", op, dtype_name(t));
}

Tensor unary_op(const char* op, UnaryOp kind, const Tensor& x, UnaryParams params = {}) {
  const RecordScope record(OpKind::kUnary, static_cast<int>(kind));
  check_any_dtype(op, "input", x);
  const DType t = compute_dtype(op, kind, x.dtype());
  const Tensor in = x.to(t);
  Tensor out = Tensor::empty(x.sizes(), pointwise::op_result_dtype(kind, t), x.device());
  run_unary(op, kind, params, in, out);
  return record.done(out, {x}, {{}, {params.a, params.b}, {}});
}

// a and b converted to their promoted dtype (result_type), as the kernels read one
// element type.
Tensor binary_op(const char* op, BinaryOp kind, const Tensor& a, const Tensor& b) {
  const RecordScope record(OpKind::kBinary, static_cast<int>(kind));
  check_any_dtype(op, "a", a);
  check_any_dtype(op, "b", b);
  same_device(op, {{"a", a}, {"b", b}});
  const DType t = compute_dtype(op, kind, result_type(a, b));
  const Tensor ca = a.to(t), cb = b.to(t);
  if ((kind == BinaryOp::FloorDivide || kind == BinaryOp::Remainder) && !dtype_is_floating(t)) {
    // x86 traps on an integer division by zero: refused, as PyTorch's CPU does.
    TT_CHECK(!any(logical_not(cb)).item<bool>(),
             "{}: integer division by zero (b has a zero element and the operands are {})", op,
             dtype_name(t));
  }
  Tensor out = Tensor::empty(broadcast_shapes(op, a.sizes(), b.sizes()),
                             pointwise::op_result_dtype(kind, t), a.device());
  run_binary(op, kind, ca, cb, out);
  return record.done(out, {a, b});
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
  capture::note_unreplayable_with(self,
                                  [op] { return std::string(op) + " writes into it in place"; });
  check_any_dtype(op, "self", self);
  check_any_dtype(op, "other", other);
  same_device(op, {{"self", self}, {"other", other}});
  const DType t = result_type(self, other);
  TT_CHECK(can_cast(t, self.dtype()),
           "{}: the result of {} and {} is {}, which cannot be written into self's {} in place", op,
           dtype_name(self.dtype()), dtype_name(other.dtype()), dtype_name(t),
           dtype_name(self.dtype()));
  TT_CHECK(pointwise::op_accepts(kind, self.dtype()), "{}: self's dtype {} is not supported", op,
           dtype_name(self.dtype()));
  const Shape shape = broadcast_shapes(op, self.sizes(), other.sizes());
  TT_CHECK(shape == self.sizes(),
           "{}: other of shape {} broadcasts with self of shape {} to {}, but an in-place op "
           "cannot change self's shape",
           op, shape_str(other.sizes()), shape_str(self.sizes()), shape_str(shape));
  check_write(op, self, {{"other", other}});
  run_binary(op, kind, self, other.to(self.dtype()), self);
  return self;
}

}  // namespace

Tensor detail::unary(UnaryOp kind, const Tensor& x, const UnaryParams& params) {
  return unary_op(pointwise::op_name(kind), kind, x, params);
}
Tensor detail::binary(BinaryOp kind, const Tensor& a, const Tensor& b) {
  return binary_op(pointwise::op_name(kind), kind, a, b);
}

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
  const RecordScope record(OpKind::kWhere);
  const char* op = "where";
  TT_CHECK(cond.defined(), "{}: condition is undefined; expected a bool tensor", op);
  TT_CHECK(cond.dtype() == DType::Bool || cond.dtype() == DType::U8,
           "{}: condition has dtype {} but must be bool (or uint8: 0 = false, nonzero = true)", op,
           dtype_name(cond.dtype()));
  check_any_dtype(op, "a", a);
  check_any_dtype(op, "b", b);
  const Device device = same_device(op, {{"condition", cond}, {"a", a}, {"b", b}});
  const Shape shape =
      broadcast_shapes(op, broadcast_shapes(op, cond.sizes(), a.sizes()), b.sizes());
  const DType t = result_type(a, b);
  Tensor out = Tensor::empty(shape, t, device);
  const Tensor ca = a.to(t), cb = b.to(t);
  if (device.is_cpu()) {
    cpu::where(cond, ca, cb, out);
    return record.done(out, {cond, a, b});
  }
#if TT_CUDA
  cuda::where(cond, ca, cb, out);
  return record.done(out, {cond, a, b});
#else
  fail_without_cuda(op, device);
#endif
}

Tensor where(const Tensor& cond, const Tensor& a, double b) {
  return where(cond, a, scalar_on("where", a, b));
}
Tensor where(const Tensor& cond, double a, const Tensor& b) {
  return where(cond, scalar_on("where", b, a), b);
}

Tensor masked_fill(const Tensor& x, const Tensor& mask, double value) {
  const char* op = "masked_fill";
  check_any_dtype(op, "input", x);
  TT_CHECK(mask.defined() && mask.dtype() == DType::Bool,
           "{}: mask must be a bool tensor but is {}", op,
           mask.defined() ? dtype_name(mask.dtype()) : "undefined");
  const Shape shape = broadcast_shapes(op, x.sizes(), mask.sizes());
  TT_CHECK(shape == x.sizes(),
           "{}: mask of shape {} must broadcast to the input's shape {}, but they broadcast to {}",
           op, shape_str(mask.sizes()), shape_str(x.sizes()), shape_str(shape));
  // The value takes x's dtype (torch.masked_fill never changes it).
  return where(mask, Tensor::full({}, value, x.dtype(), x.device()), x);
}

Tensor masked_fill(const Tensor& x, const Tensor& mask, const Tensor& value) {
  const char* op = "masked_fill";
  TT_CHECK(value.defined() && value.dim() == 0,
           "{}: value must be a 0-d tensor (a scalar) but has shape {}", op,
           value.defined() ? shape_str(value.sizes()) : "undefined");
  return masked_fill(x, mask, value.to(DType::F64).item<double>());
}

// ---- comparisons and logic (bool results) ----

#define TT_BINARY_OP(name, kind)                                                                   \
  Tensor name(const Tensor& a, const Tensor& b) { return binary_op(#name, BinaryOp::kind, a, b); } \
  Tensor name(const Tensor& a, double b) { return name(a, scalar_on(#name, a, b)); }
TT_BINARY_OP(eq, Eq)
TT_BINARY_OP(ne, Ne)
TT_BINARY_OP(lt, Lt)
TT_BINARY_OP(le, Le)
TT_BINARY_OP(gt, Gt)
TT_BINARY_OP(ge, Ge)
TT_BINARY_OP(floor_divide, FloorDivide)
TT_BINARY_OP(remainder, Remainder)
#undef TT_BINARY_OP

Tensor logical_and(const Tensor& a, const Tensor& b) {
  return binary_op("logical_and", BinaryOp::LogicalAnd, a, b);
}
Tensor logical_or(const Tensor& a, const Tensor& b) {
  return binary_op("logical_or", BinaryOp::LogicalOr, a, b);
}
Tensor logical_xor(const Tensor& a, const Tensor& b) {
  return binary_op("logical_xor", BinaryOp::LogicalXor, a, b);
}
Tensor logical_not(const Tensor& x) { return unary_op("logical_not", UnaryOp::LogicalNot, x); }
Tensor isnan(const Tensor& x) { return unary_op("isnan", UnaryOp::IsNan, x); }
Tensor isinf(const Tensor& x) { return unary_op("isinf", UnaryOp::IsInf, x); }

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

Tensor operator==(const Tensor& a, const Tensor& b) { return ops::eq(a, b); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return ops::ne(a, b); }
Tensor operator<(const Tensor& a, const Tensor& b) { return ops::lt(a, b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return ops::le(a, b); }
Tensor operator>(const Tensor& a, const Tensor& b) { return ops::gt(a, b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return ops::ge(a, b); }
Tensor operator==(const Tensor& a, double b) { return ops::eq(a, b); }
Tensor operator!=(const Tensor& a, double b) { return ops::ne(a, b); }
Tensor operator<(const Tensor& a, double b) { return ops::lt(a, b); }
Tensor operator<=(const Tensor& a, double b) { return ops::le(a, b); }
Tensor operator>(const Tensor& a, double b) { return ops::gt(a, b); }
Tensor operator>=(const Tensor& a, double b) { return ops::ge(a, b); }

namespace {
// &, |, ^, ~ are bitwise in PyTorch; on bool tensors (the only ones they take here)
// bitwise and logical agree.
void check_bool_operands(const char* op, std::initializer_list<const Tensor*> tensors) {
  for (const Tensor* t : tensors) {
    TT_CHECK(t->defined() && t->dtype() == DType::Bool,
             "operator{}: expected bool tensors but got {} (bitwise ops on integers are not "
             "supported; use logical_and/or/xor/not for any dtype)",
             op, t->defined() ? dtype_name(t->dtype()) : "an undefined tensor");
  }
}
}  // namespace

Tensor operator&(const Tensor& a, const Tensor& b) {
  check_bool_operands("&", {&a, &b});
  return ops::logical_and(a, b);
}
Tensor operator|(const Tensor& a, const Tensor& b) {
  check_bool_operands("|", {&a, &b});
  return ops::logical_or(a, b);
}
Tensor operator^(const Tensor& a, const Tensor& b) {
  check_bool_operands("^", {&a, &b});
  return ops::logical_xor(a, b);
}
Tensor operator~(const Tensor& a) {
  check_bool_operands("~", {&a});
  return ops::logical_not(a);
}

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
  ops::detail::check_any_dtype("fill_", "self", *this);
  ops::detail::check_write("fill_", *this, {});
  capture::note_unreplayable(*this, "fill_ writes into it in place");
  ops::run_unary("fill_", ops::UnaryOp::Fill, {value, 0.0}, *this, *this);
  return *this;
}

}  // namespace tt
