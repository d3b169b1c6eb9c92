// The GEMM epilogue as data: what every GEMM implementation (our tiled SIMT kernel,
// cuBLASLt, the sm90 tensor-core family) does to each output element C[row, col]
// before it is stored. An Epilogue is a short list of per-element steps, applied in
// order to the float32 accumulator value, plus an optional tile stage:
//
//   steps (each reads at most one operand):
//     add_column(v) / mul_column(v)     v[col]            a bias, a per-channel scale
//     add_row(v) / mul_row(v)           v[row]            a per-sample vector
//     scale(s)                          s                 a scalar
//     relu, silu (= swish), gelu (erf), gelu_tanh, leaky_relu(slope)
//     add_residual(t) / mul_residual(t) t[row * ld + col] an [M, N] tensor
//     column_affine(a)                  (x * pre - shift) * mul + add, a = [pre|shift|mul|add]
//                                       (4 * N floats), norm::launch_channel_affine's rounding
//   tile stage (EpilogueKind), after the steps:
//     kPointwise    none;
//     kGroupNorm    GroupNorm over contiguous groups of `group_size` channels of each
//                   row, which must lie inside one CTA tile (our own kernel and the sm90
//                   family: sm90::tc_epilogue_unsupported_reason);
//     kColumnStats  store the value and, per band of column_stat_rows(cfg) rows (the CTA's
//                   BM for our own kernel), each column's mean and M2 over the band into
//                   part_mean/part_m2 [bands][N]: the partials that
//                   norm::launch_batch_norm_finalize merges (batch norm training).
//
// The activations are the pointwise family's functors (ops/pointwise_functors.h), so a
// step computes exactly what the plain op computes: a plan built from a recorded graph
// of plain ops (add, mul, relu, ...) folds them into the epilogue with the same results.
// Everything below the builders is __host__ __device__: a kernel calls apply() per
// element, or switches once per step (TT_EPILOGUE_OPS) and runs apply_op<OP> over its
// fragment; the CPU tests call apply() on host pointers. `row0` says where the GEMM's
// row 0 lies in the row-indexed operands, so a plan that runs the GEMM in row chunks
// passes at_rows(r0) instead of shifting each pointer. This header needs no sm_90a
// flags and no CUDA runtime.
#pragma once

#include <cstdint>
#include <string>

#include "core/error.h"
#include "ops/pointwise_functors.h"

namespace tt::ops::cuda::gemm {

// X(enum name, text): the steps, in one list so that the enum, the names and every
// dispatch over them (apply_step, the kernels' switches) cannot disagree.
#define TT_EPILOGUE_OPS(X)        \
  X(kAddColumn, "add_column")     \
  X(kMulColumn, "mul_column")     \
  X(kAddRow, "add_row")           \
  X(kMulRow, "mul_row")           \
  X(kScale, "scale")              \
  X(kRelu, "relu")                \
  X(kSilu, "silu")                \
  X(kGelu, "gelu")                \
  X(kGeluTanh, "gelu_tanh")       \
  X(kLeakyRelu, "leaky_relu")     \
  X(kAddResidual, "add_residual") \
  X(kMulResidual, "mul_residual") \
  X(kColumnAffine, "column_affine")

#define TT_EPILOGUE_ENUM(name, text) name,
enum class EpilogueOp : uint8_t { TT_EPILOGUE_OPS(TT_EPILOGUE_ENUM) };
#undef TT_EPILOGUE_ENUM

enum class EpilogueKind : uint8_t { kPointwise = 0, kGroupNorm = 1, kColumnStats = 2 };

struct EpilogueStep {
  EpilogueOp op = EpilogueOp::kScale;
  float scalar = 1.f;           // kScale: the factor; kLeakyRelu: the negative slope
  const float* data = nullptr;  // the vector, residual or affine
  int64_t ld = 0;               // residual: row stride; affine: N (pre, shift, mul, add apart)
};

struct Epilogue {
  static constexpr int kMaxSteps = 8;
  Epilogue() {}  // no steps, kPointwise (user-provided: `{}` converts to it)
  EpilogueStep steps[kMaxSteps] = {};
  int count = 0;
  // Row of the row-indexed operands (per-row vectors, residuals, statistics bands)
  // that the GEMM's row 0 is.
  int64_t row0 = 0;

