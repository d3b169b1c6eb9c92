// What every cuBLASLt caller of the GEMM family asks cuBLASLt the same way: its
// workspace size and its heuristic list for a described matmul. Include only where
// <cublasLt.h> is (the .cu files of the family).
#pragma once

#include <cublasLt.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tt::ops::cuda::gemm {

// The workspace each cuBLASLt matmul of the family may use (per stream).
inline constexpr size_t kLtWorkspaceBytes = size_t{32} << 20;

// cuBLASLt's heuristic list (at most max_algos, best guess first) for `desc` over the
// layouts a, b and c (c is also the output layout), allowing the family's workspace
// and requiring no more than `align_bytes` of alignment of any operand. Empty when
// cuBLASLt offers nothing; `status` receives its answer for the caller's message.
std::vector<cublasLtMatmulHeuristicResult_t> lt_heuristics(
    cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t a,
    cublasLtMatrixLayout_t b, cublasLtMatrixLayout_t c, uint32_t align_bytes, int max_algos,
    cublasStatus_t* status);

}  // namespace tt::ops::cuda::gemm
