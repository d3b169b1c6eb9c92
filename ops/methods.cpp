// The method forms of the ops on tt::Tensor (x.softmax(-1), x.sum(1), ...), declared
// in core/tensor.h: each is the tt::ops function of the same name on *this.
#include "ops/ops.h"

namespace tt {

Tensor Tensor::softmax(int64_t dim) const { return ops::softmax(*this, dim); }
Tensor Tensor::log_softmax(int64_t dim) const { return ops::log_softmax(*this, dim); }
Tensor Tensor::matmul(const Tensor& other) const { return ops::matmul(*this, other); }
Tensor Tensor::t() const {
  TT_CHECK(dim() <= 2, "t: expected a tensor of at most 2 dimensions but got shape {}",
           shape_str(sizes()));
  return dim() < 2 ? *this : transpose(0, 1);
}
Tensor Tensor::sum(IntArrayRef dims, bool keepdim) const { return ops::sum(*this, dims, keepdim); }
Tensor Tensor::mean(IntArrayRef dims, bool keepdim) const {
  return ops::mean(*this, dims, keepdim);
}
Tensor Tensor::var(IntArrayRef dims, bool unbiased, bool keepdim) const {
  return ops::var(*this, dims, unbiased, keepdim);
}
Tensor Tensor::amax(IntArrayRef dims, bool keepdim) const {
  return ops::amax(*this, dims, keepdim);
}
Tensor Tensor::amin(IntArrayRef dims, bool keepdim) const {
  return ops::amin(*this, dims, keepdim);
}
Tensor Tensor::argmax(std::optional<int64_t> dim, bool keepdim) const {
  return ops::argmax(*this, dim, keepdim);
}
Tensor Tensor::argmin(std::optional<int64_t> dim, bool keepdim) const {
  return ops::argmin(*this, dim, keepdim);
}
Tensor Tensor::exp() const { return ops::exp(*this); }
Tensor Tensor::log() const { return ops::log(*this); }
Tensor Tensor::sqrt() const { return ops::sqrt(*this); }
Tensor Tensor::rsqrt() const { return ops::rsqrt(*this); }
Tensor Tensor::abs() const { return ops::abs(*this); }
Tensor Tensor::neg() const { return ops::neg(*this); }
Tensor Tensor::relu() const { return ops::relu(*this); }
Tensor Tensor::sigmoid() const { return ops::sigmoid(*this); }
Tensor Tensor::tanh() const { return ops::tanh(*this); }
Tensor Tensor::pow(double exponent) const { return ops::pow(*this, exponent); }
Tensor Tensor::clamp(std::optional<double> min, std::optional<double> max) const {
  return ops::clamp(*this, min, max);
}
Tensor Tensor::index_select(int64_t dim, const Tensor& index) const {
  return ops::index_select(*this, dim, index);
}
Tensor Tensor::gather(int64_t dim, const Tensor& index) const {
  return ops::gather(*this, dim, index);
}

Tensor Tensor::masked_fill(const Tensor& mask, double value) const {
  return ops::masked_fill(*this, mask, value);
}
Tensor Tensor::masked_fill(const Tensor& mask, const Tensor& value) const {
  return ops::masked_fill(*this, mask, value);
}
Tensor Tensor::triu(int64_t k) const { return ops::triu(*this, k); }
Tensor Tensor::tril(int64_t k) const { return ops::tril(*this, k); }
#define TT_COMPARISON_METHOD(name)                                                   \
  Tensor Tensor::name(const Tensor& other) const { return ops::name(*this, other); } \
  Tensor Tensor::name(double other) const { return ops::name(*this, other); }
TT_COMPARISON_METHOD(eq)
TT_COMPARISON_METHOD(ne)
TT_COMPARISON_METHOD(lt)
TT_COMPARISON_METHOD(le)
TT_COMPARISON_METHOD(gt)
TT_COMPARISON_METHOD(ge)
#undef TT_COMPARISON_METHOD
Tensor Tensor::any(IntArrayRef dims, bool keepdim) const { return ops::any(*this, dims, keepdim); }
Tensor Tensor::all(IntArrayRef dims, bool keepdim) const { return ops::all(*this, dims, keepdim); }

}  // namespace tt
