// Element types. float32 (and float64 on the CPU's float64 path) has every kernel;
// int64/int32/uint8/bool have the pointwise, comparison and integer-math kernels
// (ops/ops.h); bf16/f16 tensors can be stored and loaded only. Bool is PyTorch's
// "bool": one byte holding 0 or 1 (C++ bool).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace tt {

enum class DType : uint8_t { F32, F64, I64, I32, BF16, F16, U8, Bool };

size_t dtype_size(DType t);
// PyTorch-like names: "float32", "float64", "int64", ...
const char* dtype_name(DType t);
// safetensors names: "F32", "F64", "I64", ...; parse throws tt::Error on unknown names.
const char* dtype_safetensors_name(DType t);
DType dtype_from_safetensors_name(const std::string& name);

// PyTorch's categories: bool < integral (uint8, int32, int64) < floating.
bool dtype_is_floating(DType t);  // F32, F64, BF16, F16
bool dtype_is_integral(DType t);  // U8, I32, I64; not Bool
// torch.promote_types: the smallest dtype both convert to without losing their
// category (int64 + float32 -> float32, uint8 + int32 -> int32, bool + x -> x).
DType promote_types(DType a, DType b);

template <typename T>
struct DTypeOf;
template <>
struct DTypeOf<float> {
  static constexpr DType value = DType::F32;
};
template <>
struct DTypeOf<double> {
  static constexpr DType value = DType::F64;
};
template <>
struct DTypeOf<int64_t> {
  static constexpr DType value = DType::I64;
};
template <>
struct DTypeOf<int32_t> {
  static constexpr DType value = DType::I32;
};
template <>
struct DTypeOf<uint8_t> {
  static constexpr DType value = DType::U8;
};
template <>
struct DTypeOf<bool> {
  static constexpr DType value = DType::Bool;
};

}  // namespace tt
