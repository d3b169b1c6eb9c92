// The parameter space of the GEMM stage of each fused seed-model op, in one place:
// how the autotuner and the run-time lookup see gemm::GemmConfig.
//
//   impl=own:      bm, bn, bk, tm, tn, vec, stages: the CTA tile, the K step, the
//                  thread tile, the global load width and the shared-memory stages of
//                  our tiled SIMT kernel. The axes' candidates are the distinct values
//                  of own_variants() (generated from tiled_gemm_variants.h), and a
//                  constraint keeps the compiled combinations.
//   impl=cublaslt: algo, the index into cuBLASLt's heuristic list for the problem,
//                  0..7; and, for the ops that can overlap the GEMM with their memory
//                  pass in row chunks (models 3 and 4), chunk = rows per chunk (0: no
//                  chunking); for model 3 and model 4 in training, tail = rows of
//                  the tail split (0: none; GemmConfig::tail_rows).
// Constraints: compiled own tile; vec no wider than X, W and K allow (problem);
// chunk 0 or 2 to 16 chunks (problem); tail 0 or at most half the rows, never with a
// chunk; with a known device, the own kernel's threads
// and shared memory within the device's limits and algo within the number of
// algorithms cuBLASLt offers for the (chunk) shape on this device.
// The default is GemmConfig::default_for(p): cuBLASLt's first pick, no chunking.
//
// Kernel names (the database's `kernels:` keys): "gemm_bias_relu" for model 5, whose
// op is its GEMM, and "<op>.gemm" for the others ("gemm_instance_norm_add_mul.gemm",
// "gemm_swish_bias_group_norm.gemm", "gemm_scale_batch_norm_train.gemm",
// "gemm_scale_batch_norm_eval.gemm"). Problem keys:
// "m=1024,n=8192,k=8192,align=16B,precision=strict", with groups=G after k for
// model 3 (whether a tile holds whole groups decides whether the op is one kernel).
// align is categorical (bytes, not a size): configs tuned for aligned data are never
// offered to misaligned data by the nearest-problem rule.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "autotune/config.h"
#include "autotune/space.h"
#include "ops/cuda/gemm/gemm.h"
#include "ops/cuda/gemm/gemm_config.h"
#include "ops/cuda/tuning/device_limits.h"

namespace tt::ops::cuda::tuning {

inline constexpr int kCublasAlgoCandidates = 8;

std::string gemm_stage_name(gemm::GemmKernel kernel);
// Whether the op can run its cuBLASLt GEMM in row chunks overlapped with its pass.
bool gemm_stage_chunks(gemm::GemmKernel kernel);
// Whether the op can split its cuBLASLt GEMM into a head and a tail (model 3, model 4
// in training).
bool gemm_stage_tails(gemm::GemmKernel kernel);
// The widest load (4, 2, 1 floats) that the addresses of X and W (p.align) and the
// row length K allow.
int gemm_load_align(const gemm::GemmProblem& p);
std::string gemm_problem_key(gemm::GemmKernel kernel, const gemm::GemmProblem& p,
                             int64_t groups = 0);

// Number of cuBLASLt heuristic algorithms for the stage's GEMM with `rows` rows (the
// whole problem or one chunk); 0 when cuBLASLt has none.
using AlgoCount = std::function<int(int64_t rows)>;

// The space for the stage and problem. `limits.known == false` (or no algo_count)
// leaves out the device constraints: the portable space.
autotune::ParamSpace gemm_space(gemm::GemmKernel kernel, const gemm::GemmProblem& p,
                                const DeviceLimits& limits, AlgoCount algo_count = nullptr);

// Config <-> GemmConfig. with_chunk, with_tail: whether the space has the chunk and
// tail axes (an own config never has them). gemm_from_config throws tt::Error for a
// config of neither impl.
autotune::Config gemm_to_config(const gemm::GemmConfig& c, bool with_chunk, bool with_tail = false);
gemm::GemmConfig gemm_from_config(const autotune::Config& c);

}  // namespace tt::ops::cuda::tuning
