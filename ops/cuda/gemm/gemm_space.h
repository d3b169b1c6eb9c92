// The GEMM family's tunables, in one place: GemmConfig's descriptor (its text form,
// Config conversion, validation), the stage description a fused op's plan gives (its
// database name and schedule options), the problem key, the parameter space and the
// run-time choice.
//
//   impl=own:      bm, bn, bk, tm, tn, vec, stages: the CTA tile, the K step, the
//                  thread tile, the global load width and the shared-memory stages of
//                  our tiled SIMT kernel. The candidates are the distinct values of
//                  own_variants() (generated from tiled_gemm_variants.h), and a
//                  constraint keeps the compiled combinations.
//   impl=cublaslt: algo, the index into cuBLASLt's heuristic list for the problem,
//                  0..7; for a stage whose plan can overlap the GEMM with its memory
//                  pass in row chunks, chunk = rows per chunk (0: no chunking); for a
//                  stage whose plan can split the rows, tail = rows of the tail split
//                  (0: none; GemmConfig::tail_rows).
// Constraints: compiled own tile; vec no wider than X, W and K allow (problem);
// chunk 0 or 2 to 16 chunks (problem); tail 0 or at most half the rows, never with a
// chunk; with a known device, the own kernel's threads and shared memory within the
// device's limits and algo within the number of algorithms cuBLASLt offers for the
// (chunk) shape on this device. The default is GemmConfig::default_for(p):
// cuBLASLt's first pick, no chunking.
//
// Problem keys: "m=1024,n=8192,k=8192,align=16B,precision=strict", with groups=G
// after k for a stage whose epilogue may hold whole groups (whether a tile holds
// them decides whether the op is one kernel). align is categorical (bytes, not a
// size): configs tuned for aligned data are never offered to misaligned data by the
// nearest-problem rule.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "autotune/config.h"
#include "autotune/descriptor.h"
#include "autotune/space.h"
#include "core/cuda/device.h"
#include "ops/cuda/gemm/gemm_config.h"

namespace tt::ops::cuda::gemm {

inline constexpr int kCublasAlgoCandidates = 8;

// What a fused op's plan says about its GEMM stage, besides the problem.
struct GemmStage {
  const char* name = "";       // the tuning database's kernel name
  bool chunks = false;         // schedule option: row chunks (axis chunk)
  bool tails = false;          // schedule option: a head/tail split (axis tail)
  bool relu = false;           // epilogue bias + ReLU, else bias (cuBLASLt's algorithms differ)
  bool groups_in_key = false;  // the problem key has groups=G
};

// GemmConfig's descriptor, with the chunk and tail fields or without.
const autotune::Descriptor<GemmConfig>& gemm_descriptor(bool chunks = true, bool tails = true);

// The widest load (4, 2, 1 floats) that the addresses of X and W (p.align) and the
// row length K allow.
int gemm_load_align(const GemmProblem& p);
std::string gemm_problem_key(const GemmStage& stage, const GemmProblem& p, int64_t groups = 0);

// Number of cuBLASLt heuristic algorithms for the stage's GEMM with `rows` rows (the
// whole problem or one chunk); 0 when cuBLASLt has none.
using AlgoCount = std::function<int(int64_t rows)>;

// The space for the stage and problem. `limits.known == false` (or no algo_count)
// leaves out the device constraints: the portable space.
autotune::ParamSpace gemm_space(const GemmStage& stage, const GemmProblem& p,
                                const tt::cuda::DeviceLimits& limits,
                                AlgoCount algo_count = nullptr);

// The config for the stage on `device`: the tuning database's for this device and
// problem, else GemmConfig::default_for(p) (autotune/space_cache.h). `groups`: the
// stage's groups when its key has them, else 0.
GemmConfig choose_gemm(const GemmStage& stage, const GemmProblem& p, int device,
                       int64_t groups = 0);

}  // namespace tt::ops::cuda::gemm
