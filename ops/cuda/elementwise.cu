// add/sub/mul on CUDA with NumPy broadcasting over any rank <= 8 and any input
// strides. The host folds the shapes and strides into as few dimensions as
// possible (ops/cpu/broadcast.h, shared with the CPU kernel); when that leaves one
// unit-stride dimension for both inputs (contiguous, same number of elements) the
// flat, float4-vectorised map runs, otherwise the strided kernel below.
#include <cstdint>

#include "core/cuda/check.h"
#include "core/cuda/elementwise.cuh"
#include "core/cuda/launch.h"
#include "core/cuda/stream.h"
#include "ops/cpu/broadcast.h"
#include "ops/cuda/cuda_ops.h"

namespace tt::ops::cuda {
namespace {

struct AddFn {
  __device__ float operator()(float x, float y) const { return x + y; }
};
struct SubFn {
  __device__ float operator()(float x, float y) const { return x - y; }
};
struct MulFn {
  __device__ float operator()(float x, float y) const { return x * y; }
};

// The folded loop, passed by value (kernel parameters live in constant memory).
struct BroadcastPlan {
  int rank;
  int64_t sizes[kMaxRank];
  int64_t a_strides[kMaxRank];
  int64_t b_strides[kMaxRank];
};

// One thread per output element (grid-stride): the contiguous output index is
// unravelled over the folded dimensions into each input's offset. Index is 32-bit
// when every index and offset fits, because 64-bit division is several times slower.
template <typename Index, typename Fn>
__global__ void broadcast_binary_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                        float* __restrict__ out, Index n, BroadcastPlan plan,
                                        Fn fn) {
  for (Index i = blockIdx.x * static_cast<Index>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<Index>(gridDim.x) * blockDim.x) {
    Index rest = i, off_a = 0, off_b = 0;
    for (int d = plan.rank - 1; d >= 0; --d) {
      const Index size = static_cast<Index>(plan.sizes[d]);
      const Index coord = rest % size;
      rest /= size;
      off_a += coord * static_cast<Index>(plan.a_strides[d]);
      off_b += coord * static_cast<Index>(plan.b_strides[d]);
    }
    out[i] = fn(a[off_a], b[off_b]);
  }
}

// The largest element offset a view reaches under the plan (strides are >= 0:
// views only narrow, permute and broadcast).
int64_t max_offset(const BroadcastPlan& plan, const int64_t* strides) {
  int64_t offset = 0;
  for (int d = 0; d < plan.rank; ++d) offset += (plan.sizes[d] - 1) * strides[d];
  return offset;
}

template <typename Fn>
Tensor binary_op(const char* op, const Tensor& a, const Tensor& b, Fn fn) {
  const Shape out_shape = cpu::broadcast_shapes(op, a.sizes(), b.sizes());
  const int device = a.device().index;
  Tensor out = Tensor::empty(out_shape, DType::F32, a.device());
  const int64_t n = out.numel();
  if (n == 0) return out;

  const cpu::BinaryLoopPlan folded = cpu::plan_binary_loop(out_shape, a, b);
  const float* pa = static_cast<const float*>(a.data_ptr());
  const float* pb = static_cast<const float*>(b.data_ptr());
  float* po = out.data<float>();
  tt::cuda::DeviceGuard guard(device);
  cudaStream_t s = tt::cuda::stream(device);

  if (folded.rank == 1 && folded.a_strides[0] == 1 && folded.b_strides[0] == 1) {
    tt::cuda::launch_map_binary(pa, pb, po, n, fn, s);
    return out;
  }

  BroadcastPlan plan{};
  plan.rank = folded.rank;
  for (int d = 0; d < folded.rank; ++d) {
    plan.sizes[d] = folded.sizes[d];
    plan.a_strides[d] = folded.a_strides[d];
    plan.b_strides[d] = folded.b_strides[d];
  }
  // 2^30 leaves room for the grid-stride step, which must not overflow either.
  const bool index32 = n <= (int64_t{1} << 30) && max_offset(plan, plan.a_strides) <= INT32_MAX &&
                       max_offset(plan, plan.b_strides) <= INT32_MAX;
  const unsigned int blocks = tt::cuda::grid_size(n);
  if (index32) {
    broadcast_binary_kernel<int32_t><<<blocks, tt::cuda::kElementwiseThreads, 0, s>>>(
        pa, pb, po, static_cast<int32_t>(n), plan, fn);
  } else {
    broadcast_binary_kernel<int64_t>
        <<<blocks, tt::cuda::kElementwiseThreads, 0, s>>>(pa, pb, po, n, plan, fn);
  }
  TT_CUDA_CHECK_LAUNCH();
  return out;
}

}  // namespace

Tensor add(const Tensor& a, const Tensor& b) { return binary_op("add", a, b, AddFn{}); }
Tensor sub(const Tensor& a, const Tensor& b) { return binary_op("sub", a, b, SubFn{}); }
Tensor mul(const Tensor& a, const Tensor& b) { return binary_op("mul", a, b, MulFn{}); }

}  // namespace tt::ops::cuda
