// Raw-pointer launchers of the normalisation kernels: the building blocks behind
// tt::ops::cuda::{instance_norm, group_norm, layer_norm, batch_norm} and the memory-bound
// passes of the fused plans (a segment norm with prologue and epilogue chains; column
// statistics and a channel affine for batch norm).
//
// Every launcher takes a plain config struct (the tunable knobs), a problem, raw
// float32 device pointers and a stream. The configs are points of a small compiled
// table of template instantiations: candidates() lists those that fit a problem (the
// autotuner sweeps it), default_for() picks one without timing, valid(config,
// problem) says whether a config is compiled and correct for a problem. The configs'
// descriptors (text form, Config conversion, spaces) are in norm_space.h. A config changes speed,
// never results beyond float rounding. Launchers throw tt::Error for an invalid config or a pointer
// not aligned to the config's vector width, and check every CUDA status.
//
// Statistics are exact two-pass (mean, then sum of squared deviations) over data
// held on chip, merged across threads, CTAs and chunks with Chan's formula
// (double precision where partials from many blocks meet). Variances are biased
// (divide by the count), eps is added inside the square root, as in PyTorch.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "ops/cuda/gemm/epilogue.h"

namespace tt::ops::cuda::norm {

// Largest vector width (4, 2 or 1 floats) that every non-null pointer's address
// allows; pass it as the problem's `align`.
int vec_align(std::initializer_list<const void*> ptrs);

// ---------------------------------------------------------------------------
// Segment norm: `segments` contiguous runs of `length` floats, each normalised by
// its own mean and biased variance.
struct SegmentProblem {
  int64_t segments = 0;
  int64_t length = 0;
  int align = 4;  // vec_align() of the launch's pointers
};

enum class SegmentKind : int {
  kSubwarp = 0,  // `lanes` (8..32) threads of a warp per segment, data in registers
  kBlock = 1,    // one block per segment, data in registers: one read
  kStream = 2,   // one block per segment, any length: reads the input twice
  kCluster = 3,  // a cluster of `cluster` CTAs per segment, data in registers, stats
                 // exchanged through distributed shared memory: one read
  kPipe = 4,     // persistent clusters of `cluster` CTAs, each looping over segments:
                 // the copy engine (cp.async.bulk) prefetches the next `buffers`
                 // segments' parts into shared memory while the current one is
                 // normalised from registers: one read, loads and stores overlapped
  kSplit = 5,    // a cluster of `cluster` CTAs per segment, each streaming its 1/cluster
                 // part twice (statistics, then normalise) with the partial statistics
                 // merged through distributed shared memory: the parts in flight are
                 // small enough that the second read hits L2, so HBM sees one read
};

struct SegmentConfig {
  SegmentKind kind = SegmentKind::kBlock;
  int threads = 256;  // threads per block
  int lanes = 256;    // threads per segment (per CTA for kCluster); == threads unless kSubwarp
  int vec = 4;        // floats per load/store: 1, 2 or 4
  int items = 8;      // vectors per thread held in registers (kStream: per tile in flight)
  int cluster = 1;    // CTAs per segment (kCluster, kPipe)
  int buffers = 0;    // kPipe: shared-memory stages of `lanes * vec * items` floats;
                      // kSubwarp: segments per subgroup, loaded together (0, 1: one)

