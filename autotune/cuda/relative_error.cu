// device_relative_l2_error: grid-stride sums of (out - ref)^2 and ref^2 in double,
// a warp-shuffle and shared-memory reduction per block, one double atomicAdd per
// block, and a count of non-finite outputs.
#include <cuda_runtime_api.h>

#include <cmath>
#include <limits>

#include "autotune/relative_error.h"
#include "core/cuda/check.h"
#include "core/cuda/device.h"
#include "core/cuda/runtime.h"
#include "core/cuda/stream.h"
#include "core/error.h"

namespace tt::autotune {
namespace {

constexpr int kThreads = 256;

struct Sums {
  double diff2;
  double ref2;
  unsigned long long nonfinite;
};

__device__ double warp_sum(double v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void relative_error_kernel(const float* __restrict__ out, const float* __restrict__ ref,
                                      int64_t n, Sums* sums) {
  double diff2 = 0, ref2 = 0;
  unsigned long long nonfinite = 0;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const float o = out[i];
    const double r = ref[i];
    if (!isfinite(o)) ++nonfinite;
    const double d = double(o) - r;
    diff2 += d * d;
    ref2 += r * r;
  }
  __shared__ double s_diff[kThreads / 32];
  __shared__ double s_ref[kThreads / 32];
  diff2 = warp_sum(diff2);
  ref2 = warp_sum(ref2);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) {
    s_diff[warp] = diff2;
    s_ref[warp] = ref2;
  }
  if (nonfinite) atomicAdd(&sums->nonfinite, nonfinite);
  __syncthreads();
  if (warp == 0) {
    diff2 = lane < kThreads / 32 ? s_diff[lane] : 0.0;
    ref2 = lane < kThreads / 32 ? s_ref[lane] : 0.0;
    diff2 = warp_sum(diff2);
    ref2 = warp_sum(ref2);
    if (lane == 0) {
      atomicAdd(&sums->diff2, diff2);
      atomicAdd(&sums->ref2, ref2);
    }
  }
}

}  // namespace

double device_relative_l2_error(const Tensor& out, const Tensor& ref) {
  TT_CHECK(out.defined() && ref.defined(),
           "device_relative_l2_error: both tensors must be defined");
  TT_CHECK(out.device().is_cuda() && out.device() == ref.device(),
           "device_relative_l2_error: both tensors must be on one CUDA device but are on {} and {}",
           out.device().str(), ref.device().str());
  TT_CHECK(out.dtype() == DType::F32 && ref.dtype() == DType::F32,
           "device_relative_l2_error: both tensors must be float32");
  TT_CHECK(out.numel() == ref.numel(),
           "device_relative_l2_error: the output has {} elements but the reference has {}",
           out.numel(), ref.numel());
  TT_CHECK(out.is_contiguous() && ref.is_contiguous(),
           "device_relative_l2_error: both tensors must be contiguous");
  const int64_t n = out.numel();
  if (n == 0) return 0.0;
  const int device = out.device().index;
  tt::cuda::DeviceGuard guard(device);
  cudaStream_t stream = tt::cuda::stream(device);
  // Through the caching allocator: the block comes back on the next verification.
  auto* sums = static_cast<Sums*>(tt::cuda::allocate(sizeof(Sums), device));
  Sums host{};
  try {
    TT_CUDA_CHECK(cudaMemsetAsync(sums, 0, sizeof(Sums), stream));
    const int sms = tt::cuda::device_limits(device).sm_count;
    const int64_t wanted = (n + kThreads - 1) / kThreads;
    const auto blocks = static_cast<unsigned>(std::min<int64_t>(wanted, int64_t(sms) * 8));
    relative_error_kernel<<<blocks, kThreads, 0, stream>>>(out.data<float>(), ref.data<float>(), n,
                                                           sums);
    TT_CUDA_CHECK_LAUNCH();
    TT_CUDA_CHECK(cudaMemcpyAsync(&host, sums, sizeof(Sums), cudaMemcpyDeviceToHost, stream));
    TT_CUDA_CHECK(cudaStreamSynchronize(stream));
  } catch (...) {
    tt::cuda::release(sums, sizeof(Sums), device);
    throw;
  }
  tt::cuda::release(sums, sizeof(Sums), device);
  if (host.nonfinite > 0 || !std::isfinite(host.diff2)) {
    return std::numeric_limits<double>::infinity();
  }
  const double num = std::sqrt(host.diff2);
  return host.ref2 > 0 ? num / std::sqrt(host.ref2) : num;
}

}  // namespace tt::autotune
