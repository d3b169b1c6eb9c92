// Copies between host and devices, and the strided-to-contiguous copy that
// Tensor::contiguous() uses for CUDA tensors.
#include <fmt/format.h>

#include <cstdint>
#include <cstring>

#include "core/convert.h"
#include "core/cuda/check.h"
#include "core/cuda/launch.h"
#include "core/cuda/runtime.h"
#include "core/cuda/stream.h"
#include "core/error.h"
#include "core/tensor.h"

namespace tt::cuda {

void copy(void* dst, int dst_device, const void* src, int src_device, size_t nbytes) {
  if (nbytes == 0) return;
  if (dst_device < 0 && src_device < 0) {
    std::memcpy(dst, src, nbytes);
    return;
  }
  if (dst_device >= 0 && src_device >= 0 && dst_device != src_device) {
    // The source may still be written by work on its own device's stream.
    synchronize(src_device);
    DeviceGuard guard(dst_device);
    cudaStream_t s = stream(dst_device);
    TT_CUDA_CHECK(cudaMemcpyPeerAsync(dst, dst_device, src, src_device, nbytes, s));
    TT_CUDA_CHECK(cudaStreamSynchronize(s));
    return;
  }
  // One side on the host or both on the same device: on that device's stream, so
  // the copy is ordered after the kernels that produced the source.
  int device = dst_device >= 0 ? dst_device : src_device;
  DeviceGuard guard(device);
  cudaStream_t s = stream(device);
  TT_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDefault, s));
  TT_CUDA_CHECK(cudaStreamSynchronize(s));
}

namespace {

// Sizes and strides of the source view, by value in the kernel's parameters.
struct StridedLayout {
  int rank;
  int64_t sizes[kMaxRank];
  int64_t strides[kMaxRank];
};

// One thread per output element (grid-stride): the contiguous output index is
// unravelled into coordinates, which the source strides map to a source offset.
// Elements are moved as opaque words of their size, so any dtype works. Index is
// 32-bit when every index and offset fits, because 64-bit division is several times
// slower.
template <typename Word, typename Index>
__global__ void strided_copy_kernel(Word* __restrict__ dst, const Word* __restrict__ src, Index n,
                                    StridedLayout layout) {
  for (Index i = blockIdx.x * static_cast<Index>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<Index>(gridDim.x) * blockDim.x) {
    Index rest = i;
    Index offset = 0;
    for (int d = layout.rank - 1; d >= 0; --d) {
      Index size = static_cast<Index>(layout.sizes[d]);
      offset += (rest % size) * static_cast<Index>(layout.strides[d]);
      rest /= size;
    }
    dst[i] = src[offset];
  }
}

template <typename Word>
void launch_strided_copy(void* dst, const void* src, int64_t n, const StridedLayout& layout,
                         bool index32, cudaStream_t s) {
  if (index32) {
    strided_copy_kernel<Word, int32_t><<<grid_size(n), kElementwiseThreads, 0, s>>>(
        static_cast<Word*>(dst), static_cast<const Word*>(src), static_cast<int32_t>(n), layout);
  } else {
    strided_copy_kernel<Word, int64_t><<<grid_size(n), kElementwiseThreads, 0, s>>>(
        static_cast<Word*>(dst), static_cast<const Word*>(src), n, layout);
  }
  TT_CUDA_CHECK_LAUNCH();
}

}  // namespace

void strided_copy(void* dst, const void* src, size_t elem_size, int rank, const int64_t* sizes,
                  const int64_t* src_strides, int64_t src_offset, int device) {
  TT_CHECK(rank >= 0 && rank <= kMaxRank,
           "strided_copy supports tensors of rank at most {}, but got rank {}.", kMaxRank, rank);
  StridedLayout layout{};
  int64_t n = 1;
  for (int d = 0; d < rank; ++d) {
    n *= sizes[d];
    // Size-1 dimensions never move the offset; dropping them saves a division.
    if (sizes[d] == 1) continue;
    // A dimension that steps exactly over the previous one's extent merges with it
    // (e.g. a narrowed row-major matrix becomes rank 2 whatever its original rank).
    if (layout.rank > 0 && layout.strides[layout.rank - 1] == src_strides[d] * sizes[d]) {
      layout.sizes[layout.rank - 1] *= sizes[d];
      layout.strides[layout.rank - 1] = src_strides[d];
      continue;
    }
    layout.sizes[layout.rank] = sizes[d];
    layout.strides[layout.rank] = src_strides[d];
    ++layout.rank;
  }
  // The largest source offset reached, to choose the index width (negative strides
  // never occur: views only narrow, permute and broadcast).
  int64_t max_offset = 0;
  for (int d = 0; d < layout.rank; ++d) max_offset += (layout.sizes[d] - 1) * layout.strides[d];
  // 2^30 leaves room for the grid-stride step, which must not overflow either.
  bool index32 = n <= (int64_t{1} << 30) && max_offset <= INT32_MAX;
  if (n == 0) return;
  DeviceGuard guard(device);
  cudaStream_t s = stream(device);
  const char* base = static_cast<const char*>(src) + src_offset * static_cast<int64_t>(elem_size);
  visit_word(elem_size, "strided_copy", [&](auto word) {
    launch_strided_copy<decltype(word)>(dst, base, n, layout, index32, s);
  });
}

}  // namespace tt::cuda
