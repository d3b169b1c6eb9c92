// scaled_dot_product_attention and nn::MultiheadAttention (issue 19). The CPU half
// checks the reference against an independent loop over dense double copies (every
// mask kind, causal with L != S, broadcast batches, strided head views, a fully
// masked row) and every misuse's sentence; the GPU half checks the CUDA family per
// precision mode against float64 at awkward shapes (L, S off the tiles, head dims 32,
// 64, 128 and an odd one) and skips cleanly without a GPU.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "autotune/lookup.h"
#include "autotune/space_cache.h"
#include "core/precision.h"
#include "models/layers.h"
#include "ops/attention_problem.h"
#include "ops/ops.h"
#include "support/test_util.h"
#if TT_CUDA
#include "ops/cuda/attention/attention.h"
#include "ops/cuda/attention/attention_tma.h"
#include "ops/cuda/attention/attention_v16_layout.h"
#include "ops/cuda/attention/attention_variants.h"
#endif

namespace tt::test {
namespace {

namespace ops = tt::ops;
constexpr double kInf = std::numeric_limits<double>::infinity();

// The independent reference: q [B, L, E], k [B, S, E], v [B, S, Ev] dense, mask
// [B, L, S] additive (or empty), on doubles; a row of all -inf gives zeros.
std::vector<double> naive(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask,
                          bool causal, double scale) {
  const int64_t B = q.size(0), L = q.size(1), E = q.size(2), S = k.size(1), Ev = v.size(2);
  const auto Q = q.contiguous().to_vector<double>(), K = k.contiguous().to_vector<double>(),
             V = v.contiguous().to_vector<double>();
  const auto M = mask.defined() ? mask.contiguous().to_vector<double>() : std::vector<double>();
  std::vector<double> out(static_cast<size_t>(B * L * Ev), 0.0);
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t i = 0; i < L; ++i) {
      std::vector<double> s(static_cast<size_t>(S));
      double mx = -kInf;
      for (int64_t j = 0; j < S; ++j) {
        double d = 0;
        for (int64_t e = 0; e < E; ++e) d += Q[(b * L + i) * E + e] * K[(b * S + j) * E + e];
        d *= scale;
        if (!M.empty()) d += M[(b * L + i) * S + j];
        if (causal && j > i) d = -kInf;
        s[j] = d;
        mx = std::max(mx, d);
      }
      if (mx == -kInf) continue;
      double sum = 0;
      for (double& x : s) sum += (x = std::exp(x - mx));
      for (int64_t e = 0; e < Ev; ++e) {
        double acc = 0;
        for (int64_t j = 0; j < S; ++j) acc += s[j] * V[(b * S + j) * Ev + e];
        out[(b * L + i) * Ev + e] = acc / sum;
      }
    }
  }
  return out;
}

double rel_err(const std::vector<double>& got, const std::vector<double>& want) {
  double num = 0, den = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    num += (got[i] - want[i]) * (got[i] - want[i]);
    den += want[i] * want[i];
  }
  return std::sqrt(num / std::max(den, 1e-300));
}

// [.., L, E] expanded to `batch` then flattened to [B, L, E].
Tensor flat(const Tensor& t, Shape batch) {
  batch.push_back(t.size(-2));
  batch.push_back(t.size(-1));
  return t.expand(batch).contiguous().reshape({-1, t.size(-2), t.size(-1)});
}

std::vector<double> expected(const Tensor& q, const Tensor& k, const Tensor& v, const Shape& batch,
                             const Tensor& mask, bool causal, double scale) {
  Tensor m;
  if (mask.defined()) {
    Shape ms = batch;
    ms.push_back(q.size(-2));
    ms.push_back(k.size(-2));
    m = mask.expand(ms).contiguous().reshape({-1, q.size(-2), k.size(-2)});
  }
  return naive(flat(q, batch), flat(k, batch), flat(v, batch), m, causal, scale);
}

// A boolean mask as the additive mask the reference reads.
Tensor as_additive(const Tensor& b) {
  return ops::where(b, Tensor::zeros({1}), Tensor::full({1}, -kInf));
}

Tensor bool_mask(const Shape& s, uint64_t seed, double p_attend) {
  std::vector<uint8_t> m;
  for (float x : Tensor::rand(s, seed).to_vector<float>()) m.push_back(x < p_attend);
  return Tensor::from_vector(m, s);
}

TEST(Attention, MatchesTheLoopOnPlainShapes) {
  const Tensor q = Tensor::randn({2, 3, 5, 8}, 1), k = Tensor::randn({2, 3, 7, 8}, 2),
               v = Tensor::randn({2, 3, 7, 6}, 3);
  const Tensor out = ops::scaled_dot_product_attention(q, k, v);
  EXPECT_EQ(out.sizes(), (Shape{2, 3, 5, 6}));
  EXPECT_LT(rel_err(out.to_vector<double>(),
                    expected(q, k, v, {2, 3}, Tensor(), false, 1.0 / std::sqrt(8.0))),
            1e-6);
}

TEST(Attention, CausalIsTopLeftAlignedWhenLAndSDiffer) {
  for (auto [L, S] : {std::pair<int64_t, int64_t>{5, 9}, {9, 5}, {6, 6}}) {
    const Tensor q = Tensor::randn({2, L, 4}, 10), k = Tensor::randn({2, S, 4}, 11),
                 v = Tensor::randn({2, S, 3}, 12);
    const Tensor out = ops::scaled_dot_product_attention(q, k, v, Tensor(), 0.0, true);
    EXPECT_LT(rel_err(out.to_vector<double>(), expected(q, k, v, {2}, Tensor(), true, 0.5)), 1e-6)
        << "L " << L << " S " << S;
  }
}

TEST(Attention, AdditiveAndBooleanMasksBroadcast) {
  const Tensor q = Tensor::randn({2, 3, 5, 4}, 20), k = Tensor::randn({2, 3, 7, 4}, 21),
               v = Tensor::randn({2, 3, 7, 4}, 22);
  const Tensor add = Tensor::randn({5, 7}, 23);  // [L, S] over every batch
  EXPECT_LT(rel_err(ops::scaled_dot_product_attention(q, k, v, add).to_vector<double>(),
                    expected(q, k, v, {2, 3}, add, false, 0.5)),
            1e-6);
  const Tensor b = bool_mask({2, 1, 1, 7}, 24, 0.6);  // key padding per batch
  EXPECT_LT(rel_err(ops::scaled_dot_product_attention(q, k, v, b).to_vector<double>(),
                    expected(q, k, v, {2, 3}, as_additive(b), false, 0.5)),
            1e-6);
  // DType::Bool, as PyTorch's masks: the same as its uint8 bytes.
  EXPECT_EQ(max_abs_diff(ops::scaled_dot_product_attention(q, k, v, b.to(DType::Bool)),
                         ops::scaled_dot_product_attention(q, k, v, b)),
            0.0);
}

TEST(Attention, FullyMaskedRowGivesZerosAsPyTorch) {
  const Tensor q = Tensor::randn({1, 4, 8}, 30), k = Tensor::randn({1, 6, 8}, 31),
               v = Tensor::randn({1, 6, 8}, 32);
  std::vector<uint8_t> m(24, 1);
  for (int j = 0; j < 6; ++j) m[6 + j] = 0;  // row 1 attends nothing
  const Tensor b = Tensor::from_vector(m, {4, 6});
  const Tensor add = as_additive(b);
  for (const Tensor& mask : {b, add}) {
    const std::vector<double> out =
        ops::scaled_dot_product_attention(q, k, v, mask).to_vector<double>();
    for (int e = 0; e < 8; ++e) EXPECT_EQ(out[8 + e], 0.0) << "element " << e;
    EXPECT_LT(rel_err(out, expected(q, k, v, {1}, add, false, 1.0 / std::sqrt(8.0))), 1e-6);
  }
}

TEST(Attention, StridedHeadViewsAndBroadcastBatchesReadInPlace) {
  // The head split of a [B, T, 3, H, E] projection.
  const Tensor qkv = Tensor::randn({2, 9, 3, 4, 8}, 40);
  const Tensor q = qkv.select(2, 0).transpose(1, 2), k = qkv.select(2, 1).transpose(1, 2),
               v = qkv.select(2, 2).transpose(1, 2);
  EXPECT_FALSE(q.is_contiguous());
  EXPECT_LT(
      rel_err(ops::scaled_dot_product_attention(q, k, v, Tensor(), 0, true).to_vector<double>(),
              expected(q, k, v, {2, 4}, Tensor(), true, 1.0 / std::sqrt(8.0))),
      1e-6);
  // Keys and values shared by every head and batch (multi-query), a custom scale, E != Ev.
  const Tensor q2 = Tensor::randn({3, 2, 5, 6}, 41), k2 = Tensor::randn({7, 6}, 42),
               v2 = Tensor::randn({1, 1, 7, 3}, 43);
  EXPECT_LT(rel_err(ops::scaled_dot_product_attention(q2, k2, v2, Tensor(), 0, false, 0.3)
                        .to_vector<double>(),
                    expected(q2, k2, v2, {3, 2}, Tensor(), false, 0.3)),
            1e-6);
  // Five batch dims, none mergeable (every second one transposed): dense copies.
  const Tensor q3 = Tensor::randn({2, 3, 2, 3, 2, 4, 5}, 44).transpose(0, 1).transpose(2, 3);
  const Tensor k3 = Tensor::randn({3, 2, 3, 2, 2, 6, 5}, 45),
               v3 = Tensor::randn({3, 2, 3, 2, 2, 6, 5}, 46);
  const Shape batch = {3, 2, 3, 2, 2};
  EXPECT_LT(rel_err(ops::scaled_dot_product_attention(q3, k3, v3).to_vector<double>(),
                    expected(q3, k3, v3, batch, Tensor(), false, 1.0 / std::sqrt(5.0))),
            1e-6);
}

TEST(Attention, Float64ScopeComputesInDouble) {
  ops::Float64Scope scope;
  const Tensor q = Tensor::randn({3, 5, 4}, 50).to(DType::F64),
               k = Tensor::randn({3, 6, 4}, 51).to(DType::F64),
               v = Tensor::randn({3, 6, 2}, 52).to(DType::F64);
  const Tensor out = ops::scaled_dot_product_attention(q, k, v, Tensor(), 0, true);
  EXPECT_EQ(out.dtype(), DType::F64);
  EXPECT_LT(rel_err(out.to_vector<double>(), expected(q, k, v, {3}, Tensor(), true, 0.5)), 1e-14);
}

TEST(Attention, ErrorsNameTheMistake) {
  const Tensor q = Tensor::randn({2, 5, 8}, 60), k = Tensor::randn({2, 7, 8}, 61),
               v = Tensor::randn({2, 7, 4}, 62);
  const auto sdpa = [](auto&&... a) {
    return error_of([&] { ops::scaled_dot_product_attention(a...); });
  };
  EXPECT_EQ(sdpa(q, k, v, Tensor(), 0.1),
            "scaled_dot_product_attention: dropout_p is 0.1 but tensortune runs forward inference "
            "only, without dropout; pass dropout_p = 0");
  EXPECT_EQ(sdpa(q, k, v, Tensor::zeros({5, 7}), 0.0, true),
            "scaled_dot_product_attention: attn_mask was given together with is_causal = true; "
            "pass one of them (fold the causal mask into attn_mask to combine them)");
  EXPECT_EQ(sdpa(q, Tensor::randn({2, 7, 6}, 63), v),
            "scaled_dot_product_attention: key has head dim 6 but query has 8 (key shape [2, 7, "
            "6], query shape [2, 5, 8]); q k^T needs equal head dims");
  EXPECT_EQ(sdpa(q, k, Tensor::randn({2, 6, 4}, 64)),
            "scaled_dot_product_attention: value has 6 positions but key has 7 (value shape [2, "
            "6, 4], key shape [2, 7, 8]); each key needs its value");
  EXPECT_EQ(sdpa(q, Tensor::randn({3, 7, 8}, 65), Tensor::randn({3, 7, 4}, 66)),
            "scaled_dot_product_attention: the batch dims of query [2, 5, 8], key [3, 7, 8] and "
            "value [3, 7, 4] do not broadcast together");
  EXPECT_EQ(sdpa(q, k, v, Tensor::zeros({5, 6})),
            "scaled_dot_product_attention: attn_mask of shape [5, 6] does not broadcast to the "
            "scores' shape [2, 5, 7]");
  EXPECT_EQ(sdpa(q, k, v, Tensor::zeros({5, 7}, DType::I64)),
            "scaled_dot_product_attention: attn_mask has dtype int64 but it must be boolean "
            "(bool, or uint8: nonzero = attend) or an additive mask of the query's dtype "
            "float32");
  EXPECT_EQ(sdpa(Tensor::randn({8}, 67), k, v),
            "scaled_dot_product_attention: query, key and value must have at least 2 dims ([..., "
            "L, E], [..., S, E], [..., S, Ev]) but have shapes [8], [2, 7, 8] and [2, 7, 4]");
  EXPECT_EQ(sdpa(q, k, v, Tensor(), 0.0, false, std::optional<double>(kInf)),
            "scaled_dot_product_attention: scale is inf but must be finite");
  EXPECT_EQ(sdpa(Tensor(), k, v),
            "scaled_dot_product_attention: query is undefined; expected a float32 tensor");
}

