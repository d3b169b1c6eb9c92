// rms_norm on CUDA: x * rsqrt(mean(x^2) + eps) * weight over rows of normalized_numel
// trailing floats, as a row map of the reduction family (ops/cuda/reduce/row_map.cu:
// the row held in registers where it fits, one read and one write), tuned under the
// kernel name "rms_norm" (problem key "rows=R,cols=C,align=16B,precision=strict").
// No mean is subtracted, so a plain float32 sum of squares loses nothing to
// cancellation.
#include <algorithm>

#include "core/cuda/stream.h"
#include "ops/cuda/cuda_ops_reduce.h"
#include "ops/cuda/reduce/reduce.h"

namespace tt::ops::cuda {

Tensor rms_norm(const Tensor& x, int64_t normalized_numel, const Tensor& weight, double eps) {
  const Tensor in = x.contiguous();
  const Tensor w = weight.defined() ? weight.contiguous() : Tensor();
  Tensor out = Tensor::empty(x.sizes(), DType::F32, x.device());
  if (out.numel() == 0) return out;

  const float* wp = w.defined() ? w.data<float>() : nullptr;
  int align = std::min(reduce::ptr_align(in.data<float>()), reduce::ptr_align(out.data<float>()));
  if (wp) align = std::min(align, reduce::ptr_align(wp));
  const reduce::RowProblem p{out.numel() / normalized_numel, normalized_numel, align};

  const int device = x.device().index;
  tt::cuda::DeviceGuard guard(device);
  reduce::launch_row_map(
      reduce::RowMap::kRmsNorm, reduce::choose_row(reduce::RowMap::kRmsNorm, p, device), p,
      in.data<float>(), out.data<float>(), wp, static_cast<float>(eps), tt::cuda::stream(device));
  return out;
}

}  // namespace tt::ops::cuda
