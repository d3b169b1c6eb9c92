// Element types. Only float32 has kernels today; the enum and the helpers are laid
// out so that bf16/f16/i64 tensors can be stored, loaded and converted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace tt {

enum class DType : uint8_t { F32, F64, I64, I32, BF16, F16, U8 };

size_t dtype_size(DType t);
// PyTorch-like names: "float32", "float64", "int64", ...
const char* dtype_name(DType t);
// safetensors names: "F32", "F64", "I64", ...; parse throws tt::Error on unknown names.
const char* dtype_safetensors_name(DType t);
DType dtype_from_safetensors_name(const std::string& name);

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

}  // namespace tt
