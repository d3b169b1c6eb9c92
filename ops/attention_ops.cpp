// Front end of scaled_dot_product_attention: libtorch's checks and defaults, the
// batch dims broadcast, every operand described by its strides (no copy of a
// strided or broadcast q/k/v/mask), then the CPU reference or the CUDA family.
#include <cmath>
#include <limits>

#include "ops/attention_problem.h"
#include "ops/broadcast.h"
#include "ops/cpu/cpu_ops.h"
#include "ops/front_end.h"
#include "ops/ops.h"
#include "ops/record.h"
#if TT_CUDA
#include "ops/cuda/attention/attention.h"
#endif

namespace tt::ops {
namespace {

using namespace detail;

constexpr const char* kOp = "scaled_dot_product_attention";

// A boolean mask: one byte per element, nonzero = attend (bool, or uint8 as where's
// condition accepts it).
bool is_boolean_mask(DType d) { return d == DType::Bool || d == DType::U8; }

Shape batch_of(const Tensor& t) { return Shape(t.sizes().begin(), t.sizes().end() - 2); }

// t's strides seen as a tensor of shape `target` (its trailing dims aligned to the
// target's, missing and size-1 dims broadcast with stride 0).
Shape broadcast_strides(const Tensor& t, const Shape& target) {
  Shape s(target.size(), 0);
  const size_t shift = target.size() - static_cast<size_t>(t.dim());
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.size(d) != 1) s[shift + static_cast<size_t>(d)] = t.stride(d);
  }
  return s;
}

struct Operand {
  Shape strides;  // over batch..., row, col
  AttnStrides* out;
};

// Fills the problem's batch dims and each operand's strides: size-1 batch dims
// dropped, neighbours merged where every operand's strides chain. Returns false when
// more than kAttnMaxBatch dims remain (the caller then makes the operands dense).
bool describe(const Shape& batch, std::vector<Operand> operands, AttentionProblem& p) {
  std::vector<int64_t> sizes;
  std::vector<std::vector<int64_t>> strides(operands.size());
  for (size_t d = 0; d < batch.size(); ++d) {
    if (batch[d] == 1) continue;
    bool merge = !sizes.empty();
    for (size_t o = 0; merge && o < operands.size(); ++o) {
      merge = strides[o].back() == operands[o].strides[d] * batch[d];
    }
    if (merge) {
      sizes.back() *= batch[d];
      for (size_t o = 0; o < operands.size(); ++o) strides[o].back() = operands[o].strides[d];
    } else {
      sizes.push_back(batch[d]);
      for (size_t o = 0; o < operands.size(); ++o) strides[o].push_back(operands[o].strides[d]);
    }
  }
  if (sizes.size() > static_cast<size_t>(kAttnMaxBatch)) return false;
  p.batch_rank = static_cast<int>(sizes.size());
  for (size_t d = 0; d < sizes.size(); ++d) p.batch[d] = sizes[d];
  const size_t n = batch.size();
  for (size_t o = 0; o < operands.size(); ++o) {
    AttnStrides& s = *operands[o].out;
    for (size_t d = 0; d < sizes.size(); ++d) s.batch[d] = strides[o][d];
    s.row = operands[o].strides[n];
    s.col = operands[o].strides[n + 1];
  }
  return true;
}

