// The fused GEMM ops as GEMM stage + the fewest memory passes (see the header).
#include "ops/cuda/fused/plans.h"

#include <algorithm>

#include "core/error.h"
#include "ops/cuda/gemm/gemm.h"
#include "ops/cuda/gemm/side_stream.h"
#include "ops/cuda/norm/norm_passes.h"

namespace tt::ops::cuda::gemm {
namespace {

Epilogue bias_only(const float* bias) { return Epilogue().add_column(bias); }

void check_scratch(const float* scratch, int64_t needed, const char* op) {
  TT_CHECK(needed == 0 || scratch != nullptr, "{}: needs a scratch buffer of {} floats", op,
           needed);
}

// The pass configs: the caller's choice (the tuning lookup) or the launcher's default.
norm::SegmentConfig segment_config(const PassConfigs* passes, const norm::SegmentProblem& p) {
  return passes && passes->segment ? passes->segment(p) : norm::SegmentConfig::default_for(p);
}

norm::AffineConfig affine_config(const PassConfigs* passes, const norm::AffineProblem& p) {
  return passes && passes->affine ? passes->affine(p) : norm::AffineConfig::default_for(p);
}

// gemm_scale_batch_norm training with the cuBLASLt stage: the column statistics come from a pass.
// Its config fixes the number of partials, so it must be the same when the scratch is
// sized (no pointer yet) and when it runs (the same PassConfigs): the scratch is
// 16-byte aligned (checked), so width 4 is always allowed.
norm::ColumnStatsConfig column_stats_config(const PassConfigs* passes, int64_t m, int64_t n) {
  const norm::ColumnProblem p{m, n, 4};
  return passes && passes->column_stats ? passes->column_stats(p)
                                        : norm::ColumnStatsConfig::default_for(p);
}

// A tail split needs head rows; with fewer rows than the tail there is one GEMM.
bool tail_split(const GemmConfig& cfg, int64_t m) { return cfg.tail_rows > 0 && cfg.tail_rows < m; }

// The GEMMs of a tail split (GemmConfig::tail_rows): rows [0, head) on the
// highest-priority side stream and rows [head, m) at once on the second one
// (independent rows: the GPU dispatches the head's CTAs, then the tail's, without the
// gap that a second launch on one stream leaves). Then, on the main stream, which has
// the lowest priority, on_head() queues the head's pass after the head's GEMM and
// on_tail() the tail's after the tail's: their blocks only take SMs that no GEMM CTA
// is waiting for, i.e. the SMs that the GEMMs' last, partial wave leaves idle.
template <class OnHead, class OnTail>
void split_gemm(const GemmConfig& cfg, const GemmArgs& g, int64_t head, const float* bias,
                int device, cudaStream_t stream, OnHead on_head, OnTail on_tail) {
  GemmConfig head_cfg = cfg;
  head_cfg.tail_rows = 0;
  SideStream first(device, stream, SidePriority::kHighest);
  SideStream second(device, stream, SidePriority::kSecond);
  first.fork();
  second.fork();
  run_gemm(head_cfg, {g.x, g.w, g.c, head, g.n, g.k}, bias_only(bias), device, first.side());
  // The tail runs cuBLASLt's first pick for its own shape.
  run_gemm(GemmConfig::cublaslt(0), {g.x + head * g.k, g.w, g.c + head * g.n, g.m - head, g.n, g.k},
           bias_only(bias), device, second.side());
  first.join();
  on_head();
  second.join();
  on_tail();
}

// Row chunks of `chunk` rows: each chunk's GEMM on the main stream, then
// on_chunk(r0, rows, side) queues the chunk's pass on the side stream, where it
// overlaps the next chunk's GEMM; the main stream waits for the side stream at the end.
template <class OnChunk>
void chunked_gemm(const GemmConfig& cfg, const GemmArgs& g, int64_t chunk, const float* bias,
                  int device, cudaStream_t stream, OnChunk on_chunk) {
  SideStream side(device, stream);
  for (int64_t r0 = 0; r0 < g.m; r0 += chunk) {
    const int64_t rows = std::min(chunk, g.m - r0);
    run_gemm(cfg, {g.x + r0 * g.k, g.w, g.c + r0 * g.n, rows, g.n, g.k}, bias_only(bias), device,
             stream);
    side.fork();
    on_chunk(r0, rows, side.side());
  }
  side.join();
}

}  // namespace

// ---- gemm_bias_relu ----
void gemm_bias_relu_forward(const GemmConfig& cfg, const GemmBiasReluArgs& a, int device,
                            cudaStream_t stream) {
  const Epilogue e = Epilogue().add_column(a.bias).relu();
  run_gemm(cfg, {a.x, a.w, a.out, a.m, a.n, a.k}, e, device, stream);
}

// ---- gemm_instance_norm_add_mul ----
int64_t gemm_instance_norm_add_mul_scratch_floats(const GemmConfig&, int64_t m, int64_t n) {
  return m * n;
}

void gemm_instance_norm_add_mul_forward(const GemmConfig& cfg, const GemmInstanceNormAddMulArgs& a,
                                        int device, cudaStream_t stream) {
  if (a.m == 0 || a.n == 0) return;
  check_scratch(a.scratch, a.m * a.n, "gemm_instance_norm_add_mul");
  float* y_lin = a.scratch;
  run_gemm(cfg, {a.x, a.w, y_lin, a.m, a.n, a.k}, bias_only(a.b), device, stream);
  const norm::SegmentProblem sp{a.m, a.n, norm::vec_align({y_lin, a.y, a.out})};
  norm::launch_row_norm_add_mul(segment_config(a.passes, sp), y_lin, a.y, a.out, a.m, a.n, a.eps,
                                stream);
}

// ---- gemm_swish_bias_group_norm ----
namespace {

Epilogue group_norm_epilogue(const GemmSwishBiasGroupNormArgs& a) {
  return Epilogue().add_column(a.b).silu().add_column(a.bias).group_norm(
      a.groups > 0 ? a.n / a.groups : 0, a.gamma, a.beta, a.eps);
}

}  // namespace

bool gemm_swish_bias_group_norm_fuses(const GemmConfig& cfg, int64_t m, int64_t n, int64_t k,
                                      int64_t groups) {
  if (cfg.impl != GemmImpl::kOwn || groups <= 0 || n % groups != 0) return false;
  Epilogue e;
  e.group_norm(n / groups, nullptr, nullptr, 0.f);
  // Alignment does not matter here: a width-1 fallback keeps the tile's BN.
  return own_epilogue_valid(cfg, GemmProblem{m, n, k, cfg.vec}, e);
}

int64_t gemm_swish_bias_group_norm_scratch_floats(const GemmConfig& cfg, int64_t m, int64_t n,
                                                  int64_t k, int64_t groups) {
  if (gemm_swish_bias_group_norm_fuses(cfg, m, n, k, groups) || cfg.chunk_rows > 0 ||
      tail_split(cfg, m)) {
    return 0;
  }
  return m * n;
}

void gemm_swish_bias_group_norm_forward(const GemmConfig& cfg, const GemmSwishBiasGroupNormArgs& a,
                                        int device, cudaStream_t stream) {
  if (a.m == 0 || a.n == 0) return;
  TT_CHECK(a.groups > 0 && a.n % a.groups == 0,
           "gemm_swish_bias_group_norm: {} channels do not split into {} groups", a.n, a.groups);
  if (gemm_swish_bias_group_norm_fuses(cfg, a.m, a.n, a.k, a.groups)) {
    launch_tiled_gemm(cfg, {a.x, a.w, a.out, a.m, a.n, a.k}, group_norm_epilogue(a), stream);
    return;
  }
  const auto pass = [&](const float* y_lin, float* out, int64_t rows, cudaStream_t s) {
    const norm::SegmentProblem sp{rows * a.groups, a.n / a.groups,
                                  norm::vec_align({y_lin, a.bias, a.gamma, a.beta, out})};
    norm::launch_swish_bias_group_norm(segment_config(a.passes, sp), y_lin, a.bias, a.gamma, a.beta,
                                       out, rows, a.n, a.groups, a.eps, s);
  };
  if (tail_split(cfg, a.m)) {
    // 8192 CTAs over 264 slots on an H200 leave a last wave of 8 for the head's pass.
    // H200, full shape: 5.64 ms against 5.77 ms for one GEMM then the pass (overlap
    // harness, tools/device/overlap_harness.cu).
    const int64_t head = a.m - cfg.tail_rows;
    float* tail_out = a.out + head * a.n;
    split_gemm(
        cfg, {a.x, a.w, a.out, a.m, a.n, a.k}, head, a.b, device, stream,
        [&] { pass(a.out, a.out, head, stream); },
        [&] { pass(tail_out, tail_out, cfg.tail_rows, stream); });
    return;
  }
  if (cfg.chunk_rows > 0) {
    // Each chunk's GEMM writes into `out` and its pass normalises it there (each
    // group is read whole before it is written), overlapping the next chunk's GEMM.
    chunked_gemm(cfg, {a.x, a.w, a.out, a.m, a.n, a.k}, cfg.chunk_rows, a.b, device, stream,
                 [&](int64_t r0, int64_t rows, cudaStream_t side) {
                   float* chunk = a.out + r0 * a.n;
                   pass(chunk, chunk, rows, side);
                 });
    return;
  }
  check_scratch(a.scratch, a.m * a.n, "gemm_swish_bias_group_norm");
  run_gemm(cfg, {a.x, a.w, a.scratch, a.m, a.n, a.k}, bias_only(a.b), device, stream);
  pass(a.scratch, a.out, a.m, stream);
}

// ---- gemm_scale_batch_norm ----
namespace {

// Scratch layout: [y_lin: m*n | affine: 4n | part_mean: parts*n | part_m2: parts*n].
struct BatchNormScratch {
  float* y_lin = nullptr;
  float* affine = nullptr;
  float* part_mean = nullptr;
  float* part_m2 = nullptr;
  int64_t parts = 0;
  int64_t part_count = 0;
  int64_t floats = 0;
};

BatchNormScratch batch_norm_scratch(const GemmConfig& cfg, int64_t m, int64_t n, bool training,
                                    const PassConfigs* passes, float* base) {
  BatchNormScratch s;
  const bool own = cfg.impl == GemmImpl::kOwn;
  // Eval with our own kernel applies the affine in the epilogue, and chunked eval
  // applies it in place: no GEMM output buffer.
  const int64_t y_floats = (!training && (own || cfg.chunk_rows > 0)) ? 0 : m * n;
  if (training) {
    if (own) {
      s.parts = own_column_stat_parts(cfg, m);
      s.part_count = cfg.bm;
    } else {
      const norm::ColumnStatsConfig cs = column_stats_config(passes, m, n);
      s.parts = norm::column_stats_parts(cs, m);
      s.part_count = cs.chunk_rows;
    }
  }
  // Each piece starts on a 16-byte boundary so that vector loads stay possible.
  const auto round4 = [](int64_t v) { return (v + 3) / 4 * 4; };
  int64_t at = 0;
  const auto take = [&](int64_t count) {
    float* p = base ? base + at : nullptr;
    at += round4(count);
    return p;
  };
  s.y_lin = y_floats ? take(y_floats) : nullptr;
  s.affine = take(4 * n);
  s.part_mean = s.parts ? take(s.parts * n) : nullptr;
  s.part_m2 = s.parts ? take(s.parts * n) : nullptr;
  s.floats = at;
  return s;
}

}  // namespace

int64_t gemm_scale_batch_norm_scratch_floats(const GemmConfig& cfg, int64_t m, int64_t n,
                                             bool training, const PassConfigs* passes) {
  return batch_norm_scratch(cfg, m, n, training, passes, nullptr).floats;
}

void gemm_scale_batch_norm_forward(const GemmConfig& cfg, const GemmScaleBatchNormArgs& a,
                                   int device, cudaStream_t stream) {
  if (a.n == 0) return;
  const BatchNormScratch s = batch_norm_scratch(cfg, a.m, a.n, a.training, a.passes, a.scratch);
  check_scratch(a.scratch, s.floats, "gemm_scale_batch_norm");
  TT_CHECK(reinterpret_cast<uintptr_t>(a.scratch) % 16 == 0,
           "gemm_scale_batch_norm: the scratch buffer must be 16-byte aligned");
  const bool own = cfg.impl == GemmImpl::kOwn;
  const norm::AffineProblem ap{a.m * a.n, a.n, 1, norm::vec_align({s.y_lin, a.out})};
  if (!a.training) {
    norm::launch_batch_norm_eval_affine(a.n, a.scale, a.gamma, a.beta, a.running_mean,
                                        a.running_var, a.eps, s.affine, stream);
    if (a.m == 0) return;
    if (own) {
      const Epilogue e = Epilogue().add_column(a.b).column_affine(s.affine, a.n);
      launch_tiled_gemm(cfg, {a.x, a.w, a.out, a.m, a.n, a.k}, e, stream);
      return;
    }
    if (cfg.chunk_rows > 0) {
      // The affine is known before the GEMM: each chunk's pass runs in place on the
      // side stream while the next chunk's GEMM runs.
      chunked_gemm(cfg, {a.x, a.w, a.out, a.m, a.n, a.k}, cfg.chunk_rows, a.b, device, stream,
                   [&](int64_t r0, int64_t rows, cudaStream_t side) {
                     float* chunk = a.out + r0 * a.n;
                     const norm::AffineProblem cp{rows * a.n, a.n, 1, norm::vec_align({chunk})};
                     norm::launch_channel_affine(affine_config(a.passes, cp), chunk, chunk,
                                                 s.affine, rows * a.n, a.n, 1, side);
                   });
      return;
    }
    run_gemm(cfg, {a.x, a.w, s.y_lin, a.m, a.n, a.k}, bias_only(a.b), device, stream);
    norm::launch_channel_affine(affine_config(a.passes, ap), s.y_lin, a.out, s.affine, a.m * a.n,
                                a.n, 1, stream);
    return;
  }
  TT_CHECK(a.m > 0, "gemm_scale_batch_norm: training needs at least one row");
  // The statistics pass's config (own kernels compute the statistics in the epilogue).
  const norm::ColumnStatsConfig cs = column_stats_config(a.passes, a.m, a.n);
  // A tail split's head is a whole number of the pass's rows per partial, so that the
  // partials land where one pass over all rows would put them (as chunks below).
  const int64_t head = (a.m - cfg.tail_rows) / cs.chunk_rows * cs.chunk_rows;
  if (own) {
    const Epilogue e = Epilogue().add_column(a.b).column_stats(s.part_mean, s.part_m2);
    launch_tiled_gemm(cfg, {a.x, a.w, s.y_lin, a.m, a.n, a.k}, e, stream);
  } else if (tail_split(cfg, a.m) && head > 0) {
    // Each part's statistics pass fills the GEMMs' last, partial wave (split_gemm;
    // 16384 x 4096 in 128 x 128 tiles is 15.5 waves on an H200).
    const int64_t head_parts = head / cs.chunk_rows;
    split_gemm(
        cfg, {a.x, a.w, s.y_lin, a.m, a.n, a.k}, head, a.b, device, stream,
        [&] { norm::launch_column_stats(cs, s.y_lin, head, a.n, s.part_mean, s.part_m2, stream); },
        [&] {
          norm::launch_column_stats(cs, s.y_lin + head * a.n, a.m - head, a.n,
                                    s.part_mean + head_parts * a.n, s.part_m2 + head_parts * a.n,
                                    stream);
        });
  } else if (cfg.chunk_rows > 0) {
    // Each chunk's statistics pass overlaps the next chunk's GEMM.
    const int64_t chunk = (cfg.chunk_rows + cs.chunk_rows - 1) / cs.chunk_rows * cs.chunk_rows;
    chunked_gemm(cfg, {a.x, a.w, s.y_lin, a.m, a.n, a.k}, chunk, a.b, device, stream,
                 [&](int64_t r0, int64_t rows, cudaStream_t side) {
                   const int64_t part0 = r0 / cs.chunk_rows;
                   norm::launch_column_stats(cs, s.y_lin + r0 * a.n, rows, a.n,
                                             s.part_mean + part0 * a.n, s.part_m2 + part0 * a.n,
                                             side);
                 });
  } else {
    run_gemm(cfg, {a.x, a.w, s.y_lin, a.m, a.n, a.k}, bias_only(a.b), device, stream);
    norm::launch_column_stats(cs, s.y_lin, a.m, a.n, s.part_mean, s.part_m2, stream);
  }
  norm::launch_batch_norm_finalize(s.part_mean, s.part_m2, s.parts, s.part_count, a.m, a.n, a.scale,
                                   a.gamma, a.beta, a.running_mean, a.running_var, a.momentum,
                                   a.eps, s.affine, stream);
  norm::launch_channel_affine(affine_config(a.passes, ap), s.y_lin, a.out, s.affine, a.m * a.n, a.n,
                              1, stream);
}

}  // namespace tt::ops::cuda::gemm
