// Dispatch of the GEMM stage between our own kernel, cuBLASLt (32F or FAST_TF32) and the
// sm90 tensor-core family, and the family's answers to the plans.
#include "ops/cuda/gemm/gemm.h"

#include "core/error.h"
#include "ops/cuda/gemm/cublaslt_gemm.h"
#include "ops/cuda/gemm/gemm_space.h"
#include "ops/cuda/gemm/sm90/tc_gemm.h"
#include "ops/cuda/gemm/tc_config.h"

namespace tt::ops::cuda::gemm {

namespace {

// A chain ending in add_residual over a row-major [M, N] (ld == n): cuBLASLt adds it as
// its C matrix (beta = 1), before the bias, so `head` (the chain without it) may hold
// no activation. Returns the residual's row 0 (nullptr when the chain has none).
const float* trailing_residual(const Epilogue& e, int64_t n, Epilogue& head) {
  head = e;
  if (e.count == 0 || e.steps[e.count - 1].op != EpilogueOp::kAddResidual) return nullptr;
  const EpilogueStep& r = e.steps[e.count - 1];
  if (r.ld != n) return nullptr;
  head.count = e.count - 1;
  return r.data + e.row0 * r.ld;
}

bool reads_residual(const Epilogue& e) {
  return e.has(EpilogueOp::kAddResidual) || e.has(EpilogueOp::kMulResidual);
}

}  // namespace

bool cublaslt_supports(const Epilogue& e, int64_t n) {
  Epilogue head;
  const bool residual = trailing_residual(e, n, head) != nullptr;
  const ScaleBiasActivation f = as_scale_bias_activation(head);
  if (!f.ok || f.scale != nullptr) return false;
  if (residual && f.has_act) return false;
  return !f.has_act || (f.act == EpilogueOp::kRelu && f.bias != nullptr);
}

bool tc_supports(const GemmConfig& cfg, const Epilogue& e) {
#if TT_SM90_GEMM
  return cfg.impl == GemmImpl::kTc && tc_runnable(cfg) &&
         sm90::tc_epilogue_supported(to_tc_config(cfg), e);
#else
  (void)cfg, (void)e;
  return false;
#endif
}

bool epilogue_supported(const GemmConfig& cfg, const GemmProblem& p, const Epilogue& e) {
  switch (cfg.impl) {
    case GemmImpl::kOwn: {
      GemmProblem aligned = p;
      aligned.align = cfg.vec;
      return own_epilogue_valid(cfg, aligned, e);
    }
    case GemmImpl::kCublasLt:
    case GemmImpl::kCublasLtTf32:
      return p.k > 0 && cublaslt_supports(e, p.n);
    case GemmImpl::kTc:
      // The residual is combined in the TMA store epilogue, which needs C's rows 16-byte
      // aligned (our allocations are).
      return tc_fits(p) && tc_supports(cfg, e) &&
             (e.kind != EpilogueKind::kGroupNorm || p.n % e.group_size == 0) &&
             (!reads_residual(e) || p.n % 4 == 0);
  }
  return false;
}

int64_t column_stat_rows(const GemmConfig& cfg) {
  switch (cfg.impl) {
    case GemmImpl::kOwn:
      return cfg.bm;
    case GemmImpl::kTc:
#if TT_SM90_GEMM
      return sm90::tc_column_stat_rows(to_tc_config(cfg));
#else
      return 0;
#endif
    case GemmImpl::kCublasLt:
    case GemmImpl::kCublasLtTf32:
      break;
  }
  return 0;
}

GemmConfig split_tail_config(const GemmConfig& cfg) {
  switch (cfg.impl) {
    case GemmImpl::kCublasLtTf32:
      return GemmConfig::cublaslt_tf32(0);
    case GemmImpl::kTc: {
      GemmConfig tail = cfg;
      tail.chunk_rows = 0;
      tail.tail_rows = 0;
      return tail;
    }
    case GemmImpl::kOwn:
    case GemmImpl::kCublasLt:
      break;
  }
  return GemmConfig::cublaslt(0);
}

namespace {

// Whether a tc config runs here: the device has the family, the pointers and sizes are
// within the TMA's rules, and the epilogue maps onto the kernel's.
bool tc_runs(const GemmConfig& cfg, const GemmArgs& a, const Epilogue& e, int device) {
#if TT_SM90_GEMM
  return a.k > 0 && tc_supports(cfg, e) && tc_device_supported(device) &&
         sm90::tc_gemm_unsupported_reason(a.x, a.w, a.m, a.n, a.k).empty();
#else
  (void)cfg, (void)a, (void)e, (void)device;
  return false;
#endif
}

}  // namespace

void run_gemm(const GemmConfig& cfg, const GemmArgs& a, const Epilogue& e, int device,
              cudaStream_t stream) {
  if (a.m == 0 || a.n == 0) return;
  if (is_cublaslt(cfg.impl) && a.k > 0 && cublaslt_supports(e, a.n)) {
    Epilogue head;
    const float* residual = trailing_residual(e, a.n, head);
    LtProblem p;
    p.m = a.m;
    p.n = a.n;
    p.k = a.k;
    p.device = device;
    p.tf32 = cfg.impl == GemmImpl::kCublasLtTf32;
    const ScaleBiasActivation f = as_scale_bias_activation(head);
    p.epilogue = f.bias == nullptr ? LtEpilogue::kDefault
                 : f.has_act       ? LtEpilogue::kReluBias
                                   : LtEpilogue::kBias;
    cublaslt_gemm_on(p, a.x, a.w, f.bias, a.c, cfg.cublas_algo_index, stream, residual);
    return;
  }
#if TT_SM90_GEMM
  if (cfg.impl == GemmImpl::kTc && tc_runs(cfg, a, e, device)) {
    sm90::tc_gemm(to_tc_config(cfg), a.x, a.w, a.c, a.m, a.n, a.k, e, stream);
    return;
  }
#endif
  GemmConfig own = cfg;
  GemmProblem p{a.m, a.n, a.k, pointer_align({a.x, a.w})};
  if (own.impl != GemmImpl::kOwn) {
    own = GemmConfig::own_default_for(p);
    // Column statistics partials are laid out per column_stat_rows(cfg) rows (the caller
    // sized them for cfg, a tc config that cannot run here): keep that band height.
    const int64_t rows = column_stat_rows(cfg);
    if (e.kind == EpilogueKind::kColumnStats && rows > 0 && own.bm != rows) {
      for (const GemmConfig& c : own_variants()) {
        if (c.bm == rows && valid(c, p)) {
          own = c;
          break;
        }
      }
      TT_CHECK(own.bm == rows,
               "gemm: {} cannot run here and no own variant writes its column statistics per {} "
               "rows",
               cfg.str(), rows);
    }
  }
  launch_tiled_gemm(own, a, e, stream);
}

}  // namespace tt::ops::cuda::gemm
