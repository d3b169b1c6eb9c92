// Checked size arithmetic: every product or sum of sizes, element counts and byte
// counts, and every float -> integer conversion whose value comes from a user, goes
// through these helpers, so that an overflow or a NaN becomes a tt::Error sentence
// naming the operation instead of undefined behaviour or a silently wrapped size.
// `what` starts the sentence ("arange", "cat", "expand", ...).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/error.h"

namespace tt::checked {

// a + b, or a tt::Error when the sum does not fit in int64_t.
inline int64_t add(const char* what, int64_t a, int64_t b) {
  int64_t r = 0;
  TT_CHECK(!__builtin_add_overflow(a, b, &r), "{}: {} + {} does not fit in a 64-bit signed integer",
           what, a, b);
  return r;
}

// a * b, or a tt::Error when the product does not fit in int64_t.
inline int64_t mul(const char* what, int64_t a, int64_t b) {
  int64_t r = 0;
  TT_CHECK(!__builtin_mul_overflow(a, b, &r), "{}: {} * {} does not fit in a 64-bit signed integer",
           what, a, b);
  return r;
}

// A size given by a user: non-negative.
inline int64_t size(const char* what, int64_t s) {
  TT_CHECK(s >= 0, "{}: sizes must be non-negative, but got {}", what, s);
  return s;
}

// True when the double `v` converts to the integer type I without undefined behaviour
// (finite, and inside I's range after truncation toward zero).
template <typename I>
bool fits(double v) {
  static_assert(std::is_integral_v<I>, "fits<I>: an integer type");
  if (!std::isfinite(v)) return false;
  // 2^digits is exact in double; the range of I is [-(2^digits), 2^digits) for signed
  // I, [0, 2^digits) for unsigned.
  const double limit = std::ldexp(1.0, std::numeric_limits<I>::digits);
  const double t = std::trunc(v);
  return t < limit && t >= (std::is_signed_v<I> ? -limit : 0.0);
}

// `v` converted to I (truncating toward zero, as static_cast), or a tt::Error when it
// is NaN, infinite or out of I's range. Conversions that must not throw (an element
// loop) test fits<I>() and decide what to store themselves.
template <typename I>
I to_int(const char* what, double v) {
  TT_CHECK(fits<I>(v), "{}: {} is not representable as a {}-bit {} integer", what, v,
           std::numeric_limits<I>::digits + (std::is_signed_v<I> ? 1 : 0),
           std::is_signed_v<I> ? "signed" : "unsigned");
  return static_cast<I>(v);
}

}  // namespace tt::checked
