// Precision modes of float32 matrix products, and the scope that sets them.
//
//   strict    IEEE float32 products and sums (FFMA, or cuBLAS with CUBLAS_COMPUTE_32F),
//             as PyTorch with TF32 off. The default.
//   tf32      tensor-core products of operands rounded to TF32 (10-bit mantissa, unit
//             roundoff 2^-11), float32 accumulation: several times faster, about
//             1e-4..1e-3 relative error (autotune/tolerance.h derives the bound).
//   accurate  split TF32: x = hi + lo with hi = tf32(x), three tensor-core products
//             hi*hi + hi*lo + lo*hi, the accumulator promoted into IEEE float32 every
//             k-block: float32 accuracy (no worse than strict against float64) at
//             tensor-core speed, on sm_90 GPUs; elsewhere the strict path runs.
// The mode is a property of the calling thread's scope, as torch's
// allow_tf32 flags are process-wide: `tt::PrecisionGuard g(tt::Precision::accurate);`
// sets it until g leaves scope, and a Module can carry its own (Module::set_precision).
// Only matrix products read it; every other op is IEEE float32 in every mode. The CPU
// reference computes float32 in every mode. The mode is part of every tuning problem
// key ("precision=tf32"), so the database keeps one entry per mode.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tt {

enum class Precision : uint8_t { strict = 0, tf32 = 1, accurate = 2 };

// "strict", "tf32", "accurate".
const char* precision_name(Precision p);
// The inverse of precision_name; anything else is a tt::Error naming the choices.
Precision parse_precision(std::string_view text);

// The calling thread's current mode: the innermost live PrecisionGuard's, else strict.
Precision current_precision();

// Sets the calling thread's mode for the guard's lifetime; guards nest.
class PrecisionGuard {
 public:
  explicit PrecisionGuard(Precision p);
  ~PrecisionGuard();
  PrecisionGuard(const PrecisionGuard&) = delete;
  PrecisionGuard& operator=(const PrecisionGuard&) = delete;

 private:
  Precision previous_;
};

}  // namespace tt
