// The generic executor of fused-op plans (see plan.h): scratch layout, the stream
// schedule (whole, row chunks, tail split) and one launch per stage.
#include "ops/cuda/fused/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "core/error.h"
#include "ops/cuda/gemm/gemm.h"
#include "ops/cuda/gemm/side_stream.h"
#include "ops/cuda/norm/norm_passes.h"

namespace tt::ops::cuda::fused {
namespace {

using gemm::GemmConfig;

bool global_stage(StageKind k) { return k == StageKind::kEvalAffine || k == StageKind::kFinalize; }

bool uses(const Plan& p, Slot s) {
  for (const Stage& st : p.stages) {
    if (st.in == s || st.out == s || st.append_affine == s) return true;
    if (s == Slot::kAffine &&
        (st.kind == StageKind::kEvalAffine || st.kind == StageKind::kFinalize ||
         st.kind == StageKind::kChannelAffine)) {
      return true;
    }
    const bool partials = s == Slot::kPartMean || s == Slot::kPartM2;
    if (partials &&
        (st.kind == StageKind::kColumnStats || st.kind == StageKind::kFinalize ||
         (st.kind == StageKind::kGemm && st.epilogue.kind == gemm::EpilogueKind::kColumnStats))) {
      return true;
    }
  }
  return false;
}

int64_t parts_of(const Plan& p) {
  return p.part_rows > 0 ? (p.m + p.part_rows - 1) / p.part_rows : 0;
}

// The buffer of each slot: the op's output and the scratch pieces, laid out in this
// order: [gemm_out | affine | part_mean | part_m2], each starting on a 16-byte boundary
// so that vector loads stay possible.
struct Buffers {
  float* at[8] = {};  // indexed by Slot
  int64_t floats = 0;
  float* operator[](Slot s) const { return at[static_cast<int>(s)]; }
};

Buffers layout(const Plan& p, float* base) {
  Buffers b;
  b.at[static_cast<int>(Slot::kOut)] = p.out;
  // The input is only read (kIn is never a stage's out).
  b.at[static_cast<int>(Slot::kIn)] = const_cast<float*>(p.x);
  b.at[static_cast<int>(Slot::kPre)] = p.pre;
  const auto take = [&](Slot s, int64_t count) {
    b.at[static_cast<int>(s)] = base ? base + b.floats : nullptr;
    b.floats += (count + 3) / 4 * 4;
  };
  if (uses(p, Slot::kGemmOut)) take(Slot::kGemmOut, p.m * p.n);
  if (uses(p, Slot::kAffine)) take(Slot::kAffine, 4 * p.n);
  const int64_t parts = parts_of(p);
  if (parts > 0 && uses(p, Slot::kPartMean)) {
    take(Slot::kPartMean, parts * p.n);
    take(Slot::kPartM2, parts * p.n);
  }
  return b;
}

// The pass configs: the caller's choice (the tuning lookup) or the launcher's default.
norm::SegmentConfig segment_config(const Plan& p, const norm::SegmentProblem& sp) {
  return p.passes && p.passes->segment ? p.passes->segment(sp)
                                       : norm::SegmentConfig::default_for(sp);
}

norm::AffineConfig affine_config(const Plan& p, const norm::AffineProblem& ap) {
  return p.passes && p.passes->affine ? p.passes->affine(ap) : norm::AffineConfig::default_for(ap);
}

// The GEMM stage over rows [r0, r0 + rows) with `cfg` on stream s.
void run_gemm_rows(const Plan& p, const Stage& st, const Buffers& b, const GemmConfig& cfg,
                   int64_t r0, int64_t rows, int device, cudaStream_t s) {
  gemm::Epilogue e = st.epilogue.at_rows(r0);
  if (e.kind == gemm::EpilogueKind::kColumnStats)
    e.column_stats(b[Slot::kPartMean], b[Slot::kPartM2]);
  if (st.append_affine != Slot::kNone) e.column_affine(b[st.append_affine], p.n);
  gemm::run_gemm(cfg, {p.x + r0 * p.k, p.w, b[st.out] + r0 * p.n, rows, p.n, p.k}, e, device, s);
}

void run_segment_norm(const Plan& p, const Stage& st, const Buffers& b, const float* in, float* out,
                      int64_t r0, int64_t rows, cudaStream_t s) {
  norm::SegmentChainArgs a;
  a.x = in, a.out = out, a.pre = st.pre != Slot::kNone ? b[st.pre] + r0 * p.n : nullptr;
  a.rows = rows, a.n = p.n, a.groups = st.groups;
  a.prologue = st.prologue.at_rows(r0), a.epilogue = st.norm_epilogue.at_rows(r0);
  a.rms = st.rms, a.eps = st.eps;
  norm::launch_segment_chain(segment_config(p, norm::chain_problem(a)), a, s);
}

// A pass stage over rows [r0, r0 + rows) on stream s (all rows for the global ones).
void run_pass(const Plan& p, const Stage& st, const Buffers& b, int64_t r0, int64_t rows,
              cudaStream_t s) {
  const float* in = st.in != Slot::kNone ? b[st.in] + r0 * p.n : nullptr;
  float* out = st.out != Slot::kNone ? b[st.out] + r0 * p.n : nullptr;
  switch (st.kind) {
    case StageKind::kSegmentNorm:
      run_segment_norm(p, st, b, in, out, r0, rows, s);
      return;
    case StageKind::kColumnStats: {
      const int64_t part0 = r0 / p.part_rows;
      norm::launch_column_stats(p.column_stats, in, rows, p.n, b[Slot::kPartMean] + part0 * p.n,
                                b[Slot::kPartM2] + part0 * p.n, s);
      return;
    }
    case StageKind::kChannelAffine: {
      const norm::AffineProblem ap{rows * p.n, p.n, 1, norm::vec_align({in, out})};
      norm::launch_channel_affine(affine_config(p, ap), in, out, b[Slot::kAffine], rows * p.n, p.n,
                                  1, s);
      return;
    }
    case StageKind::kEvalAffine:
      norm::launch_batch_norm_eval_affine(p.n, st.bn.scale, st.bn.gamma, st.bn.beta,
                                          st.bn.running_mean, st.bn.running_var, st.bn.eps,
                                          b[Slot::kAffine], s);
      return;
    case StageKind::kFinalize:
      norm::launch_batch_norm_finalize(b[Slot::kPartMean], b[Slot::kPartM2], parts_of(p),
                                       p.part_rows, p.m, p.n, st.bn.scale, st.bn.gamma, st.bn.beta,
                                       st.bn.running_mean, st.bn.running_var, st.bn.momentum,
                                       st.bn.eps, b[Slot::kAffine], s);
      return;
    case StageKind::kGemm:
      break;
  }
  TT_FAIL("{}: a plan has more than one GEMM stage", p.op);
}

// The GEMM of a tail split's last rows: the first pick of the head's arithmetic
// (gemm::split_tail_config: cuBLASLt's for strict configs, FAST_TF32's for cublaslt_tf32,
// the same variant for tc), so that a split keeps its config's precision and speed.
GemmConfig tail_config(const GemmConfig& cfg) { return gemm::split_tail_config(cfg); }

}  // namespace

Stage gemm_stage(const gemm::Epilogue& e, Slot out) {
  Stage s;
  s.kind = StageKind::kGemm, s.epilogue = e, s.out = out;
  return s;
}

Stage segment_norm_stage(Slot in, Slot out, int64_t groups, const gemm::Epilogue& prologue,
                         const gemm::Epilogue& epilogue, bool rms, float eps) {
  Stage s;
  s.kind = StageKind::kSegmentNorm, s.in = in, s.out = out, s.groups = groups;
  s.prologue = prologue, s.norm_epilogue = epilogue, s.rms = rms, s.eps = eps;
  return s;
}

Stage column_stats_stage(Slot in) {
  Stage s;
  s.kind = StageKind::kColumnStats, s.in = in;
  return s;
}

Stage channel_affine_stage(Slot in, Slot out) {
  Stage s;
  s.kind = StageKind::kChannelAffine, s.in = in, s.out = out;
  return s;
}

Stage eval_affine_stage(const BatchNormParams& bn) {
  Stage s;
  s.kind = StageKind::kEvalAffine, s.bn = bn;
  return s;
}

Stage finalize_stage(const BatchNormParams& bn) {
  Stage s;
  s.kind = StageKind::kFinalize, s.bn = bn;
  return s;
}

Schedule schedule_of(const GemmConfig& cfg, int64_t m, const gemm::GemmStage& offers) {
  Schedule s;
  if (offers.tails && cfg.tail_rows > 0 && cfg.tail_rows < m) {
    s.tail_rows = cfg.tail_rows;
  } else if (offers.chunks) {
    s.chunk_rows = cfg.chunk_rows;
  }
  return s;
}

bool in_parts(const Schedule& s) { return s.chunk_rows > 0 || s.tail_rows > 0; }

Plan plan_for(const char* op, const GemmConfig& cfg, const float* x, const float* w, float* out,
              int64_t m, int64_t n, int64_t k, const gemm::PassConfigs* passes) {
  Plan p;
  p.op = op, p.gemm = cfg, p.x = x, p.w = w, p.out = out, p.m = m, p.n = n, p.k = k;
  p.passes = passes;
  return p;
}

int64_t Plan::scratch_floats() const { return layout(*this, nullptr).floats; }

std::string Plan::str() const {
  static const char* const kSlots[] = {"-",         "out",     "gemm_out", "affine",
                                       "part_mean", "part_m2", "in",       "pre"};
  const auto slot = [](Slot s) { return kSlots[static_cast<int>(s)]; };
  std::string text =
      fmt::format("{} chunk={} tail={}", op, schedule.chunk_rows, schedule.tail_rows);
  for (const Stage& st : stages) {
    text += '\n';
    switch (st.kind) {
      case StageKind::kGemm:
        text += fmt::format("gemm[{}{}] -> {}", st.epilogue.str(),
                            st.append_affine != Slot::kNone ? ",column_affine" : "", slot(st.out));
        break;
      case StageKind::kSegmentNorm:
        text += fmt::format("{}[{} | {},groups={}] {} -> {}{}",
                            st.rms ? "rms_norm" : "segment_norm", st.prologue.str(),
                            st.norm_epilogue.str(), st.groups, slot(st.in), slot(st.out),
                            st.pre != Slot::kNone ? fmt::format(",{}", slot(st.pre)) : "");
        break;
      case StageKind::kColumnStats:
        text += fmt::format("column_stats {} -> part_mean,part_m2", slot(st.in));
        break;
      case StageKind::kChannelAffine:
        text += fmt::format("channel_affine {} -> {}", slot(st.in), slot(st.out));
        break;
      case StageKind::kEvalAffine:
        text += "eval_affine -> affine";
        break;
      case StageKind::kFinalize:
        text += "finalize part_mean,part_m2 -> affine";
        break;
    }
  }
  return text;
}

namespace {

// The streams a plan's launches go to: the device's own stream, the side stream of row
// chunks, and the two high-priority streams of a tail split.
enum class Lane : uint8_t { kMain, kSide, kFirst, kSecond };

// What the schedule walk asks for, in order: the real executor launches it, the dry
// run (plan_launches) writes it down.
class Sink {
 public:
  virtual ~Sink() = default;
  virtual void gemm(const GemmConfig& cfg, int64_t r0, int64_t rows, Lane lane) = 0;
  virtual void pass(size_t stage, int64_t r0, int64_t rows, Lane lane) = 0;
  virtual void fork(Lane lane) = 0;  // lane waits for the work queued on main so far
  virtual void join(Lane lane) = 0;  // main waits for the lane
};

// The schedule: the stages before the GEMM, the GEMM with the row-local passes right
// after it (whole, in row chunks, or as a head/tail split), then the rest over all rows.
void walk(const Plan& p, Sink& sink) {
  size_t g = 0;
  while (g < p.stages.size() && p.stages[g].kind != StageKind::kGemm) ++g;
  if (g == p.stages.size()) {  // no GEMM: the stages in order, over all rows
    if (p.m > 0)
      for (size_t i = 0; i < p.stages.size(); ++i) sink.pass(i, 0, p.m, Lane::kMain);
    return;
  }
  size_t local_end = g + 1;
  while (local_end < p.stages.size() && !global_stage(p.stages[local_end].kind)) ++local_end;
  for (size_t i = 0; i < g; ++i) sink.pass(i, 0, p.m, Lane::kMain);
  if (p.m == 0) return;
  const auto local = [&](int64_t r0, int64_t rows, Lane lane) {
    for (size_t i = g + 1; i < local_end; ++i) sink.pass(i, r0, rows, lane);
  };
  const bool has_local = local_end > g + 1;
  const Schedule& sch = p.schedule;
  const int64_t mult = std::max<int64_t>(1, sch.row_multiple);
  const int64_t head = sch.tail_rows > 0 ? (p.m - sch.tail_rows) / mult * mult : 0;
  if (has_local && sch.tail_rows > 0 && sch.tail_rows < p.m && head > 0) {
    // Rows [0, head) on the highest-priority side stream and [head, m) at once on the
    // second one (independent rows: the GPU dispatches the head's CTAs, then the
    // tail's, without the gap that a second launch on one stream leaves). Then, on the
    // main stream, which has the lowest priority, the head's passes after the head's
    // GEMM and the tail's after the tail's: their blocks only take SMs that no GEMM CTA
    // is waiting for, i.e. the SMs that the GEMMs' last, partial wave leaves idle
    // (measured with tools/device/overlap_harness.cu: docs/performance.md).
    GemmConfig head_cfg = p.gemm;
    head_cfg.tail_rows = 0;
    sink.fork(Lane::kFirst);
    sink.fork(Lane::kSecond);
    sink.gemm(head_cfg, 0, head, Lane::kFirst);
    sink.gemm(tail_config(p.gemm), head, p.m - head, Lane::kSecond);
    sink.join(Lane::kFirst);
    local(0, head, Lane::kMain);
    sink.join(Lane::kSecond);
    local(head, p.m - head, Lane::kMain);
  } else if (has_local && sch.chunk_rows > 0) {
    // Each chunk's GEMM on the main stream, its passes on the side stream, where they
    // overlap the next chunk's GEMM; the main stream waits for the side stream at the end.
    const int64_t chunk = (sch.chunk_rows + mult - 1) / mult * mult;
    for (int64_t r0 = 0; r0 < p.m; r0 += chunk) {
      const int64_t rows = std::min(chunk, p.m - r0);
      sink.gemm(p.gemm, r0, rows, Lane::kMain);
      sink.fork(Lane::kSide);
      local(r0, rows, Lane::kSide);
    }
    sink.join(Lane::kSide);
  } else {
    sink.gemm(p.gemm, 0, p.m, Lane::kMain);
    local(0, p.m, Lane::kMain);
  }
  for (size_t i = local_end; i < p.stages.size(); ++i) sink.pass(i, 0, p.m, Lane::kMain);
}

// The executor: launches on the device's stream and side streams (created on first use).
class Launcher : public Sink {
 public:
  Launcher(const Plan& p, const Buffers& b, int device, cudaStream_t stream)
      : p_(p), b_(b), device_(device), stream_(stream) {}
  void gemm(const GemmConfig& cfg, int64_t r0, int64_t rows, Lane lane) override {
    run_gemm_rows(p_, p_.stages[gemm_index()], b_, cfg, r0, rows, device_, on(lane));
  }
  void pass(size_t stage, int64_t r0, int64_t rows, Lane lane) override {
    run_pass(p_, p_.stages[stage], b_, r0, rows, on(lane));
  }
  void fork(Lane lane) override { side(lane).fork(); }
  void join(Lane lane) override { side(lane).join(); }

