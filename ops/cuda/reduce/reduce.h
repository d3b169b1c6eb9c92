// The reduction family: raw-pointer launchers, their configs (the tunable knobs) and
// their parameter spaces, behind tt::ops::cuda::{sum, mean, var, std, amax, amin,
// argmax, argmin, softmax, log_softmax, rms_norm} (ops/cuda/cuda_ops_reduce.h).
//
// Every reduction over a dim list is folded (reduce_ops.cpp) onto one of two kernel
// shapes over a dense float32 buffer:
//   inner  x [rows, cols], reduce each contiguous row:     out[r]    = op_c x[r, c]
//          (a group of `lanes` threads per row: 4..32 lanes of a warp, or the whole
//          block; `vec`-wide loads, `items` loads in flight per thread; rows too few
//          to fill the GPU are split over several groups and the partials merged)
//   outer  x [outer, rows, inner], reduce the middle dim:  out[o, i] = op_r x[o, r, i]
//          (`col_threads` threads across the contiguous inner dim, `vec` columns each,
//          the rest of the block across rows, `items` rows in flight per thread; the
//          rows are split over blocks when the columns alone do not fill the GPU)
// Softmax, log_softmax and rms_norm are row maps over x [rows, cols] (the normalised
// dim innermost): a row held in registers (impl=reg: one read, one write) or streamed
// twice (impl=stream: any length).
//
// Kernel names and problem keys in the tuning database:
//   reduce.inner
//   op=sum|mean|var|std|amax|amin|argmax|argmin,rows=R,cols=C,align=16B,precision=strict
//   reduce.outer   op=...,outer=O,rows=R,inner=I,align=16B,precision=strict
//   softmax, log_softmax, rms_norm   rows=R,cols=C,align=16B,precision=strict
// A config changes speed, never results beyond float rounding (and argmax/argmin never).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "autotune/config.h"
#include "autotune/space.h"
#include "core/cuda/device.h"

namespace tt::autotune {
template <class C>
class Descriptor;  // autotune/descriptor.h
}  // namespace tt::autotune

namespace tt::ops::cuda::reduce {

inline constexpr const char* kInnerKernel = "reduce.inner";
inline constexpr const char* kOuterKernel = "reduce.outer";

enum class Op : int { kSum, kMean, kVar, kStd, kAmax, kAmin, kArgmax, kArgmin };
// "sum", "mean", ...: the op field of the problem key.
const char* op_name(Op op);
inline bool is_arg(Op op) { return op == Op::kArgmax || op == Op::kArgmin; }

// Largest vector width (4, 2 or 1 floats) that the pointer's address allows.
int ptr_align(const void* p);

// ---- inner (row) reductions ----
struct InnerProblem {
  int64_t rows = 0;
  int64_t cols = 0;
  int align = 4;  // ptr_align() of x
};

struct InnerConfig {
  int threads = 256;
  int lanes = 32;  // threads per row: 4, 8, 16, 32 or == threads
  int vec = 4;     // floats per load: 1, 2 or 4
  int items = 4;   // loads in flight per thread
  // 1: loads marked evict-first in the L2 (ld.global.cs): data read once does not
  // push out lines that others will use (or that are dirty and would be written back
  // meanwhile). A run-time choice: it doubles no compiled variant.
  int evict_first = 0;

  bool valid(const InnerProblem& p) const;
  static InnerConfig default_for(const InnerProblem& p);
  static const std::vector<InnerConfig>& all();  // the compiled variants
  autotune::Config to_config() const;
  static InnerConfig from_config(const autotune::Config& c);
  // The family's descriptor: fields, candidates (the compiled table's values), the
  // compiled table as a constraint.
  static const autotune::Descriptor<InnerConfig>& descriptor();
  bool operator==(const InnerConfig& o) const;
};

// ---- outer (column) reductions ----
struct OuterProblem {
  int64_t outer = 1;
  int64_t rows = 0;  // the reduced dim
  int64_t inner = 1;
  int align = 4;
};

struct OuterConfig {
  int threads = 256;
  int col_threads = 32;  // threads across the inner dim, each `vec` columns wide
  int vec = 4;
  int items = 4;        // rows in flight per thread
  int evict_first = 0;  // as InnerConfig's

