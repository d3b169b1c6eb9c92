// The sm90 tensor-core GEMM's launcher template (one per row of tc_gemm_variants.h and
// residual choice), shared by the translation units that instantiate it: tc_gemm.cu the
// rows without residual steps, tc_gemm_residual.cu the same rows with them. Each row's
// kernel is the slow part of the build, so the two halves compile on two cores at once.
// Compiled for sm_90a only (ops/CMakeLists.txt).
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>

#include "core/cuda/check.h"
#include "core/error.h"
#include "ops/cuda/gemm/sm90/tc_gemm.h"
#include "ops/cuda/gemm/sm90/tc_gemm_kernel.cuh"
#include "ops/cuda/gemm/sm90/tc_gemm_variants.h"

namespace tt::ops::cuda::gemm::sm90::detail {

using LaunchFn = void (*)(const TcConfig&, const CUtensorMap&, const CUtensorMap&,
                          const CUtensorMap&, const CUtensorMap&, const TcParams&, int sms,
                          cudaStream_t);

constexpr int flavor(TcMode m, bool a_regs) {
  return m == TcMode::accurate ? kAccurate : a_regs ? kRS : kSS;
}

template <int FLAVOR, int BM, int BN, int BK, int STAGES, int CONSUMERS, bool PP, int CM, bool RES>
void launch(const TcConfig& cfg, const CUtensorMap& mx, const CUtensorMap& mw,
            const CUtensorMap& mc, const CUtensorMap& mr, const TcParams& p, int sms,
            cudaStream_t stream) {
  using T = TcTraits<FLAVOR, BM, BN, BK, STAGES, CONSUMERS, PP, CM, RES>;
  static_assert(T::kEpiBufs == TcTraits<FLAVOR, BM, BN, BK, STAGES, CONSUMERS, PP, CM>::kEpiBufs,
                "the residual's barriers leave the row's TMA store buffers as they are");
  auto kernel = tc_gemm_kernel<FLAVOR, BM, BN, BK, STAGES, CONSUMERS, PP, CM, RES>;
  cudaLaunchAttribute cluster = detail::cluster_attribute(CM);
  cudaLaunchConfig_t lc{};
  lc.blockDim = dim3(T::kThreads);
  lc.dynamicSmemBytes = T::kSmemBytes;
  lc.stream = stream;
  lc.attrs = &cluster;
  lc.numAttrs = CM > 1 ? 1 : 0;
  // Per function and device, once each: raise the dynamic shared-memory limit, and count
  // the clusters that fit on the GPU at once (a persistent grid's size; GPCs of
  // different sizes leave some SMs out of clusters).
  static std::atomic<int> resident[64] = {};
  int device = 0;
  TT_CUDA_CHECK(cudaGetDevice(&device));
  std::atomic<int>& slots = resident[device & 63];
  if (slots.load() == 0) {
    TT_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, T::kSmemBytes));
    int clusters = sms;
    if constexpr (CM > 1) {
      lc.gridDim = dim3(sms / CM * CM);
      TT_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &lc));
      TT_CHECK(clusters > 0,
               "tc_gemm: no cluster of {} CTAs of the variant '{}' fits on device {}.", CM,
               to_string(cfg), device);
    }
    slots.store(clusters);
  }
  // A cluster takes CM vertically adjacent tiles together (tc_gemm_kernel.cuh).
  const int cluster_tiles = (p.tiles_m + CM - 1) / CM * p.tiles_n;
  const int clusters = cfg.persistent ? std::min(cluster_tiles, slots.load()) : cluster_tiles;
  lc.gridDim = dim3(clusters * CM);
  TT_CUDA_CHECK(cudaLaunchKernelEx(&lc, kernel, mx, mw, mc, mr, p));
  TT_CUDA_CHECK_LAUNCH();
}

}  // namespace tt::ops::cuda::gemm::sm90::detail

// A row's launcher with residual steps (RES true) or without, as an explicit instantiation:
// PREFIX `template` defines it, `extern template` says another translation unit does.
#define TT_TC_LAUNCH_INSTANCE(PREFIX, RES, mode, a_regs, bm, bn, bk, stages, consumers, pingpong, \
                              cluster)                                                            \
  PREFIX void                                                                                     \
  launch<flavor(TcMode::mode, a_regs), bm, bn, bk, stages, consumers, pingpong, cluster, RES>(    \
      const TcConfig&, const CUtensorMap&, const CUtensorMap&, const CUtensorMap&,                \
      const CUtensorMap&, const TcParams&, int, cudaStream_t);
#define TT_TC_RESIDUAL_INSTANCE(...) TT_TC_LAUNCH_INSTANCE(template, true, __VA_ARGS__)
#define TT_TC_RESIDUAL_EXTERN(...) TT_TC_LAUNCH_INSTANCE(extern template, true, __VA_ARGS__)
