// launch_segment_chain (norm_passes.h): checks, then the instantiation of the chains'
// shapes (norm_chain.cuh); the AnyOps pair, for every other chain, is compiled here.
#include "ops/cuda/norm/norm_chain.cuh"

namespace tt::ops::cuda::norm {

template void launch_chain<AnyOps, AnyOps>(const SegmentConfig&, const SegmentChainArgs&,
                                           cudaStream_t);

namespace {

bool is(const gemm::Epilogue& e, std::initializer_list<EpilogueOp> ops) {
  if (e.count != static_cast<int>(ops.size())) return false;
  int i = 0;
  for (EpilogueOp op : ops)
    if (e.steps[i++].op != op) return false;
  return true;
}

}  // namespace

int chain_align(const SegmentChainArgs& a) {
  int align = vec_align({a.x, a.out, a.pre});
  for (const gemm::Epilogue* e : {&a.prologue, &a.epilogue})
    for (int i = 0; i < e->count; ++i) align = std::min(align, vec_align({e->steps[i].data}));
  return align;
}

SegmentProblem chain_problem(const SegmentChainArgs& a) {
  return {a.rows * a.groups, a.groups > 0 ? a.n / a.groups : 0, chain_align(a)};
}

void launch_segment_chain(const SegmentConfig& cfg, const SegmentChainArgs& a,
                          cudaStream_t stream) {
  TT_CHECK(a.x && a.out, "segment norm chain: x and out must both be given");
  TT_CHECK(a.groups >= 1 && a.n % a.groups == 0,
           "segment norm chain: {} columns do not split into {} groups", a.n, a.groups);
  TT_CHECK(a.prologue.kind == gemm::EpilogueKind::kPointwise &&
               a.epilogue.kind == gemm::EpilogueKind::kPointwise,
           "segment norm chain: the prologue and epilogue must be steps only, not {} and {}",
           a.prologue.str(), a.epilogue.str());
  for (const gemm::Epilogue* e : {&a.prologue, &a.epilogue})
    for (int i = 0; i < e->count; ++i) {
      const gemm::EpilogueStep& s = e->steps[i];
      TT_CHECK(!(s.op == EpilogueOp::kAddResidual || s.op == EpilogueOp::kMulResidual) ||
                   s.ld % cfg.vec == 0,
               "segment norm chain: config {} loads {} floats at a time but a residual's row "
               "stride is {}",
               cfg.str(), cfg.vec, s.ld);
    }
  const SegmentProblem p = chain_problem(a);
  check_segment_launch("segment norm chain", cfg, p, {a.x, a.out, a.pre});
  TT_CHECK(chain_align(a) >= cfg.vec,
           "segment norm chain: config {} loads {} floats at a time but an operand of the "
           "chains is only aligned to {}",
           cfg.str(), cfg.vec, chain_align(a));
  if (a.rows == 0 || a.n == 0) return;
  const gemm::Epilogue& pro = a.prologue;
  const gemm::Epilogue& epi = a.epilogue;
  if (pro.count == 0 && is(epi, {EpilogueOp::kMulColumn, EpilogueOp::kAddColumn}))
    return launch_chain<NoSteps, AffineSteps>(cfg, a, stream);
  if (is(pro, {EpilogueOp::kSilu, EpilogueOp::kAddColumn}) &&
      is(epi, {EpilogueOp::kMulColumn, EpilogueOp::kAddColumn}))
    return launch_chain<SiluBiasSteps, AffineSteps>(cfg, a, stream);
  if (pro.count == 0 && is(epi, {EpilogueOp::kAddResidual, EpilogueOp::kMulResidual}))
    return launch_chain<NoSteps, AddMulSteps>(cfg, a, stream);
  launch_chain<AnyOps, AnyOps>(cfg, a, stream);
}

}  // namespace tt::ops::cuda::norm
