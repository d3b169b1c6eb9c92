// Shape ops: cat and stack copy each input once into its slice of the result (on
// any device); split and chunk return views; select, expand and flatten are the
// Tensor members of the same names (core/tensor.cpp).
#include "core/checked.h"
#include "ops/front_end.h"
#include "ops/ops.h"
#include "ops/record.h"
#if TT_CUDA
#include "ops/cuda/pointwise/pointwise.h"
#endif

namespace tt::ops {
namespace detail {

// dst (a slice of a fresh tensor, or a view being written) = src, same shape.
void copy_into(const char* op, Tensor dst, const Tensor& src) {
  if (dst.device().is_cpu() || dst.is_contiguous()) {
    dst.copy_(src);
    return;
  }
#if TT_CUDA
  TT_CHECK(dst.dtype() == DType::F32,
           "{}: writing {} values into a non-contiguous view on CUDA is not supported; only "
           "float32",
           op, dtype_name(dst.dtype()));
  cuda::unary(pointwise::UnaryOp::Identity, {}, src, dst);
#else
  fail_without_cuda(op, dst.device());
#endif
}

}  // namespace detail

using namespace detail;

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  const RecordScope record(OpKind::kCat);
  const char* op = "cat";
  TT_CHECK(!tensors.empty(), "{}: expected a non-empty list of tensors", op);
  for (size_t i = 0; i < tensors.size(); ++i)
    TT_CHECK(tensors[i].defined(), "{}: tensor {} of the list is undefined", op, i);
  const Tensor& first = tensors[0];
  TT_CHECK(first.dim() > 0, "{}: tensor 0 is 0-D; zero-dimensional tensors cannot be joined", op);
  const int64_t d = wrap_dim(op, dim, first.dim());
  Shape shape = first.sizes();
  shape[d] = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    TT_CHECK(t.dtype() == first.dtype(), "{}: tensor {} has dtype {} but tensor 0 has {}", op, i,
             dtype_name(t.dtype()), dtype_name(first.dtype()));
    TT_CHECK(t.device() == first.device(),
             "{}: tensor {} is on {} but tensor 0 is on {}; all tensors must be on the same device",
             op, i, t.device().str(), first.device().str());
    TT_CHECK(t.dim() == first.dim(),
             "{}: tensor {} has {} dimensions (shape {}) but tensor 0 has {} (shape {})", op, i,
             t.dim(), shape_str(t.sizes()), first.dim(), shape_str(first.sizes()));
    for (int64_t k = 0; k < t.dim(); ++k) {
      TT_CHECK(k == d || t.size(k) == first.size(k),
               "{}: tensor {} has shape {} but tensor 0 has shape {}; sizes must match except in "
               "dimension {}",
               op, i, shape_str(t.sizes()), shape_str(first.sizes()), d);
    }
    shape[d] = checked::add(op, shape[d], t.size(d));
  }
  Tensor out = Tensor::empty(shape, first.dtype(), first.device());
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    if (t.size(d) > 0) copy_into(op, out.narrow(d, offset, t.size(d)), t);
    offset += t.size(d);
  }
  return record.done(out, tensors, {{dim}, {}, {}});
}

Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  const RecordScope record(OpKind::kStack);
  const char* op = "stack";
  TT_CHECK(!tensors.empty(), "{}: expected a non-empty list of tensors", op);
  for (size_t i = 0; i < tensors.size(); ++i) {
    TT_CHECK(tensors[i].defined(), "{}: tensor {} of the list is undefined", op, i);
    TT_CHECK(tensors[i].sizes() == tensors[0].sizes(),
             "{}: tensor {} has shape {} but tensor 0 has shape {}; all must have the same shape",
             op, i, shape_str(tensors[i].sizes()), shape_str(tensors[0].sizes()));
  }
  // The new dim may be one past the last (rank + 1 positions).
  const int64_t d = wrap_dim(op, dim, tensors[0].dim() + 1);
  std::vector<Tensor> expanded;
  for (const Tensor& t : tensors) expanded.push_back(t.unsqueeze(d));
  return record.done(cat(expanded, d), tensors, {{dim}, {}, {}});
}

std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t dim) {
  const char* op = "split";
  TT_CHECK(x.defined(), "{}: input is undefined", op);
  TT_CHECK(x.dim() > 0, "{}: cannot split a 0-D tensor", op);
  const int64_t d = wrap_dim(op, dim, x.dim());
  const int64_t n = x.size(d);
  TT_CHECK(split_size > 0 || (split_size == 0 && n == 0),
           "{}: split_size must be positive but is {} (dimension {} has size {})", op, split_size,
           d, n);
  std::vector<Tensor> out;
  if (n == 0) return {x};
  for (int64_t start = 0; start < n; start += split_size)
    out.push_back(x.narrow(d, start, std::min(split_size, n - start)));
  return out;
}

std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& split_sizes, int64_t dim) {
  const char* op = "split";
  TT_CHECK(x.defined(), "{}: input is undefined", op);
  TT_CHECK(x.dim() > 0, "{}: cannot split a 0-D tensor", op);
  const int64_t d = wrap_dim(op, dim, x.dim());
  int64_t total = 0;
  for (int64_t s : split_sizes) {
    TT_CHECK(s >= 0, "{}: split sizes must be non-negative but {} contains {}", op,
             shape_str(split_sizes), s);
    total = checked::add(op, total, s);
  }
  TT_CHECK(total == x.size(d), "{}: split sizes {} add up to {} but dimension {} has size {}", op,
           shape_str(split_sizes), total, d, x.size(d));
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t s : split_sizes) {
    out.push_back(x.narrow(d, start, s));
    start += s;
  }
  return out;
}

std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim) {
  const char* op = "chunk";
  TT_CHECK(x.defined(), "{}: input is undefined", op);
  TT_CHECK(chunks > 0, "{}: chunks must be positive but is {}", op, chunks);
  TT_CHECK(x.dim() > 0, "{}: cannot chunk a 0-D tensor", op);
  const int64_t d = wrap_dim(op, dim, x.dim());
  const int64_t n = x.size(d);
  const int64_t size = n / chunks + (n % chunks != 0);  // ceil, without n + chunks - 1
  if (size == 0) {
    // PyTorch gives `chunks` empty pieces; a count no list can hold is refused.
    TT_CHECK(chunks <= (int64_t(1) << 20),
             "{}: {} empty chunks of a dimension of size 0 is more than a list can hold", op,
             chunks);
    return std::vector<Tensor>(static_cast<size_t>(chunks), x);
  }
  return split(x, size, d);
}

Tensor select(const Tensor& x, int64_t dim, int64_t index) { return x.select(dim, index); }
Tensor expand(const Tensor& x, const Shape& sizes) { return x.expand(sizes); }
Tensor flatten(const Tensor& x, int64_t start_dim, int64_t end_dim) {
  return x.flatten(start_dim, end_dim);
}

}  // namespace tt::ops