TEST(Attention, EmptyKeysGiveZerosAndEmptyQueriesAnEmptyResult) {
  const Tensor out = ops::scaled_dot_product_attention(
      Tensor::randn({2, 3, 4}, 70), Tensor::zeros({2, 0, 4}), Tensor::zeros({2, 0, 5}));
  EXPECT_EQ(out.sizes(), (Shape{2, 3, 5}));
  for (double x : out.to_vector<double>()) EXPECT_EQ(x, 0.0);
  EXPECT_EQ(
      ops::scaled_dot_product_attention(Tensor::zeros({2, 0, 4}), Tensor::randn({2, 3, 4}, 71),
                                        Tensor::randn({2, 3, 5}, 72))
          .sizes(),
      (Shape{2, 0, 5}));
}

// ---- nn::MultiheadAttention ----

// The layer written out with plain ops: projections, heads, softmax(q k^T / sqrt(D)) v.
Tensor mha_by_hand(const nn::MultiheadAttention& m, const Tensor& q, const Tensor& k,
                   const Tensor& v, const Tensor& add_mask /* [N or 1, H or 1, L, S] */) {
  const int64_t E = m.embed_dim, H = m.num_heads, D = m.head_dim;
  const auto proj = [&](const Tensor& x, int64_t i) {  // x [N, T, E] -> [N, H, T, D]
    const Tensor w = m.in_proj_weight.narrow(0, i * E, E), b = m.in_proj_bias.narrow(0, i * E, E);
    return ops::linear(x, w, b).reshape({x.size(0), x.size(1), H, D}).transpose(1, 2);
  };
  Tensor s = ops::matmul(proj(q, 0), proj(k, 1).transpose(2, 3)) * (1.0 / std::sqrt(double(D)));
  if (add_mask.defined()) s = ops::add(s, add_mask);
  const Tensor o = ops::matmul(ops::softmax(s, -1), proj(v, 2));
  return ops::linear(o.transpose(1, 2).reshape({q.size(0), q.size(1), E}), m.out_proj->weight,
                     m.out_proj->bias);
}

TEST(MultiheadAttention, ParametersAreNamedAndInitialisedAsPyTorch) {
  nn::MultiheadAttention m(16, 4, true, false, 3);
  std::vector<std::string> names;
  for (const auto& [name, t] : m.named_parameters()) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"in_proj_weight", "in_proj_bias", "out_proj.weight",
                                             "out_proj.bias"}));
  EXPECT_EQ(m.in_proj_weight.sizes(), (Shape{48, 16}));
  const double xavier = std::sqrt(6.0 / 64.0);
  const auto w = m.in_proj_weight.to_vector<double>();
  EXPECT_LE(*std::max_element(w.begin(), w.end()), xavier);
  EXPECT_GT(*std::max_element(w.begin(), w.end()), 0.9 * xavier);
  for (double b : m.in_proj_bias.to_vector<double>()) EXPECT_EQ(b, 0.0);
  for (double b : m.out_proj->bias.to_vector<double>()) EXPECT_EQ(b, 0.0);
  const auto o = m.out_proj->weight.to_vector<double>();
  EXPECT_LE(*std::max_element(o.begin(), o.end()), 0.25);
}

TEST(MultiheadAttention, MatchesTheCompositionWithMasks) {
  nn::MultiheadAttention m(16, 4, true, /*batch_first=*/true, 5);
  m.in_proj_bias.copy_(Tensor::randn({48}, 80));  // a nonzero bias exercises its split
  const Tensor x = Tensor::randn({2, 6, 16}, 81), y = Tensor::randn({2, 9, 16}, 82);
  // Self-attention (one packed GEMM, heads read in place) against the composition.
  EXPECT_LT(rel_l2(m.forward({x})[0], mha_by_hand(m, x, x, x, Tensor())), 1e-5);
  // Cross-attention with a key padding mask (nonzero = ignore) and an additive attn_mask.
  std::vector<uint8_t> pad(18, 0);
  pad[8] = pad[9 + 3] = 1;
  const Tensor kpm = Tensor::from_vector(pad, {2, 9});
  const Tensor am = Tensor::randn({6, 9}, 83);
  const Tensor want_mask = ops::add(
      am, ops::where(kpm, Tensor::full({1}, -kInf), Tensor::zeros({1})).reshape({2, 1, 1, 9}));
  EXPECT_LT(rel_l2(m(x, y, y, kpm, am), mha_by_hand(m, x, y, y, want_mask)), 1e-5);
  // Sequence-first layout gives the same numbers, transposed.
  nn::MultiheadAttention s(16, 4, true, /*batch_first=*/false, 5);
  s.load_state_dict(m.state_dict(), true);
  EXPECT_LT(rel_l2(s.forward({x.transpose(0, 1)})[0].transpose(0, 1), m.forward({x})[0]), 1e-6);
}

TEST(MultiheadAttention, ErrorsNameTheMistake) {
  EXPECT_EQ(error_of([] { nn::MultiheadAttention(10, 4); }),
            "MultiheadAttention: embed_dim 10 must be divisible by num_heads 4");
  nn::MultiheadAttention m(8, 2);
  EXPECT_EQ(error_of([&] {
              m.forward({Tensor::randn({3, 2, 6}, 90)});
            }),
            "MultiheadAttention: query, key and value need embed_dim 8 features but one has "
            "shape [3, 2, 6]");
}

// ---- the CUDA family, per precision mode, against float64 ----

// The GPU tests' masks: 1 additive [L, S], 2 boolean [B, 1, L, S] with row 3 of each
// batch fully masked; none otherwise.
Tensor case_mask(int kind, int64_t B, int64_t L, int64_t S, uint64_t& seed) {
  if (kind == 1) return Tensor::randn({L, S}, seed++);
  if (kind != 2) return Tensor();
  std::vector<uint8_t> bytes;
  for (float x : Tensor::rand({B, 1, L, S}, seed++).to_vector<float>()) bytes.push_back(x < 0.7f);
  for (int64_t j = 0; j < S; ++j) bytes[static_cast<size_t>(3 * S + j)] = 0;
  return Tensor::from_vector(bytes, {B, 1, L, S});
}

// The op on float64 copies (the reference of the GPU tests).
Tensor float64_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask,
                         bool causal) {
  ops::Float64Scope scope;
  return ops::scaled_dot_product_attention(
      q.to(DType::F64), k.to(DType::F64), v.to(DType::F64),
      mask.defined() && mask.dtype() == DType::F32 ? mask.to(DType::F64) : mask, 0.0, causal);
}

struct GpuCase {
  int64_t B, H, L, S, E;
  bool causal;
  int mask;  // 0 none, 1 additive [L, S], 2 boolean [B, 1, L, S] with a fully masked row
};

TEST(AttentionCuda, EveryModeWithinItsBoundAtAwkwardShapes) {
  TT_REQUIRE_CUDA();
  const Device gpu = Device::cuda(0);
  const std::vector<GpuCase> cases = {
      {2, 3, 77, 77, 64, false, 0},   {1, 2, 130, 67, 64, true, 0},
      {1, 2, 67, 130, 64, true, 0},   {2, 2, 100, 200, 32, false, 1},
      {1, 3, 129, 129, 128, true, 0}, {2, 1, 65, 191, 128, false, 2},
      {1, 2, 45, 70, 40, false, 1},   {1, 1, 1, 1, 64, false, 0},
      {2, 4, 256, 256, 64, true, 0},
  };
  for (Precision prec : {Precision::strict, Precision::tf32, Precision::accurate}) {
    // strict and accurate: float32's level (PyTorch's float32 SDPA: 5-7e-7 vs float64 at
    // the shapes). tf32: 10-bit operands, 4e-4 measured.
    const double bound = prec == Precision::tf32 ? 2e-3 : 1e-6;
    uint64_t seed = 100;
    for (const GpuCase& c : cases) {
      const Tensor q = Tensor::randn({c.B, c.H, c.L, c.E}, seed++),
                   k = Tensor::randn({c.B, c.H, c.S, c.E}, seed++),
                   v = Tensor::randn({c.B, c.H, c.S, c.E}, seed++);
      const Tensor mask = case_mask(c.mask, c.B, c.L, c.S, seed);
      const Tensor want = float64_attention(q, k, v, mask, c.causal);
      PrecisionGuard guard(prec);
      const Tensor got =
          ops::scaled_dot_product_attention(q.to(gpu), k.to(gpu), v.to(gpu),
                                            mask.defined() ? mask.to(gpu) : Tensor(), 0.0, c.causal)
              .cpu();
      const std::string what = std::string(precision_name(prec)) + " B" + std::to_string(c.B) +
                               " H" + std::to_string(c.H) + " L" + std::to_string(c.L) + " S" +
                               std::to_string(c.S) + " E" + std::to_string(c.E) +
                               (c.causal ? " causal" : "") + " mask " + std::to_string(c.mask);
      const auto g = got.to_vector<double>(), w = want.to_vector<double>();
      for (double x : g) ASSERT_TRUE(std::isfinite(x)) << what;
      EXPECT_LE(rel_err(g, w), bound) << what;
      if (c.mask == 2) {
        for (int64_t e = 0; e < c.E; ++e)
          EXPECT_EQ(g[static_cast<size_t>(3 * c.E + e)], 0.0) << what;
      }
    }
  }
}

TEST(AttentionCuda, StridedHeadsAndMultiheadAttentionMatchTheCpu) {
  TT_REQUIRE_CUDA();
  const Device gpu = Device::cuda(0);
  const Tensor qkv = Tensor::randn({2, 70, 3, 4, 64}, 200);
  const auto heads = [](const Tensor& t, int i) { return t.select(2, i).transpose(1, 2); };
  const Tensor want = ops::scaled_dot_product_attention(heads(qkv, 0), heads(qkv, 1), heads(qkv, 2),
                                                        Tensor(), 0, true);
  const Tensor g = qkv.to(gpu);
  EXPECT_LE(rel_l2(ops::scaled_dot_product_attention(heads(g, 0), heads(g, 1), heads(g, 2),
                                                     Tensor(), 0, true)
                       .cpu(),
                   want),
            1e-6);
  nn::MultiheadAttention m(64, 4, true, true, 7);
  const Tensor x = Tensor::randn({3, 33, 64}, 201);
  const Tensor cpu = m.forward({x})[0];
  m.to(gpu);
  EXPECT_LE(rel_l2(m.forward({x.to(gpu)})[0].cpu(), cpu), 1e-5);
}