  // Floats of one segment held on chip: lanes * vec * items * cluster (0 for kStream).
  int64_t capacity() const;
  static SegmentConfig default_for(const SegmentProblem& p);
  // The compiled variants that are valid for p and not grossly oversized for it.
  static std::vector<SegmentConfig> candidates(const SegmentProblem& p);
  // Every compiled variant, whatever the problem.
  static const std::vector<SegmentConfig>& all();
  // "impl=cluster,threads=512,vec=4,items=16,cluster=2": the descriptor's text form
  // (segment_descriptor().parse reads it); equal: the same kind and the same values in
  // the fields the kind reads.
  std::string str() const;
  bool operator==(const SegmentConfig& o) const;
};
bool valid(const SegmentConfig& c, const SegmentProblem& p);

// Generic segment norm with a per-channel affine. The channel of element i of
// segment s is (s % groups) * channels_per_group + i / inner:
//   instance norm x[N,C,S]:   segments N*C, length S,     groups C, cpg 1,  inner S
//   group norm    x[N,C,S]:   segments N*G, length C/G*S, groups G, cpg C/G, inner S
struct SegmentNormArgs {
  const float* x = nullptr;
  float* out = nullptr;  // may be nullptr: statistics only (see seg_mean/seg_m2)
  int64_t segments = 0;
  int64_t length = 0;
  int64_t groups = 1;
  int64_t channels_per_group = 1;
  int64_t inner = 1;
  const float* gamma = nullptr;  // [groups * channels_per_group], nullptr = 1
  const float* beta = nullptr;   // same, nullptr = 0
  float eps = 1e-5f;
  float* seg_mean = nullptr;  // optional [segments]: each segment's mean
  float* seg_m2 = nullptr;    // optional [segments]: sum of squared deviations
};
void launch_segment_norm(const SegmentConfig& cfg, const SegmentNormArgs& a, cudaStream_t stream);

// The chain segment norm behind the fused plans' norm stages (ops/cuda/fused/plan.h): x
// [rows, n] in `groups` segments of n / groups per row (GroupNorm's groups; 1 for a row
// norm such as layer_norm or rms_norm); each element passes through `prologue` before
// the statistics (the stored value is the result: the pre-norm value, also written to
// `pre` when given) and the normalised value through `epilogue` before it is stored in
// `out`. The chains are steps of the GEMM epilogue's vocabulary (gemm/epilogue.h: add_column,
// mul_column, add_row, add_residual, silu, gelu, scale, ...), evaluated at (row, col) of the
// [rows, n] matrix (row-indexed operands from row prologue.row0 / epilogue.row0 on), so
// the affine is mul_column(gamma), add_column(beta) and ((v + y) * y) is
// add_residual(y, n), mul_residual(y, n). `rms`: no mean is subtracted, the normaliser is
// rsqrt(mean(v^2) + eps) (rms_norm). One read of x (and of the chains' operands), one
// write of out (and of pre). Problem: {rows * groups, n / groups, chain_align(a)}.
struct SegmentChainArgs {
  const float* x = nullptr;
  float* out = nullptr;
  float* pre = nullptr;  // optional [rows, n]
  int64_t rows = 0;
  int64_t n = 0;
  int64_t groups = 1;
  gemm::Epilogue prologue;  // steps only (kPointwise)
  gemm::Epilogue epilogue;  // steps only (kPointwise)
  bool rms = false;
  float eps = 1e-5f;
};
// The vector width every pointer of the launch allows (x, out, pre, the steps' operands).
int chain_align(const SegmentChainArgs& a);
SegmentProblem chain_problem(const SegmentChainArgs& a);
void launch_segment_chain(const SegmentConfig& cfg, const SegmentChainArgs& a, cudaStream_t stream);

// ---------------------------------------------------------------------------
// Batch norm over the columns of Y [rows, cols] (BatchNorm1d on [N, C], after a GEMM).
//
// Training:  launch_column_stats (one read of Y: per chunk of rows, per column, the
//            mean and M2 of Y) -> launch_batch_norm_finalize (merges the partials in
//            double, updates the running stats, writes the per-column affine) ->
//            launch_channel_affine (one read of Y, one write).
// Eval:      launch_batch_norm_eval_affine -> launch_channel_affine.
// A GEMM epilogue may produce the partials itself (same layout) and/or apply the
// affine itself:  out = (Y * pre[c] - shift[c]) * mul[c] + add[c],
// with `affine` = [pre | shift | mul | add], 4 * cols floats. (This keeps PyTorch's
// order of rounding, z = Y * scale then z - mean, rather than folding everything into
// Y * a + c0, which loses digits when |mean| >> std.)
struct ColumnProblem {
  int64_t rows = 0;
  int64_t cols = 0;
  int align = 4;
};

struct ColumnStatsConfig {
  int threads = 256;     // threads per block
  int col_threads = 32;  // threads along the columns (each `vec` columns wide)
  int vec = 4;           // columns per thread: 1, 2 or 4
  int items = 4;         // rows per thread loaded before they are reduced
  int chunk_rows = 256;  // rows per partial (per block along the rows)

