// The op vocabulary of the graph layer: one id per op of the front end (ops/ops.h) that
// tt::compile records. The pointwise ops are not listed again: they are kUnary and
// kBinary with their pointwise op (ops/pointwise_functors.h) as the sub-kind, so the one
// pointwise list stays the only one. Each front-end op reports itself through
// RecordScope (ops/record.h); ops/graph/invoke.cpp replays a recorded op from its kind
// and attributes. An op no fusion rule reads records as kOther with its name and a
// closure that runs it again (RecordScope::done's replay form).
#pragma once

#include <cstddef>
#include <cstdint>

// X(enum name, text)
#define TT_OP_KINDS(X)                                          \
  X(kUnary, "unary")                                            \
  X(kBinary, "binary")                                          \
  X(kWhere, "where")                                            \
  X(kCopy, "copy")                                              \
  X(kLinear, "linear")                                          \
  X(kMatmul, "matmul")                                          \
  X(kBmm, "bmm")                                                \
  X(kSum, "sum")                                                \
  X(kMean, "mean")                                              \
  X(kVar, "var")                                                \
  X(kStd, "std")                                                \
  X(kAmax, "amax")                                              \
  X(kAmin, "amin")                                              \
  X(kArgmax, "argmax")                                          \
  X(kArgmin, "argmin")                                          \
  X(kSoftmax, "softmax")                                        \
  X(kLogSoftmax, "log_softmax")                                 \
  X(kLayerNorm, "layer_norm")                                   \
  X(kRmsNorm, "rms_norm")                                       \
  X(kInstanceNorm, "instance_norm")                             \
  X(kGroupNorm, "group_norm")                                   \
  X(kBatchNorm, "batch_norm")                                   \
  X(kCat, "cat")                                                \
  X(kStack, "stack")                                            \
  X(kScaledDotProductAttention, "scaled_dot_product_attention") \
  X(kOther, "other")

namespace tt::ops {

#define TT_OP_KIND_ENUM(name, text) name,
enum class OpKind : uint8_t { TT_OP_KINDS(TT_OP_KIND_ENUM) };
#undef TT_OP_KIND_ENUM

inline const char* op_kind_name(OpKind k) {
#define TT_OP_KIND_TEXT(name, text) text,
  static constexpr const char* kNames[] = {TT_OP_KINDS(TT_OP_KIND_TEXT)};
#undef TT_OP_KIND_TEXT
  const auto i = static_cast<size_t>(k);
  return i < sizeof(kNames) / sizeof(kNames[0]) ? kNames[i] : "?";
}

}  // namespace tt::ops
