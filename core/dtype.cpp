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
  }
  return "?";
}

DType dtype_from_safetensors_name(const std::string& name) {
  for (DType t :
       {DType::F32, DType::F64, DType::I64, DType::I32, DType::BF16, DType::F16, DType::U8}) {
    if (name == dtype_safetensors_name(t)) return t;
  }
  TT_FAIL("unknown dtype '{}' (expected one of F32, F64, I64, I32, BF16, F16, U8)", name);
}

}  // namespace tt