 private:
  size_t gemm_index() const {
    size_t g = 0;
    while (p_.stages[g].kind != StageKind::kGemm) ++g;
    return g;
  }
  gemm::SideStream& side(Lane lane) {
    auto& slot = sides_[static_cast<int>(lane)];
    if (!slot) {
      const gemm::SidePriority priority = lane == Lane::kFirst    ? gemm::SidePriority::kHighest
                                          : lane == Lane::kSecond ? gemm::SidePriority::kSecond
                                                                  : gemm::SidePriority::kDefault;
      slot = std::make_unique<gemm::SideStream>(device_, stream_, priority);
    }
    return *slot;
  }
  cudaStream_t on(Lane lane) { return lane == Lane::kMain ? stream_ : side(lane).side(); }

  const Plan& p_;
  const Buffers& b_;
  int device_;
  cudaStream_t stream_;
  std::unique_ptr<gemm::SideStream> sides_[4];
};

// The dry run: one line per launch or stream event.
class Recorder : public Sink {
 public:
  explicit Recorder(const Plan& p) : p_(p) {}
  void gemm(const GemmConfig& cfg, int64_t r0, int64_t rows, Lane lane) override {
    lines.push_back(fmt::format("{}: gemm rows {}+{} {}", name(lane), r0, rows, cfg.str()));
  }
  void pass(size_t stage, int64_t r0, int64_t rows, Lane lane) override {
    static const char* const kKinds[] = {"gemm",           "segment_norm", "column_stats",
                                         "channel_affine", "eval_affine",  "finalize"};
    lines.push_back(fmt::format("{}: {} rows {}+{}", name(lane),
                                kKinds[static_cast<int>(p_.stages[stage].kind)], r0, rows));
  }
  void fork(Lane lane) override { lines.push_back(fmt::format("fork {}", name(lane))); }
  void join(Lane lane) override { lines.push_back(fmt::format("join {}", name(lane))); }
  std::vector<std::string> lines;

 private:
  static const char* name(Lane lane) {
    static const char* const kNames[] = {"main", "side", "first", "second"};
    return kNames[static_cast<int>(lane)];
  }
  const Plan& p_;
};

}  // namespace

std::vector<std::string> plan_launches(const Plan& p) {
  Recorder r(p);
  if (p.n > 0) walk(p, r);
  return r.lines;
}

void run_plan(const Plan& p, float* scratch, int device, cudaStream_t stream) {
  if (p.n == 0) return;
  const Buffers b = layout(p, scratch);
  TT_CHECK(b.floats == 0 || scratch != nullptr, "{}: needs a scratch buffer of {} floats", p.op,
           b.floats);
  TT_CHECK(reinterpret_cast<uintptr_t>(scratch) % 16 == 0,
           "{}: the scratch buffer must be 16-byte aligned", p.op);
  Launcher launcher(p, b, device, stream);
  walk(p, launcher);
}

}  // namespace tt::ops::cuda::fused
