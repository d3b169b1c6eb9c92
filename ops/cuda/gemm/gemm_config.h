// The GEMM stage of the fused ops: C[M,N] = X[M,K] W[N,K]^T (+ an epilogue), X and
// W row-major with K contiguous. This header names the problem and the tunable
// choice: which implementation (our own tiled SIMT kernel or cuBLASLt) and, for our
// own kernel, its tile shape; for cuBLASLt, the index into its heuristic list. The
// own kernel's variants are a fixed compiled table (own_variants()); the autotuner
// sweeps it together with the cuBLASLt indices. Everything is strict float32: FFMA
// on the CUDA cores, never TF32.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tt::ops::cuda::gemm {

struct GemmProblem {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  // Largest vector width (4, 2, 1 floats) that the addresses of X and W and the row
  // length K all allow; the own kernel's global loads may be no wider.
  int align = 4;

  double flops() const { return 2.0 * static_cast<double>(m) * n * k; }
  std::string str() const;  // "m=1024,n=8192,k=8192"
};

enum class GemmImpl : uint8_t { kOwn = 0, kCublasLt = 1 };

struct GemmConfig {
  GemmImpl impl = GemmImpl::kCublasLt;
  // Own kernel: CTA tile BM x BN, K step BK, thread tile TM x TN, global load width
  // vec (floats), shared-memory stages (2: double buffer fed through registers).
  int bm = 0, bn = 0, bk = 0, tm = 0, tn = 0, vec = 0, stages = 0;
  // cuBLASLt: index into heuristic_algorithms() for the problem (0 = its first pick).
  int cublas_algo_index = 0;
  // Fused ops that run GEMM + a memory pass: when > 0, the rows are processed in
  // chunks of this many, each chunk's pass on a side stream overlapping the next
  // chunk's GEMM (side_stream.h). 0: one GEMM, then one pass.
  int64_t chunk_rows = 0;
  // The tail split, when > 0 (cuBLASLt only, never with chunk_rows): the GEMM
  // over the first m - tail_rows rows and the GEMM over the last tail_rows rows
  // (cuBLASLt's first pick for that shape) run at once on two high-priority side
  // streams, each part's pass after it on the main stream, whose lower priority lets
  // the passes fill the SMs that the GEMMs' last, partial wave leaves idle
  // (ops/cuda/fused/plan.cu).
  int64_t tail_rows = 0;

  int threads() const { return impl == GemmImpl::kOwn ? (bm / tm) * (bn / tn) : 0; }
  // The text form and equality come from the family's descriptor (gemm_space.h):
  // "impl=own,bm=128,bn=128,bk=8,tm=8,tn=8,vec=4,stages=2" or "impl=cublaslt,algo=0",
  // with ",chunk=4096" when chunk_rows > 0 and ",tail=64" when tail_rows > 0; equal
  // configs have the same impl and the same values in the fields that impl reads.
  std::string str() const;
  bool operator==(const GemmConfig& o) const;
  bool operator!=(const GemmConfig& o) const { return !(*this == o); }

  static GemmConfig cublaslt(int algo_index = 0, int64_t chunk_rows = 0, int64_t tail_rows = 0);
  // The default when nothing is tuned: cuBLASLt's own first heuristic pick, which
  // is within a few percent of the best we measured at the seed shapes.
  static GemmConfig default_for(const GemmProblem& p);
  // The fastest own variant we expect for p without timing (valid for p).
  static GemmConfig own_default_for(const GemmProblem& p);
};

// Whether `c` can run `p` (launch-time check; the rules are
// the descriptor's and the space's, gemm_space.cpp): a compiled own tile whose vector width
// p.align allows, or a cuBLASLt index 0..7 with a chunk or tail split that fits the
// rows. Whether cuBLASLt has that many algorithms is only known at run time.
bool valid(const GemmConfig& c, const GemmProblem& p);

// Every compiled own-kernel variant (the autotuner's sweep over our kernel).
const std::vector<GemmConfig>& own_variants();
// Those valid for p (gemm_space.h: valid), then cuBLASLt indices 0..cublas_candidates-1.
std::vector<GemmConfig> candidates(const GemmProblem& p, int cublas_candidates = 4);

// Largest vector width in {4, 2, 1} that every address allows (16-byte alignment for 4).
int pointer_align(std::initializer_list<const void*> ptrs);

}  // namespace tt::ops::cuda::gemm
