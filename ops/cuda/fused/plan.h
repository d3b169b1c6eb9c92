// A fused op as data: a Plan is the list of stages the op runs (a GEMM stage with its
// epilogue chain, norm passes with their prologue and epilogue chains, the batch-norm
// statistics steps) and the schedule options (row chunks, a tail split) under which
// the GEMM and the passes that only need its rows overlap. One generic executor,
// run_plan(), runs any plan; one builder makes every plan from the group's structure
// (pattern.h: build_plan), as tt::compile found the group in a recorded graph. The
// builder asks the GEMM family what its config can do (epilogue_supported,
// column_stat_rows), never which implementation it is.
//
// Stages run in order. The stages before the GEMM run first (e.g. the eval batch norm's
// affine, which the GEMM's epilogue may read); the GEMM and the row-local passes right
// after it (those whose rows depend only on the GEMM's same rows) run under the
// schedule; the rest (a finalize that needs every row, and what follows it) run after,
// over all rows. Buffers are named by Slot: the op's output, or a piece of the plan's
// scratch, laid out by the executor (each piece 16-byte aligned).
//
// From a recorded graph of plain ops (ops/graph/fusion.h, kGemmNorm): a linear node
// starts a GEMM stage; the elementwise steps after it fold into its Epilogue as far as its
// config applies them; a norm over the GEMM's rows (group, instance, layer or RMS norm)
// becomes a kSegmentNorm stage whose prologue chain takes the steps the GEMM leaves and
// whose epilogue chain is the affine and the steps after the norm (both of the GEMM
// epilogue's vocabulary), or folds into the GEMM's tile stage when epilogue_supported says
// so; a batch norm becomes kColumnStats (or the GEMM's column statistics) + kFinalize +
// kChannelAffine. A plan may also hold no GEMM (fusion.h, kNorm: a norm with its pointwise
// prologue and epilogue): its stages then run in order over all rows, reading kIn. See
// DESIGN.md, "Fused ops are plans".
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ops/cuda/fused/pass_configs.h"
#include "ops/cuda/gemm/epilogue.h"
#include "ops/cuda/gemm/gemm_config.h"
#include "ops/cuda/gemm/gemm_space.h"

