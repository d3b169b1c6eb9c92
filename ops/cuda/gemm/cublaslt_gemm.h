// The cuBLASLt stage: C[M,N] = X[M,K] W[N,K]^T (+ bias[N], + ReLU), row-major, float32
// in and out with an R_32F scale, in the compute type the problem names: strict
// float32 (CUBLAS_COMPUTE_32F, the default) or TF32 tensor-core products
// (CUBLAS_COMPUTE_32F_FAST_TF32, the tf32 precision's impl=cublaslt_tf32).
//
// cuBLASLt is column-major, so we ask it for C^T[N,M] = op_T(W viewed as col-major
// K x N) * (X viewed as col-major K x M): no copies, and the bias runs along the rows
// of C^T, i.e. over the N output features. One handle per device and a 32 MiB
// workspace per stream (so that GEMMs on different streams may run at once); the
// matmul descriptor, layouts and heuristic list are cached per problem.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

namespace tt::ops::cuda::gemm {

enum class LtEpilogue : int { kDefault = 0, kBias = 1, kReluBias = 2 };

struct LtProblem {
  int64_t m = 0, n = 0, k = 0;
  LtEpilogue epilogue = LtEpilogue::kDefault;
  int device = 0;
  // Alignment (bytes, a power of two <= 256) that every pointer of the call has;
  // cuBLASLt only offers algorithms that need no more. cublaslt_gemm() lowers it to
  // what the actual pointers allow.
  int align_bytes = 256;
  // CUBLAS_COMPUTE_32F_FAST_TF32 instead of CUBLAS_COMPUTE_32F (its own heuristic list).
  bool tf32 = false;
  bool operator<(const LtProblem& o) const;
};

// What heuristic_algorithms() reports for one of cuBLASLt's candidate algorithms.
struct LtAlgorithm {
  int index = 0;               // position in the heuristic list (GemmConfig::cublas_algo_index)
  size_t workspace_bytes = 0;  // workspace it needs
  float waves = 0.f;           // cuBLASLt's estimate of the waves it runs
};

// cuBLASLt's heuristic list for the problem (at most max_n entries, best guess first),
// so that the autotuner can sweep the index. Throws tt::Error when cuBLASLt has no
// algorithm for it.
std::vector<LtAlgorithm> heuristic_algorithms(const LtProblem& p, int max_n = 8);

// Runs algorithm `algo_index` of the heuristic list on the device's stream.
// bias: [N] for kBias/kReluBias (nullptr otherwise). residual: nullptr, or an [M, N]
// row-major matrix added to the product (cuBLASLt's C with beta = 1: C = X W^T +
// residual + bias, then the activation). K must be >= 1 (cuBLASLt has no empty inner
// dimension; gemm.h handles K = 0). Throws tt::Error when the index is past the end of
// the list.
void cublaslt_gemm(const LtProblem& p, const float* x, const float* w, const float* bias, float* c,
                   int algo_index = 0, const float* residual = nullptr);

// Same, on an explicit stream (the harness and tests time cuBLASLt on their own).
void cublaslt_gemm_on(const LtProblem& p, const float* x, const float* w, const float* bias,
                      float* c, int algo_index, cudaStream_t stream,
                      const float* residual = nullptr);

}  // namespace tt::ops::cuda::gemm
