// The reduce family's integer and bool reductions (cuda::reduce_integers) and cumsum
// (ops/cuda/cuda_ops_reduce.h). Their results are exact, so the order of the
// combination does not matter and nothing is tuned: x is viewed as [rows, len] (kept
// dims first, one contiguous copy when the layout needs it, as the CPU reference) and
// one block of 256 threads reduces each row through shared memory. cumsum runs each
// row in order in one thread, with the CPU's double accumulation for floats, so the
// two backends agree bit for bit; it is a plain scan, not a fast one.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/convert.h"
#include "core/cuda/check.h"
#include "core/cuda/launch.h"
#include "core/cuda/stream.h"
#include "core/error.h"
#include "ops/cuda/cuda_ops_reduce.h"
#include "ops/rows.h"

namespace tt::ops::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxRowBlocks = 65535;

// A partial result: the sum (Sum), or the extreme value and its index (i < 0: no
// element yet).
template <typename T>
struct Partial {
  uint64_t sum;
  T v;
  int64_t i;
};

template <IntReduce K, typename T>
__device__ __forceinline__ Partial<T> combine(Partial<T> a, Partial<T> b) {
  if constexpr (K == IntReduce::Sum) {
    return {a.sum + b.sum, a.v, a.i};  // wraps, as PyTorch
  } else {
    if (a.i < 0) return b;
    if (b.i < 0) return a;
    constexpr bool kMax = K == IntReduce::Max || K == IntReduce::ArgMax || K == IntReduce::Any;
    const bool better = kMax ? b.v > a.v : b.v < a.v;
    // Ties keep the first index (PyTorch's argmax/argmin).
    return (better || (b.v == a.v && b.i < a.i)) ? b : a;
  }
}

template <IntReduce K, typename T, typename Out>
__global__ void reduce_rows_kernel(const T* __restrict__ x, Out* __restrict__ out, int64_t rows,
                                   int64_t len) {
  __shared__ uint64_t sums[kThreads];
  __shared__ T values[kThreads];
  __shared__ int64_t indices[kThreads];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* p = x + row * len;
    Partial<T> acc{0, T(0), -1};
    for (int64_t j = threadIdx.x; j < len; j += blockDim.x) {
      if constexpr (K == IntReduce::Sum) {
        acc.sum += static_cast<uint64_t>(static_cast<int64_t>(p[j]));
      } else {
        acc = combine<K>(acc, Partial<T>{0, p[j], j});
      }
    }
    sums[threadIdx.x] = acc.sum;
    values[threadIdx.x] = acc.v;
    indices[threadIdx.x] = acc.i;
    __syncthreads();
    for (int step = blockDim.x / 2; step > 0; step /= 2) {
      if (threadIdx.x < step) {
        const int o = threadIdx.x + step;
        const Partial<T> r =
            combine<K>(Partial<T>{sums[threadIdx.x], values[threadIdx.x], indices[threadIdx.x]},
                       Partial<T>{sums[o], values[o], indices[o]});
        sums[threadIdx.x] = r.sum;
        values[threadIdx.x] = r.v;
        indices[threadIdx.x] = r.i;
      }
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      if constexpr (K == IntReduce::Sum) {
        out[row] = static_cast<Out>(static_cast<int64_t>(sums[0]));
      } else if constexpr (K == IntReduce::ArgMax || K == IntReduce::ArgMin) {
        out[row] = static_cast<Out>(indices[0]);
      } else if constexpr (K == IntReduce::Any || K == IntReduce::All) {
        // An empty row: any is false, all is true.
        out[row] =
            indices[0] < 0 ? static_cast<Out>(K == IntReduce::All) : static_cast<Out>(values[0]);
      } else {
        out[row] = static_cast<Out>(values[0]);
      }
    }
    __syncthreads();  // the shared arrays are reused by the next row
  }
}

template <IntReduce K, typename T>
Tensor run_reduce(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  using Out =
      std::conditional_t<K == IntReduce::Sum || K == IntReduce::ArgMax || K == IntReduce::ArgMin,
                         int64_t,
                         std::conditional_t<K == IntReduce::Any || K == IntReduce::All, bool, T>>;
  const Rows r = as_rows(x, dims, keepdim);
  Tensor out = Tensor::empty(r.out_shape, DTypeOf<Out>::value, x.device());
  if (r.rows == 0) return out;
  const int device = x.device().index;
  tt::cuda::DeviceGuard guard(device);
  const unsigned int blocks = static_cast<unsigned int>(std::min(r.rows, kMaxRowBlocks));
  reduce_rows_kernel<K, T, Out><<<blocks, kThreads, 0, tt::cuda::stream(device)>>>(
      static_cast<const T*>(r.data.data_ptr()), static_cast<Out*>(out.data_ptr()), r.rows, r.len);
  TT_CUDA_CHECK_LAUNCH();
  return out;
}

template <typename T>
__global__ void cumsum_rows_kernel(const T* __restrict__ x, T* __restrict__ out, int64_t rows,
                                   int64_t len) {
  for (int64_t row = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; row < rows;
       row += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const T* p = x + row * len;
    T* o = out + row * len;
    if constexpr (std::is_floating_point_v<T>) {
      double acc = 0.0;
      for (int64_t j = 0; j < len; ++j) o[j] = static_cast<T>(acc += static_cast<double>(p[j]));
    } else {
      uint64_t acc = 0;
      for (int64_t j = 0; j < len; ++j) o[j] = static_cast<T>(acc += static_cast<uint64_t>(p[j]));
    }
  }
}

}  // namespace

Tensor reduce_integers(IntReduce kind, const Tensor& x, const std::vector<int64_t>& dims,
                       bool keepdim) {
  return visit_dtype(x.dtype(), "reduce", [&](auto zero) -> Tensor {
    using T = decltype(zero);
    if constexpr (std::is_same_v<T, double>) {
      TT_FAIL("reduce: float64 runs on the CPU only");
    } else {
      switch (kind) {
#define TT_INT_REDUCE_CASE(name) \
  case IntReduce::name:          \
    return run_reduce<IntReduce::name, T>(x, dims, keepdim);
        TT_INT_REDUCTIONS(TT_INT_REDUCE_CASE)
#undef TT_INT_REDUCE_CASE
      }
      TT_FAIL("reduce: unknown reduction");
    }
  });
}

Tensor cumsum(const Tensor& x, int64_t dim) {
  const DimLast in = dim_last(x, dim);
  Tensor out = Tensor::empty(in.data.sizes(), in.data.dtype(), in.data.device());
  if (in.rows > 0) {
    const int device = x.device().index;
    tt::cuda::DeviceGuard guard(device);
    visit_dtype(x.dtype(), "cumsum", [&](auto zero) {
      using T = decltype(zero);
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, int64_t>) {
        cumsum_rows_kernel<T>
            <<<tt::cuda::grid_size(in.rows), tt::cuda::kElementwiseThreads, 0,
               tt::cuda::stream(device)>>>(static_cast<const T*>(in.data.data_ptr()),
                                           static_cast<T*>(out.data_ptr()), in.rows, in.len);
      } else {
        TT_FAIL("cumsum: dtype {} is not supported on CUDA (expected float32 or int64)",
                dtype_name(x.dtype()));
      }
    });
    TT_CUDA_CHECK_LAUNCH();
  }
  return out.permute(in.inverse).contiguous();
}

}  // namespace tt::ops::cuda
