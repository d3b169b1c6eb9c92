// tensortune's one cuBLASLt wrapper: C[M,N] = X[M,K] W[N,K]^T (+ bias[N], + ReLU),
// float32 in and out with an R_32F scale, in the compute type the problem names:
// strict float32 (CUBLAS_COMPUTE_32F, the default) or TF32 tensor-core products
// (CUBLAS_COMPUTE_32F_FAST_TF32, the tf32 precision's impl=cublaslt_tf32). The GEMM
// stage passes row-major X and W; bmm (ops/cuda/gemm/bmm.cu) passes strided batches
// whose matrices may be column-major views (transposes read in place).
//
// cuBLASLt is column-major, so we ask it for C^T[N,M] = W (a row-major W is a
// col-major K x N taken with op T) * X^T (a row-major X is a col-major K x M, op N):
// no copies, and the bias runs along the rows of C^T, i.e. over the N output
// features. One handle per device and a 32 MiB workspace per stream (so that GEMMs on
// different streams may run at once); the matmul descriptor, layouts and heuristic
// list are cached per problem.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tt::ops::cuda::gemm {

// The workspace each cuBLASLt matmul may use (per stream).
inline constexpr size_t kLtWorkspaceBytes = size_t{32} << 20;

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
  // The operands' layouts; the defaults are the GEMM stage's row-major X and W. `batch`
  // products C_b = X_b W_b^T into C contiguous [batch, M, N], X_b at x + b * x_batch_stride
  // (elements), element (i, q) at i * ldx + q, or at q * ldx + i where x_col_major; W
  // likewise. ld 0 means K (row-major). A batch stride of 0 shares the matrix.
  int64_t batch = 1;
  bool x_col_major = false, w_col_major = false;
  int64_t ldx = 0, ldw = 0;
  int64_t x_batch_stride = 0, w_batch_stride = 0;
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
// algorithm for it. p.align_bytes is taken as given (cublaslt_gemm lowers it to the
// pointers' first, so a caller that counts the list passes the lowered value).
std::vector<LtAlgorithm> heuristic_algorithms(const LtProblem& p, int max_n = 8);

// p with align_bytes lowered to what the pointers (and, batched, every batch's matrix)
// allow: the problem cublaslt_gemm runs for these pointers.
LtProblem with_pointer_alignment(LtProblem p, const float* x, const float* w, const float* c,
                                 const float* residual = nullptr);

// Runs algorithm `algo_index` of the heuristic list on the device's stream.
// bias: [N] for kBias/kReluBias (nullptr otherwise). residual: nullptr, or an [M, N]
// row-major matrix added to the product (cuBLASLt's C with beta = 1: C = X W^T +
// residual + bias, then the activation). M, N, K must be >= 1 (cuBLASLt has no empty
// inner dimension; gemm.h handles K = 0). Throws tt::Error when the index is past the
// end of the list.
void cublaslt_gemm(const LtProblem& p, const float* x, const float* w, const float* bias, float* c,
                   int algo_index = 0, const float* residual = nullptr);

// Same, on an explicit stream (the harness and tests time cuBLASLt on their own).
// Streams live as long as the process: a caller must not destroy a stream with GEMMs
// still queued and create another (CUDA may hand out the same handle, and with it the
// workspace).
void cublaslt_gemm_on(const LtProblem& p, const float* x, const float* w, const float* bias,
                      float* c, int algo_index, cudaStream_t stream,
                      const float* residual = nullptr);

}  // namespace tt::ops::cuda::gemm