// The op, writing into `into` when it is defined (a view of the output's shape on the
// query's device and dtype, any strides: tt::compile's attention group writes the head
// merge's layout directly), else into a new tensor.
Tensor attention(const Tensor& query, const Tensor& key, const Tensor& value,
                 const Tensor& attn_mask, double dropout_p, bool is_causal,
                 std::optional<double> scale, const Tensor& into) {
  const Device device =
      required_on_one_device(kOp, {{"query", query}, {"key", key}, {"value", value}});
  if (attn_mask.defined()) {
    TT_CHECK(attn_mask.device() == device,
             "{}: attn_mask is on {} but query is on {}; all tensors must be on the same device",
             kOp, attn_mask.device().str(), device.str());
    TT_CHECK(is_boolean_mask(attn_mask.dtype()) || attn_mask.dtype() == query.dtype(),
             "{}: attn_mask has dtype {} but it must be boolean (bool, or uint8: nonzero = "
             "attend) or an additive mask of the query's dtype {}",
             kOp, dtype_name(attn_mask.dtype()), dtype_name(query.dtype()));
  }
  TT_CHECK(!(dropout_p > 0.0 || dropout_p < 0.0 || std::isnan(dropout_p)),
           "{}: dropout_p is {} but tensortune runs forward inference only, without dropout; "
           "pass dropout_p = 0",
           kOp, dropout_p);
  TT_CHECK(!(is_causal && attn_mask.defined()),
           "{}: attn_mask was given together with is_causal = true; pass one of them (fold the "
           "causal mask into attn_mask to combine them)",
           kOp);
  TT_CHECK(query.dim() >= 2 && key.dim() >= 2 && value.dim() >= 2,
           "{}: query, key and value must have at least 2 dims ([..., L, E], [..., S, E], [..., "
           "S, Ev]) but have shapes {}, {} and {}",
           kOp, shape_str(query.sizes()), shape_str(key.sizes()), shape_str(value.sizes()));
  const int64_t L = query.size(-2), E = query.size(-1);
  const int64_t S = key.size(-2), Ev = value.size(-1);
  TT_CHECK(E >= 1, "{}: query has head dim 0 (shape {}); expected at least 1", kOp,
           shape_str(query.sizes()));
  TT_CHECK(key.size(-1) == E,
           "{}: key has head dim {} but query has {} (key shape {}, query shape {}); q k^T needs "
           "equal head dims",
           kOp, key.size(-1), E, shape_str(key.sizes()), shape_str(query.sizes()));
  TT_CHECK(value.size(-2) == S,
           "{}: value has {} positions but key has {} (value shape {}, key shape {}); each key "
           "needs its value",
           kOp, value.size(-2), S, shape_str(value.sizes()), shape_str(key.sizes()));
  TT_CHECK(!scale || std::isfinite(*scale), "{}: scale is {} but must be finite", kOp,
           scale ? *scale : 0.0);
  Shape batch;
  try {
    batch = broadcast_shapes(kOp, broadcast_shapes(kOp, batch_of(query), batch_of(key)),
                             batch_of(value));
  } catch (const Error&) {
    TT_FAIL("{}: the batch dims of query {}, key {} and value {} do not broadcast together", kOp,
            shape_str(query.sizes()), shape_str(key.sizes()), shape_str(value.sizes()));
  }
  Shape scores = batch;
  scores.push_back(L);
  scores.push_back(S);
  if (attn_mask.defined()) {
    bool ok = attn_mask.dim() <= static_cast<int64_t>(scores.size());
    const size_t shift = scores.size() - static_cast<size_t>(attn_mask.dim());
    for (int64_t d = 0; ok && d < attn_mask.dim(); ++d) {
      ok = attn_mask.size(d) == 1 || attn_mask.size(d) == scores[shift + static_cast<size_t>(d)];
    }
    TT_CHECK(ok, "{}: attn_mask of shape {} does not broadcast to the scores' shape {}", kOp,
             shape_str(attn_mask.sizes()), shape_str(scores));
  }

  Shape out_shape = batch;
  out_shape.push_back(L);
  out_shape.push_back(Ev);
  AttentionProblem p;
  p.L = L;
  p.S = S;
  p.E = E;
  p.Ev = Ev;
  p.causal = is_causal;
  p.scale = scale ? *scale : 1.0 / std::sqrt(static_cast<double>(E));
  p.mask_kind = !attn_mask.defined()                 ? AttnMask::kNone
                : is_boolean_mask(attn_mask.dtype()) ? AttnMask::kBoolean
                                                     : AttnMask::kAdditive;
  if (into.defined()) {
    TT_CHECK(into.sizes() == out_shape && into.dtype() == query.dtype() && into.device() == device,
             "{}: the output view has shape {}, dtype {} on {} but the result is {} {} on {}", kOp,
             shape_str(into.sizes()), dtype_name(into.dtype()), into.device().str(),
             shape_str(out_shape), dtype_name(query.dtype()), device.str());
  }
  const Tensor out = into.defined() ? into : Tensor::empty(out_shape, query.dtype(), device);
  const auto with_dims = [&](Shape b, int64_t r, int64_t c) {
    b.push_back(r);
    b.push_back(c);
    return b;
  };
  Tensor q = query, k = key, v = value, m = attn_mask;
  const auto operands = [&] {
    std::vector<Operand> ops = {
        {broadcast_strides(q, with_dims(batch, L, E)), &p.q},
        {broadcast_strides(k, with_dims(batch, S, E)), &p.k},
        {broadcast_strides(v, with_dims(batch, S, Ev)), &p.v},
        {broadcast_strides(out, out_shape), &p.out},
    };
    if (m.defined()) ops.push_back({broadcast_strides(m, scores), &p.mask});
    return ops;
  };
  if (!describe(batch, operands(), p)) {
    // More unmergeable batch dims than the kernels index: dense copies merge them all.
    q = q.expand(with_dims(batch, L, E)).contiguous();
    k = k.expand(with_dims(batch, S, E)).contiguous();
    v = v.expand(with_dims(batch, S, Ev)).contiguous();
    if (m.defined()) m = m.expand(scores).contiguous();
    TT_CHECK(describe(batch, operands(), p), "{}: internal error: dense operands did not merge",
             kOp);
  }
  if (out.numel() == 0) return out;
  return TT_RUN(kOp, device, (cpu::scaled_dot_product_attention(p, q, k, v, m, out), out),
                (cuda::scaled_dot_product_attention(p, q, k, v, m, out), out));
}

}  // namespace

Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask, double dropout_p, bool is_causal,
                                    std::optional<double> scale) {
  const RecordScope record(OpKind::kScaledDotProductAttention);
  // Recorded with ints {is_causal, scale given} and reals {dropout_p, scale}.
  const capture::Attrs attrs{
      {is_causal ? 1 : 0, scale ? 1 : 0}, {dropout_p, scale.value_or(0.0)}, {}};
  return record.done(attention(query, key, value, attn_mask, dropout_p, is_causal, scale, Tensor()),
                     {query, key, value, attn_mask}, attrs);
}

void detail::scaled_dot_product_attention_into(const Tensor& query, const Tensor& key,
                                               const Tensor& value, double scale, const Tensor& out,
                                               const Tensor& attn_mask, bool is_causal) {
  attention(query, key, value, attn_mask, 0.0, is_causal, scale, out);
}

}  // namespace tt::ops