namespace tt::ops::cuda::fused {

// Where a stage reads or writes. kGemmOut is a scratch piece of [m, n]; kIn is the plan's
// input x (a plan without a GEMM), kPre its second output.
enum class Slot : uint8_t { kNone, kOut, kGemmOut, kAffine, kPartMean, kPartM2, kIn, kPre };

enum class StageKind : uint8_t {
  kGemm,           // C = X W^T with `epilogue`, into `out`
  kSegmentNorm,    // segment norm over each row's groups: in -> out (may be the same), pre
  kColumnStats,    // column mean/M2 per band of rows: in -> kPartMean/kPartM2
  kChannelAffine,  // out = (in * pre - shift) * mul + add with kAffine
  kEvalAffine,     // kAffine from running statistics (batch norm eval)
  kFinalize,       // kPartMean/kPartM2 -> kAffine and the running statistics
};

// The batch-norm parameters the statistics stages read.
struct BatchNormParams {
  const float* scale = nullptr;
  const float* gamma = nullptr;
  const float* beta = nullptr;
  float* running_mean = nullptr;
  float* running_var = nullptr;
  float momentum = 0.1f;
  float eps = 1e-5f;
};

struct Stage {
  StageKind kind = StageKind::kGemm;
  Slot in = Slot::kNone;
  Slot out = Slot::kNone;
  // kGemm: the chain; its statistics pointers are filled from the slots by the executor,
  // and when append_affine names a slot, a column_affine step reading it is appended
  // (its data exists only once the scratch is laid out).
  gemm::Epilogue epilogue;
  Slot append_affine = Slot::kNone;
  // kSegmentNorm: the chains on each value before the statistics and on each normalised
  // value (steps only, at (row, col) of [m, n]: norm::launch_segment_chain); `pre`, when
  // named, receives the prologue's result.
  gemm::Epilogue prologue;
  gemm::Epilogue norm_epilogue;
  Slot pre = Slot::kNone;
  int64_t groups = 1;  // segments per row
  bool rms = false;    // rms_norm: no mean subtracted
  float eps = 1e-5f;
  // kEvalAffine, kFinalize
  BatchNormParams bn;
};

// The tunable stages of a fused group, as data: its GEMM stage (its database name and the
// schedule options its plan offers: row chunks, a tail split) and the database names of
// the memory passes after it. The names are the keys of the shipped tuning databases
// (autotune/db/*.yaml); FusedPattern::stages() derives them from the structure.
struct FusedStages {
  gemm::GemmStage gemm;
  // Database names of the passes after the GEMM; nullptr: the plan has no such pass.
  const char* segment = nullptr;       // a segment-norm pass
  const char* column_stats = nullptr;  // a column-statistics pass
  const char* affine = nullptr;        // a channel-affine pass
};

// The stream schedule of the GEMM and its row-local passes (GemmConfig::chunk_rows and
// tail_rows say which one a config asks for).
struct Schedule {
  int64_t chunk_rows = 0;  // > 0: row chunks, each chunk's passes overlapping the next GEMM
  int64_t tail_rows = 0;   // > 0: head and tail GEMMs at once, the passes in their last wave
  // Chunks and the head are whole multiples of this many rows (the statistics bands).
  int64_t row_multiple = 1;
};

struct Plan {
  const char* op = "";  // for messages
  const float* x = nullptr;
  const float* w = nullptr;
  float* out = nullptr;
  float* pre = nullptr;  // kPre: a second output [m, n] (a plan without a GEMM)
  int64_t m = 0, n = 0, k = 0;
  std::vector<Stage> stages;
  Schedule schedule;
  gemm::GemmConfig gemm;  // the GEMM stage's config
  // Rows per column-statistics partial (kPartMean/kPartM2 have ceil(m / this) rows):
  // the GEMM's column_stat_rows or the statistics pass's chunk_rows; 0: no partials.
  int64_t part_rows = 0;
  norm::ColumnStatsConfig column_stats;  // the kColumnStats pass's config
  const gemm::PassConfigs* passes = nullptr;

  Plan& add(const Stage& s) {
    stages.push_back(s);
    return *this;
  }
  // "gemm[add_column,relu] -> out" and so on, one stage per line after the schedule.
  std::string str() const;
  // Floats of scratch the plan needs (its kGemmOut, kAffine, kPartMean, kPartM2 pieces).
  int64_t scratch_floats() const;
};

// Runs the plan with `scratch` (at least scratch_floats(), 16-byte aligned, nullptr
// when 0) on `stream` (device `device` current).
void run_plan(const Plan& plan, float* scratch, int device, cudaStream_t stream);

// The launches and stream events run_plan makes, in order, without a GPU (a dry run):
// "first: gemm rows 0+32704 impl=cublaslt,algo=0", "main: segment_norm rows 0+32704",
// "fork side", "join side", ... For the tests of a plan's schedule.
std::vector<std::string> plan_launches(const Plan& plan);

// The stage constructors the plans use.
Stage gemm_stage(const gemm::Epilogue& e, Slot out);
Stage segment_norm_stage(Slot in, Slot out, int64_t groups, const gemm::Epilogue& prologue,
                         const gemm::Epilogue& epilogue, bool rms, float eps);
Stage column_stats_stage(Slot in);
Stage channel_affine_stage(Slot in, Slot out);
Stage eval_affine_stage(const BatchNormParams& bn);
Stage finalize_stage(const BatchNormParams& bn);

// The schedule a config asks for, of those the GEMM stage offers: a tail split needs
// fewer tail rows than rows; chunks otherwise.
Schedule schedule_of(const gemm::GemmConfig& cfg, int64_t m, const gemm::GemmStage& offers);
// Whether the schedule runs the GEMM in parts (then a pass can work in place in `out`).
bool in_parts(const Schedule& s);

// A plan with the GEMM operands and config filled in, no stages yet.
Plan plan_for(const char* op, const gemm::GemmConfig& cfg, const float* x, const float* w,
              float* out, int64_t m, int64_t n, int64_t k, const gemm::PassConfigs* passes);

}  // namespace tt::ops::cuda::fused