  EpilogueKind kind = EpilogueKind::kPointwise;
  // kGroupNorm
  int64_t group_size = 0;        // channels per group
  const float* gamma = nullptr;  // [N] or nullptr (= 1)
  const float* beta = nullptr;   // [N] or nullptr (= 0)
  float eps = 1e-5f;
  // kColumnStats: [bands][N], band = (row0 + row) / column_stat_rows(cfg)
  float* part_mean = nullptr;
  float* part_m2 = nullptr;

  // Builders (host). A null vector adds no step, so an optional bias needs no branch at
  // the call site; more than kMaxSteps steps throw tt::Error.
  Epilogue& add_column(const float* v) { return push(EpilogueOp::kAddColumn, v); }
  Epilogue& mul_column(const float* v) { return push(EpilogueOp::kMulColumn, v); }
  Epilogue& add_row(const float* v) { return push(EpilogueOp::kAddRow, v); }
  Epilogue& mul_row(const float* v) { return push(EpilogueOp::kMulRow, v); }
  Epilogue& scale(float s) { return push(EpilogueOp::kScale, nullptr, s); }
  Epilogue& relu() { return push(EpilogueOp::kRelu); }
  Epilogue& silu() { return push(EpilogueOp::kSilu); }
  Epilogue& gelu() { return push(EpilogueOp::kGelu); }
  Epilogue& gelu_tanh() { return push(EpilogueOp::kGeluTanh); }
  Epilogue& leaky_relu(float slope) { return push(EpilogueOp::kLeakyRelu, nullptr, slope); }
  Epilogue& add_residual(const float* t, int64_t ld) {
    return push(EpilogueOp::kAddResidual, t, 1.f, ld);
  }
  Epilogue& mul_residual(const float* t, int64_t ld) {
    return push(EpilogueOp::kMulResidual, t, 1.f, ld);
  }
  Epilogue& column_affine(const float* affine, int64_t n) {
    return push(EpilogueOp::kColumnAffine, affine, 1.f, n);
  }
  Epilogue& group_norm(int64_t size, const float* g, const float* b, float epsilon) {
    kind = EpilogueKind::kGroupNorm, group_size = size, gamma = g, beta = b, eps = epsilon;
    return *this;
  }
  Epilogue& column_stats(float* mean, float* m2) {
    kind = EpilogueKind::kColumnStats, part_mean = mean, part_m2 = m2;
    return *this;
  }
  // The pointwise builders' common form, for a caller that holds the step as data (the
  // graph lowering): its operand (a vector, residual or affine; absent: no step), the
  // scalar of kScale / kLeakyRelu, the residual's row stride or the affine's N.
  Epilogue& push(EpilogueOp op, const float* data = nullptr, float scalar = 1.f, int64_t ld = 0);
  // A copy for a GEMM whose row 0 is row r0 of this one (row chunks, tail splits).
  Epilogue at_rows(int64_t r0) const {
    Epilogue e = *this;
    e.row0 += r0;
    return e;
  }

