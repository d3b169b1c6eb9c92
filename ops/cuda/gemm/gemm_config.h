// The GEMM stage of the fused ops: C[M,N] = X[M,K] W[N,K]^T (+ an epilogue), X and
// W row-major with K contiguous. This header names the problem and the tunable
// choice: which implementation and its parameters.
//   own            our tiled SIMT kernel (strict float32, FFMA): its tile shape, from a
//                  compiled table (own_variants()).
//   cublaslt       cuBLASLt with CUBLAS_COMPUTE_32F (strict): the index into its
//                  heuristic list.
//   cublaslt_tf32  cuBLASLt with CUBLAS_COMPUTE_32F_FAST_TF32 (the tf32 precision): the
//                  index into the heuristic list of that compute type.
//   tc             our sm_90a tensor-core family (sm90/tc_gemm.h) in its tf32 or accurate
//                  (split TF32) mode: a compiled variant (tc_variants()) plus its
//                  run-time fields (raster group, persistence).
// A config names its arithmetic completely (the ambient tt::current_precision() only
// decides which configs a space offers, gemm_space.h), so a tuned config means the
// same thing wherever it runs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/precision.h"

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

enum class GemmImpl : uint8_t { kOwn = 0, kCublasLt = 1, kTc = 2, kCublasLtTf32 = 3 };

// Whether the impl is cuBLASLt (either compute type): it reads algo, chunk and tail.
constexpr bool is_cublaslt(GemmImpl i) {
  return i == GemmImpl::kCublasLt || i == GemmImpl::kCublasLtTf32;
}

struct GemmConfig {
  GemmImpl impl = GemmImpl::kCublasLt;
  // Own kernel: CTA tile BM x BN, K step BK, thread tile TM x TN, global load width
  // vec (floats), shared-memory stages (2: double buffer fed through registers).
  // tc: bm, bn, bk and stages are the variant's CTA tile, k-block and pipeline depth.
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
  // Plans whose norm needs statistics (a GEMM stage that offers stats_pass: batch norm's
  // column statistics, group norm's per-row group statistics): 1 takes them (and, for the
  // group norm, the norm) from a pass over the GEMM's output even where the GEMM's epilogue
  // could compute them (tc's choice), which is faster where the epilogue stalls the
  // tensor cores longer than the pass takes (docs/performance.md); 0: in the epilogue
  // where it can.
  int stats_pass = 0;
  // tc (sm90::TcConfig; to_tc_config() converts). Compile-time (a row of the variant
  // table, with bm, bn, bk and stages above): the mode (1: accurate, split TF32; 0:
  // tf32), A from registers, consumer warpgroups, ping-pong consumers, CTAs per cluster
  // along M (sharing W's tiles by multicast). Run-time: the
  // promotion interval (accurate), the raster group of tile rows (or columns with
  // raster_n), persistent CTAs and the epilogue's stores (store_vec 4: by TMA; 2, 1: from
  // registers).
  int tc_accurate = 0, tc_a_regs = 0, tc_warpgroups = 0, tc_pingpong = 0, tc_cluster = 0;
  int tc_promote = 0, tc_group = 0, tc_raster_n = 0, tc_persistent = 0, tc_vec = 0;

  int threads() const { return impl == GemmImpl::kOwn ? (bm / tm) * (bn / tn) : 0; }
  // The text form and equality come from the family's descriptor (gemm_space.h):
  // "impl=own,bm=128,bn=128,bk=8,tm=8,tn=8,vec=4,stages=2", "impl=cublaslt,algo=0",
  // "impl=cublaslt_tf32,algo=0" or "impl=tc,accurate=1,a_regs=1,bm=128,bn=128,bk=32,
  // stages=4,wg=2,pingpong=0,cluster=1,promote=64,group=8,raster_n=0,persistent=1,
  // store_vec=2",
  // with ",chunk=4096" when
  // chunk_rows > 0, ",tail=64" when tail_rows > 0 and ",stats_pass=1" when set; equal configs have
  // the same impl and the same values in the fields that impl reads.
  std::string str() const;
  bool operator==(const GemmConfig& o) const;
  bool operator!=(const GemmConfig& o) const { return !(*this == o); }

