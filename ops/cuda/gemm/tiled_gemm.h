// Launcher of our own tiled SIMT GEMM (tiled_gemm.cuh): C[M,N] = X[M,K] W[N,K]^T with
// an epilogue (epilogue.h), for any M, N, K >= 0. The config must be one of
// own_variants(); when X, W or K do not allow its vector width, the launcher runs the
// same-width-1 fallback instead (documented, never silent about correctness).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "ops/cuda/gemm/epilogue.h"
#include "ops/cuda/gemm/gemm_config.h"

namespace tt::ops::cuda::gemm {

struct GemmArgs {
  const float* x = nullptr;  // [M, K]
  const float* w = nullptr;  // [N, K]
  float* c = nullptr;        // [M, N]
  int64_t m = 0, n = 0, k = 0;
};

// Whether the own config can apply the epilogue (kGroupNorm needs whole groups of at
// most a quarter tile: BN % group_size == 0, BN / group_size <= 4, group_size % 4 == 0).
bool own_epilogue_valid(const GemmConfig& cfg, const GemmProblem& p, const Epilogue& e);

// Number of column-statistics partials the config writes (ceil(M / BM)).
int64_t own_column_stat_parts(const GemmConfig& cfg, int64_t m);

// Throws tt::Error for a config that is not compiled or an epilogue it cannot apply.
void launch_tiled_gemm(const GemmConfig& cfg, const GemmArgs& a, const Epilogue& e,
                       cudaStream_t stream);

namespace detail {
// One per epilogue kind (tiled_gemm_<kind>.cu): launches variant `index` of
// TT_GEMM_OWN_VARIANTS.
void launch_pointwise_variant(int index, const GemmArgs& a, const Epilogue& e, cudaStream_t stream);
void launch_group_norm_variant(int index, const GemmArgs& a, const Epilogue& e,
                               cudaStream_t stream);
void launch_column_stats_variant(int index, const GemmArgs& a, const Epilogue& e,
                                 cudaStream_t stream);
}  // namespace detail

}  // namespace tt::ops::cuda::gemm