  static ColumnStatsConfig default_for(const ColumnProblem& p);
  static std::vector<ColumnStatsConfig> candidates(const ColumnProblem& p);
  static const std::vector<ColumnStatsConfig>& all();
  std::string str() const;  // "threads=256,col_threads=32,vec=4,items=4,chunk_rows=256"
  bool operator==(const ColumnStatsConfig& o) const;
};
bool valid(const ColumnStatsConfig& c, const ColumnProblem& p);

// Number of partials, ceil(rows / chunk_rows); part_mean and part_m2 are [parts][cols].
int64_t column_stats_parts(const ColumnStatsConfig& cfg, int64_t rows);
void launch_column_stats(const ColumnStatsConfig& cfg, const float* Y, int64_t rows, int64_t cols,
                         float* part_mean, float* part_m2, cudaStream_t stream);

// Merges `parts` partials per column (partial p counts part_count samples, the last
// one total_count - (parts - 1) * part_count) into the batch statistics of
// z = Y * scale (scale may be nullptr = 1), then:
//   running_mean = (1 - momentum) * running_mean + momentum * mean_z         (if non-null)
//   running_var  = (1 - momentum) * running_var  + momentum * var_z * n/(n-1) (if non-null)
//   affine = [scale | mean_z | rstd * gamma | beta]    (gamma/beta nullptr = 1/0)
// For x [N, C, L], the partials are the per-(n, c) segment stats of launch_segment_norm
// (seg_mean/seg_m2 with segments N*C, length L): parts N, part_count L, total N*L.
void launch_batch_norm_finalize(const float* part_mean, const float* part_m2, int64_t parts,
                                int64_t part_count, int64_t total_count, int64_t cols,
                                const float* scale, const float* gamma, const float* beta,
                                float* running_mean, float* running_var, float momentum, float eps,
                                float* affine, cudaStream_t stream);

// affine = [scale | running_mean | rsqrt(running_var + eps) * gamma | beta].
void launch_batch_norm_eval_affine(int64_t cols, const float* scale, const float* gamma,
                                   const float* beta, const float* running_mean,
                                   const float* running_var, float eps, float* affine,
                                   cudaStream_t stream);

// Elementwise pass out = (x * pre[c] - shift[c]) * mul[c] + add[c] over `total`
// floats, c = (i / inner) % channels: [N, C] is inner 1, [N, C, L] is inner L.
struct AffineProblem {
  int64_t total = 0;
  int64_t channels = 0;
  int64_t inner = 1;
  int align = 4;
};

struct AffineConfig {
  int threads = 256;
  int vec = 4;    // 1, 2 or 4; must divide inner (inner > 1) or channels (inner == 1)
  int items = 4;  // vectors per thread per block-sized step

  static AffineConfig default_for(const AffineProblem& p);
  static std::vector<AffineConfig> candidates(const AffineProblem& p);
  static const std::vector<AffineConfig>& all();
  std::string str() const;  // "threads=256,vec=4,items=4"
  bool operator==(const AffineConfig& o) const;
};
bool valid(const AffineConfig& c, const AffineProblem& p);

void launch_channel_affine(const AffineConfig& cfg, const float* x, float* out, const float* affine,
                           int64_t total, int64_t channels, int64_t inner, cudaStream_t stream);

}  // namespace tt::ops::cuda::norm
