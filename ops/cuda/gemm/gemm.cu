// Dispatch of the GEMM stage between cuBLASLt and our own kernel.
#include "ops/cuda/gemm/gemm.h"

#include "core/error.h"
#include "ops/cuda/gemm/cublaslt_gemm.h"

namespace tt::ops::cuda::gemm {

bool cublaslt_supports(const EpilogueParams& e) {
  if (e.kind != EpilogueKind::kPointwise || e.post_bias != nullptr || e.affine != nullptr) {
    return false;
  }
  if (e.act == Activation::kNone) return true;
  return e.act == Activation::kRelu && e.bias != nullptr;
}

void run_gemm(const GemmConfig& cfg, const GemmArgs& a, const EpilogueParams& e, int device,
              cudaStream_t stream) {
  if (a.m == 0 || a.n == 0) return;
  if (cfg.impl == GemmImpl::kCublasLt && a.k > 0 && cublaslt_supports(e)) {
    LtProblem p;
    p.m = a.m;
    p.n = a.n;
    p.k = a.k;
    p.device = device;
    p.epilogue = e.bias == nullptr            ? LtEpilogue::kDefault
                 : e.act == Activation::kRelu ? LtEpilogue::kReluBias
                                              : LtEpilogue::kBias;
    cublaslt_gemm_on(p, a.x, a.w, e.bias, a.c, cfg.cublas_algo_index, stream);
    return;
  }
  GemmConfig own = cfg;
  GemmProblem p{a.m, a.n, a.k, pointer_align({a.x, a.w})};
  if (own.impl != GemmImpl::kOwn) own = GemmConfig::own_default_for(p);
  launch_tiled_gemm(own, a, e, stream);
}

}  // namespace tt::ops::cuda::gemm
