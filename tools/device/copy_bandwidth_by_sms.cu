// HBM copy bandwidth when a copy is confined to P SMs (one block an SM, forced by shared
// memory): plain loads and stores with U float4 in flight a thread, and bulk copies
// (cp.async.bulk through a ring of shared-memory buffers, one thread). 64 MB read and 64 MB
// written, the bytes of accurate's split pre-pass at B8 H16 T1024 E64 (docs/performance.md,
// issue 19, twenty-ninth step: whether a pre-pass on a few SMs could run beside a kernel).
// Build here, run there (one line):
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I.
//     tools/device/copy_bandwidth_by_sms.cu -o copy_bandwidth_by_sms
// Rows: BW,P=<SMs>,<form> <ms> <TB/s>,... (medians of 10, each after a 256 MB L2 flush).
#include <cstdint>
#include <cstdio>

#include "ops/cuda/gemm/sm90/wgmma_util.cuh"
#include "tools/device/standalone_check.cuh"

using tt::ops::cuda::gemm::sm90::detail::smem_u32;

template <int U>
__global__ void __launch_bounds__(1024, 1)
    ldst(const float4* __restrict__ in, float4* __restrict__ out, size_t n4) {
  const size_t step = size_t(gridDim.x) * 1024;
  for (size_t base = size_t(blockIdx.x) * 1024 + threadIdx.x; base < n4; base += step * U) {
    float4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      size_t i = base + u * step;
      if (i < n4) v[u] = __ldcs(in + i);
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      size_t i = base + u * step;
      if (i < n4) __stcs(out + i, v[u]);
    }
  }
}

// Bulk: thread 0 streams CH-byte chunks through R buffers.
template <int CH, int R>
__global__ void __launch_bounds__(32, 1) bulk(const char* in, char* out, size_t bytes) {
  extern __shared__ __align__(128) char buf[];
  __shared__ __align__(8) uint64_t bar[R];
  if (threadIdx.x != 0) return;
  for (int r = 0; r < R; ++r)
    asm volatile("mbarrier.init.shared.b64 [%0], 1;" ::"r"(smem_u32(&bar[r])));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  const size_t chunks = bytes / CH;
  auto issue = [&](size_t c, unsigned kk) {
    int r = kk % R;
    asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], %1;" ::"r"(smem_u32(&bar[r])),
                 "r"(CH)
                 : "memory");
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::
            "r"(smem_u32(buf + r * CH)),
        "l"(in + c * CH), "r"(CH), "r"(smem_u32(&bar[r]))
        : "memory");
  };
  const size_t first = blockIdx.x;
  // prologue: R loads
  unsigned issued = 0;
  for (size_t c = first; c < chunks && issued < R; c += gridDim.x, ++issued) issue(c, issued);
  unsigned done = 0;
  for (size_t c = first; c < chunks; c += gridDim.x, ++done) {
    int r = done % R;
    unsigned par = (done / R) & 1;
    asm volatile(
        "{ .reg .pred p; W: mbarrier.try_wait.parity.shared.b64 p, [%0], %1; @!p bra W; }" ::"r"(
            smem_u32(&bar[r])),
        "r"(par)
        : "memory");
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(out + c * CH),
                 "r"(smem_u32(buf + r * CH)), "r"(CH)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    // The next load into buffer r once its store has read it.
    size_t nc = first + size_t(done + R) * gridDim.x;
    if (nc < chunks) {
      asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
      issue(nc, done + R);
    }
  }
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

int main() {
  const size_t bytes = size_t(64) << 20;
  char *in, *out, *flush;
  CK(cudaMalloc(&in, bytes));
  CK(cudaMalloc(&out, bytes));
  CK(cudaMalloc(&flush, 256 << 20));
  CK(cudaMemset(in, 1, bytes));
  const int smem_ldst = 120 * 1024;  // one block an SM
  CK(cudaFuncSetAttribute(ldst<8>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_ldst));
  CK(cudaFuncSetAttribute(ldst<4>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_ldst));
  constexpr int CH = 32768, R = 6;
  CK(cudaFuncSetAttribute(bulk<CH, R>, cudaFuncAttributeMaxDynamicSharedMemorySize, CH * R));
  const auto none = [] {};
  const auto tbps = [&](float ms) { return 2.0 * bytes / ms / 1e9; };
  for (int P : {8, 16, 24, 32, 48, 66, 132}) {
    const float t8 = median_of_10_ms(
        [&] { ldst<8><<<P, 1024, smem_ldst>>>((const float4*)in, (float4*)out, bytes / 16); }, none,
        flush);
    const float t4 = median_of_10_ms(
        [&] { ldst<4><<<P, 1024, smem_ldst>>>((const float4*)in, (float4*)out, bytes / 16); }, none,
        flush);
    const float tb =
        median_of_10_ms([&] { bulk<CH, R><<<P, 32, CH * R>>>(in, out, bytes); }, none, flush);
    CK(cudaGetLastError());
    std::printf("BW,P=%d,ldst8 %.4f ms %.2f TB/s,ldst4 %.4f ms %.2f TB/s,bulk %.4f ms %.2f TB/s\n",
                P, t8, tbps(t8), t4, tbps(t4), tb, tbps(tb));
  }
  // The bulk form's last bytes arrived.
  char h[2] = {0, 0};
  CK(cudaMemset(out, 0, bytes));
  bulk<CH, R><<<16, 32, CH * R>>>(in, out, bytes);
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(h, out + bytes - 2, 2, cudaMemcpyDeviceToHost));
  std::printf("bulk copy %s\n", h[0] == 1 && h[1] == 1 ? "checked" : "WRONG");
  return h[0] == 1 && h[1] == 1 ? 0 : 1;
}
