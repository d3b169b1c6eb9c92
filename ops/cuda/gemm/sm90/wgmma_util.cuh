// Helpers of the sm_90a wgmma kernels shared by the GEMM family (tc_gemm_kernel.cuh)
// and the attention family (ops/cuda/attention/sm90/): the shared-memory descriptor of
// a 128-byte-swizzled K-major tile, the wgmma fence/commit/wait, a register fence that
// keeps the compiler's hands off asynchronous accumulators, setmaxnreg, and the TF32 split.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace tt::ops::cuda::gemm::sm90::detail {

// The launch attribute that groups `x` CTAs along the grid's x into one cluster (the
// sm90 kernels' TMA multicast pairs); a launch with x = 1 leaves it out of its attributes.
inline cudaLaunchAttribute cluster_attribute(unsigned x) {
  cudaLaunchAttribute a{};
  a.id = cudaLaunchAttributeClusterDimension;
  a.val.clusterDim.x = x;
  a.val.clusterDim.y = 1;
  a.val.clusterDim.z = 1;
  return a;
}

// The launch attribute that makes a kernel its stream predecessor's programmatic dependent
// (PDL): it may start once every block of the predecessor has triggered
// (griddepcontrol.launch_dependents) and waits for that grid with griddepcontrol.wait.
inline cudaLaunchAttribute pdl_attribute() {
  cudaLaunchAttribute a{};
  a.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  a.val.programmaticStreamSerializationAllowed = 1;
  return a;
}

// wgmma shared-memory descriptor of a K-major tile with the 128-byte swizzle: rows of
// 128 bytes, 8-row atoms 1024 bytes apart (stride byte offset); the leading byte
// offset is unused in this layout. The tile base must be 1024-byte aligned; a k-step
// inside the swizzle row is a plain +32 bytes on the start address (the hardware
// applies the XOR on the final address, as TMA did when it wrote the tile).
__device__ __forceinline__ uint64_t sw128_desc(uint32_t smem_addr) {
  return (uint64_t((smem_addr & 0x3FFFF) >> 4)) | (uint64_t(1) << 16) |
         (uint64_t(1024 >> 4) << 32) | (uint64_t(1) << 62);
}

// sw128_desc of a tile's base, advanced by byte offsets inside the tile with one 32-bit
// add: the start address field (bits 0-13) holds address / 16, and an offset that keeps
// the address inside shared memory never carries out of it. sw128_desc(base + offset)
// per wgmma re-does the mask and shift, a chain of four uniform instructions ahead of
// each wgmma that the compiler cannot fold (it does not know the sum stays in range).
struct Sw128Desc {
  uint32_t lo;
  __device__ __forceinline__ explicit Sw128Desc(uint32_t base)
      : lo(static_cast<uint32_t>(sw128_desc(base))) {}
  __device__ __forceinline__ uint64_t at(uint32_t offset) const {
    return ((uint64_t(1024 >> 4) << 32) | (uint64_t(1) << 62)) | (lo + (offset >> 4));
  }
};

// The same for the 64-byte swizzle: rows of 64 bytes, 8-row atoms 512 bytes apart (swizzle
// mode 2); the tile base 512-byte aligned.
struct Sw64Desc {
  uint32_t lo;
  __device__ __forceinline__ explicit Sw64Desc(uint32_t base)
      : lo(((base & 0x3FFFF) >> 4) | (uint32_t(1) << 16)) {}
  __device__ __forceinline__ uint64_t at(uint32_t offset) const {
    return ((uint64_t(512 >> 4) << 32) | (uint64_t(2) << 62)) | (lo + (offset >> 4));
  }
};

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// Arrives on the barrier at `bar`'s place in the shared memory of the cluster's CTA
// `rank`, with the default release at CTA scope: cuda::ptx's remote arrive is
// release.cluster, whose cluster-wide fence per k-block doubled the GEMM's time.
__device__ __forceinline__ void arrive_remote(uint64_t* bar, int rank) {
  asm volatile(
      "{\n .reg .b32 remote;\n mapa.shared::cluster.u32 remote, %0, %1;\n"
      " mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(smem_u32(bar)),
      "r"(rank)
      : "memory");
}

__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
// Keeps the compiler from moving accumulator reads or writes across the asynchronous
// wgmma (the asm above names no registers).
template <int R>
__device__ __forceinline__ void fence_regs(float (&r)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(r[i])::"memory");
}

// Register budgets of warp-specialized kernels: the producer gives registers back, the
// consumers take them.
template <int REGS>
__device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(REGS));
}
template <int REGS>
__device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(REGS));
}

// Round to nearest (ties away) to TF32: the hi half of the split; x - hi is exact.
__device__ __forceinline__ float tf32_rna(float x) {
  uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return __uint_as_float(r);
}

// The lo half of a split whose hi is the tensor core's own truncation of x: x - trunc(x)
// is exact (at most 13 significant bits) and rounded to nearest TF32 here.
__device__ __forceinline__ float tf32_lo(float x) {
  return tf32_rna(x - __uint_as_float(__float_as_uint(x) & 0xFFFFE000u));
}

}  // namespace tt::ops::cuda::gemm::sm90::detail
