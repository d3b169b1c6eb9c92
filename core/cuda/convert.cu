// The dtype conversion kernel behind Tensor::to(dtype) on CUDA: one grid-stride map
// per (source, destination) pair through core/convert.h's convert_value, the
// function the CPU conversion runs, so both give the same bits.
#include <cstdint>

#include "core/convert.h"
#include "core/cuda/check.h"
#include "core/cuda/launch.h"
#include "core/cuda/runtime.h"
#include "core/cuda/stream.h"

namespace tt::cuda {
namespace {

template <typename Dst, typename Src>
__global__ void convert_kernel(Dst* __restrict__ dst, const Src* __restrict__ src, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    dst[i] = convert_value<Dst>(src[i]);
  }
}

}  // namespace

void convert(void* dst, DType dst_type, const void* src, DType src_type, int64_t n, int device) {
  if (n == 0) return;
  DeviceGuard guard(device);
  cudaStream_t s = stream(device);
  visit_dtype(dst_type, "to", [&](auto dst_zero) {
    using Dst = decltype(dst_zero);
    visit_dtype(src_type, "to", [&](auto src_zero) {
      using Src = decltype(src_zero);
      convert_kernel<Dst, Src><<<grid_size(n), kElementwiseThreads, 0, s>>>(
          static_cast<Dst*>(dst), static_cast<const Src*>(src), n);
    });
  });
  TT_CUDA_CHECK_LAUNCH();
}

}  // namespace tt::cuda