// Every config of the op's space in each mode (what `tt tune` sweeps: the tiled and
// tensor-core variants where the mode allows them) on the GPU copies of q, k, v, each
// output handed to `check` with the mode, whether the config runs on tensor cores and its
// name. Returns the configs run per mode.
template <class Check>
std::vector<size_t> sweep_every_config(const Tensor& q, const Tensor& k, const Tensor& v,
                                       bool causal, const Check& check) {
  const Device gpu = Device::cuda(0);
  const Tensor qg = q.to(gpu), kg = k.to(gpu), vg = v.to(gpu);
  std::vector<size_t> swept;
  for (Precision prec : {Precision::strict, Precision::tf32, Precision::accurate}) {
    PrecisionGuard guard(prec);
    const auto run = [&] {
      return ops::scaled_dot_product_attention(qg, kg, vg, Tensor(), 0.0, causal)
          .cpu()
          .to_vector<double>();
    };
    autotune::clear_configs_used();
    {
      autotune::ScopedForceDefaults defaults;
      run();
    }
    swept.push_back(0);
    for (const autotune::UsedConfig& used : autotune::configs_used()) {
      if (used.kernel != "attention") continue;
      const autotune::TunableSpace ts = autotune::space_for(used.kernel, used.problem, 0);
      for (const autotune::Config& config : ts.space->enumerate()) {
        autotune::ScopedForceDefaults defaults;
        autotune::ScopedConfigOverride force(used.kernel, config, used.problem);
        const bool tensor_cores = config.str().find("impl=mma") != std::string::npos ||
                                  config.str().find("impl=wgmma") != std::string::npos;
        check(prec, tensor_cores, std::string(precision_name(prec)) + " " + config.str(), run());
        ++swept.back();
      }
    }
  }
  return swept;
}

// Every config gives its mode's accuracy, and strict's configs are FMA only.
TEST(AttentionCuda, EveryConfigOfEveryModeIsWithinItsBound) {
  TT_REQUIRE_CUDA();
  const Tensor q = Tensor::randn({2, 2, 97, 64}, 300), k = Tensor::randn({2, 2, 131, 64}, 301),
               v = Tensor::randn({2, 2, 131, 64}, 302);
  const std::vector<double> w = float64_attention(q, k, v, Tensor(), true).to_vector<double>();
  const std::vector<size_t> swept = sweep_every_config(
      q, k, v, true,
      [&](Precision prec, bool tensor_cores, const std::string& what,
          const std::vector<double>& g) {
        EXPECT_FALSE(prec == Precision::strict && tensor_cores) << what;
        const double bound = tensor_cores && prec == Precision::tf32 ? 2e-3 : 1e-6;
        EXPECT_LE(rel_err(g, w), bound) << what;
      });
  EXPECT_GE(swept[0], 8u);
  EXPECT_GE(swept[1], 12u);
  EXPECT_GE(swept[2], 12u);
}

// Scores that grow along the keys, by a little in some rows and by a lot in others: the
// online softmax's running max moves by less than 2^8 in some tiles (tf32's ws kernels
// keep the stale base then, P up to 2^8: softmax_tile_lazy) and by far more in others,
// within one warp's rows too. Scores up to about 60 (base 2) make the data ill-conditioned
// (float32 inputs alone give 3-4e-6 against float64, tf32 5e-3), so every config is held
// to that (1e-5; tf32 on tensor cores 1e-2), and tf32's wgmma configs to within 5% of
// pipe 0's error (the same products and rounding, without the stale base), full and causal.
TEST(AttentionCuda, EveryConfigFollowsScoresThatJumpAlongTheKeys) {
  TT_REQUIRE_CUDA();
  const int64_t L = 128, S = 320, E = 64;
  std::vector<float> qv = (Tensor::randn({1, 2, L, E}, 310) * 0.3).to_vector<float>();
  std::vector<float> kv = Tensor::randn({1, 2, S, E}, 311).to_vector<float>();
  const Tensor v = Tensor::randn({1, 2, S, E}, 312);
  for (int64_t h = 0; h < 2; ++h) {
    // Row i's scores grow by about 3.6 a_i (base 2) per 64-key tile: 0.4 to 12.
    for (int64_t i = 0; i < L; ++i) qv[static_cast<size_t>((h * L + i) * E)] = 0.1f * (1 + i / 4.f);
    for (int64_t j = 0; j < S; ++j) {
      kv[static_cast<size_t>((h * S + j) * E)] += 20.f * static_cast<float>(j / 64);
    }
  }
  const Tensor q = Tensor::from_vector(qv, Shape{1, 2, L, E});
  const Tensor k = Tensor::from_vector(kv, Shape{1, 2, S, E});
  for (bool causal : {false, true}) {
    const std::vector<double> w = float64_attention(q, k, v, Tensor(), causal).to_vector<double>();
    struct Run {
      Precision prec;
      bool tensor_cores;
      std::string what;
      double err;
    };
    std::vector<Run> runs;
    sweep_every_config(q, k, v, causal,
                       [&](Precision prec, bool tensor_cores, const std::string& what,
                           const std::vector<double>& g) {
                         runs.push_back({prec, tensor_cores, what, rel_err(g, w)});
                       });
    const auto tf32_wgmma = [](const Run& r) {
      return r.prec == Precision::tf32 && r.what.find("impl=wgmma") != std::string::npos;
    };
    double pipe0 = kInf;
    for (const Run& r : runs) {
      if (tf32_wgmma(r) && r.what.find("pipe=0") != std::string::npos)
        pipe0 = std::min(pipe0, r.err);
    }
    EXPECT_LT(pipe0, kInf) << "no tf32 wgmma pipe 0 config in the space";
    for (const Run& r : runs) {
      const std::string what = r.what + (causal ? " causal" : "");
      EXPECT_LE(r.err, r.tensor_cores && r.prec == Precision::tf32 ? 1e-2 : 1e-5) << what;
      if (tf32_wgmma(r)) {
        EXPECT_LE(r.err, 1.05 * pipe0) << what << ": pipe 0 " << pipe0;
      }
    }
  }
}

// A NaN in a query row makes that row's scores NaN: its output row is NaN in every config,
// as PyTorch's, and every other row is as without it.
TEST(AttentionCuda, ANanQueryRowGivesANanOutputRowInEveryConfig) {
  TT_REQUIRE_CUDA();
  const int64_t L = 97, S = 131, E = 64, nan_row = 5;
  const Tensor k = Tensor::randn({1, 2, S, E}, 321), v = Tensor::randn({1, 2, S, E}, 322);
  std::vector<float> qv = Tensor::randn({1, 2, L, E}, 320).to_vector<float>();
  const Tensor q_clean = Tensor::from_vector(qv, Shape{1, 2, L, E});
  qv[static_cast<size_t>(nan_row * E + 3)] = std::numeric_limits<float>::quiet_NaN();
  const Tensor q = Tensor::from_vector(qv, Shape{1, 2, L, E});
  for (bool causal : {false, true}) {
    const std::vector<double> w =
        float64_attention(q_clean, k, v, Tensor(), causal).to_vector<double>();
    sweep_every_config(q, k, v, causal,
                       [&](Precision prec, bool tensor_cores, const std::string& what,
                           const std::vector<double>& g) {
                         std::vector<double> rest_g, rest_w;
                         for (size_t i = 0; i < g.size(); ++i) {
                           if (static_cast<int64_t>(i) / E == nan_row) {
                             EXPECT_TRUE(std::isnan(g[i])) << what << " element " << i;
                           } else {
                             rest_g.push_back(g[i]);
                             rest_w.push_back(w[i]);
                           }
                         }
                         const double bound = tensor_cores && prec == Precision::tf32 ? 2e-3 : 1e-6;
                         EXPECT_LE(rel_err(rest_g, rest_w), bound)
                             << what << (causal ? " causal" : "");
                       });
  }
}

#if TT_CUDA
namespace at = tt::ops::cuda::attention;

// A shape the forced-variant tests below run: L and S off the tiles, causal, masks, heads
// read in place from a [B, T, 3, H, E] projection.
struct HardCase {
  int64_t B, H, L, S, E;
  bool causal;
  int mask;  // 0 none, 1 additive [L, S], 2 boolean [B, 1, L, S], row 3 fully masked
  bool strided;
};
struct ForcedVariant {
  int64_t E;
  Precision prec;
  at::AttnConfig config;
};

// Every variant of each case's head dim, forced in turn through the tuning override,
// against float64: tf32 within 2e-3 (10-bit operands; the mma.sync kernel measured 4e-4),
// the float32 modes within 1e-6; the fully masked row must be zeros. Returns the runs.
size_t expect_variants_match_float64(const std::vector<HardCase>& cases,
                                     const std::vector<ForcedVariant>& variants, uint64_t seed) {
  const Device gpu = Device::cuda(0);
  size_t ran = 0;
  for (const HardCase& c : cases) {
    Tensor q, k, v;
    if (c.strided) {
      const Tensor qkv = Tensor::randn({c.B, c.L, 3, c.H, c.E}, seed++);
      const auto head = [&](int i) { return qkv.select(2, i).transpose(1, 2); };
      q = head(0), k = head(1), v = head(2);
    } else {
      q = Tensor::randn({c.B, c.H, c.L, c.E}, seed++);
      k = Tensor::randn({c.B, c.H, c.S, c.E}, seed++);
      v = Tensor::randn({c.B, c.H, c.S, c.E}, seed++);
    }
    const Tensor mask = case_mask(c.mask, c.B, c.L, c.S, seed);
    const std::vector<double> w = float64_attention(q, k, v, mask, c.causal).to_vector<double>();
    const Tensor qg = q.to(gpu), kg = k.to(gpu), vg = v.to(gpu);
    const Tensor mg = mask.defined() ? mask.to(gpu) : Tensor();
    for (const ForcedVariant& var : variants) {
      if (var.E != c.E) continue;
      PrecisionGuard guard(var.prec);
      if (var.config.impl == at::Impl::kWgmma && at::makes_vt_ahead(var.config.pipe)) {
        // Vt's scratch (and the per-head counts after it) as NaN first: the caching
        // allocator hands the block back, so a unit that read Vt before it was made fails
        // instead of reading an earlier variant's whole Vt.
        const int64_t sp = (c.S + at::kVtPad - 1) / at::kVtPad * at::kVtPad;
        Tensor::full({c.B * c.H * (c.E * sp + 1)}, std::nan(""), DType::F32, gpu);
      }
      autotune::ScopedConfigOverride force("attention", var.config.to_config());
      const std::string what =
          fmt::format("{} {} B{} H{} L{} S{} E{}{} mask {}{}", precision_name(var.prec),
                      var.config.to_config().str(), c.B, c.H, c.L, c.S, c.E,
                      c.causal ? " causal" : "", c.mask, c.strided ? " strided" : "");
      const std::vector<double> g = ops::scaled_dot_product_attention(qg, kg, vg, mg, 0.0, c.causal)
                                        .cpu()
                                        .to_vector<double>();
      bool finite = true;
      for (double x : g) finite = finite && std::isfinite(x);
      EXPECT_TRUE(finite) << what;
      EXPECT_LE(rel_err(g, w), var.prec == Precision::tf32 ? 2e-3 : 1e-6) << what;
      if (c.mask == 2) {
        for (int64_t e = 0; e < c.E; ++e)
          EXPECT_EQ(g[static_cast<size_t>(3 * c.E + e)], 0.0) << what;
      }
      ++ran;
    }
  }
  return ran;
}

