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
//   impl=cublaslt, impl=cublaslt_tf32 (CUBLAS_COMPUTE_32F resp. _FAST_TF32):
//                  algo, the index into cuBLASLt's heuristic list for the problem,
//                  0..7;
//   impl=tc:       accurate, a_regs, bm, bn, bk, stages, wg, pingpong: a row of the
//                  sm90 family's compiled table (tc_variants()); its run-time fields
//                  promote (accurate), group, raster_n, persistent and store_vec
//                  (sm90::tc_gemm_runtime_axes()) multiply the space;
//   cuBLASLt and tc: for a stage whose plan can overlap the GEMM with its memory
//                  pass in row chunks, chunk = rows per chunk (0: no chunking); for a
//                  stage whose plan can split the rows, tail = rows of the tail split
//                  (0: none; GemmConfig::tail_rows).
// Impls per precision (the ambient tt::current_precision() when a launch chooses):
// strict = own + cublaslt; tf32 = strict's + cublaslt_tf32 + tc tf32 variants;
// accurate = strict's + tc accurate variants (own and cublaslt are float32 FFMA, no less
// accurate than split TF32's bound).
// Constraints: compiled own tile and compiled tc variant; vec no wider than X, W and K
// allow (problem); tc only within the TMA's rules (K % 4 == 0, X and W 16-byte
// aligned) and in the precision's mode; chunk 0 or 2 to 16 chunks (problem); tail 0
// or at most half the rows, never with a chunk; with a known device, the own kernel's
// threads and shared memory within the device's limits, algo within the number of
// algorithms cuBLASLt offers (per compute type) for the (chunk) shape on this device,
// and tc only on compute capability 9.0 with this build's sm_90a code (elsewhere an
// accurate run takes the strict path and says so once, note_accurate_fallback). The
// default is GemmConfig::default_for(p, precision, tc_device).
//
// Problem keys: "m=1024,n=8192,k=8192,align=16B,precision=strict", with groups=G
// after k for a stage whose epilogue may hold whole groups (whether a tile holds
// them decides whether the op is one kernel). align is categorical (bytes, not a
// size): configs tuned for aligned data are never offered to misaligned data by the
// nearest-problem rule; so is precision (one database entry per mode, and strict keys
// are what they were before the modes existed).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "autotune/config.h"
#include "autotune/descriptor.h"
#include "autotune/space.h"
#include "core/cuda/device.h"
#include "core/precision.h"
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
  bool bias = true;            // the epilogue adds a bias (cuBLASLt's algorithms differ)
  bool stats_pass = false;     // plan option: the norm's statistics by a pass (axis stats_pass)
  // The epilogue ends in residual steps: tc applies them only in its TMA store epilogue
  // (store_vec 4, N % 4 == 0), so the space keeps its other tc configs out.
  bool residual = false;
};

// A linear layer's GEMM (ops::linear on CUDA: y = x W^T + b), with the bias in the
// epilogue, and without a bias: tuned under their own names, keyed as the GEMM stages.
inline constexpr GemmStage kLinearStage{"linear", false, false, false, false, true};
inline constexpr GemmStage kLinearNoBiasStage{"linear_nobias", false, false, false, false, false};
// A matmul/bmm that is one GEMM of the family's layout (ops/cuda/gemm/bmm.cu), in tf32 and
// accurate (strict keeps bmm's batched cuBLASLt path).
inline constexpr GemmStage kMatmulStage{"matmul", false, false, false, false, false};

// GemmConfig's descriptor, with the chunk, tail and stats_pass fields or without.
const autotune::Descriptor<GemmConfig>& gemm_descriptor(bool chunks = true, bool tails = true,
                                                        bool stats_pass = false);

// The widest load (4, 2, 1 floats) that the addresses of X and W (p.align) and the
// row length K allow.
int gemm_load_align(const GemmProblem& p);
std::string gemm_problem_key(const GemmStage& stage, const GemmProblem& p, int64_t groups = 0,
                             Precision precision = current_precision());

// Number of cuBLASLt heuristic algorithms for the stage's GEMM with `rows` rows (the
// whole problem or one chunk); 0 when cuBLASLt has none.
using AlgoCount = std::function<int(int64_t rows)>;

struct GemmSpaceOptions {
  Precision precision = Precision::strict;  // which impls the space offers
  // cuBLASLt's algorithm counts for CUBLAS_COMPUTE_32F and _FAST_TF32 (device
  // constraints, with known limits; nullptr: not checked).
  AlgoCount algo_count;
  AlgoCount tf32_algo_count;
  // The device runs the tc family (tc_device_supported): the accurate default may be a
  // tc config. The same for the portable and the device space, so that the default is
  // valid in both.
  bool tc_device = false;
};

// The space for the stage and problem. `limits.known == false` (or no algo counts)
// leaves out the device constraints: the portable space. The first form is strict.
autotune::ParamSpace gemm_space(const GemmStage& stage, const GemmProblem& p,
                                const tt::cuda::DeviceLimits& limits,
                                AlgoCount algo_count = nullptr);
autotune::ParamSpace gemm_space(const GemmStage& stage, const GemmProblem& p,
                                const tt::cuda::DeviceLimits& limits,
                                const GemmSpaceOptions& options);

// The config for the stage on `device` in the calling thread's precision: the tuning
// database's for this device and problem (key with that precision), else
// GemmConfig::default_for(p, precision, tc_device_supported(device))
// (autotune/space_cache.h). `groups`: the stage's groups when its key has them, else 0.
// In accurate precision on a device without the tc family, prints the fallback sentence
// once (note_accurate_fallback).
GemmConfig choose_gemm(const GemmStage& stage, const GemmProblem& p, int device,
                       int64_t groups = 0);

}  // namespace tt::ops::cuda::gemm
