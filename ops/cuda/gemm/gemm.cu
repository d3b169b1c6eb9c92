// Dispatch of the GEMM stage between our own kernel, cuBLASLt (32F or FAST_TF32) and the
// sm90 tensor-core family, and the family's answers to the plans.
#include "ops/cuda/gemm/gemm.h"

#include "core/error.h"
#include "ops/cuda/gemm/cublaslt_gemm.h"
#include "ops/cuda/gemm/gemm_space.h"
#include "ops/cuda/gemm/sm90/tc_gemm.h"
#include "ops/cuda/gemm/tc_config.h"

namespace tt::ops::cuda::gemm {

bool cublaslt_supports(const EpilogueParams& e) {
  if (e.kind != EpilogueKind::kPointwise || e.post_bias != nullptr || e.affine != nullptr) {
    return false;
  }
  if (e.act == Activation::kNone) return true;
  return e.act == Activation::kRelu && e.bias != nullptr;
}

bool tc_supports(const EpilogueParams& e) {
  return e.kind == EpilogueKind::kPointwise && e.post_bias == nullptr && e.affine == nullptr;
}

bool epilogue_supported(const GemmConfig& cfg, const GemmProblem& p, const EpilogueParams& e) {
  switch (cfg.impl) {
    case GemmImpl::kOwn:
      return own_epilogue_valid(cfg, p, e);
    case GemmImpl::kCublasLt:
    case GemmImpl::kCublasLtTf32:
      return p.k > 0 && cublaslt_supports(e);
    case GemmImpl::kTc:
      return tc_fits(p) && tc_supports(e);
  }
  return false;
}

int64_t column_stat_rows(const GemmConfig& cfg) { return cfg.impl == GemmImpl::kOwn ? cfg.bm : 0; }

GemmConfig split_tail_config(const GemmConfig& cfg) {
  GemmConfig tail = cfg;
  tail.chunk_rows = 0;
  tail.tail_rows = 0;
  switch (cfg.impl) {
    case GemmImpl::kCublasLtTf32:
      return GemmConfig::cublaslt_tf32(0);
    case GemmImpl::kTc:
      return tail;
    case GemmImpl::kOwn:
    case GemmImpl::kCublasLt:
      break;
  }
  return GemmConfig::cublaslt(0);
}

namespace {

sm90::TcActivation tc_activation(Activation a) {
  switch (a) {
    case Activation::kRelu:
      return sm90::TcActivation::relu;
    case Activation::kSwish:
      return sm90::TcActivation::silu;
    case Activation::kNone:
      break;
  }
  return sm90::TcActivation::none;
}

// Whether a tc config runs here: the device has the family, the pointers and sizes are
// within the TMA's rules, and the epilogue maps onto the kernel's.
bool tc_runs(const GemmArgs& a, const EpilogueParams& e, int device) {
#if TT_SM90_GEMM
  return a.k > 0 && tc_supports(e) && tc_device_supported(device) &&
         sm90::tc_gemm_unsupported_reason(a.x, a.w, a.m, a.n, a.k).empty();
#else
  (void)a, (void)e, (void)device;
  return false;
#endif
}

}  // namespace

void run_gemm(const GemmConfig& cfg, const GemmArgs& a, const EpilogueParams& e, int device,
              cudaStream_t stream) {
  if (a.m == 0 || a.n == 0) return;
  if (is_cublaslt(cfg.impl) && a.k > 0 && cublaslt_supports(e)) {
    LtProblem p;
    p.m = a.m;
    p.n = a.n;
    p.k = a.k;
    p.device = device;
    p.tf32 = cfg.impl == GemmImpl::kCublasLtTf32;
    p.epilogue = e.bias == nullptr            ? LtEpilogue::kDefault
                 : e.act == Activation::kRelu ? LtEpilogue::kReluBias
                                              : LtEpilogue::kBias;
    cublaslt_gemm_on(p, a.x, a.w, e.bias, a.c, cfg.cublas_algo_index, stream);
    return;
  }
#if TT_SM90_GEMM
  if (cfg.impl == GemmImpl::kTc && tc_runs(a, e, device)) {
    TT_CHECK(tc_runnable(cfg), "gemm: {} is not a runnable tensor-core variant", cfg.str());
    sm90::TcEpilogue te;
    te.bias = e.bias;
    te.act = tc_activation(e.act);
    sm90::tc_gemm(to_tc_config(cfg), a.x, a.w, a.c, a.m, a.n, a.k, te, stream);
    return;
  }
#endif
  GemmConfig own = cfg;
  GemmProblem p{a.m, a.n, a.k, pointer_align({a.x, a.w})};
  if (own.impl != GemmImpl::kOwn) own = GemmConfig::own_default_for(p);
  launch_tiled_gemm(own, a, e, stream);
}

}  // namespace tt::ops::cuda::gemm
