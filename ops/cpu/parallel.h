// Shared thresholds for the CPU reference kernels' OpenMP loops: below these sizes
// the cost of waking the second thread exceeds the work.
#pragma once

#include <cstdint>

namespace tt::ops::cpu {

constexpr int64_t kParallelMinElements = 1 << 15;

}  // namespace tt::ops::cpu
