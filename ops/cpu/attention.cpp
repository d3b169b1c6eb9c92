// The CPU reference of scaled_dot_product_attention: one query row at a time, its
// scores in double, the mask and the causal limit applied as -inf, a max-subtracted
// softmax, then P v in double, rounded once. A row whose scores are all -inf gives
// zeros (PyTorch's _safe_softmax); a NaN score makes the row NaN, as in PyTorch.
#include <cmath>
#include <limits>
#include <vector>

#include "ops/cpu/cpu_ops.h"
#include "ops/cpu/parallel.h"
#include "ops/cpu/scalar.h"

namespace tt::ops::cpu {
namespace {

template <typename T>
void attention_rows(const AttentionProblem& p, const T* q, const T* k, const T* v, const void* mask,
                    T* out) {
  const int64_t rows = p.batch_count() * p.L;
  const double ninf = -std::numeric_limits<double>::infinity();
  const int64_t work = rows * p.S * (p.E + p.Ev);
#pragma omp parallel num_threads(threads_for(work))
  {
    std::vector<double> s(static_cast<size_t>(p.S));
#pragma omp for schedule(static)
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t b = r / p.L, i = r % p.L;
      const T* qi = q + AttentionProblem::batch_offset(p, p.q, b) + i * p.q.row;
      const T* kb = k + AttentionProblem::batch_offset(p, p.k, b);
      const T* vb = v + AttentionProblem::batch_offset(p, p.v, b);
      const int64_t mi = AttentionProblem::batch_offset(p, p.mask, b) + i * p.mask.row;
      T* oi = out + AttentionProblem::batch_offset(p, p.out, b) + i * p.out.row;
      bool all_masked = true;
      double max = ninf;
      for (int64_t j = 0; j < p.S; ++j) {
        double dot = 0.0;
        for (int64_t e = 0; e < p.E; ++e) {
          dot += static_cast<double>(qi[e * p.q.col]) *
                 static_cast<double>(kb[j * p.k.row + e * p.k.col]);
        }
        double x = dot * p.scale;
        if (p.causal && j > i) x = ninf;
        if (p.mask_kind == AttnMask::kBoolean) {
          if (static_cast<const uint8_t*>(mask)[mi + j * p.mask.col] == 0) x = ninf;
        } else if (p.mask_kind == AttnMask::kAdditive) {
          x += static_cast<double>(static_cast<const T*>(mask)[mi + j * p.mask.col]);
        }
        s[static_cast<size_t>(j)] = x;
        if (x != ninf) all_masked = false;
        if (x > max || std::isnan(x)) max = std::isnan(max) ? max : x;
      }
      if (all_masked) {
        for (int64_t e = 0; e < p.Ev; ++e) oi[e * p.out.col] = T(0);
        continue;
      }
      double sum = 0.0;
      for (int64_t j = 0; j < p.S; ++j) {
        s[static_cast<size_t>(j)] = std::exp(s[static_cast<size_t>(j)] - max);
        sum += s[static_cast<size_t>(j)];
      }
      for (int64_t e = 0; e < p.Ev; ++e) {
        double acc = 0.0;
        for (int64_t j = 0; j < p.S; ++j) {
          acc += s[static_cast<size_t>(j)] * static_cast<double>(vb[j * p.v.row + e * p.v.col]);
        }
        oi[e * p.out.col] = static_cast<T>(acc / sum);
      }
    }
  }
}

}  // namespace

void scaled_dot_product_attention(const AttentionProblem& p, const Tensor& q, const Tensor& k,
                                  const Tensor& v, const Tensor& mask, const Tensor& out) {
  with_scalar(q.dtype(), [&](auto t) {
    using T = decltype(t);
    attention_rows<T>(p, static_cast<const T*>(q.data_ptr()), static_cast<const T*>(k.data_ptr()),
                      static_cast<const T*>(v.data_ptr()),
                      mask.defined() ? mask.data_ptr() : nullptr, static_cast<T*>(out.data_ptr()));
    return 0;
  });
}

}  // namespace tt::ops::cpu