// The sm_90a wgmma kernels (tf32 and accurate), each variant forced in turn, at the
// shapes their tiles find hardest (head dims 64 and 128, a single query and key).
TEST(AttentionCuda, EveryWgmmaVariantMatchesFloat64) {
  TT_REQUIRE_CUDA();
  const tt::cuda::DeviceLimits& lim = tt::cuda::device_limits(0);
  if (!at::kWgmmaCompiled || lim.cc_major != 9 || lim.cc_minor != 0) {
    GTEST_SKIP() << "the wgmma kernels need compute capability 9.0 and this build's sm_90a code";
  }
  // The last: 36 heads causal, the heaviest-first order's groups of 32 heads and a
  // partial one (attention_order.cuh).
  const std::vector<HardCase> cases = {
      {2, 3, 77, 77, 64, false, 0, false},   {1, 2, 130, 67, 64, true, 0, false},
      {1, 2, 67, 130, 64, true, 0, false},   {1, 3, 129, 129, 128, true, 0, false},
      {2, 1, 65, 191, 128, false, 2, false}, {1, 2, 45, 200, 64, false, 1, false},
      {1, 1, 1, 1, 64, false, 0, false},     {2, 4, 256, 256, 64, true, 0, false},
      {2, 4, 70, 70, 64, true, 0, true},     {1, 2, 300, 300, 128, false, 0, true},
      {2, 2, 70, 150, 64, false, 2, false},  {3, 12, 200, 200, 64, true, 0, false},
  };
  std::vector<ForcedVariant> variants;
#define TT_X(E, WG, BN) variants.push_back({E, Precision::tf32, {at::Impl::kWgmma, 4 * WG, 4, BN}});
  TT_ATTN_WGMMA_VARIANTS(TT_X)
#undef TT_X
#define TT_X(E, WG, BN) \
  variants.push_back({E, Precision::accurate, {at::Impl::kWgmma, 4 * WG, 4, BN}});
  TT_ATTN_WGMMA_ACCURATE_VARIANTS(TT_X)
#undef TT_X
#define TT_X(E, WG, BN, ST, MB) \
  variants.push_back({E, Precision::tf32, {at::Impl::kWgmma, 4 * WG, 4, BN, 1}});
  if (at::kWgmmaPipe1Offered) {
    TT_ATTN_WGMMA_WS_VARIANTS(TT_X)
  }
#undef TT_X
#define TT_X(E, WG, BN, ST, MB, PIPE) \
  variants.push_back({E, Precision::tf32, {at::Impl::kWgmma, 4 * WG, 4, BN, PIPE}});
  if (at::kWgmmaPipe1Offered) {
    TT_ATTN_WGMMA_TMA_VARIANTS(TT_X)
  }
#undef TT_X
#define TT_X(E, WG, BN, ST, PIPE) \
  variants.push_back({E, Precision::tf32, {at::Impl::kWgmma, 4 * WG, 4, BN, PIPE}});
  if (at::kWgmmaPipe1Offered) {
    TT_ATTN_WGMMA_PERSISTENT_VARIANTS(TT_X)
  }
#undef TT_X
#define TT_X(E, WG, BN, ST) \
  variants.push_back({E, Precision::tf32, {at::Impl::kWgmma, 4 * WG, 4, BN, 12}});
  if (at::kWgmmaPipe1Offered) {
    TT_ATTN_WGMMA_QUAD_VARIANTS(TT_X)
  }
#undef TT_X
#define TT_X(E, WG, BN, ST) \
  variants.push_back({E, Precision::tf32, {at::Impl::kWgmma, 4 * WG, 4, BN, 14}});
  if (at::kWgmmaPipe1Offered) {
    TT_ATTN_WGMMA_QUAD_PV16_VARIANTS(TT_X)
  }
#undef TT_X
#define TT_X(E, WG, BN, ST) \
  variants.push_back({E, Precision::tf32, {at::Impl::kWgmma, 4 * WG, 4, BN, 15}});
  if (at::kWgmmaPipe1Offered) {
    TT_ATTN_WGMMA_QUAD_CONV_VARIANTS(TT_X)
  }
#undef TT_X
  // accurate on the TMA pipes (2 and 5): within 1e-6, as pipe 0.
#define TT_X(E, WG, BN, ST, MB, PIPE) \
  variants.push_back({E, Precision::accurate, {at::Impl::kWgmma, 4 * WG, 4, BN, PIPE}});
  if (at::kWgmmaPipe1Offered) {
    TT_ATTN_WGMMA_TMA_ACCURATE_VARIANTS(TT_X)
  }
#undef TT_X
  // accurate with the 2 x fp16 split (pipe 6, and 16 its persistent form): within 1e-6
  // likewise.
#define TT_X(E, WG, BN, ST, PIPE) \
  variants.push_back({E, Precision::accurate, {at::Impl::kWgmma, 4 * WG, 4, BN, PIPE}});
  if (at::kWgmmaPipe1Offered && at::kF16SplitOffered) {
    TT_ATTN_WGMMA_F16SPLIT_VARIANTS(TT_X)
    TT_ATTN_WGMMA_F16SPLIT_PERSISTENT_VARIANTS(TT_X)
  }
#undef TT_X
  EXPECT_GT(expect_variants_match_float64(cases, variants, 500), 0u);
}

// The 2 x fp16 split (wgmma pipe 6) scales Q per row and K and V per 64-key tile by
// powers of two: rows, heads and key tiles of very different magnitudes (2^-60 to 2^60)
// keep float32 accuracy, and within a tile an element down to about 2^-29 of the largest
// does. A V column at 2^-24 of the rest keeps its own relative error within 1e-6; one at
// 2^-40 (beyond fp16's range after its tile's scale) is lost to its own columns' error,
// which the whole output's error does not show (printed, not asserted: the documented
// limit). Causal, head 1's first key tile (K and V) sits at 2^-40 of the head's other
// tiles and its first 64 query rows at 2^40, so those rows attend that tile alone: their
// outputs, 2^-40 of the head's, keep float32 accuracy (a scale per head lost them).
// At head dim E (64 and 128: pipe 6's variants; 64: pipe 16's too).
void expect_f16split_wide_ranges(int64_t E, int pipe = 6) {
  const int64_t B = 2, H = 2, L = 150, S = 170;
  std::vector<float> q = Tensor::randn({B, H, L, E}, 1900).to_vector<float>();
  std::vector<float> k = Tensor::randn({B, H, S, E}, 1901).to_vector<float>();
  std::vector<float> v = Tensor::randn({B, H, S, E}, 1902).to_vector<float>();
  // The heads' K and V at 2^-30, 1, 2^30, 2^-60 (heads 0-3), each head's Q rows at the
  // inverse of its K times 2^-2 ... 2^1 (row by row), so that the scores stay of order 1
  // (float32's own exp would lose the float64 reference on scores of 2^30).
  const int head_exp[4] = {-30, 0, 30, -60};
  for (int64_t h = 0; h < B * H; ++h) {
    for (int64_t i = 0; i < S * E; ++i) {
      k[static_cast<size_t>(h * S * E + i)] *= std::ldexp(1.f, head_exp[h]);
      v[static_cast<size_t>(h * S * E + i)] *= std::ldexp(1.f, head_exp[h]);
    }
    for (int64_t r = 0; r < L; ++r) {
      const float f = std::ldexp(1.f, -head_exp[h] + static_cast<int>(r % 4) - 2);
      for (int64_t e = 0; e < E; ++e) q[static_cast<size_t>((h * L + r) * E + e)] *= f;
    }
  }
  // Column 5 of V at 2^-24 of its head, column 9 at 2^-40.
  for (int64_t j = 0; j < B * H * S; ++j) {
    v[static_cast<size_t>(j * E + 5)] *= std::ldexp(1.f, -24);
    v[static_cast<size_t>(j * E + 9)] *= std::ldexp(1.f, -40);
  }
  // Causal only (full attention would put those Q rows' scores against the other tiles
  // at 2^40): head 1's keys 0-63 at 2^-40, its query rows 0-63 at 2^40.
  std::vector<float> qc = q, kc = k, vc = v;
  constexpr int64_t kSmallHead = 1, kTile = 64;
  for (int64_t i = 0; i < kTile * E; ++i) {
    kc[static_cast<size_t>(kSmallHead * S * E + i)] *= std::ldexp(1.f, -40);
    vc[static_cast<size_t>(kSmallHead * S * E + i)] *= std::ldexp(1.f, -40);
    qc[static_cast<size_t>(kSmallHead * L * E + i)] *= std::ldexp(1.f, 40);
  }
  const Device gpu = Device::cuda(0);
  PrecisionGuard guard(Precision::accurate);
  for (bool causal : {false, true}) {
    const Tensor qt = Tensor::from_vector(causal ? qc : q, {B, H, L, E});
    const Tensor kt = Tensor::from_vector(causal ? kc : k, {B, H, S, E});
    const Tensor vt = Tensor::from_vector(causal ? vc : v, {B, H, S, E});
    const at::AttnConfig cfg{at::Impl::kWgmma, 8, 4, 64, pipe};
    autotune::ScopedConfigOverride force("attention", cfg.to_config());
    const std::vector<double> w =
        float64_attention(qt, kt, vt, Tensor(), causal).to_vector<double>();
    const std::vector<double> g =
        ops::scaled_dot_product_attention(qt.to(gpu), kt.to(gpu), vt.to(gpu), Tensor(), 0.0, causal)
            .cpu()
            .to_vector<double>();
    const std::string what = std::string(causal ? "causal" : "full") + " E" + std::to_string(E) +
                             " pipe " + std::to_string(pipe);
    // Per head (the heads' magnitudes differ by 2^90) over rows [r0, r1), and per column 5
    // and 9.
    const auto err_rows = [&](int64_t h, int64_t col, int64_t r0, int64_t r1) {
      double num = 0, den = 0;
      for (int64_t i = r0; i < r1; ++i) {
        for (int64_t e = 0; e < E; ++e) {
          if (col >= 0 ? e != col : (e == 5 || e == 9)) continue;
          const size_t at = static_cast<size_t>((h * L + i) * E + e);
          num += (g[at] - w[at]) * (g[at] - w[at]);
          den += w[at] * w[at];
        }
      }
      return std::sqrt(num / den);
    };
    const auto err = [&](int64_t h, int64_t col) { return err_rows(h, col, 0, L); };
    for (int64_t h = 0; h < B * H; ++h) {
      EXPECT_LE(err(h, -1), 1e-6) << what << " head " << h;
      EXPECT_LE(err(h, 5), 1e-6) << what << " head " << h << " column at 2^-24";
      std::printf("f16 split %s head %ld: rel L2 %.3g, column at 2^-24 %.3g, at 2^-40 %.3g\n",
                  what.c_str(), static_cast<long>(h), err(h, -1), err(h, 5), err(h, 9));
    }
    if (causal) {
      EXPECT_LE(err_rows(kSmallHead, -1, 0, kTile), 1e-6) << "rows on the key tile at 2^-40";
      EXPECT_LE(err_rows(kSmallHead, 5, 0, kTile), 1e-6)
          << "rows on the key tile at 2^-40, column 5";
      std::printf(
          "f16 split causal head 1 rows 0-63 (key tile at 2^-40): rel L2 %.3g, column "
          "at 2^-24 %.3g\n",
          err_rows(kSmallHead, -1, 0, kTile), err_rows(kSmallHead, 5, 0, kTile));
    }
  }
}

// The warp-specialized wgmma pipes (1-7) run here: compute capability 9.0, this build's
// sm_90a code, and the pipes offered (attention.h: kWgmmaPipe1Offered).
bool ws_pipes_run_here() {
  const tt::cuda::DeviceLimits& lim = tt::cuda::device_limits(0);
  return at::kWgmmaCompiled && lim.cc_major == 9 && lim.cc_minor == 0 && at::kWgmmaPipe1Offered;
}
#define TT_SKIP_UNLESS_WS_PIPES()                                                            \
  if (!ws_pipes_run_here()) {                                                                \
    GTEST_SKIP() << "the wgmma kernels need compute capability 9.0 and this build's sm_90a " \
                    "code";                                                                  \
  }

bool f16split_runs_here() { return ws_pipes_run_here() && at::kF16SplitOffered; }
#define TT_SKIP_UNLESS_F16SPLIT()                                                                \
  if (!f16split_runs_here()) {                                                                   \
    GTEST_SKIP() << "the 2 x fp16 split needs compute capability 9.0, this build's sm_90a code " \
                    "and its variant offered (attention.h: kF16SplitOffered)";                   \
  }