  bool has(EpilogueOp op) const;
  // Whether a step reads per-row data (per-row vectors, residuals): such a chain
  // depends on the rows a GEMM covers (see row0).
  bool reads_rows() const;
  // "add_column,silu,add_column,group_norm(16)": for messages and the plan tests.
  std::string str() const;
};

// The chain as act(v * scale[col] + bias[col]) (each part optional, in this order, the
// activation last, kPointwise): the form that fixed-function epilogues express
// (cuBLASLt's BIAS / RELU_BIAS / GELU_BIAS, the sm90 kernel's). ok == false otherwise.
struct ScaleBiasActivation {
  bool ok = false;
  const float* scale = nullptr;
  const float* bias = nullptr;
  bool has_act = false;
  EpilogueOp act = EpilogueOp::kRelu;
  float slope = 0.f;  // kLeakyRelu
};
ScaleBiasActivation as_scale_bias_activation(const Epilogue& e);

// ---- applying it (host and device) ----

#ifdef __CUDACC__
#define TT_EPILOGUE_HD __host__ __device__ __forceinline__
#else
#define TT_EPILOGUE_HD inline
#endif

namespace epilogue_detail {
TT_EPILOGUE_HD float load(const float* p) {
#ifdef __CUDA_ARCH__
  return __ldg(p);
#else
  return *p;
#endif
}
}  // namespace epilogue_detail

// What a step reads: nothing (scalar steps, activations), one value per column (kept
// in registers across a thread's rows), or one value per element / row.
TT_EPILOGUE_HD constexpr bool reads_column(EpilogueOp op) {
  return op == EpilogueOp::kAddColumn || op == EpilogueOp::kMulColumn ||
         op == EpilogueOp::kColumnAffine;
}
TT_EPILOGUE_HD constexpr bool reads_element(EpilogueOp op) {
  return op == EpilogueOp::kAddRow || op == EpilogueOp::kMulRow || op == EpilogueOp::kAddResidual ||
         op == EpilogueOp::kMulResidual;
}

// The operand of a step at (row, col): `a` for one value, a..d for the affine.
struct EpilogueOperand {
  float a = 0.f, b = 0.f, c = 0.f, d = 0.f;
};

// Column operand of a reads_column() step (col < N).
TT_EPILOGUE_HD EpilogueOperand column_operand(const EpilogueStep& s, int64_t col) {
  using epilogue_detail::load;
  EpilogueOperand o;
  o.a = load(s.data + col);
  if (s.op == EpilogueOp::kColumnAffine) {
    o.b = load(s.data + s.ld + col);
    o.c = load(s.data + 2 * s.ld + col);
    o.d = load(s.data + 3 * s.ld + col);
  }
  return o;
}

// Operand of reads_element() step OP at (row, col) of the GEMM (row < M, col < N).
template <EpilogueOp OP>
TT_EPILOGUE_HD float element_operand(const EpilogueStep& s, int64_t row0, int64_t row,
                                     int64_t col) {
  if constexpr (OP == EpilogueOp::kAddRow || OP == EpilogueOp::kMulRow) {
    return epilogue_detail::load(s.data + row0 + row);
  } else {
    return epilogue_detail::load(s.data + (row0 + row) * s.ld + col);
  }
}

// Step OP on v, given its operand (ignored by the steps that read none) and the step's
// scalar. A template, so that a kernel which switches once per step (over
// TT_EPILOGUE_OPS) runs straight-line arithmetic over its fragment.
template <EpilogueOp OP>
TT_EPILOGUE_HD float apply_op(float v, const EpilogueOperand& o, float scalar) {
  namespace pw = tt::ops::pointwise;
  if constexpr (OP == EpilogueOp::kAddColumn || OP == EpilogueOp::kAddRow ||
                OP == EpilogueOp::kAddResidual) {
    return pw::AddFn{}(v, o.a);
  } else if constexpr (OP == EpilogueOp::kMulColumn || OP == EpilogueOp::kMulRow ||
                       OP == EpilogueOp::kMulResidual) {
    return pw::MulFn{}(v, o.a);
  } else if constexpr (OP == EpilogueOp::kScale) {
    return pw::MulFn{}(v, scalar);
  } else if constexpr (OP == EpilogueOp::kRelu) {
    return pw::ReluFn{}(v);
  } else if constexpr (OP == EpilogueOp::kSilu) {
    return pw::SiluFn{}(v);
  } else if constexpr (OP == EpilogueOp::kGelu) {
    return pw::GeluErfFn{}(v);
  } else if constexpr (OP == EpilogueOp::kGeluTanh) {
    return pw::GeluTanhFn{}(v);
  } else if constexpr (OP == EpilogueOp::kLeakyRelu) {
    return pw::LeakyReluFn{{scalar, 0.f}}(v);
  } else {
    static_assert(OP == EpilogueOp::kColumnAffine, "every EpilogueOp has a formula");
    return (v * o.a - o.b) * o.c + o.d;
  }
}

// One step on the value at (row, col) of the GEMM (row < M, col < N).
template <EpilogueOp OP>
TT_EPILOGUE_HD float apply_step_at(const EpilogueStep& s, int64_t row0, float v, int64_t row,
                                   int64_t col) {
  EpilogueOperand o;
  if constexpr (reads_column(OP)) {
    o = column_operand(s, col);
  } else if constexpr (reads_element(OP)) {
    o.a = element_operand<OP>(s, row0, row, col);
  }
  return apply_op<OP>(v, o, s.scalar);
}

TT_EPILOGUE_HD float apply_step(const EpilogueStep& s, int64_t row0, float v, int64_t row,
                                int64_t col) {
  switch (s.op) {
#define TT_EPILOGUE_CASE(name, text) \
  case EpilogueOp::name:             \
    return apply_step_at<EpilogueOp::name>(s, row0, v, row, col);
    TT_EPILOGUE_OPS(TT_EPILOGUE_CASE)
#undef TT_EPILOGUE_CASE
  }
  return v;
}

// The whole chain on the value at (row, col) of the GEMM (row < M, col < N). The tile
// stage (group norm, statistics) is the kernel's: it needs the tile.
TT_EPILOGUE_HD float apply(const Epilogue& e, float v, int64_t row, int64_t col) {
  for (int i = 0; i < e.count && i < Epilogue::kMaxSteps; ++i) {
    v = apply_step(e.steps[i], e.row0, v, row, col);
  }
  return v;
}

// ---- the host side: building, naming, classifying ----

// "add_column", "relu", ...
inline const char* to_string(EpilogueOp op) {
  switch (op) {
#define TT_EPILOGUE_NAME(name, text) \
  case EpilogueOp::name:             \
    return text;
    TT_EPILOGUE_OPS(TT_EPILOGUE_NAME)
#undef TT_EPILOGUE_NAME
  }
  return "?";
}

inline Epilogue& Epilogue::push(EpilogueOp op, const float* data, float scalar, int64_t ld) {
  const bool needs_data = reads_column(op) || reads_element(op);
  if (needs_data && data == nullptr) return *this;
  TT_CHECK(count < kMaxSteps,
           "gemm epilogue: cannot add {} to a chain that already has the maximum of {} steps ({})",
           to_string(op), kMaxSteps, str());
  steps[count++] = EpilogueStep{op, scalar, data, ld};
  return *this;
}

inline bool Epilogue::has(EpilogueOp op) const {
  for (int i = 0; i < count; ++i) {
    if (steps[i].op == op) return true;
  }
  return false;
}

inline bool Epilogue::reads_rows() const {
  for (int i = 0; i < count; ++i) {
    if (reads_element(steps[i].op)) return true;
  }
  return false;
}

inline std::string Epilogue::str() const {
  std::string s;
  for (int i = 0; i < count; ++i) {
    if (!s.empty()) s += ',';
    s += to_string(steps[i].op);
  }
  if (kind == EpilogueKind::kGroupNorm) {
    s += (s.empty() ? "" : ",") + fmt::format("group_norm({})", group_size);
  } else if (kind == EpilogueKind::kColumnStats) {
    s += s.empty() ? "column_stats" : ",column_stats";
  }
  return s.empty() ? "none" : s;
}

inline ScaleBiasActivation as_scale_bias_activation(const Epilogue& e) {
  ScaleBiasActivation f;
  if (e.kind != EpilogueKind::kPointwise) return f;
  int i = 0;
  if (i < e.count && e.steps[i].op == EpilogueOp::kMulColumn) f.scale = e.steps[i++].data;
  if (i < e.count && e.steps[i].op == EpilogueOp::kAddColumn) f.bias = e.steps[i++].data;
  if (i < e.count) {
    const EpilogueOp op = e.steps[i].op;
    if (op == EpilogueOp::kRelu || op == EpilogueOp::kSilu || op == EpilogueOp::kGelu ||
        op == EpilogueOp::kGeluTanh || op == EpilogueOp::kLeakyRelu) {
      f.has_act = true;
      f.act = op;
      f.slope = e.steps[i++].scalar;
    }
  }
  f.ok = i == e.count;
  return f;
}

}  // namespace tt::ops::cuda::gemm
