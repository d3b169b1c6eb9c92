// The mma variants of head dim 64 (attention_variants.h), tf32 and accurate.
#include "core/cuda/check.h"
#include "ops/cuda/attention/attention_kernels.cuh"
#include "ops/cuda/attention/attention_variants.h"

namespace tt::ops::cuda::attention {

bool launch_mma_e64(int warps, int block_n, bool accurate, const KernelArgs& a, dim3 grid,
                    size_t smem, cudaStream_t stream) {
  constexpr int E = 64;
  TT_ATTN_MMA_VARIANTS_E(TT_ATTN_LAUNCH_MMA_CASE, 64)
  return false;
}

}  // namespace tt::ops::cuda::attention