TEST(AttentionCuda, F16SplitKeepsWideRangesWithinItsScales) {
  TT_REQUIRE_CUDA();
  TT_SKIP_UNLESS_F16SPLIT();
  expect_f16split_wide_ranges(64);
  expect_f16split_wide_ranges(64, 16);
}

// ---- issue 19, twenty-fourth step: tf32's P V on fp16 (pipe 14) ----

// Pipe 14 scales V per key tile (64 keys, 32 at head dim 128) by a power of two into fp16 and
// folds the scale into the softmax's base (pipe 15 too, but for tiles whose largest |v| lies in
// [2^-4, 2^15), left unscaled; the others it converts again from global memory): 64-key blocks of V
// from 2^-60 (past the shift's clamp at 48) to 2^60 in one head, heads of different block orders,
// keep tf32's accuracy (within 2e-3 of float64, as every tf32 pipe; pipe 12's error, the same loop
// on tf32, printed beside it). Causal, each head's rows 0-63 attend its first block alone: at 2^-60
// in head 1 and 2^60 in head 2, they keep it too. 34 batches of the 4 heads: 136 heads of two query
// tiles leave the heads past the first 66 to the kernel's makers (their own conversion), the rest
// to the pre-pass. At head dim E (64 and 128: pipe 14's variants, 64- and 32-key tiles).
void expect_pv16_wide_ranges(int64_t E) {
  const int64_t B = 34, H = 4, L = 300, S = 330, kTile = 64;
  const std::vector<float> q = Tensor::randn({B, H, L, E}, 2400).to_vector<float>();
  const std::vector<float> k = Tensor::randn({B, H, S, E}, 2401).to_vector<float>();
  std::vector<float> v = Tensor::randn({B, H, S, E}, 2402).to_vector<float>();
  const int tile_exp[4][6] = {{0, 0, 0, 0, 0, 0},
                              {-60, 40, 0, -40, 60, 3},
                              {60, -60, 20, 0, -30, 50},
                              {-20, -20, -20, -20, -20, -20}};
  for (int64_t bh = 0; bh < B * H; ++bh) {
    for (int64_t j = 0; j < S; ++j) {
      const float f = std::ldexp(1.f, tile_exp[bh % H][j / kTile]);
      for (int64_t e = 0; e < E; ++e) v[static_cast<size_t>((bh * S + j) * E + e)] *= f;
    }
  }
  const Tensor qt = Tensor::from_vector(q, {B, H, L, E});
  const Tensor kt = Tensor::from_vector(k, {B, H, S, E});
  const Tensor vt = Tensor::from_vector(v, {B, H, S, E});
  const Device gpu = Device::cuda(0);
  const Tensor qg = qt.to(gpu), kg = kt.to(gpu), vg = vt.to(gpu);
  PrecisionGuard guard(Precision::tf32);
  for (bool causal : {false, true}) {
    const std::vector<double> w =
        float64_attention(qt, kt, vt, Tensor(), causal).to_vector<double>();
    const auto run = [&](int pipe) {
      autotune::ScopedConfigOverride force(
          "attention",
          at::AttnConfig{at::Impl::kWgmma, 16, 4, E == 64 ? 64 : 32, pipe}.to_config());
      return ops::scaled_dot_product_attention(qg, kg, vg, Tensor(), 0.0, causal)
          .cpu()
          .to_vector<double>();
    };
    const std::vector<double> g14 = run(14), g15 = run(15), g12 = run(12);
    // Head h's rows [r0, r1).
    const auto err = [&](const std::vector<double>& g, int64_t h, int64_t r0, int64_t r1) {
      double num = 0, den = 0;
      for (size_t at = static_cast<size_t>((h * L + r0) * E); at < size_t((h * L + r1) * E); ++at) {
        num += (g[at] - w[at]) * (g[at] - w[at]);
        den += w[at] * w[at];
      }
      return std::sqrt(num / den);
    };
    const std::string what = std::string(causal ? "causal" : "full") + " E" + std::to_string(E);
    for (int64_t h = 0; h < B * H; ++h) {
      for (const auto* g : {&g14, &g15}) {
        const int pipe = g == &g14 ? 14 : 15;
        EXPECT_LE(err(*g, h, 0, L), 2e-3) << what << " pipe " << pipe << " head " << h;
        if (causal) {
          EXPECT_LE(err(*g, h, 0, kTile), 2e-3)
              << what << " pipe " << pipe << " head " << h << " rows 0-63";
        }
      }
      if (h >= H && h < B * H - H) continue;  // the first batch's heads and the last's printed
      std::printf("pipe 14 / 15 %s head %ld: rel L2 %.3g / %.3g (pipe 12: %.3g)\n", what.c_str(),
                  static_cast<long>(h), err(g14, h, 0, L), err(g15, h, 0, L), err(g12, h, 0, L));
      if (causal) {
        std::printf(
            "pipe 14 / 15 causal head %ld rows 0-63 (V's first tile at 2^%d): %.3g / %.3g (pipe "
            "12: %.3g)\n",
            static_cast<long>(h), tile_exp[h % H][0], err(g14, h, 0, kTile), err(g15, h, 0, kTile),
            err(g12, h, 0, kTile));
      }
    }
  }
}

TEST(AttentionCuda, Pv16KeepsTf32AccuracyOverWideVRanges) {
  TT_REQUIRE_CUDA();
  TT_SKIP_UNLESS_WS_PIPES();
  expect_pv16_wide_ranges(64);
}

TEST(AttentionCuda, Pv16KeepsTf32AccuracyOverWideVRangesAtHeadDim128) {
  TT_REQUIRE_CUDA();
  TT_SKIP_UNLESS_WS_PIPES();
  expect_pv16_wide_ranges(128);
}

// ---- issue 19, tenth step: the 2 x fp16 split at head dim 128 (fa19i) ----

// Its variant (P V in halves of 64 output columns, one tile at a time) keeps the same
// ranges.
TEST(AttentionCuda, F16SplitKeepsWideRangesAtHeadDim128) {
  TT_REQUIRE_CUDA();
  TT_SKIP_UNLESS_F16SPLIT();
  expect_f16split_wide_ranges(128);
}

// Many key tiles (the two-stage ring wraps up to 16 times), causal with L == S and L != S,
// an additive mask: the head-dim-128 variant forced, against float64.
TEST(AttentionCuda, F16SplitAtHeadDim128WalksManyTiles) {
  TT_REQUIRE_CUDA();
  TT_SKIP_UNLESS_F16SPLIT();
  const std::vector<HardCase> cases = {
      {1, 2, 1000, 1000, 128, false, 0, false},
      {1, 1, 2100, 2100, 128, true, 0, false},
      {1, 2, 300, 2100, 128, true, 0, false},
      {2, 2, 257, 513, 128, false, 1, false},
  };
  const std::vector<ForcedVariant> variants = {
      {128, Precision::accurate, {at::Impl::kWgmma, 8, 4, 64, 6}}};
  EXPECT_EQ(expect_variants_match_float64(cases, variants, 1950), 4u);
}

// One of K and V shared by every head (a batch stride of 0, made on the GPU so that it
// reaches the kernels): the op's default runs right, and each head-dim-64 TMA variant
// forced in turn either runs and matches float64 (where `runs(pipe)`) or is refused with
// the TMA rule's sentence. Returns {ran, refused} over full and causal attention.
std::pair<size_t, size_t> force_tma_pipes_with_shared(bool shared_k,
                                                      const std::function<bool(int)>& runs) {
  const uint64_t seed = shared_k ? 900 : 910;
  const Tensor q = Tensor::randn({2, 3, 150, 64}, seed);
  const Tensor one = Tensor::randn({2, 1, 140, 64}, seed + 1);
  const Tensor other = Tensor::randn({2, 3, 140, 64}, seed + 2);
  const Tensor shared = one.expand({2, 3, 140, 64});
  const Tensor& k = shared_k ? shared : other;
  const Tensor& v = shared_k ? other : shared;
  const Device gpu = Device::cuda(0);
  const Tensor shared_g = one.to(gpu).expand({2, 3, 140, 64});
  EXPECT_EQ(shared_g.strides()[1], 0);
  const Tensor qg = q.to(gpu), other_g = other.to(gpu);
  const Tensor& kg = shared_k ? shared_g : other_g;
  const Tensor& vg = shared_k ? other_g : shared_g;
  PrecisionGuard guard(Precision::tf32);
  size_t ran = 0, refused = 0;
  for (bool causal : {false, true}) {
    const std::vector<double> w = float64_attention(q, k, v, Tensor(), causal).to_vector<double>();
    const auto run = [&] {
      return ops::scaled_dot_product_attention(qg, kg, vg, Tensor(), 0.0, causal)
          .cpu()
          .to_vector<double>();
    };
    EXPECT_LE(rel_err(run(), w), 2e-3) << "the default" << (causal ? " causal" : "");
    std::vector<at::AttnConfig> configs;
#define TT_X(E, WG, BN, ST, MB, PIPE) \
  if (E == 64) configs.push_back({at::Impl::kWgmma, 4 * WG, 4, BN, PIPE});
    TT_ATTN_WGMMA_TMA_VARIANTS(TT_X)
#undef TT_X
#define TT_X(E, WG, BN, ST, PIPE) \
  if (E == 64) configs.push_back({at::Impl::kWgmma, 4 * WG, 4, BN, PIPE});
    TT_ATTN_WGMMA_PERSISTENT_VARIANTS(TT_X)
#undef TT_X
#define TT_X(E, WG, BN, ST) \
  if (E == 64) configs.push_back({at::Impl::kWgmma, 4 * WG, 4, BN, 12});
    TT_ATTN_WGMMA_QUAD_VARIANTS(TT_X)
#undef TT_X
#define TT_X(E, WG, BN, ST) \
  if (E == 64) configs.push_back({at::Impl::kWgmma, 4 * WG, 4, BN, 14});
    TT_ATTN_WGMMA_QUAD_PV16_VARIANTS(TT_X)
#undef TT_X
#define TT_X(E, WG, BN, ST) \
  if (E == 64) configs.push_back({at::Impl::kWgmma, 4 * WG, 4, BN, 15});
    TT_ATTN_WGMMA_QUAD_CONV_VARIANTS(TT_X)
#undef TT_X
    for (const at::AttnConfig& cfg : configs) {
      const std::string what = cfg.to_config().str() + (causal ? " causal" : "");
      autotune::ScopedConfigOverride force("attention", cfg.to_config());
      try {
        const std::vector<double> g = run();
        EXPECT_TRUE(runs(cfg.pipe)) << what << " ran";
        EXPECT_LE(rel_err(g, w), 2e-3) << what;
        ++ran;
      } catch (const Error& e) {
        EXPECT_FALSE(runs(cfg.pipe)) << what << ": " << e.what();
        EXPECT_NE(std::string(e.what()).find("where K's (pipe 4, 7, 9, 11, 12, 14 and 15: and V's; "
                                             "8, 9, 11, 12, 14 and 15: and Q's) strides have a "
                                             "tensor map"),
                  std::string::npos)
            << e.what();
        ++refused;
      }
    }
  }
  return {ran, refused};
}

// Where K has no tensor map (one K for every head) the space offers no TMA pipe.
TEST(AttentionCuda, TmaPipesDeclineWhereKHasNoTensorMap) {
  TT_REQUIRE_CUDA();
  TT_SKIP_UNLESS_WS_PIPES();
  EXPECT_EQ(force_tma_pipes_with_shared(true, [](int) { return false; }),
            (std::pair<size_t, size_t>{0, 28}));
}

// One V for every head with K mapped: the pipes that read Vt from the pre-pass (2, 3, 5, 8)
// run; those that transpose V in the kernel from V's own map (4, 7, 9), make Vt from V on
// its map's terms (11, 12) or read V so for its fp16 V (14, 15) are refused.
TEST(AttentionCuda, TmaPipesWhereVAloneHasNoTensorMap) {
  TT_REQUIRE_CUDA();
  TT_SKIP_UNLESS_WS_PIPES();
  EXPECT_EQ(force_tma_pipes_with_shared(false,
                                        [](int pipe) {
                                          return !at::transposes_v_in_kernel(pipe) &&
                                                 !at::makes_vt_ahead(pipe) && !at::halves_v(pipe);
                                        }),
            (std::pair<size_t, size_t>{14, 14}));
}

