// The simt and simt2 variants (attention_variants.h): the strict flash kernels.
#include "core/cuda/check.h"
#include "core/error.h"
#include "ops/cuda/attention/attention.h"
#include "ops/cuda/attention/attention_kernels.cuh"
#include "ops/cuda/attention/attention_simt2.cuh"
#include "ops/cuda/attention/attention_variants.h"

namespace tt::ops::cuda::attention {

void launch_simt(const AttnConfig& c, const AttentionProblem& p, const AttnLaunch& a,
                 cudaStream_t stream) {
  const KernelArgs args{p, a.q, a.k, a.v, a.mask, a.out, static_cast<float>(p.scale)};
  const int64_t bm = 16 * c.rows;
  const dim3 grid(static_cast<unsigned>((p.L + bm - 1) / bm),
                  static_cast<unsigned>(p.batch_count()));
  const size_t smem = static_cast<size_t>(smem_bytes(c, p));
#define TT_X(E_, R_)                                                                \
  if (p.E == E_ && c.rows == R_) {                                                  \
    launch_with_smem(attention_simt_kernel<E_, R_>, grid, 256, smem, stream, args); \
    return;                                                                         \
  }
  TT_ATTN_SIMT_VARIANTS(TT_X)
#undef TT_X
  TT_FAIL("attention: no simt variant for head dim {} with rows={}", p.E, c.rows);
}

void launch_simt2(const AttnConfig& c, const AttentionProblem& p, const AttnLaunch& a,
                  cudaStream_t stream) {
  const KernelArgs args{p, a.q, a.k, a.v, a.mask, a.out, static_cast<float>(p.scale)};
  const dim3 grid = query_tile_grid(p, int64_t{2} * c.warps * c.rows);
  const size_t smem = static_cast<size_t>(smem_bytes(c, p));
  const bool masked = a.mask != nullptr;
#define TT_X(E_, W_, R_, BN_)                                                    \
  if (p.E == E_ && c.warps == W_ && c.rows == R_ && c.block_n == BN_) {          \
    const auto kernel = masked ? attention_simt2_kernel<E_, W_, R_, BN_, true>   \
                               : attention_simt2_kernel<E_, W_, R_, BN_, false>; \
    launch_with_smem(kernel, grid, 32 * W_, smem, stream, args);                 \
    return;                                                                      \
  }
  TT_ATTN_SIMT2_VARIANTS(TT_X)
#undef TT_X
  TT_FAIL("attention: no simt2 variant for head dim {} with warps={}, rows={}, bn={}", p.E, c.warps,
          c.rows, c.block_n);
}

}  // namespace tt::ops::cuda::attention
