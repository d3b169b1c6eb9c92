// Our own Hopper (sm_90a) tensor-core GEMM family: C[M,N] = X[M,K] W[N,K]^T (+ epilogue),
// float32 in and out, X and W row-major with K contiguous (a Linear layer's layout).
// Operands are staged by TMA into 128B-swizzled shared memory through an mbarrier
// pipeline, a producer warpgroup feeds consumer warpgroups that issue wgmma (tf32).
// Two precision modes:
//   tf32      one tensor-core product per k-block, float32 accumulation; the TMA rounds
//             both operands to nearest TF32 (10-bit mantissas) as it loads them.
//   accurate  split TF32 ("3xTF32"): each operand is split in the kernel into hi and
//             lo (X's tile in registers: hi = tf32_rna(x), lo = x - hi; W's tile in
//             shared memory: hi = the raw value, which the tensor core truncates,
//             lo = tf32_rna(w - trunc(w))), three products per k-step. The two
//             corrections (hi*lo + lo*hi) have their own tensor-core sum over the
//             tile; hi*hi's sum is added into a separate IEEE float32 accumulator every
//             `promote` elements of K. Each wgmma truncates the sum it writes, so this
//             keeps the result's truncations to one per k-step: below SGEMM's error against
//             float64 at the seed shapes (docs/performance.md).
// The compile-time axes (A from registers, tile, stages, warpgroups, ping-pong, cluster) come
// from the variant table tc_gemm_variants.h; the run-time axes (promotion interval,
// raster group and order, persistence, epilogue stores: registers or TMA) are plain fields.
// This header is host-only: callers need no sm_90a compiler flags.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ops/cuda/gemm/epilogue.h"

namespace tt::ops::cuda::gemm::sm90 {

enum class TcMode : int { tf32 = 0, accurate = 1 };
const char* to_string(TcMode mode);  // "tf32", "accurate"

// One variant of the family. The fields up to `cluster` select a compiled kernel (they
// must match a row of the variant table); the rest are free at run time.
struct TcConfig {
  TcMode mode = TcMode::tf32;
  bool a_regs = false;    // A to the tensor cores from registers (accurate: always, split
                          // there)
  int bm = 128;           // CTA tile rows (split evenly over the consumer warpgroups)
  int bn = 256;           // CTA tile columns (the wgmma N)
  int bk = 32;            // k-block in floats (32 = one 128-byte swizzle row)
  int stages = 4;         // shared-memory pipeline depth
  int consumers = 2;      // consumer warpgroups (a producer warpgroup comes on top)
  bool pingpong = false;  // consumers own alternate tiles (epilogue overlaps products)
  int cluster = 1;        // CTAs per cluster along M (1, 2, 4): they share W's tiles, each
                          // loading 1 / cluster of them and multicasting it to the others
  // Run-time fields.
  int promote = 0;         // accurate: promote every this many elements of K (a multiple
                           // of bk); tf32: 0
  int group_m = 8;         // raster: CTAs walk groups of this many tile rows (raster_n:
                           // tile columns) for L2 reuse
  bool raster_n = false;   // groups cut the tile columns and walk across N first
  bool persistent = true;  // one CTA per SM looping over tiles (epilogue overlaps loads)
  int vec = 4;             // epilogue stores: 4: 128-byte rows by the TMA through shared memory
                           // (where N % 4 == 0 and C is 16-byte aligned, else as 2); 1 or 2 floats
                           // per thread from registers (2 where N is even)
};

std::string to_string(const TcConfig& cfg);  // "accurate bm=128 bn=128 bk=32 ..."

// Every compiled variant (the table, run-time fields at their defaults), and the default
// for a mode.
const std::vector<TcConfig>& tc_gemm_variants();
TcConfig tc_gemm_default(TcMode mode);

// The run-time axes' values that the tuner multiplies the compiled rows with, and the
// whole space of a mode (compiled rows x run-time axes, every entry runnable).
struct TcRuntimeAxes {
  std::vector<int> promote;  // accurate only
  std::vector<int> group_m;
  std::vector<bool> raster_n;
  std::vector<bool> persistent;
  std::vector<int> vec;
};
const TcRuntimeAxes& tc_gemm_runtime_axes();
std::vector<TcConfig> tc_gemm_space(TcMode mode);

// Whether two configs run the same compiled kernel (equal compile-time fields).
bool tc_same_kernel(const TcConfig& a, const TcConfig& b);

// Empty if `cfg` is runnable (a compiled row, run-time fields in range), else why not
// as a sentence fragment.
std::string tc_config_invalid_reason(const TcConfig& cfg);

// Whether the current device can run the family (compute capability 9.0, sm_90a code
// present). Callers fall back to the strict path when it cannot.
bool tc_gemm_device_supported();

// Whether a problem is within the TMA's rules: K a multiple of 4 (row pitch a
// multiple of 16 bytes), X and W 16-byte aligned, M, N, K >= 1. Empty string if so,
// else the reason as a sentence fragment.
std::string tc_gemm_unsupported_reason(const float* x, const float* w, int64_t m, int64_t n,
                                       int64_t k);

// Whether tc_gemm with `cfg` applies `epilogue` itself, in its kernel: the steps that
// read nothing or one value per column (add/mul_column, scale, the activations,
// column_affine), not per-row vectors; residual steps (add/mul_residual) when they end
// the chain, are at most two and read one tensor whose rows are a multiple of 4 floats apart
// and start 16-byte aligned, the chain has no tile stage and cfg.vec is 4 (the TMA store
// epilogue combines them: tc_gemm also needs N % 4 == 0 and C 16-byte aligned, and throws
// otherwise rather than store from registers without them); the column statistics
// (kColumnStats) when the chain's row0 is a multiple of tc_column_stat_rows(cfg) (the outputs
// may be absent still: plans ask before their scratch exists; tc_gemm needs both); the group
// norm (kGroupNorm) over groups of a power of two from 8 to cfg.bn channels, so that a tile
// holds whole groups (tc_gemm also needs them to divide N). Empty string if so, else why not
// as a sentence fragment.
std::string tc_epilogue_unsupported_reason(const TcConfig& cfg, const Epilogue& epilogue);
inline bool tc_epilogue_supported(const TcConfig& cfg, const Epilogue& epilogue) {
  return tc_epilogue_unsupported_reason(cfg, epilogue).empty();
}

// Rows per column-statistics partial of `cfg` (the rows of one scheduled tile): the
// partial of output row r is (epilogue.row0 + r) / tc_column_stat_rows(cfg), so a
// statistics buffer holds ceil((row0 + M) / rows) partials of N floats.
int64_t tc_column_stat_rows(const TcConfig& cfg);

// Runs C = epilogue(X W^T) with the variant `cfg` on `stream` (current device).
// Throws tt::Error naming what is wrong for a device without sm_90, a config that is
// not in the table, a problem the TMA cannot address, or an epilogue the kernel does
// not apply.
void tc_gemm(const TcConfig& cfg, const float* x, const float* w, float* c, int64_t m, int64_t n,
             int64_t k, const Epilogue& epilogue, cudaStream_t stream);

}  // namespace tt::ops::cuda::gemm::sm90
