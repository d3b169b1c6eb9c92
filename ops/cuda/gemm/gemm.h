// One entry point for the GEMM stage, whichever implementation the config names, and
// what the plans of the fused ops ask the family about a config (so that no plan tests
// cfg.impl). The config comes from the family's run-time choice (gemm_space.h:
// choose_gemm).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "ops/cuda/gemm/epilogue.h"
#include "ops/cuda/gemm/gemm_config.h"
#include "ops/cuda/gemm/tiled_gemm.h"

namespace tt::ops::cuda::gemm {

// Whether cuBLASLt can apply the epilogue itself to an [M, n] output: no steps,
// add_column (bias), add_column + relu, or no activation and a trailing add_residual
// of a row-major [M, n] (cuBLASLt's C matrix with beta = 1).
bool cublaslt_supports(const Epilogue& e, int64_t n);

// Whether the tc config (a runnable variant) applies the epilogue itself
// (sm90::tc_epilogue_supported: the steps that read nothing or one value per column,
// trailing residual steps of one tensor with vec=4, the column statistics, the group norm
// over power-of-two groups of 8 to BN channels; never per-row vectors).
bool tc_supports(const GemmConfig& cfg, const Epilogue& e);

// Whether the config applies the whole epilogue (steps and tile stage) inside its GEMM
// for problem p, so that a plan needs no pass for it. Plans ask this, never cfg.impl.
// own: what the tile can apply (own_epilogue_valid: a group norm needs whole groups in
// a tile; the problem's alignment does not matter, the width-1 fallback keeps the tile);
// cuBLASLt (either compute type): cublaslt_supports; tc: tc_supports, the problem
// within the TMA's rules (tc_fits), for a group norm groups that divide N, and for residual
// steps N % 4 == 0 (the TMA store epilogue combines them).
bool epilogue_supported(const GemmConfig& cfg, const GemmProblem& p, const Epilogue& e);

// Rows per column-statistics partial (EpilogueKind::kColumnStats) that the config
// writes (the own kernel: BM, one partial per CTA row band; tc: its scheduled tile's
// rows, sm90::tc_column_stat_rows); 0 when it cannot compute them (cuBLASLt): then a
// plan runs a statistics pass.
int64_t column_stat_rows(const GemmConfig& cfg);

// The config the tail GEMM of a tail split runs (GemmConfig::tail_rows; the head runs
// cfg without the tail): the first pick of cfg's own arithmetic, so that a split keeps
// the precision of its config: cuBLASLt(0) for own and cublaslt, cublaslt_tf32(0) for
// cublaslt_tf32, and cfg's tc variant for tc.
GemmConfig split_tail_config(const GemmConfig& cfg);

// Runs C = X W^T + epilogue with the config on `stream` (device `device` current).
// A cuBLASLt or tc config with an epilogue it cannot apply, or K == 0, runs on our own
// kernel instead (own_default_for), since that changes speed only (the own kernel is
// strict float32, no less accurate); so does a tc config on a device without the tc
// family or for operands outside the TMA's rules (pointers that are not 16-byte
// aligned). Throws tt::Error for an invalid config.
void run_gemm(const GemmConfig& cfg, const GemmArgs& a, const Epilogue& e, int device,
              cudaStream_t stream);

}  // namespace tt::ops::cuda::gemm
