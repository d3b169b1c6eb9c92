// batch_norm on CUDA for x [N, C] and [N, C, L], built from the column launchers of
// ops/cuda/norm/norm_passes.h. Training: per-chunk statistics (per-column chunks of
// rows for [N, C]; per-(n, c) segments for [N, C, L]), merged in double by the
// finalize kernel, which also updates the running statistics in place and writes the
// per-channel affine; then one elementwise pass. Eval: the affine from the running
// statistics, then the same pass.
#include "core/cuda/stream.h"
#include "ops/cuda/cuda_ops.h"
#include "ops/cuda/norm/norm_passes.h"
#include "ops/cuda/norm/norm_space.h"

namespace tt::ops::cuda {
namespace {

const float* ptr_or_null(const Tensor& t) { return t.defined() ? t.data<float>() : nullptr; }

// The batch statistics of x; writes the affine, updates the running stats.
void batch_stats(const Tensor& in, int64_t n, int64_t c, int64_t inner, const Tensor& w,
                 const Tensor& b, float* running_mean, float* running_var, double momentum,
                 double eps, float* affine, cudaStream_t stream) {
  const float* x = in.data<float>();
  int64_t parts = 0, part_count = 0;
  Tensor scratch;
  if (inner == 1) {
    const norm::ColumnProblem p{n, c, norm::vec_align({x})};
    const auto cfg =
        norm::choose_column_stats(norm::kBatchNormColumnStats, p, in.device().index);
    parts = norm::column_stats_parts(cfg, n);
    part_count = cfg.chunk_rows;
    scratch = Tensor::empty({2, parts, c}, DType::F32, in.device());
    float* s = scratch.data<float>();
    norm::launch_column_stats(cfg, x, n, c, s, s + parts * c, stream);
  } else {
    parts = n;
    part_count = inner;
    scratch = Tensor::empty({2, parts, c}, DType::F32, in.device());
    float* s = scratch.data<float>();
    norm::SegmentNormArgs a;
    a.x = x;
    a.out = nullptr;  // statistics only
    a.segments = n * c;
    a.length = inner;
    a.groups = c;
    a.channels_per_group = 1;
    a.inner = inner;
    a.seg_mean = s;
    a.seg_m2 = s + parts * c;
    const norm::SegmentProblem p{a.segments, a.length, norm::vec_align({x})};
    norm::launch_segment_norm(
        norm::choose_segment(norm::kBatchNormSegmentStats, p, in.device().index), a, stream);
  }
  const float* s = scratch.data<float>();
  norm::launch_batch_norm_finalize(s, s + parts * c, parts, part_count, n * inner, c, nullptr,
                                   ptr_or_null(w), ptr_or_null(b), running_mean, running_var,
                                   static_cast<float>(momentum), static_cast<float>(eps), affine,
                                   stream);
}

}  // namespace

Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight, const Tensor& bias, bool training, double momentum,
                  double eps) {
  const Tensor in = x.contiguous();
  const Tensor w = weight.defined() ? weight.contiguous() : Tensor();
  const Tensor b = bias.defined() ? bias.contiguous() : Tensor();
  Tensor out = Tensor::empty(x.sizes(), DType::F32, x.device());
  const int64_t n = x.size(0), c = x.size(1);
  const int64_t inner = x.dim() == 3 ? x.size(2) : 1;
  if (c == 0) return out;

  const int device = x.device().index;
  tt::cuda::DeviceGuard guard(device);
  cudaStream_t stream = tt::cuda::stream(device);
  Tensor affine = Tensor::empty({4, c}, DType::F32, x.device());
  // Running statistics are updated in place; a strided buffer goes through a copy.
  Tensor rm = running_mean.defined() ? running_mean.contiguous() : Tensor();
  Tensor rv = running_var.defined() ? running_var.contiguous() : Tensor();
  if (training) {
    if (out.numel() == 0) return out;
    batch_stats(in, n, c, inner, w, b, rm.defined() ? rm.data<float>() : nullptr,
                rv.defined() ? rv.data<float>() : nullptr, momentum, eps, affine.data<float>(),
                stream);
    // Handles share their tensor, so copying into a copy of the handle writes the caller's.
    if (rm.defined() && !rm.is_same(running_mean)) Tensor(running_mean).copy_(rm);
    if (rv.defined() && !rv.is_same(running_var)) Tensor(running_var).copy_(rv);
  } else {
    TT_CHECK(rm.defined() && rv.defined(),
             "batch_norm: eval mode normalises with the running statistics, but running_mean "
             "or running_var is undefined");
    norm::launch_batch_norm_eval_affine(c, nullptr, ptr_or_null(w), ptr_or_null(b),
                                        rm.data<float>(), rv.data<float>(), static_cast<float>(eps),
                                        affine.data<float>(), stream);
  }
  if (out.numel() == 0) return out;
  const norm::AffineProblem p{out.numel(), c, inner,
                              norm::vec_align({in.data<float>(), out.data<float>()})};
  norm::launch_channel_affine(norm::choose_affine(norm::kBatchNormAffine, p, device),
                              in.data<float>(), out.data<float>(), affine.data<float>(),
                              out.numel(), c, inner, stream);
  return out;
}

}  // namespace tt::ops::cuda