  static GemmConfig cublaslt(int algo_index = 0, int64_t chunk_rows = 0, int64_t tail_rows = 0);
  static GemmConfig cublaslt_tf32(int algo_index = 0, int64_t chunk_rows = 0,
                                  int64_t tail_rows = 0);
  // The default when nothing is tuned, per precision:
  //   strict    cuBLASLt's own first heuristic pick (CUBLAS_COMPUTE_32F), within a few
  //             percent of the best we measured at the seed shapes;
  //   tf32      cuBLASLt's first pick with CUBLAS_COMPUTE_32F_FAST_TF32;
  //   accurate  the tc family's accurate default when `tc_device` (the device runs the
  //             sm90 family) and the problem is within the TMA's rules (tc_fits), else
  //             the strict default (the strict path: no less accurate).
  static GemmConfig default_for(const GemmProblem& p, Precision precision = Precision::strict,
                                bool tc_device = false);
  // The fastest own variant we expect for p without timing (valid for p).
  static GemmConfig own_default_for(const GemmProblem& p);
};

// Whether `c` can run `p` (launch-time check; the rules are
// the descriptor's and the space's, gemm_space.cpp): a compiled own tile whose vector width
// p.align allows, a cuBLASLt index 0..7 or a compiled tc variant within the TMA's rules,
// with a chunk or tail split that fits the rows. Whether cuBLASLt has that many
// algorithms, and whether the device runs the tc family, is only known at run time.
bool valid(const GemmConfig& c, const GemmProblem& p);

// Every compiled own-kernel variant (the autotuner's sweep over our kernel).
const std::vector<GemmConfig>& own_variants();

// Every compiled variant of the sm90 tensor-core family (sm90::tc_gemm_variants()) as
// GemmConfigs (tc_config.h converts) with their run-time fields at the family's defaults; empty
// when this build has no sm_90a code (TT_SM90_GEMM == 0).
const std::vector<GemmConfig>& tc_variants();
// Whether the tc kernel accepts c: its compile-time fields name a row of tc_variants()
// and its run-time fields are in range (sm90::tc_config_invalid_reason).
bool tc_runnable(const GemmConfig& c);
// The candidate values of the tc family's run-time fields (sm90::tc_gemm_runtime_axes();
// promote: the accurate values, tf32 takes 0); {0} each without sm_90a code.
struct TcRuntimeCandidates {
  std::vector<int64_t> promote, group, raster_n, persistent, vec;
};
const TcRuntimeCandidates& tc_runtime_candidates();
// The tc family's default variant for the mode (accurate or tf32); requires tc_variants()
// to be non-empty.
GemmConfig tc_default(bool accurate);
// Whether the problem is within the TMA's rules the tc family needs: K a multiple of 4
// and X, W 16-byte aligned (p.align == 4), sizes within 32 bits.
bool tc_fits(const GemmProblem& p);
// Whether `device` can run the tc family: compute capability 9.0 and sm_90a code in
// this build (memoized per device).
bool tc_device_supported(int device);
// What an accurate run says when the device cannot run the tc family ("" when it can):
// "accurate runs the strict path on this GPU (compute capability 8.0; the tensor-core
// family needs 9.0)". `compiled`: the build has the sm_90a code.
std::string accurate_fallback_message(int cc_major, int cc_minor, bool compiled);
// Prints accurate_fallback_message for `device` to stderr, once per process, when the
// calling thread's precision is accurate and the device cannot run the tc family.
void note_accurate_fallback(int device);
// Those valid for p (gemm_space.h: valid), then cuBLASLt indices 0..cublas_candidates-1.
std::vector<GemmConfig> candidates(const GemmProblem& p, int cublas_candidates = 4);

// Largest vector width in {4, 2, 1} that every address allows (16-byte alignment for 4).
int pointer_align(std::initializer_list<const void*> ptrs);

}  // namespace tt::ops::cuda::gemm
