// One entry point for the GEMM stage, whichever implementation the config names. The
// config comes from the family's run-time choice (gemm_space.h: choose_gemm).
#pragma once

#include <cuda_runtime_api.h>

#include "ops/cuda/gemm/epilogue.h"
#include "ops/cuda/gemm/gemm_config.h"
#include "ops/cuda/gemm/tiled_gemm.h"

namespace tt::ops::cuda::gemm {

// Whether cuBLASLt can apply the epilogue itself (no steps, add_column (bias), or
// add_column + relu).
bool cublaslt_supports(const Epilogue& e);

// Whether the config applies the whole epilogue (steps and tile stage) inside its
// GEMM, so that a plan needs no pass for it. Plans ask this, never cfg.impl. The
// problem's alignment does not matter (the own kernel's width-1 fallback keeps the
// tile). cuBLASLt: its fixed-function epilogues (cublaslt_supports); own: what the
// tile can apply (own_epilogue_valid: a group norm needs whole groups in a tile).
bool epilogue_supported(const GemmConfig& cfg, const GemmProblem& p, const Epilogue& e);

// Rows per column-statistics partial (EpilogueKind::kColumnStats) that the config
// writes, 0 when it cannot compute them (then a plan runs a statistics pass).
int64_t column_stat_rows(const GemmConfig& cfg);

// Runs C = X W^T + epilogue with the config on `stream` (device `device` current).
// A cuBLASLt config with an epilogue cuBLASLt cannot apply, or K == 0, runs on our own
// kernel instead (own_default_for), since that changes speed only. Throws tt::Error
// for an invalid config.
void run_gemm(const GemmConfig& cfg, const GemmArgs& a, const Epilogue& e, int device,
              cudaStream_t stream);

}  // namespace tt::ops::cuda::gemm