// ---- issue 19: the TMA pipes launched as the Vt pre-pass's programmatic dependent ----

// Calls back to back on one stream, the same shapes and new values of V: each call's Vt is
// the block the last one freed, still holding the last V; the kernel, started before its
// pre-pass ends (PDL), copies Vt only after waiting for that grid, so each output is its
// own problem's.
TEST(AttentionCuda, TmaPipesReadEachCallsOwnVt) {
  TT_REQUIRE_CUDA();
  TT_SKIP_UNLESS_WS_PIPES();
  const Device gpu = Device::cuda(0);
  PrecisionGuard guard(Precision::tf32);
  // Every pipe with a pre-pass at head dim 64 (pipes 4, 7 and 9 have none; pipe 11's and 12's
  // cover their first units' heads and zero the counts of the rest, in the same scratch).
  std::vector<at::AttnConfig> configs;
#define TT_X(E, WG, BN, ST, MB, PIPE)               \
  if (E == 64 && !at::transposes_v_in_kernel(PIPE)) \
    configs.push_back({at::Impl::kWgmma, 4 * WG, 4, BN, PIPE});
  TT_ATTN_WGMMA_TMA_VARIANTS(TT_X)
#undef TT_X
#define TT_X(E, WG, BN, ST, PIPE)                   \
  if (E == 64 && !at::transposes_v_in_kernel(PIPE)) \
    configs.push_back({at::Impl::kWgmma, 4 * WG, 4, BN, PIPE});
  TT_ATTN_WGMMA_PERSISTENT_VARIANTS(TT_X)
#undef TT_X
#define TT_X(E, WG, BN, ST) \
  if (E == 64) configs.push_back({at::Impl::kWgmma, 4 * WG, 4, BN, 12});
  TT_ATTN_WGMMA_QUAD_VARIANTS(TT_X)
#undef TT_X
#define TT_X(E, WG, BN, ST) \
  if (E == 64) configs.push_back({at::Impl::kWgmma, 4 * WG, 4, BN, 14});
  TT_ATTN_WGMMA_QUAD_PV16_VARIANTS(TT_X)
#undef TT_X
#define TT_X(E, WG, BN, ST, MB) \
  if (E == 64) configs.push_back({at::Impl::kWgmma, 4 * WG, 4, BN, 1});
  TT_ATTN_WGMMA_WS_VARIANTS(TT_X)
#undef TT_X
  const Tensor q = Tensor::randn({4, 16, 512, 64}, 1200);
  const Tensor k = Tensor::randn({4, 16, 512, 64}, 1201);
  const Tensor qg = q.to(gpu), kg = k.to(gpu);
  std::vector<Tensor> vs, vgs;
  for (uint64_t seed : {1202u, 1203u, 1204u}) {
    vs.push_back(Tensor::randn({4, 16, 512, 64}, seed));
    vgs.push_back(vs.back().to(gpu));
  }
  for (bool causal : {false, true}) {
    std::vector<std::vector<double>> want;
    for (const Tensor& v : vs) {
      want.push_back(float64_attention(q, k, v, Tensor(), causal).to_vector<double>());
    }
    for (const at::AttnConfig& cfg : configs) {
      autotune::ScopedConfigOverride force("attention", cfg.to_config());
      // Back to back: each call's scratch is freed for the next as it returns.
      std::vector<Tensor> outs;
      for (const Tensor& vg : vgs) {
        outs.push_back(ops::scaled_dot_product_attention(qg, kg, vg, Tensor(), 0.0, causal));
      }
      for (size_t i = 0; i < vs.size(); ++i) {
        EXPECT_LE(rel_err(outs[i].cpu().to_vector<double>(), want[i]), 2e-3)
            << cfg.to_config().str() << (causal ? " causal" : " full") << " call " << i;
      }
    }
  }
  EXPECT_EQ(configs.size(), 12u);
}

// ---- issue 19, eighteenth step: the persistent pipes (8, 9, 11 and 12) ----

// One CTA per SM walking many query tiles: more units than SMs (3 x 12 heads of 8 query
// tiles: 144 units of two), an odd tile count causal (the middle tile alone), L != S both
// ways, masks with a fully masked row, the heads of a [B, T, 3, H, E] projection read in
// place, a problem of fewer units than SMs (units of one tile), against float64. Pipe 11
// makes the Vt of every unit past a CTA's first: 256 heads of one unit each, and 32 heads
// of 6 units (a sixth of the keys each) over at least two rounds of the grid; causal at head
// dim 128 past its first two rounds (its pre-pass makes two there): 96 heads of 3 units on
// up to 132 SMs.
TEST(AttentionCuda, PersistentPipesWalkManyQueryTiles) {
  TT_REQUIRE_CUDA();
  TT_SKIP_UNLESS_WS_PIPES();
  const std::vector<HardCase> cases = {
      {3, 12, 1000, 1000, 64, false, 0, false},
      {3, 12, 1000, 1000, 64, true, 0, false},
      {2, 3, 640, 640, 64, true, 0, false},
      {1, 2, 300, 1100, 64, true, 0, false},
      {1, 2, 1100, 300, 64, true, 0, false},
      {2, 2, 700, 500, 64, false, 2, false},
      {1, 3, 333, 333, 64, false, 1, false},
      {2, 4, 520, 520, 64, true, 0, true},
      {1, 1, 1, 1, 64, false, 0, false},
      {1, 2, 130, 67, 64, true, 0, false},
      {16, 16, 256, 256, 64, false, 0, false},
      {2, 16, 1536, 1536, 64, true, 0, false},
      // Head dim 128 (pipes 8 and 11, 64- and 32-key tiles; Q's halves reloaded per query
      // tile): the same walks.
      {3, 12, 1000, 1000, 128, true, 0, false},
      {2, 3, 640, 640, 128, false, 0, false},
      {1, 2, 300, 1100, 128, true, 0, false},
      {2, 2, 700, 500, 128, false, 2, false},
      {2, 4, 520, 520, 128, true, 0, true},
      {1, 1, 1, 1, 128, false, 0, false},
      {1, 2, 130, 67, 128, false, 1, false},
      {16, 16, 256, 256, 128, true, 0, false},
      {1, 96, 600, 600, 128, true, 0, false},
  };
  std::vector<ForcedVariant> variants;
#define TT_X(E, WG, BN, ST, PIPE) \
  variants.push_back({E, Precision::tf32, {at::Impl::kWgmma, 4 * WG, 4, BN, PIPE}});
  TT_ATTN_WGMMA_PERSISTENT_VARIANTS(TT_X)
#undef TT_X
#define TT_X(E, WG, BN, ST) \
  variants.push_back({E, Precision::tf32, {at::Impl::kWgmma, 4 * WG, 4, BN, 12}});
  TT_ATTN_WGMMA_QUAD_VARIANTS(TT_X)
#undef TT_X
#define TT_X(E, WG, BN, ST) \
  variants.push_back({E, Precision::tf32, {at::Impl::kWgmma, 4 * WG, 4, BN, 14}});
  TT_ATTN_WGMMA_QUAD_PV16_VARIANTS(TT_X)
#undef TT_X
#define TT_X(E, WG, BN, ST) \
  variants.push_back({E, Precision::tf32, {at::Impl::kWgmma, 4 * WG, 4, BN, 15}});
  TT_ATTN_WGMMA_QUAD_CONV_VARIANTS(TT_X)
#undef TT_X
  // Pipes 12 and 11 first in each case: after pipe 8 their Vt scratch would likely be pipe
  // 8's block, already holding the whole Vt, and a unit reading Vt before it is made would
  // pass (expect_variants_match_float64 also fills their scratch with NaN first).
  std::stable_sort(
      variants.begin(), variants.end(),
      [](const ForcedVariant& x, const ForcedVariant& y) { return x.config.pipe > y.config.pipe; });
  EXPECT_EQ(expect_variants_match_float64(cases, variants, 2300), 6u * 12u + 7u * 9u);
}

// simt2 (the strict SGEMM-style flash kernel): every compiled variant, forced in turn,
// at head dims 32/64/128 too.
TEST(AttentionCuda, EverySimt2VariantMatchesFloat64) {
  TT_REQUIRE_CUDA();
  const std::vector<HardCase> cases = {
      {2, 3, 77, 77, 64, false, 0, false},   {1, 2, 130, 67, 64, true, 0, false},
      {1, 2, 67, 130, 64, true, 0, false},   {2, 2, 100, 200, 32, false, 1, false},
      {1, 3, 129, 129, 128, true, 0, false}, {2, 1, 65, 191, 128, false, 2, false},
      {2, 2, 70, 150, 64, false, 2, false},  {1, 1, 1, 1, 64, false, 0, false},
      {2, 4, 70, 70, 64, true, 0, true},     {1, 2, 333, 333, 32, false, 0, true},
      {1, 2, 150, 150, 128, false, 1, true}, {3, 12, 200, 200, 64, true, 0, false},
  };
  std::vector<ForcedVariant> variants;
#define TT_X(E, W, R, BN) variants.push_back({E, Precision::strict, {at::Impl::kSimt2, W, R, BN}});
  TT_ATTN_SIMT2_VARIANTS(TT_X)
#undef TT_X
  // four variants per head dim, each case once
  EXPECT_EQ(expect_variants_match_float64(cases, variants, 700), 4u * 12u);
}

// ---- issue 19, eleventh step: the fp16 split, many units and calls back to back (fa19j) ----

// Many of the pre-pass's units ((batch-head, 64-key tile)s; 40 heads: a whole group of 32
// of the causal order and a part one): full and causal, L != S both ways, boolean masks
// with a fully masked row, head dims 64 and 128, against float64.
TEST(AttentionCuda, F16SplitWalksManyUnits) {
  TT_REQUIRE_CUDA();
  TT_SKIP_UNLESS_F16SPLIT();
  const std::vector<HardCase> cases = {
      {1, 40, 200, 1100, 64, false, 2, false},
      {1, 40, 1100, 700, 64, true, 0, false},
      {1, 40, 300, 1100, 128, true, 0, false},
      {2, 20, 130, 900, 128, false, 2, false},
      // Pipe 16's causal walk with a last round of fewer units than CTAs, dealt tile by tile
      // (PersistentWalk's balanced tail), on 132 SMs: here 252 units, 120 left for the last
      // round, 240 tiles (24 CTAs take one, 108 fold two); the 1100-row case above: 200
      // units, 68 left, 122 tiles (one each, 10 CTAs idle).
      {1, 63, 1024, 1024, 64, true, 0, false},
  };
  std::vector<ForcedVariant> variants;
#define TT_X(E, WG, BN, ST, PIPE) \
  variants.push_back({E, Precision::accurate, {at::Impl::kWgmma, 4 * WG, 4, BN, PIPE}});
  TT_ATTN_WGMMA_F16SPLIT_VARIANTS(TT_X)
  TT_ATTN_WGMMA_F16SPLIT_PERSISTENT_VARIANTS(TT_X)
#undef TT_X
  // pipe 6 at both head dims, pipe 16 (head dim 64) at the three head-dim-64 cases.
  EXPECT_EQ(expect_variants_match_float64(cases, variants, 1990), 8u);
}

