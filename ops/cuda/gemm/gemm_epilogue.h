// What the GEMM does to each output element before (or instead of) a separate
// memory pass. The pointwise part is common to every epilogue:
//   v = act(acc + bias[n]) + post_bias[n]
//   v = (v * pre[n] - shift[n]) * mul[n] + add[n]   when `affine` = [pre|shift|mul|add]
// (the per-column affine of norm::launch_channel_affine, in the same rounding order).
// Two epilogues then need the whole tile, so they only exist in our own kernel:
//   kGroupNorm:    GroupNorm over contiguous groups of `group_size` channels of each
//                  row, which must lie inside one CTA tile (gemm_swish_bias_group_norm in one
//                  kernel);
//   kColumnStats:  store v and, per CTA row band, each column's mean and M2 over the
//                  band's rows into part_mean/part_m2 [ceil(M / BM)][N], the partials
//                  that norm::launch_batch_norm_finalize merges (batch norm training).
#pragma once

#include <cstdint>

namespace tt::ops::cuda::gemm {

enum class Activation : int { kNone = 0, kRelu = 1, kSwish = 2 };

enum class EpilogueKind : int { kPointwise = 0, kGroupNorm = 1, kColumnStats = 2 };

struct EpilogueParams {
  EpilogueKind kind = EpilogueKind::kPointwise;
  const float* bias = nullptr;  // [N] or nullptr
  Activation act = Activation::kNone;
  const float* post_bias = nullptr;  // [N] or nullptr, added after the activation
  const float* affine = nullptr;     // [4 * N] or nullptr

  // kGroupNorm
  int64_t group_size = 0;        // channels per group
  const float* gamma = nullptr;  // [N] or nullptr (= 1)
  const float* beta = nullptr;   // [N] or nullptr (= 0)
  float eps = 1e-5f;

  // kColumnStats
  float* part_mean = nullptr;
  float* part_m2 = nullptr;
};

}  // namespace tt::ops::cuda::gemm
