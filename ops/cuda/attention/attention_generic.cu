// The generic variants (attention_variants.h) and both launchers.
#include <algorithm>

#include "core/cuda/check.h"
#include "core/error.h"
#include "ops/cuda/attention/attention.h"
#include "ops/cuda/attention/attention_kernels.cuh"
#include "ops/cuda/attention/attention_variants.h"

namespace tt::ops::cuda::attention {
namespace {

KernelArgs args_of(const AttentionProblem& p, const AttnLaunch& a, float scale) {
  return {p, a.q, a.k, a.v, a.mask, a.out, scale};
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

void launch_generic(const AttnConfig& c, const AttentionProblem& p, const AttnLaunch& a,
                    cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>(ceil_div(p.L, int64_t{c.warps} * c.rows)),
                  static_cast<unsigned>(p.batch_count()),
                  static_cast<unsigned>(ceil_div(p.Ev, kGenericCols)));
  const size_t smem = static_cast<size_t>(smem_bytes(c, p));
  const KernelArgs args = args_of(p, a, static_cast<float>(p.scale));
#define TT_X(W, R)                                                                   \
  if (c.warps == W && c.rows == R) {                                                 \
    launch_with_smem(attention_generic_kernel<R>, grid, W * 32, smem, stream, args); \
    return;                                                                          \
  }
  TT_ATTN_GENERIC_VARIANTS(TT_X)
#undef TT_X
  TT_FAIL("attention: no generic variant with warps={} rows={}", c.warps, c.rows);
}

void launch_mma(const AttnConfig& c, const AttentionProblem& p, const AttnLaunch& a,
                cudaStream_t stream) {
  const bool accurate = a.precision == Precision::accurate;
  // tf32 keeps the scores in base 2 (exp2 is one MUFU op); accurate stays in base e
  // (expf), so the scale is not rounded twice.
  const double scale = accurate ? p.scale : p.scale * 1.4426950408889634;
  const KernelArgs args = args_of(p, a, static_cast<float>(scale));
  const dim3 grid(static_cast<unsigned>(ceil_div(p.L, int64_t{16} * c.warps)),
                  static_cast<unsigned>(p.batch_count()));
  const size_t smem = static_cast<size_t>(smem_bytes(c, p));
  bool launched = false;
  switch (p.E) {
    case 32:
      launched = launch_mma_e32(c.warps, c.block_n, accurate, args, grid, smem, stream);
      break;
    case 64:
      launched = launch_mma_e64(c.warps, c.block_n, accurate, args, grid, smem, stream);
      break;
    case 128:
      launched = launch_mma_e128(c.warps, c.block_n, accurate, args, grid, smem, stream);
      break;
    default:
      break;
  }
  TT_CHECK(launched, "attention: no mma variant for head dim {} with warps={} bn={}", p.E, c.warps,
           c.block_n);
}

}  // namespace tt::ops::cuda::attention
