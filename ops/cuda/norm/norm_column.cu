// Launchers of batch norm over columns (the batch_norm op and fused groups ending in one):
// column statistics, finalize, eval affine and the channel-affine pass.
#include <climits>

#include "core/cuda/check.h"
#include "core/error.h"
#include "ops/cuda/norm/column_kernels.cuh"
#include "ops/cuda/norm/norm_passes.h"
#include "ops/cuda/norm/norm_variants.h"

namespace tt::ops::cuda::norm {
namespace {

constexpr int kFinalizeThreads = 256;

unsigned blocks_for(int64_t n, int64_t per_block) {
  return static_cast<unsigned>((n + per_block - 1) / per_block);
}

template <int kThreads, int kVec, int kItems>
void launch_affine_variant(const float* x, float* out, const float* affine, int64_t total,
                           int64_t channels, int64_t inner, cudaStream_t stream) {
  const unsigned blocks = blocks_for(total, int64_t(kThreads) * kVec * kItems);
  // 32-bit indices when even the index one block past the end fits.
  if (total + int64_t(kThreads) * kVec * kItems <= int64_t(UINT_MAX)) {
    channel_affine_kernel<kThreads, kVec, kItems, uint32_t><<<blocks, kThreads, 0, stream>>>(
        x, out, affine, static_cast<uint32_t>(total), static_cast<uint32_t>(channels),
        static_cast<uint32_t>(inner));
  } else {
    channel_affine_kernel<kThreads, kVec, kItems, uint64_t><<<blocks, kThreads, 0, stream>>>(
        x, out, affine, static_cast<uint64_t>(total), static_cast<uint64_t>(channels),
        static_cast<uint64_t>(inner));
  }
  TT_CUDA_CHECK_LAUNCH();
}

}  // namespace

void launch_column_stats(const ColumnStatsConfig& cfg, const float* Y, int64_t rows, int64_t cols,
                         float* part_mean, float* part_m2, cudaStream_t stream) {
  const ColumnProblem p{rows, cols, vec_align({Y})};
  TT_CHECK(vec_align({Y}) >= cfg.vec,
           "column stats: config {} loads {} floats at a time but Y is only aligned to {}",
           cfg.str(), cfg.vec, vec_align({Y}));
  TT_CHECK(valid(cfg, p), "column stats: config {} is not valid for [{}, {}]", cfg.str(), rows,
           cols);
  TT_CHECK(Y && part_mean && part_m2, "column stats: Y, part_mean and part_m2 must all be given");
  const dim3 grid(static_cast<unsigned>(column_stats_parts(cfg, rows)),
                  blocks_for(cols, int64_t(cfg.col_threads) * cfg.vec));
#define TT_NORM_X(threads, col_threads, vec, items, chunk_rows)                        \
  if (cfg == ColumnStatsConfig{threads, col_threads, vec, items, chunk_rows}) {        \
    column_stats_kernel<threads, col_threads, vec, items>                              \
        <<<grid, threads, 0, stream>>>(Y, rows, cols, chunk_rows, part_mean, part_m2); \
    TT_CUDA_CHECK_LAUNCH();                                                            \
    return;                                                                            \
  }
  TT_NORM_COLUMN_STATS_VARIANTS(TT_NORM_X)
#undef TT_NORM_X
  TT_FAIL("column stats: config {} is not a compiled variant", cfg.str());
}

void launch_batch_norm_finalize(const float* part_mean, const float* part_m2, int64_t parts,
                                int64_t part_count, int64_t total_count, int64_t cols,
                                const float* scale, const float* gamma, const float* beta,
                                float* running_mean, float* running_var, float momentum, float eps,
                                float* affine, cudaStream_t stream) {
  TT_CHECK(parts >= 1 && part_count >= 1 && total_count > (parts - 1) * part_count &&
               total_count <= parts * part_count,
           "batch norm finalize: {} partials of {} samples cannot hold {} samples", parts,
           part_count, total_count);
  if (cols == 0) return;
  batch_norm_finalize_kernel<<<blocks_for(cols, kFinalizeThreads), kFinalizeThreads, 0, stream>>>(
      part_mean, part_m2, parts, part_count, total_count, cols, scale, gamma, beta, running_mean,
      running_var, momentum, eps, affine);
  TT_CUDA_CHECK_LAUNCH();
}

void launch_batch_norm_eval_affine(int64_t cols, const float* scale, const float* gamma,
                                   const float* beta, const float* running_mean,
                                   const float* running_var, float eps, float* affine,
                                   cudaStream_t stream) {
  TT_CHECK(running_mean && running_var,
           "batch norm eval: running_mean and running_var must be given");
  if (cols == 0) return;
  batch_norm_eval_affine_kernel<<<blocks_for(cols, kFinalizeThreads), kFinalizeThreads, 0,
                                  stream>>>(cols, scale, gamma, beta, running_mean, running_var,
                                            eps, affine);
  TT_CUDA_CHECK_LAUNCH();
}

void launch_channel_affine(const AffineConfig& cfg, const float* x, float* out, const float* affine,
                           int64_t total, int64_t channels, int64_t inner, cudaStream_t stream) {
  const AffineProblem p{total, channels, inner, vec_align({x, out})};
  TT_CHECK(vec_align({x, out}) >= cfg.vec,
           "channel affine: config {} moves {} floats at a time but x or out is only aligned "
           "to {}",
           cfg.str(), cfg.vec, vec_align({x, out}));
  TT_CHECK(valid(cfg, p),
           "channel affine: config {} is not valid for {} floats of {} channels x {}", cfg.str(),
           total, channels, inner);
  TT_CHECK(total % (channels * inner) == 0,
           "channel affine: {} floats are not a whole number of {} channels x {}", total, channels,
           inner);
  if (inner == 1 && cfg.vec > 1)
    TT_CHECK(vec_align({affine}) >= cfg.vec,
             "channel affine: config {} needs the affine table aligned to {} floats", cfg.str(),
             cfg.vec);
  if (total == 0) return;
#define TT_NORM_X(threads, vec, items)                                                        \
  if (cfg == AffineConfig{threads, vec, items})                                               \
    return launch_affine_variant<threads, vec, items>(x, out, affine, total, channels, inner, \
                                                      stream);
  TT_NORM_AFFINE_VARIANTS(TT_NORM_X)
#undef TT_NORM_X
  TT_FAIL("channel affine: config {} is not a compiled variant", cfg.str());
}

}  // namespace tt::ops::cuda::norm
