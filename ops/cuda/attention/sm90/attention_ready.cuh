// A pre-pass that runs beside the attention kernel instead of before it.
//
// The wgmma kernels read some operands through TMA in a layout a pre-pass writes (tf32:
// V transposed; accurate's fp16 split: K's and V's halves and the tiles' factors). Run
// before the kernel, the pre-pass adds its whole time to the op, though it is
// memory-bound and the kernel, compute-bound, leaves the HBM mostly idle. Run beside it,
// on a few CTAs, it costs only those SMs for as long as it runs: the kernel launches as
// the pre-pass's programmatic dependent (PDL), the pre-pass publishes each unit (one
// (batch, head) and chunk of keys) with a flag once written, and the kernel's producer
// waits for the flag of a unit before its first copy from it.
//
// Units go in the order the kernel's CTAs need them (query_tile_grid's: heads in groups
// of kCausalHeadGroup; within a group, chunk by chunk across its heads) and to the
// pre-pass's CTAs round robin. A pre-pass CTA zeroes its own units' flags before it lets
// the kernel launch (griddepcontrol.launch_dependents, which the kernel's launch waits for
// from every CTA): the flags need no reset between launches, a CUDA graph replays them
// correctly, and no unit's flag can read as set before it is written. The producer's wait
// cannot deadlock: once the kernel has launched, every pre-pass CTA has started, and none
// of them waits for anything.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "ops/cuda/attention/attention_order.cuh"

namespace tt::ops::cuda::attention {

// Units of `heads` (batch, head)s of `chunks` chunks each.
struct ReadyUnits {
  int64_t heads;
  int64_t chunks;

  __host__ __device__ int64_t count() const { return heads * chunks; }
  // The index of (batch-head b, chunk c): the order in which the kernel needs them.
  __host__ __device__ int64_t unit(int64_t b, int64_t c) const {
    const int64_t g = b / kCausalHeadGroup, first = g * kCausalHeadGroup;
    const int64_t in_group = heads - first < kCausalHeadGroup ? heads - first : kCausalHeadGroup;
    return first * chunks + c * in_group + (b - first);
  }
  // unit()'s inverse: (b, c) of unit u.
  __host__ __device__ void head_chunk(int64_t u, int64_t& b, int64_t& c) const {
    const int64_t per_group = kCausalHeadGroup * chunks, g = u / per_group;
    const int64_t first = g * kCausalHeadGroup, r = u - g * per_group;
    const int64_t in_group = heads - first < kCausalHeadGroup ? heads - first : kCausalHeadGroup;
    c = r / in_group;
    b = first + (r - c * in_group);
  }
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900

// The pre-pass CTA's prologue: zero the flags of its units (blockIdx.x, + gridDim.x, ...),
// then let the kernel launch. Every thread of the CTA calls it.
__device__ __forceinline__ void ready_prologue(uint32_t* flags, int64_t units) {
  for (int64_t u = blockIdx.x + int64_t{gridDim.x} * threadIdx.x; u < units;
       u += int64_t{gridDim.x} * blockDim.x) {
    flags[u] = 0u;
  }
  // The zeros are visible on the whole device before the trigger (the kernel starts only
  // after every CTA's).
  __threadfence();
  __syncthreads();
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
}

// After a unit's stores: every thread of the CTA calls it; thread 0 sets the flag once the
// CTA's stores are visible on the device, to the TMA (async proxy) reads among them.
__device__ __forceinline__ void ready_publish(uint32_t* flag) {
  __threadfence();
  asm volatile("fence.proxy.async.global;\n" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("st.release.gpu.global.u32 [%0], %1;\n" ::"l"(flag), "r"(1u) : "memory");
  }
}

// The kernel's side (the thread that issues the unit's copies): wait for the flag, then
// order the TMA reads that follow after it.
__device__ __forceinline__ void ready_wait(const uint32_t* flag) {
  uint32_t v = 0;
  for (;;) {
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(v) : "l"(flag) : "memory");
    if (v != 0u) break;
    __nanosleep(64);
  }
  asm volatile("fence.proxy.async.global;\n" ::: "memory");
}

#endif

}  // namespace tt::ops::cuda::attention