// Back to back on one stream, nothing synchronized in between: each call's scratch (the
// caching allocator hands the same block again) holds the last call's split; a call
// reads only its own K and V. Each output equals the same inputs' run alone, bit for bit
// (the kernels are deterministic), full and causal, head dims 64 and 128.
TEST(AttentionCuda, F16SplitBackToBackCallsReadTheirOwnSplit) {
  TT_REQUIRE_CUDA();
  TT_SKIP_UNLESS_F16SPLIT();
  const Device gpu = Device::cuda(0);
  PrecisionGuard guard(Precision::accurate);
  for (const auto& [E, pipe] : {std::pair<int64_t, int>{64, 6}, {128, 6}, {64, 16}}) {
    const autotune::ScopedConfigOverride force(
        "attention", at::AttnConfig{at::Impl::kWgmma, 8, 4, 64, pipe}.to_config());
    for (bool causal : {false, true}) {
      const Shape shape{2, 16, 512, E};
      const Tensor q = Tensor::randn(shape, 1995).to(gpu);
      std::vector<Tensor> ks, vs;
      for (uint64_t i = 0; i < 3; ++i) {
        ks.push_back(Tensor::randn(shape, 1996 + 2 * i).to(gpu));
        vs.push_back(Tensor::randn(shape, 1997 + 2 * i).to(gpu));
      }
      const auto run = [&](size_t i) {
        return ops::scaled_dot_product_attention(q, ks[i], vs[i], Tensor(), 0.0, causal);
      };
      std::vector<Tensor> chained;
      for (size_t i = 0; i < 3; ++i) chained.push_back(run(i));
      for (size_t i = 0; i < 3; ++i) {
        const Tensor alone = run(i).cpu();
        EXPECT_EQ(max_abs_diff(chained[i].cpu(), alone), 0.0)
            << "call " << i << " E" << E << " pipe " << pipe << (causal ? " causal" : " full");
      }
    }
  }
}
#endif

#if TT_CUDA
// Four contiguous [100, E] heads, L = S = 100.
ops::AttentionProblem contiguous_problem(int64_t E) {
  ops::AttentionProblem p;
  p.batch_rank = 1;
  p.batch[0] = 4;
  p.L = p.S = 100;
  p.E = p.Ev = E;
  for (ops::AttnStrides* st : {&p.q, &p.k, &p.v, &p.out}) {
    st->batch[0] = 100 * E;
    st->row = E;
    st->col = 1;
  }
  return p;
}

// B contiguous [T, E] heads, L = S = T.
ops::AttentionProblem heads_problem(int64_t B, int64_t T, int64_t E, bool causal) {
  ops::AttentionProblem p = contiguous_problem(E);
  p.batch[0] = B;
  p.L = p.S = T;
  p.causal = causal;
  for (ops::AttnStrides* st : {&p.q, &p.k, &p.v, &p.out}) st->batch[0] = T * E;
  return p;
}

// The family's spaces need no GPU: strict offers no tensor-core config, tf32 and
// accurate do, the tiled kernels need head dims 32/64/128 with unit column stride, and
// every default is a member of its space.
TEST(AttentionSpace, OffersWhatEachModePromises) {
  namespace at = tt::ops::cuda::attention;
  const ops::AttentionProblem p = contiguous_problem(64);
  std::vector<float> buf(4 * 6400 + 4);
  at::AttnLaunch a;
  a.q = a.k = a.v = buf.data();
  a.out = buf.data();
  const bool aligned = reinterpret_cast<uintptr_t>(buf.data()) % 16 == 0;
  EXPECT_EQ(at::tiled_eligible(p, a), aligned);
  for (Precision prec : {Precision::strict, Precision::tf32, Precision::accurate}) {
    const autotune::ParamSpace space = at::space(p, true, prec, tt::cuda::DeviceLimits{});
    std::string impls;
    for (const autotune::Config& c : space.enumerate()) impls += c.str() + ";";
    EXPECT_NE(impls.find("impl=simt"), std::string::npos) << impls;
    EXPECT_NE(impls.find("impl=generic"), std::string::npos) << impls;
    EXPECT_EQ(impls.find("impl=mma") != std::string::npos, prec != Precision::strict) << impls;
    EXPECT_NE(impls.find(space.default_config().str()), std::string::npos)
        << space.default_config().str();
  }
  EXPECT_EQ(at::problem_key(p, true, Precision::tf32),
            "b=4,l=100,s=100,e=64,ev=64,causal=0,mask=none,align=16B,precision=tf32");
  // A layout without K's or V's tensor map has a space of its own (no TMA pipe, or none
  // that reads V through its map): another key, so that neither shares the other's
  // cached space.
  {
    ops::AttentionProblem shared_k = p, shared_v = p;
    shared_k.batch_rank = shared_v.batch_rank = 2;
    shared_k.batch[0] = shared_v.batch[0] = 2;
    shared_k.batch[1] = shared_v.batch[1] = 2;
    for (ops::AttentionProblem* q : {&shared_k, &shared_v}) {
      for (ops::AttnStrides* st : {&q->q, &q->k, &q->v, &q->out}) {
        st->batch[0] = 2 * 100 * 64;
        st->batch[1] = 100 * 64;
      }
    }
    shared_k.k.batch[1] = 0;
    shared_v.v.batch[1] = 0;
    EXPECT_EQ(at::problem_key(shared_k, true, Precision::tf32),
              "b=4,l=100,s=100,e=64,ev=64,causal=0,mask=none,maps=none,align=16B,precision=tf32");
    EXPECT_EQ(at::problem_key(shared_v, true, Precision::tf32),
              "b=4,l=100,s=100,e=64,ev=64,causal=0,mask=none,maps=k,align=16B,precision=tf32");
  }
  // wgmma: tf32 only, head dims 64 and 128, compute capability 9.0 only.
  if (at::kWgmmaCompiled) {
    const auto offers_wgmma = [](const ops::AttentionProblem& prob, Precision prec,
                                 const tt::cuda::DeviceLimits& lim) {
      for (const autotune::Config& c : at::space(prob, true, prec, lim).enumerate()) {
        if (c.str().find("impl=wgmma") != std::string::npos) return true;
      }
      return false;
    };
    const tt::cuda::DeviceLimits hopper = tt::cuda::hopper_limits();
    EXPECT_TRUE(offers_wgmma(p, Precision::tf32, hopper));
    EXPECT_FALSE(offers_wgmma(p, Precision::strict, hopper));
    tt::cuda::DeviceLimits ampere = hopper;
    ampere.cc_major = 8;
    EXPECT_FALSE(offers_wgmma(p, Precision::tf32, ampere));
    ops::AttentionProblem e32 = p;
    e32.E = e32.Ev = 32;
    EXPECT_FALSE(offers_wgmma(e32, Precision::tf32, hopper));
    // pipe=1 is tf32 only; accurate takes pipe 0, and where K has a tensor map the TMA
    // pipeline (2) and its ping-pong (5) with two consumers and 64-key tiles.
    const auto accurate_wgmma = [&](const ops::AttentionProblem& prob) {
      std::string out;
      for (const autotune::Config& c :
           at::space(prob, true, Precision::accurate, hopper).enumerate()) {
        if (c.str().find("impl=wgmma") != std::string::npos) out += c.str() + ";";
      }
      return out;
    };
    // pipe 6 (the 2 x fp16 split) and 16 (its persistent form, where Q has a tensor map)
    // where offered (attention.h: kF16SplitOffered).
    const std::string f16 =
        at::kF16SplitOffered ? "impl=wgmma,warps=8,bn=64,pipe=6;impl=wgmma,warps=8,bn=64,pipe=16;"
                             : "";
    EXPECT_EQ(accurate_wgmma(p), at::kWgmmaPipe1Offered ? "impl=wgmma,warps=4,bn=64,pipe=0;"
                                                          "impl=wgmma,warps=8,bn=64,pipe=0;"
                                                          "impl=wgmma,warps=8,bn=64,pipe=2;"
                                                          "impl=wgmma,warps=8,bn=64,pipe=5;" +
                                                              f16
                                                        : "impl=wgmma,warps=4,bn=64,pipe=0;"
                                                          "impl=wgmma,warps=8,bn=64,pipe=0;")
        << accurate_wgmma(p);
    ops::AttentionProblem e128 = p;
    e128.E = e128.Ev = 128;
    std::string wgmma128;
    for (const autotune::Config& c : at::space(e128, true, Precision::tf32, hopper).enumerate()) {
      if (c.str().find("impl=wgmma") != std::string::npos) wgmma128 += c.str() + ";";
    }
    // Head dim 128: 64-key tiles only; pipe=1 (when offered) with one or two consumer
    // warpgroups (two with a ring of two stages), pipe=2 and 3 (TMA, multicast) likewise,
    // pipe=5 (ping-pong), 8 and 11 (persistent) with two; 8 and 11 on 32-key tiles too;
    // pipe=12, 14 and 15 (persistent, four consumers; 14 and 15 with P V on fp16) on 32-key
    // tiles.
    EXPECT_EQ(wgmma128, at::kWgmmaPipe1Offered
                            ? "impl=wgmma,warps=4,bn=64,pipe=0;impl=wgmma,warps=4,bn=64,pipe=1;"
                              "impl=wgmma,warps=4,bn=64,pipe=2;impl=wgmma,warps=4,bn=64,pipe=3;"
                              "impl=wgmma,warps=8,bn=64,pipe=0;impl=wgmma,warps=8,bn=64,pipe=1;"
                              "impl=wgmma,warps=8,bn=64,pipe=2;impl=wgmma,warps=8,bn=64,pipe=3;"
                              "impl=wgmma,warps=8,bn=64,pipe=5;impl=wgmma,warps=8,bn=64,pipe=8;"
                              "impl=wgmma,warps=8,bn=64,pipe=11;"
                              "impl=wgmma,warps=8,bn=32,pipe=8;impl=wgmma,warps=8,bn=32,pipe=11;"
                              "impl=wgmma,warps=16,bn=32,pipe=12;impl=wgmma,warps=16,bn=32,pipe=14;"
                              "impl=wgmma,warps=16,bn=32,pipe=15;"
                            : "impl=wgmma,warps=4,bn=64,pipe=0;impl=wgmma,warps=8,bn=64,pipe=0;")
        << wgmma128;
    // pipe 2 and 3 read K through a tensor map: not where a batch dim of K is broadcast
    // (stride 0) or K has four batch dims; the heads of a [B, T, 3, H, E] projection map.
    const auto pipes = [&](const ops::AttentionProblem& prob) {
      std::string out;
      for (const autotune::Config& c : at::space(prob, true, Precision::tf32, hopper).enumerate()) {
        for (const char* pipe :
             {"pipe=2", "pipe=3", "pipe=4", "pipe=5", "pipe=7", "pipe=8", "pipe=9", "pipe=11"}) {
          if (c.str().find(pipe) != std::string::npos) out += c.str() + ";";
        }
      }
      return out;
    };
    EXPECT_TRUE(at::kv_tma_mappable(p, p.k));
    EXPECT_EQ(pipes(p), at::kWgmmaPipe1Offered ? "impl=wgmma,warps=4,bn=64,pipe=2;"
                                                 "impl=wgmma,warps=4,bn=64,pipe=3;"
                                                 "impl=wgmma,warps=8,bn=64,pipe=2;"
                                                 "impl=wgmma,warps=8,bn=64,pipe=3;"
                                                 "impl=wgmma,warps=8,bn=64,pipe=4;"
                                                 "impl=wgmma,warps=8,bn=64,pipe=5;"
                                                 "impl=wgmma,warps=8,bn=64,pipe=7;"
                                                 "impl=wgmma,warps=8,bn=64,pipe=8;"
                                                 "impl=wgmma,warps=8,bn=64,pipe=9;"
                                                 "impl=wgmma,warps=8,bn=64,pipe=11;"
                                                 "impl=wgmma,warps=8,bn=128,pipe=5;"
                                               : "")
        << pipes(p);
    ops::AttentionProblem heads = p;  // [2, 100, 3, 2, 64] read in place
    heads.batch_rank = 2;
    heads.batch[0] = heads.batch[1] = 2;
    for (ops::AttnStrides* st : {&heads.q, &heads.k, &heads.v}) {
      st->batch[0] = 100 * 3 * 2 * 64;
      st->batch[1] = 64;
      st->row = 3 * 2 * 64;
    }
    EXPECT_TRUE(at::tma_mappable(heads, 4));
    EXPECT_TRUE(at::tma_mappable(heads, 9));
    EXPECT_TRUE(at::tma_mappable(heads, 11));
    // One Q for every head (a broadcast query): the persistent pipes (8, 9, 11) read Q by TMA
    // and decline; its key is apart.
    ops::AttentionProblem shared_q = heads;
    shared_q.q.batch[1] = 0;
    EXPECT_FALSE(at::q_tma_mappable(shared_q));
    EXPECT_TRUE(at::tma_mappable(shared_q, 7));
    EXPECT_FALSE(at::tma_mappable(shared_q, 8));
    EXPECT_FALSE(at::tma_mappable(shared_q, 9));
    EXPECT_FALSE(at::tma_mappable(shared_q, 11));
    EXPECT_EQ(pipes(shared_q).find("pipe=8"), std::string::npos) << pipes(shared_q);
    EXPECT_EQ(pipes(shared_q).find("pipe=9"), std::string::npos) << pipes(shared_q);
    // accurate's pipe 16 reads Q by TMA too: not offered there; pipe 6 is.
    EXPECT_EQ(accurate_wgmma(shared_q).find("pipe=16"), std::string::npos)
        << accurate_wgmma(shared_q);
    EXPECT_EQ(accurate_wgmma(shared_q).find("pipe=6;") != std::string::npos,
              at::kWgmmaPipe1Offered && at::kF16SplitOffered)
        << accurate_wgmma(shared_q);
    EXPECT_NE(at::problem_key(shared_q, true, Precision::tf32).find(",maps=kv,"),
              std::string::npos);
    ops::AttentionProblem shared_k = heads;  // one K for every head
    shared_k.k.batch[1] = 0;
    EXPECT_FALSE(at::kv_tma_mappable(shared_k, shared_k.k));
    EXPECT_EQ(pipes(shared_k), "");
    // pipes 6 and 16 map their pre-pass's buffers, not K: offered with a broadcast K too.
    EXPECT_EQ(accurate_wgmma(shared_k),
              "impl=wgmma,warps=4,bn=64,pipe=0;impl=wgmma,warps=8,bn=64,pipe=0;" + f16);
    ops::AttentionProblem shared_v = heads;  // one V for every head: pipes 4, 7, 9 and 11 decline
    shared_v.v.batch[1] = 0;
    EXPECT_TRUE(at::tma_mappable(shared_v, 3));
    EXPECT_TRUE(at::tma_mappable(shared_v, 5));
    EXPECT_FALSE(at::tma_mappable(shared_v, 4));
    EXPECT_FALSE(at::tma_mappable(shared_v, 7));
    EXPECT_FALSE(at::tma_mappable(shared_v, 9));
    EXPECT_FALSE(at::tma_mappable(shared_v, 11));
    EXPECT_TRUE(at::tma_mappable(shared_v, 8));
    ops::AttentionProblem rank4 = p;
    rank4.batch_rank = 4;
    EXPECT_FALSE(at::kv_tma_mappable(rank4, rank4.k));
  }
  ops::AttentionProblem odd = p;
  odd.E = odd.Ev = 40;
  EXPECT_FALSE(at::tiled_eligible(odd, a));
  ops::AttentionProblem strided = p;
  strided.k.col = 2;
  EXPECT_FALSE(at::tiled_eligible(strided, a));
  const autotune::ParamSpace generic = at::space(odd, false, Precision::tf32, {});
  for (const autotune::Config& c : generic.enumerate()) {
    EXPECT_NE(c.str().find("impl=generic"), std::string::npos) << c.str();
  }
}

