// CPU reference of the gather behind index_select, gather, embedding and advanced
// indexing, and of dropout's Philox mask. Element-size generic: a gather moves
// elements, it never computes with them, so one loop serves every dtype.
#include <cstring>

#include "core/convert.h"
#include "core/philox.h"
#include "ops/cpu/cpu_ops.h"
#include "ops/cpu/parallel.h"
#include "ops/cpu/scalar.h"

namespace tt::ops::cpu {
namespace {

template <typename Word>
void gather_words(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& out) {
  const int64_t rank = out.dim();
  const int64_t n = out.numel();
  const Shape& sizes = out.sizes();
  const Word* src = static_cast<const Word*>(x.data_ptr());
  const int64_t* idx = index.data<int64_t>();
  Word* dst = static_cast<Word*>(out.data_ptr());
#pragma omp parallel for num_threads(threads_for(n))
  for (int64_t i = 0; i < n; ++i) {
    int64_t rest = i, x_off = 0, idx_off = 0;
    for (int64_t d = rank - 1; d >= 0; --d) {
      const int64_t c = rest % sizes[d];
      rest /= sizes[d];
      idx_off += c * index.stride(d);
      if (d != dim) x_off += c * x.stride(d);
    }
    x_off += idx[idx_off] * x.stride(dim);
    dst[i] = src[x_off];
  }
}

}  // namespace

void gather(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& out) {
  visit_word(dtype_size(x.dtype()), "gather",
             [&](auto word) { gather_words<decltype(word)>(x, dim, index, out); });
}

Tensor dropout(const Tensor& x, double p, uint64_t seed) {
  const Tensor in = x.contiguous();
  Tensor out = Tensor::empty(x.sizes(), x.dtype(), x.device());
  const int64_t n = x.numel();
  with_scalar(x.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* src = in.data<T>();
    T* dst = out.data<T>();
    const float threshold = static_cast<float>(p);
    const T scale = static_cast<T>(1.0 / (1.0 - p));
#pragma omp parallel for num_threads(threads_for(n))
    for (int64_t i = 0; i < n; ++i) {
      const bool keep = philox::uniform(seed, static_cast<uint64_t>(i)) >= threshold;
      dst[i] = keep ? src[i] * scale : T(0);
    }
  });
  return out;
}

}  // namespace tt::ops::cpu
