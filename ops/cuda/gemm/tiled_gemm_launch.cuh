// Launches variant `index` of TT_GEMM_OWN_VARIANTS with epilogue KIND; included by
// the three tiled_gemm_<kind>.cu files, each of which instantiates one kind so that
// they compile in parallel.
#pragma once

#include "core/cuda/check.h"
#include "core/error.h"
#include "ops/cuda/gemm/tiled_gemm.cuh"
#include "ops/cuda/gemm/tiled_gemm.h"
#include "ops/cuda/gemm/tiled_gemm_variants.h"

namespace tt::ops::cuda::gemm::detail {

template <class T, int MIN_BLOCKS, EpilogueKind KIND>
void launch_tile(const GemmArgs& a, const Epilogue& e, cudaStream_t stream) {
  const int64_t tiles = ((a.m + T::BM - 1) / T::BM) * ((a.n + T::BN - 1) / T::BN);
  TT_CHECK(tiles < (int64_t{1} << 31), "gemm: {}x{} output needs too many tiles", a.m, a.n);
  const bool vec4_ok = a.n % 4 == 0 && reinterpret_cast<uintptr_t>(a.c) % 16 == 0;
  tiled_gemm_kernel<T, MIN_BLOCKS, KIND><<<static_cast<unsigned>(tiles), T::kThreads, 0, stream>>>(
      a.x, a.w, a.c, a.m, a.n, a.k, e, vec4_ok);
  TT_CUDA_CHECK_LAUNCH();
}

template <EpilogueKind KIND>
void launch_variant(int index, const GemmArgs& a, const Epilogue& e, cudaStream_t stream) {
  int i = 0;
  bool done = false;
#define TT_GEMM_LAUNCH_ONE(BM, BN, BK, TM, TN, VEC, MINB)                 \
  if (!done && i++ == index) {                                            \
    launch_tile<Tile<BM, BN, BK, TM, TN, VEC>, MINB, KIND>(a, e, stream); \
    done = true;                                                          \
  }
  TT_GEMM_OWN_VARIANTS(TT_GEMM_LAUNCH_ONE)
#undef TT_GEMM_LAUNCH_ONE
  TT_CHECK(done, "gemm: own variant index {} is not compiled", index);
}

}  // namespace tt::ops::cuda::gemm::detail
