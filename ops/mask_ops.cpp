// triu and tril: the triangle's mask built from two aranges (j - i against k, int64 so
// no size is rounded) and applied with where, so both backends run the pointwise
// family's kernels and agree exactly.
#include "ops/front_end.h"
#include "ops/ops.h"
#include "ops/promote.h"

namespace tt::ops {
namespace {

Tensor triangle(const char* op, const Tensor& x, int64_t k, bool upper) {
  detail::check_any_dtype(op, "input", x);
  TT_CHECK(x.dim() >= 2, "{}: input must have at least 2 dimensions but has shape {}", op,
           shape_str(x.sizes()));
  const int64_t rows = x.size(-2), cols = x.size(-1);
  const Device device = x.device();
  const Tensor i = Tensor::arange(0.0, static_cast<double>(rows), 1.0, DType::I64, device);
  const Tensor j = Tensor::arange(0.0, static_cast<double>(cols), 1.0, DType::I64, device);
  const Tensor diagonal = sub(j.unsqueeze(0), i.unsqueeze(1));  // j - i, [rows, cols]
  const Tensor kk = Tensor::full({}, static_cast<double>(k), DType::I64, device);
  const Tensor keep = upper ? ge(diagonal, kk) : le(diagonal, kk);
  return where(keep, x, Tensor::zeros({}, x.dtype(), device));
}

}  // namespace

Tensor triu(const Tensor& x, int64_t k) { return triangle("triu", x, k, true); }
Tensor tril(const Tensor& x, int64_t k) { return triangle("tril", x, k, false); }

}  // namespace tt::ops
