// scaled_dot_product_attention after the front end's checks (ops/attention_ops.cpp):
// the shapes, every operand's strides over the broadcast batch and its two matrix
// dims, the mask's kind and the scale, in one plain struct that the CPU reference
// (ops/cpu/attention.cpp) and the CUDA family (ops/cuda/attention) both read. The
// operands are read in place through these strides (stride 0 where a batch dim or
// a mask dim is broadcast), so the head split of a [B, T, 3, H, E] projection costs
// no copy. Batch dims whose strides chain for every operand are merged; at most
// kAttnMaxBatch remain. Private to ops/.
#pragma once

#include <cstdint>

namespace tt::ops {

inline constexpr int kAttnMaxBatch = 4;

// Strides in elements of one operand: per batch dim, then its row (L or S) and
// column (E, Ev or S) dims.
struct AttnStrides {
  int64_t batch[kAttnMaxBatch] = {0, 0, 0, 0};
  int64_t row = 0;
  int64_t col = 0;
};

enum class AttnMask : int {
  kNone = 0,
  kAdditive = 1,  // a float added to the scaled score
  kBoolean = 2,   // one byte, nonzero = attend (false: the score is -inf)
};

struct AttentionProblem {
  int batch_rank = 0;                           // merged batch dims (0: a single matrix)
  int64_t batch[kAttnMaxBatch] = {1, 1, 1, 1};  // sizes; unused dims 1
  int64_t L = 0;                                // queries
  int64_t S = 0;                                // keys and values
  int64_t E = 0;                                // head dim of q and k
  int64_t Ev = 0;                               // head dim of v and the output
  AttnStrides q, k, v, mask, out;
  AttnMask mask_kind = AttnMask::kNone;
  // Top-left aligned, as PyTorch: query i attends key j <= i (tril, diagonal 0, over
  // [L, S]) whatever L and S are.
  bool causal = false;
  double scale = 1.0;

  int64_t batch_count() const {
    int64_t n = 1;
    for (int d = 0; d < batch_rank; ++d) n *= batch[d];
    return n;
  }
  // The element offset of batch index `b` (row-major over the merged batch dims).
  static int64_t batch_offset(const AttentionProblem& p, const AttnStrides& s, int64_t b) {
    int64_t off = 0;
    for (int d = p.batch_rank - 1; d >= 0; --d) {
      off += (b % p.batch[d]) * s.batch[d];
      b /= p.batch[d];
    }
    return off;
  }
};

}  // namespace tt::ops
