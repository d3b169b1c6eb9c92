#include "core/dtype.h"

#include "core/error.h"

namespace tt {

size_t dtype_size(DType t) {
  switch (t) {
    case DType::F32:
      return 4;
    case DType::F64:
      return 8;
    case DType::I64:
      return 8;
    case DType::I32:
      return 4;
    case DType::BF16:
      return 2;
    case DType::F16:
      return 2;
    case DType::U8:
    case DType::Bool:
      return 1;
  }
  return 0;
}

const char* dtype_name(DType t) {
  switch (t) {
    case DType::F32:
      return "float32";
    case DType::F64:
      return "float64";
    case DType::I64:
      return "int64";
    case DType::I32:
      return "int32";
    case DType::BF16:
      return "bfloat16";
    case DType::F16:
      return "float16";
    case DType::U8:
      return "uint8";
    case DType::Bool:
      return "bool";
  }
  return "?";
}

const char* dtype_safetensors_name(DType t) {
  switch (t) {
    case DType::F32:
      return "F32";
    case DType::F64:
      return "F64";
    case DType::I64:
      return "I64";
    case DType::I32:
      return "I32";
    case DType::BF16:
      return "BF16";
    case DType::F16:
      return "F16";
    case DType::U8:
      return "U8";
    case DType::Bool:
      return "BOOL";
  }
  return "?";
}

DType dtype_from_safetensors_name(const std::string& name) {
  for (DType t : {DType::F32, DType::F64, DType::I64, DType::I32, DType::BF16, DType::F16,
                  DType::U8, DType::Bool}) {
    if (name == dtype_safetensors_name(t)) return t;
  }
  TT_FAIL("unknown dtype '{}' (expected one of F32, F64, I64, I32, BF16, F16, U8, BOOL)", name);
}

bool dtype_is_floating(DType t) {
  return t == DType::F32 || t == DType::F64 || t == DType::BF16 || t == DType::F16;
}

bool dtype_is_integral(DType t) { return t == DType::U8 || t == DType::I32 || t == DType::I64; }

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::Bool) return b;
  if (b == DType::Bool) return a;
  const bool fa = dtype_is_floating(a), fb = dtype_is_floating(b);
  if (fa != fb) return fa ? a : b;  // the floating one wins over any integer
  if (fa) {
    // float16 and bfloat16 meet in float32; otherwise the wider float.
    if (a == DType::F64 || b == DType::F64) return DType::F64;
    return DType::F32;
  }
  // Integers: the wider one (uint8 fits in int32 and int64).
  if (a == DType::I64 || b == DType::I64) return DType::I64;
  return DType::I32;
}

}  // namespace tt
