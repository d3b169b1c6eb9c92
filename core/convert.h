// The one element conversion between dtypes (Tensor::to(dtype), the CPU loop in
// core/tensor.cpp and the CUDA kernel in core/cuda/convert.cu; the ops' type
// promotion goes through to()), written once for host and device so both backends
// give the same bits, and a visitor from a DType to its C++ element type.
//
// Rules, as PyTorch where PyTorch defines them:
// - to bool: nonzero (NaN too) is true;
// - float to integer: truncation toward zero; where C++ leaves the cast undefined
//   (NaN, infinities, values outside the target's range) we saturate: NaN gives 0,
//   +inf and too-large values the target's maximum, -inf and too-small values its
//   minimum (uint8: 0 and 255). PyTorch's result there is platform-dependent;
// - integer to narrower integer: two's-complement wrap-around (int64 300 -> uint8
//   44), as PyTorch;
// - anything to float: the nearest representable value (bool: 0 or 1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/dtype.h"
#include "core/error.h"

#ifdef __CUDACC__
#define TT_CONVERT_HD __host__ __device__ __forceinline__
#else
#define TT_CONVERT_HD inline
#endif

namespace tt {

template <typename Dst, typename Src>
TT_CONVERT_HD Dst convert_value(Src v) {
  if constexpr (std::is_same_v<Dst, bool>) {
    return v != Src(0);
  } else if constexpr (std::is_integral_v<Dst> && std::is_floating_point_v<Src>) {
    // Bounds in double: 2^63 and 2^31 are exact there, and every Src widens exactly.
    const double d = static_cast<double>(v);
    constexpr double lo = static_cast<double>(std::numeric_limits<Dst>::min());
    // max + 1 is a power of two, so exact in double.
    constexpr double hi_excl = static_cast<double>(std::numeric_limits<Dst>::max() / 2 + 1) * 2.0;
    if (d != d) return Dst(0);
    if (d >= hi_excl) return std::numeric_limits<Dst>::max();
    if (d <= lo) return std::numeric_limits<Dst>::min();
    return static_cast<Dst>(d);
  } else {
    return static_cast<Dst>(v);
  }
}

// fn(T{}) for the element type T of `t` (float, double, int64_t, int32_t, uint8_t,
// bool); other dtypes (bfloat16, float16) throw, naming `what`.
template <typename Fn>
decltype(auto) visit_dtype(DType t, const char* what, Fn&& fn) {
  switch (t) {
    case DType::F32:
      return fn(float{});
    case DType::F64:
      return fn(double{});
    case DType::I64:
      return fn(int64_t{});
    case DType::I32:
      return fn(int32_t{});
    case DType::U8:
      return fn(uint8_t{});
    case DType::Bool:
      return fn(bool{});
    default:
      break;
  }
  TT_FAIL(
      "{}: dtype {} has no kernels; expected one of float32, float64, int64, int32, uint8 or bool",
      what, dtype_name(t));
}

// fn(W{}) for W the unsigned word of `bytes` bytes (uint8_t .. uint64_t): for code
// that only moves elements (copies, fills, gathers), whatever their dtype. Other sizes
// throw, naming `what`.
template <typename Fn>
decltype(auto) visit_word(size_t bytes, const char* what, Fn&& fn) {
  switch (bytes) {
    case 1:
      return fn(uint8_t{});
    case 2:
      return fn(uint16_t{});
    case 4:
      return fn(uint32_t{});
    case 8:
      return fn(uint64_t{});
    default:
      break;
  }
  TT_FAIL("{} supports elements of 1, 2, 4 or 8 bytes, but got {} bytes.", what, bytes);
}

// Whether visit_dtype accepts t (every dtype but bfloat16 and float16).
inline bool dtype_has_kernels(DType t) { return t != DType::BF16 && t != DType::F16; }

}  // namespace tt