// ---- issue 19, twenty-fourth step: the four consumers with P V on fp16 (pipe 14) as tf32's
// default ----

// On an sm_90 device tf32's default at head dims 64 and 128 takes pipe 14 from 512 query rows
// where there are 128 or more 256-row query tiles, and pipe 11 elsewhere
// (docs/performance.md: where pipe 14 leads); of those, pipe 15 (V converted per stage) where a
// head has few query tiles: at head dim 64 up to 4 full and 8 causal, at 128 up to 4 causal
// (docs/performance.md, twenty-seventh step).
TEST(AttentionSpace, Tf32DefaultTakesFp16PvWhereItLeads) {
  namespace at = tt::ops::cuda::attention;
  if (!at::kWgmmaCompiled || !at::kWgmmaPipe1Offered) {
    GTEST_SKIP() << "this build has no sm_90a TMA pipes";
  }
  const auto default_of = [](int64_t B, int64_t T, int64_t E, bool causal) {
    return at::space(heads_problem(B, T, E, causal), true, Precision::tf32,
                     tt::cuda::hopper_limits())
        .default_config()
        .str();
  };
  const std::string quad = "impl=wgmma,warps=16,bn=64,pipe=14";
  const std::string conv = "impl=wgmma,warps=16,bn=64,pipe=15";
  EXPECT_EQ(default_of(128, 1024, 64, false), conv);
  EXPECT_EQ(default_of(128, 1024, 64, true), conv);
  EXPECT_EQ(default_of(32, 4096, 64, false), quad);
  EXPECT_EQ(default_of(32, 4096, 64, true), quad);
  EXPECT_EQ(default_of(64, 2048, 64, true), conv);
  EXPECT_EQ(default_of(64, 2048, 64, false), quad);
  EXPECT_EQ(default_of(16, 2048, 64, false), quad);  // 128 query tiles
  EXPECT_EQ(default_of(256, 512, 64, true), conv);
  EXPECT_EQ(default_of(512, 256, 64, false), "impl=wgmma,warps=8,bn=64,pipe=11");  // L < 512
  EXPECT_EQ(default_of(16, 1024, 64, false), "impl=wgmma,warps=8,bn=64,pipe=11");  // 64 tiles
  EXPECT_EQ(default_of(128, 1024, 128, false), "impl=wgmma,warps=16,bn=32,pipe=14");
  EXPECT_EQ(default_of(128, 1024, 128, true), "impl=wgmma,warps=16,bn=32,pipe=15");
  EXPECT_EQ(default_of(32, 2048, 128, true), "impl=wgmma,warps=16,bn=32,pipe=14");
  EXPECT_EQ(default_of(16, 1024, 128, true), "impl=wgmma,warps=8,bn=32,pipe=11");  // 64 tiles
}

// accurate at head dim 64 takes the 2 x fp16 split's persistent form (pipe 16) where Q has a
// tensor map, causal or up to 1024 query rows (docs/performance.md, thirtieth step), else
// pipe 6; head dim 128 keeps pipe 6.
TEST(AttentionSpace, AccurateDefaultTakesThePersistentSplitWhereItLeads) {
  namespace at = tt::ops::cuda::attention;
  if (!at::kWgmmaCompiled || !at::kWgmmaPipe1Offered || !at::kF16SplitOffered) {
    GTEST_SKIP() << "this build has no sm_90a fp16-split pipes";
  }
  const auto default_of = [](const ops::AttentionProblem& p) {
    return at::space(p, true, Precision::accurate, tt::cuda::hopper_limits())
        .default_config()
        .str();
  };
  const std::string p16 = "impl=wgmma,warps=8,bn=64,pipe=16";
  const std::string p6 = "impl=wgmma,warps=8,bn=64,pipe=6";
  EXPECT_EQ(default_of(heads_problem(128, 1024, 64, true)), p16);
  EXPECT_EQ(default_of(heads_problem(128, 1024, 64, false)), p16);
  EXPECT_EQ(default_of(heads_problem(32, 4096, 64, true)), p16);
  EXPECT_EQ(default_of(heads_problem(32, 4096, 64, false)), p6);
  EXPECT_EQ(default_of(heads_problem(128, 1024, 128, true)), p6);
  // One Q for every head: no map for Q, pipe 6.
  ops::AttentionProblem shared_q = heads_problem(128, 1024, 64, true);
  shared_q.batch_rank = 2;
  shared_q.batch[0] = 8;
  shared_q.batch[1] = 16;
  for (ops::AttnStrides* st : {&shared_q.q, &shared_q.k, &shared_q.v, &shared_q.out}) {
    st->batch[0] = 16 * 1024 * 64;
    st->batch[1] = 1024 * 64;
  }
  shared_q.q.batch[1] = 0;
  EXPECT_EQ(default_of(shared_q), p6);
}

// ---- issue 19, twenty-seventh step: pipe 15's V16 written over V's raw tile in place ----

// For each of pipe 15's tiles (64 keys at head dim 64, 32 at 128): the chunks fill the tile's
// first BN * E * 2 bytes exactly once, 16-byte aligned, and every byte a batch of 4 rows writes
// lies on raw rows (E floats each) that this batch or an earlier one has read, so the in-place
// conversion never overwrites a row before it is read.
template <int E, int BN>
void expect_v16_in_place_safe() {
  namespace at = tt::ops::cuda::attention;
  std::vector<int> owner(BN * E * 2 / 16, -1);
  for (int r = 0; r < BN; ++r) {
    for (int c = 0; c < E / 8; ++c) {
      const int off = at::v16_chunk_offset<E>(r, c);
      ASSERT_EQ(off % 16, 0) << "E" << E << " row " << r << " chunk " << c;
      ASSERT_GE(off, 0);
      ASSERT_LT(off, BN * E * 2) << "E" << E << " row " << r << " chunk " << c;
      EXPECT_EQ(owner[off / 16], -1) << "E" << E << " offset " << off << " written twice";
      owner[off / 16] = r;
      const int batch_end = (r / 4) * 4 + 3;  // the last row read before this batch writes
      EXPECT_LE((off + 15) / (E * 4), batch_end)
          << "E" << E << " row " << r << " chunk " << c << " lands on a raw row not yet read";
    }
  }
  EXPECT_EQ(std::count(owner.begin(), owner.end(), -1), 0) << "E" << E;
  // The descriptor's terms: rows 128 bytes apart within a group, groups kV16GroupBytes apart,
  // a panel 1024 bytes into its group (chunk 0 of a row sits at its swizzle's place).
  EXPECT_EQ(at::v16_chunk_offset<E>(1, 1), 128);
  EXPECT_EQ(at::v16_chunk_offset<E>(8, 0), static_cast<int>(at::kV16GroupBytes<E>));
  if (E == 128) {
    EXPECT_EQ(at::v16_chunk_offset<E>(0, 8), 1024);
  }
}

TEST(AttentionLayout, Pv16InPlaceWritesLandOnRowsAlreadyRead) {
  expect_v16_in_place_safe<64, 64>();
  expect_v16_in_place_safe<128, 32>();
}

// ---- issue 19, tenth step (fa19i): accurate at head dim 128 ----

// On an sm_90 device accurate at head dim 128 offers the 2 x fp16 split (pipe 6, two
// consumers, 64-key tiles) and no other wgmma config (3xTF32's hi/lo tiles pass the shared
// memory there); its default is pipe 6 or simt2 (attention.h: kF16SplitDefaultE128).
TEST(AttentionSpace, AccurateAtHeadDim128OffersTheF16Split) {
  namespace at = tt::ops::cuda::attention;
  if (!at::kWgmmaCompiled) GTEST_SKIP() << "this build has no sm_90a code";
  const ops::AttentionProblem p = contiguous_problem(128);
  const autotune::ParamSpace space =
      at::space(p, true, Precision::accurate, tt::cuda::hopper_limits());
  std::string wgmma;
  for (const autotune::Config& c : space.enumerate()) {
    if (c.str().find("impl=wgmma") != std::string::npos) wgmma += c.str() + ";";
  }
  const bool offered = at::kWgmmaPipe1Offered && at::kF16SplitOffered;
  EXPECT_EQ(wgmma, offered ? "impl=wgmma,warps=8,bn=64,pipe=6;" : "") << wgmma;
  const std::string def = space.default_config().str();
  EXPECT_NE(def.find(offered && at::kF16SplitDefaultE128 ? "impl=wgmma" : "impl=simt2"),
            std::string::npos)
      << def;
  // Without the device (the portable space) nothing wgmma is the default.
  EXPECT_EQ(at::space(p, true, Precision::accurate, {}).default_config().str().find("impl=wgmma"),
            std::string::npos);
}
#endif

}  // namespace
}  // namespace tt::test
