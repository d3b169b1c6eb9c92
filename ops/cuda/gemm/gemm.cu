// Dispatch of the GEMM stage between cuBLASLt and our own kernel.
#include "ops/cuda/gemm/gemm.h"

#include "core/error.h"
#include "ops/cuda/gemm/cublaslt_gemm.h"

namespace tt::ops::cuda::gemm {

bool cublaslt_supports(const Epilogue& e) {
  const ScaleBiasActivation f = as_scale_bias_activation(e);
  if (!f.ok || f.scale != nullptr) return false;
  return !f.has_act || (f.act == EpilogueOp::kRelu && f.bias != nullptr);
}

bool epilogue_supported(const GemmConfig& cfg, const GemmProblem& p, const Epilogue& e) {
  switch (cfg.impl) {
    case GemmImpl::kOwn: {
      GemmProblem aligned = p;
      aligned.align = cfg.vec;
      return own_epilogue_valid(cfg, aligned, e);
    }
    case GemmImpl::kCublasLt:
      return cublaslt_supports(e);
  }
  return false;
}

int64_t column_stat_rows(const GemmConfig& cfg) { return cfg.impl == GemmImpl::kOwn ? cfg.bm : 0; }

void run_gemm(const GemmConfig& cfg, const GemmArgs& a, const Epilogue& e, int device,
              cudaStream_t stream) {
  if (a.m == 0 || a.n == 0) return;
  if (cfg.impl == GemmImpl::kCublasLt && a.k > 0 && cublaslt_supports(e)) {
    LtProblem p;
    p.m = a.m;
    p.n = a.n;
    p.k = a.k;
    p.device = device;
    const ScaleBiasActivation f = as_scale_bias_activation(e);
    p.epilogue = f.bias == nullptr ? LtEpilogue::kDefault
                 : f.has_act       ? LtEpilogue::kReluBias
                                   : LtEpilogue::kBias;
    cublaslt_gemm_on(p, a.x, a.w, f.bias, a.c, cfg.cublas_algo_index, stream);
    return;
  }
  GemmConfig own = cfg;
  GemmProblem p{a.m, a.n, a.k, pointer_align({a.x, a.w})};
  if (own.impl != GemmImpl::kOwn) own = GemmConfig::own_default_for(p);
  launch_tiled_gemm(own, a, e, stream);
}

}  // namespace tt::ops::cuda::gemm
