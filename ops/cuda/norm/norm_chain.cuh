// The chain segment norm's instantiations (launch_segment_chain, norm_passes.h): one
// launch per (prologue shape, epilogue shape) pair of norm_functors.cuh. The common shapes
// of the fused plans are compiled straight-line (their steps as template arguments) in
// files of their own, so that they build in parallel; every other chain runs the AnyOps
// pair, which switches once per step and vector.
#pragma once

#include "ops/cuda/norm/norm_functors.cuh"
#include "ops/cuda/norm/norm_passes.h"
#include "ops/cuda/norm/segment_kernels.cuh"

namespace tt::ops::cuda::norm {

using gemm::EpilogueOp;
// The shapes with an instantiation of their own (the fused plans of models 1 and 3, and a
// row or group norm with its affine).
using NoSteps = Ops<>;
using AffineSteps = Ops<EpilogueOp::kMulColumn, EpilogueOp::kAddColumn>;
using SiluBiasSteps = Ops<EpilogueOp::kSilu, EpilogueOp::kAddColumn>;
using AddMulSteps = Ops<EpilogueOp::kAddResidual, EpilogueOp::kMulResidual>;

inline NormChain norm_chain(const gemm::Epilogue& e) {
  NormChain c;
  for (int i = 0; i < e.count; ++i) c.steps[i] = e.steps[i];
  c.count = e.count;
  c.row0 = e.row0;
  return c;
}

template <class ProSteps, class EpiSteps>
void launch_chain(const SegmentConfig& cfg, const SegmentChainArgs& a, cudaStream_t stream) {
  const SegmentPlace place{a.groups, a.n / a.groups};
  SegmentLaunch<ChainPro<ProSteps>, ChainEpi<EpiSteps>> launch{
      a.x,
      a.rows * a.groups,
      place.length,
      ChainPro<ProSteps>{norm_chain(a.prologue), place, a.pre},
      ChainEpi<EpiSteps>{norm_chain(a.epilogue), place, a.out},
      a.eps,
      nullptr,
      nullptr};
  launch.rms = a.rms;
  dispatch_segment_norm(cfg, launch, stream);
}

extern template void launch_chain<NoSteps, AffineSteps>(const SegmentConfig&,
                                                        const SegmentChainArgs&, cudaStream_t);
extern template void launch_chain<SiluBiasSteps, AffineSteps>(const SegmentConfig&,
                                                              const SegmentChainArgs&,
                                                              cudaStream_t);
extern template void launch_chain<NoSteps, AddMulSteps>(const SegmentConfig&,
                                                        const SegmentChainArgs&, cudaStream_t);
extern template void launch_chain<AnyOps, AnyOps>(const SegmentConfig&, const SegmentChainArgs&,
                                                  cudaStream_t);

// The AnyOps pair's launchers, one per row of TT_NORM_SEGMENT_VARIANTS: switching on every
// step, its kernels are the family's slowest to compile, so norm_chain_any_*.cu instantiate
// them, one list of norm_variants.h each, to build in parallel; norm_chain.cu dispatches.
#define TT_NORM_ANY_LAUNCH(PREFIX, kind, threads, lanes, vec, items, cluster, buffers)       \
  PREFIX void launch_segment_variant<SegmentKind::kind, threads, lanes, vec, items, cluster, \
                                     buffers, ChainPro<AnyOps>, ChainEpi<AnyOps>>(           \
      const SegmentLaunch<ChainPro<AnyOps>, ChainEpi<AnyOps>>&, cudaStream_t);
#define TT_NORM_ANY_EXTERN(...) TT_NORM_ANY_LAUNCH(extern template, __VA_ARGS__)
#define TT_NORM_ANY_INSTANCE(...) TT_NORM_ANY_LAUNCH(template, __VA_ARGS__)
TT_NORM_SEGMENT_VARIANTS(TT_NORM_ANY_EXTERN)

}  // namespace tt::ops::cuda::norm
