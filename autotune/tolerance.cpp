#include "autotune/tolerance.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/precision.h"

namespace tt::autotune {

double verification_tolerance(const std::string& precision, int64_t longest_reduction) {
  if (parse_precision(precision) == Precision::tf32) return std::ldexp(1.0, -9);
  const double k = static_cast<double>(std::max<int64_t>(longest_reduction, 1));
  const double unit_roundoff = std::ldexp(1.0, -24);
  return std::min(1e-5, std::max(1e-6, 8.0 * unit_roundoff * std::sqrt(k)));
}

}  // namespace tt::autotune