  bool valid(const OuterProblem& p) const;
  static OuterConfig default_for(const OuterProblem& p);
  static const std::vector<OuterConfig>& all();
  autotune::Config to_config() const;
  static OuterConfig from_config(const autotune::Config& c);
  // The family's descriptor: fields, candidates (the compiled table's values), the
  // compiled table as a constraint.
  static const autotune::Descriptor<OuterConfig>& descriptor();
  bool operator==(const OuterConfig& o) const;
};

// What the reduction produces from its accumulated state: the sum divided by
// `divisor` (sum: 1, mean: N), or M2 / max(divisor, 0) (var: N - correction) and its
// square root (std); amax/amin/argmax/argmin ignore it.
struct Finish {
  double divisor = 1;
};

// out: float [rows] (int64 [rows] for argmax/argmin). `sm_count` sizes the split of
// rows too few to fill the GPU. rows >= 1, cols >= 1.
void launch_inner(Op op, const InnerConfig& cfg, const InnerProblem& p, const float* x, void* out,
                  Finish finish, int device, cudaStream_t stream);
// out: float [outer, inner] (int64 for the arg ops). rows >= 1.
void launch_outer(Op op, const OuterConfig& cfg, const OuterProblem& p, const float* x, void* out,
                  Finish finish, int device, cudaStream_t stream);

// ---- row maps: softmax, log_softmax, rms_norm over x [rows, cols] ----
enum class RowMap : int { kSoftmax, kLogSoftmax, kRmsNorm };
const char* row_map_name(RowMap m);  // "softmax", "log_softmax", "rms_norm": the kernel name

struct RowProblem {
  int64_t rows = 0;
  int64_t cols = 0;
  int align = 4;  // ptr_align() of every pointer of the launch
};

struct RowConfig {
  bool reg = true;  // the row in registers (one read); false: streamed twice
  int threads = 256;
  int lanes = 32;  // threads per row: 4..32 or == threads
  int vec = 4;
  int items = 4;  // vectors per thread: held (reg) or in flight per tile (stream)

  int64_t capacity() const { return int64_t{lanes} * vec * items; }  // floats of a row held
  bool valid(const RowProblem& p) const;
  static RowConfig default_for(const RowProblem& p);
  static const std::vector<RowConfig>& all();
  autotune::Config to_config() const;  // impl=reg|stream,threads=..,lanes=..,vec=..,items=..
  static RowConfig from_config(const autotune::Config& c);
  // The family's descriptor: fields, candidates (the compiled table's values), the
  // compiled table as a constraint.
  static const autotune::Descriptor<RowConfig>& descriptor();
  bool operator==(const RowConfig& o) const;
};

// weight: rms_norm's [cols] scale or nullptr; eps: rms_norm's.
void launch_row_map(RowMap m, const RowConfig& cfg, const RowProblem& p, const float* x, float* out,
                    const float* weight, float eps, cudaStream_t stream);

// ---- spaces and lookups (reduce_space.cpp) ----
std::string inner_problem_key(Op op, const InnerProblem& p);
std::string outer_problem_key(Op op, const OuterProblem& p);
std::string row_problem_key(const RowProblem& p);
autotune::ParamSpace inner_space(const InnerProblem& p, const tt::cuda::DeviceLimits& limits);
autotune::ParamSpace outer_space(const OuterProblem& p, const tt::cuda::DeviceLimits& limits);
autotune::ParamSpace row_space(RowMap m, const RowProblem& p, const tt::cuda::DeviceLimits& limits);
// The config this device's database (or the default) gives the launch.
InnerConfig choose_inner(Op op, const InnerProblem& p, int device);
OuterConfig choose_outer(Op op, const OuterProblem& p, int device);
RowConfig choose_row(RowMap m, const RowProblem& p, int device);

// Streaming multiprocessors of `device` (cached): sizes the splits.
int sm_count(int device);

}  // namespace tt::ops::cuda::reduce
