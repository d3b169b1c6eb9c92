// Front end of the reductions, softmax, the row norms and the matrix products: dims
// normalised (negative -> non-negative, sorted, unique, empty = all), shapes
// checked, then the CPU reference or the CUDA backend (the contract in
// ops/cpu/cpu_ops.h; CUDA: ops/cuda/cuda_ops_reduce.h, the reduce family).
#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/broadcast.h"
#include "ops/cpu/cpu_ops.h"
#include "ops/front_end.h"
#include "ops/ops.h"
#include "ops/promote.h"
#include "ops/record.h"
#if TT_CUDA
#include "ops/cuda/cuda_ops.h"
#endif

namespace tt::ops {
namespace {

using namespace detail;

// Sorted unique non-negative dims; empty `dims` = every dim. A 0-d tensor is handled
// by the callers (viewed as [1]).
std::vector<int64_t> normalize_dims(const char* op, const Tensor& x,
                                    const std::vector<int64_t>& dims) {
  std::vector<int64_t> out;
  if (dims.empty()) {
    for (int64_t d = 0; d < x.dim(); ++d) out.push_back(d);
    return out;
  }
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(op, d, x.dim());
    TT_CHECK(std::find(out.begin(), out.end(), w) == out.end(),
             "{}: dimension {} appears more than once in the dim list {}", op, w, shape_str(dims));
    out.push_back(w);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The reductions of a 0-d tensor: reduce its [1] view over dim 0 (result 0-d).
struct Prepared {
  Tensor x;
  std::vector<int64_t> dims;
  bool keepdim;
};

// any_dtype: the op also takes integer and bool tensors (sum, amax, amin, any, all).
Prepared prepare(const char* op, const Tensor& x, const std::vector<int64_t>& dims, bool keepdim,
                 bool any_dtype = false) {
  if (any_dtype) {
    check_any_dtype(op, "input", x);
  } else {
    check_required(op, "input", x);
  }
  std::vector<int64_t> d = normalize_dims(op, x, dims);
  if (x.dim() == 0) return {x.reshape({1}), {0}, false};
  return {x, d, keepdim};
}

// amax/amin/argmax/argmin have no value for an empty reduction.
void check_nonempty(const char* op, const Tensor& x, const std::vector<int64_t>& dims) {
  for (int64_t d : dims) {
    TT_CHECK(x.size(d) > 0,
             "{}: cannot reduce over dimension {} of size 0 (input shape {}); the result would "
             "have no value",
             op, d, shape_str(x.sizes()));
  }
}

Tensor arg_reduce(const char* op, bool is_max, const Tensor& x, std::optional<int64_t> dim,
                  bool keepdim) {
  const RecordScope record(is_max ? OpKind::kArgmax : OpKind::kArgmin);
  check_any_dtype(op, "input", x);
  Tensor in = x;
  int64_t d = 0;
  if (dim) {
    d = wrap_dim(op, *dim, x.dim());
    if (x.dim() == 0) in = x.reshape({1});
  } else {
    in = x.reshape({-1});
  }
  check_nonempty(op, in, {d});
  const bool keep = dim && x.dim() > 0 && keepdim;
  Tensor out;
  if (in.device().is_cpu()) {
    out = is_max ? cpu::argmax(in, d, keep) : cpu::argmin(in, d, keep);
  } else {
#if TT_CUDA
    if (in.dtype() != DType::F32) {
      out = cuda::reduce_integers(is_max ? cuda::IntReduce::ArgMax : cuda::IntReduce::ArgMin, in,
                                  {d}, keep);
    } else {
      out = is_max ? cuda::argmax(in, d, keep) : cuda::argmin(in, d, keep);
    }
#else
    fail_without_cuda(op, in.device());
#endif
  }
  // No dim and keepdim: PyTorch keeps every dim as size 1.
  if (!dim && keepdim) out = out.reshape(Shape(static_cast<size_t>(x.dim()), 1));
  // ints: {has dim, dim, keepdim}
  return record.done(out, {x}, {{dim ? 1 : 0, dim.value_or(0), keepdim ? 1 : 0}, {}, {}});
}

void check_eps(const char* op, double eps) {
  TT_CHECK(eps >= 0.0 && std::isfinite(eps), "{}: eps must be finite and >= 0 but is {}", op, eps);
}

// normalized_shape against x's trailing dims, and the affine tensors against it;
// returns the number of normalised elements per row.
int64_t check_normalized_shape(const char* op, const Tensor& x, const Shape& normalized_shape,
                               std::initializer_list<NamedTensor> affine) {
  TT_CHECK(!normalized_shape.empty(),
           "{}: normalized_shape is empty; expected the sizes of the trailing dims to normalise",
           op);
  const size_t k = normalized_shape.size();
  const bool fits =
      static_cast<size_t>(x.dim()) >= k &&
      Shape(x.sizes().end() - static_cast<int64_t>(k), x.sizes().end()) == normalized_shape;
  TT_CHECK(fits, "{}: input of shape {} does not end with normalized_shape {}; expected [*, {}]",
           op, shape_str(x.sizes()), shape_str(normalized_shape),
           fmt::join(normalized_shape, ", "));
  for (const NamedTensor& nt : affine) {
    if (!nt.tensor.defined()) continue;
    TT_CHECK(nt.tensor.sizes() == normalized_shape,
             "{}: {} has shape {} but must have normalized_shape {}", op, nt.name,
             shape_str(nt.tensor.sizes()), shape_str(normalized_shape));
  }
  return shape_numel(normalized_shape);
}

// The contract passes affine tensors as contiguous [n] views.
Tensor flat_affine(const Tensor& t, int64_t n) {
  return t.defined() ? t.contiguous().reshape({n}) : Tensor();
}

}  // namespace

// ---- reductions ----

// Recorded with ints {keepdim, dims...} (the dims as given).
capture::Attrs reduction_attrs(const std::vector<int64_t>& dims, bool keepdim) {
  capture::Attrs a;
  a.ints.push_back(keepdim ? 1 : 0);
  a.ints.insert(a.ints.end(), dims.begin(), dims.end());
  return a;
}

// Integer and bool inputs (sum, amax, amin; any, all for every dtype) run the reduce
// family's integer kernels on CUDA (cuda::reduce_integers).
#define TT_REDUCTION(name, kind, nonempty, any_dtype, int_kind)                                   \
  Tensor name(const Tensor& x, IntArrayRef dims, bool keepdim) {                                  \
    const RecordScope record(OpKind::kind);                                                       \
    const Prepared p = prepare(#name, x, dims, keepdim, any_dtype);                               \
    if (nonempty) check_nonempty(#name, p.x, p.dims);                                             \
    return record.done(                                                                           \
        TT_RUN(#name, p.x.device(), cpu::name(p.x, p.dims, p.keepdim),                            \
               (p.x.dtype() == DType::F32                                                         \
                    ? cuda::name(p.x, p.dims, p.keepdim)                                          \
                    : cuda::reduce_integers(cuda::IntReduce::int_kind, p.x, p.dims, p.keepdim))), \
        {x}, reduction_attrs(dims, keepdim));                                                     \
  }
TT_REDUCTION(sum, kSum, false, true, Sum)
TT_REDUCTION(mean, kMean, false, false, Sum)
TT_REDUCTION(amax, kAmax, true, true, Max)
TT_REDUCTION(amin, kAmin, true, true, Min)
#undef TT_REDUCTION

#define TT_LOGICAL_REDUCTION(name, int_kind)                                                  \
  Tensor name(const Tensor& x, IntArrayRef dims, bool keepdim) {                              \
    const RecordScope record(OpKind::kOther);                                                 \
    const Prepared p = prepare(#name, x, dims, keepdim, true);                                \
    return record.done(TT_RUN(#name, p.x.device(), cpu::name(p.x, p.dims, p.keepdim),         \
                              cuda::reduce_integers(cuda::IntReduce::int_kind,                \
                                                    p.x.to(DType::Bool), p.dims, p.keepdim)), \
                       {x}, #name, [dims, keepdim](const std::vector<Tensor>& in) {           \
                         return name(in[0], dims, keepdim);                                   \
                       });                                                                    \
  }
TT_LOGICAL_REDUCTION(any, Any)
TT_LOGICAL_REDUCTION(all, All)
#undef TT_LOGICAL_REDUCTION

Tensor cumsum(const Tensor& x, int64_t dim) {
  const RecordScope record(OpKind::kOther);
  const char* op = "cumsum";
  check_any_dtype(op, "input", x);
  const int64_t d = wrap_dim(op, dim, x.dim());
  // Integers and bool accumulate in int64, PyTorch's result dtype.
  const Tensor in = (dtype_is_floating(x.dtype()) ? x : x.to(DType::I64));
  const Tensor in1 = in.dim() == 0 ? in.reshape({1}) : in;
  const auto back = [&](const Tensor& t) { return t.reshape(x.sizes()); };
  return record.done(
      TT_RUN(op, in1.device(), back(cpu::cumsum(in1, d)), back(cuda::cumsum(in1, d))), {x}, op,
      [dim](const std::vector<Tensor>& in) { return cumsum(in[0], dim); });
}

namespace {

// var and std: recorded as the reductions, with the correction (`unbiased`) as the real.
Tensor corrected_reduction(bool std_dev, const Tensor& x, IntArrayRef dims, bool unbiased,
                           bool keepdim) {
  const char* op = std_dev ? "std" : "var";
  const RecordScope record(std_dev ? OpKind::kStd : OpKind::kVar);
  const Prepared p = prepare(op, x, dims, keepdim);
  const int64_t c = unbiased ? 1 : 0;
  capture::Attrs attrs = reduction_attrs(dims, keepdim);
  attrs.reals = {static_cast<double>(c)};
  return record.done(
      TT_RUN(op, p.x.device(),
             std_dev ? cpu::std(p.x, p.dims, c, p.keepdim) : cpu::var(p.x, p.dims, c, p.keepdim),
             std_dev ? cuda::std(p.x, p.dims, c, p.keepdim) : cuda::var(p.x, p.dims, c, p.keepdim)),
      {x}, attrs);
}

}  // namespace

Tensor var(const Tensor& x, IntArrayRef dims, bool unbiased, bool keepdim) {
  return corrected_reduction(false, x, dims, unbiased, keepdim);
}

Tensor std(const Tensor& x, IntArrayRef dims, bool unbiased, bool keepdim) {
  return corrected_reduction(true, x, dims, unbiased, keepdim);
}

Tensor argmax(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  return arg_reduce("argmax", true, x, dim, keepdim);
}

Tensor argmin(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  return arg_reduce("argmin", false, x, dim, keepdim);
}

// ---- softmax ----

#define TT_SOFTMAX(name, kind)                                                       \
  Tensor name(const Tensor& x, int64_t dim) {                                        \
    const RecordScope record(OpKind::kind);                                          \
    check_required(#name, "input", x);                                               \
    const int64_t d = wrap_dim(#name, dim, x.dim());                                 \
    const Tensor in = x.dim() == 0 ? x.reshape({1}) : x;                             \
    const auto reshape_back = [&](const Tensor& t) { return t.reshape(x.sizes()); }; \
    return record.done(TT_RUN(#name, in.device(), reshape_back(cpu::name(in, d)),    \
                              reshape_back(cuda::name(in, d))),                      \
                       {x}, {{dim}, {}, {}});                                        \
  }
TT_SOFTMAX(softmax, kSoftmax)
TT_SOFTMAX(log_softmax, kLogSoftmax)
#undef TT_SOFTMAX

// ---- norms ----

Tensor layer_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight,
                  const Tensor& bias, double eps) {
  const RecordScope record(OpKind::kLayerNorm);
  const char* op = "layer_norm";
  const Device device = affine_norm_device(op, x, weight, bias);
  const int64_t n =
      check_normalized_shape(op, x, normalized_shape, {{"weight", weight}, {"bias", bias}});
  check_eps(op, eps);
  const Tensor w = flat_affine(weight, n), b = flat_affine(bias, n);
  return record.done(
      TT_RUN(op, device, cpu::layer_norm(x, n, w, b, eps), cuda::layer_norm(x, n, w, b, eps)),
      {x, weight, bias}, {normalized_shape, {eps}, {}});
}

Tensor rms_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight,
                std::optional<double> eps) {
  const RecordScope record(OpKind::kRmsNorm);
  const char* op = "rms_norm";
  check_required(op, "input", x);
  check_optional(op, "weight", weight);
  const Device device = common_device(op, {{"input", x}, {"weight", weight}});
  const int64_t n = check_normalized_shape(op, x, normalized_shape, {{"weight", weight}});
  // PyTorch's default: the machine epsilon of the input's dtype.
  const double e = eps ? *eps
                   : x.dtype() == DType::F64
                       ? std::numeric_limits<double>::epsilon()
                       : static_cast<double>(std::numeric_limits<float>::epsilon());
  check_eps(op, e);
  const Tensor w = flat_affine(weight, n);
  return record.done(TT_RUN(op, device, cpu::rms_norm(x, n, w, e), cuda::rms_norm(x, n, w, e)),
                     {x, weight}, {normalized_shape, {e}, {}});
}

// ---- matrix products ----

Tensor bmm(const Tensor& a, const Tensor& b) {
  const RecordScope record(OpKind::kBmm);
  const char* op = "bmm";
  const Device device = required_on_one_device(op, {{"a", a}, {"b", b}});
  TT_CHECK(a.dim() == 3 && b.dim() == 3,
           "{}: both operands must be 3-D [batch, n, m] and [batch, m, p] but have shapes {} and "
           "{}",
           op, shape_str(a.sizes()), shape_str(b.sizes()));
  TT_CHECK(a.size(0) == b.size(0),
           "{}: batch sizes differ: {} in a (shape {}) and {} in b (shape {})", op, a.size(0),
           shape_str(a.sizes()), b.size(0), shape_str(b.sizes()));
  TT_CHECK(a.size(2) == b.size(1),
           "{}: a of shape {} and b of shape {} cannot be multiplied: a has {} columns but b has "
           "{} rows",
           op, shape_str(a.sizes()), shape_str(b.sizes()), a.size(2), b.size(1));
  return record.done(TT_RUN(op, device, cpu::bmm(a, b), cuda::bmm(a, b)), {a, b});
}

Tensor matmul(const Tensor& a, const Tensor& b) {
  const RecordScope record(OpKind::kMatmul);
  const char* op = "matmul";
  required_on_one_device(op, {{"a", a}, {"b", b}});
  TT_CHECK(a.dim() >= 1 && b.dim() >= 1,
           "{}: both operands need at least 1 dimension but have shapes {} and {} (0-D)", op,
           shape_str(a.sizes()), shape_str(b.sizes()));
  // 1-D operands are promoted to matrices ([k] -> [1, k] on the left, [k, 1] on the
  // right) and the added dimension is removed from the result.
  const Tensor a2 = a.dim() == 1 ? a.unsqueeze(0) : a;
  const Tensor b2 = b.dim() == 1 ? b.unsqueeze(1) : b;
  const int64_t n = a2.size(-2), k = a2.size(-1), p = b2.size(-1);
  TT_CHECK(k == b2.size(-2),
           "{}: a of shape {} and b of shape {} cannot be multiplied: a has {} columns but b has "
           "{} rows",
           op, shape_str(a.sizes()), shape_str(b.sizes()), k, b2.size(-2));
  const Shape batch_a(a2.sizes().begin(), a2.sizes().end() - 2);
  const Shape batch_b(b2.sizes().begin(), b2.sizes().end() - 2);
  const Shape batch = broadcast_shapes(op, batch_a, batch_b);
  const int64_t batches = shape_numel(batch);
  Shape a_full = batch, b_full = batch;
  a_full.insert(a_full.end(), {n, k});
  b_full.insert(b_full.end(), {k, p});
  // Expanded batches keep stride 0 where the view allows (no copy); reshape copies
  // only when the batch dims cannot be merged into one stride, as PyTorch does.
  const Tensor a3 = a2.expand(a_full).reshape({batches, n, k});
  const Tensor b3 = b2.expand(b_full).reshape({batches, k, p});
  Shape out_shape = batch;
  if (a.dim() > 1) out_shape.push_back(n);
  if (b.dim() > 1) out_shape.push_back(p);
  return record.done(bmm(a3, b3).reshape(out_shape), {a, b});
}

}  // namespace tt::ops
