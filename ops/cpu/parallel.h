// Shared thresholds for the CPU reference kernels' OpenMP loops: below these sizes
// the cost of waking the second thread exceeds the work (on a busy machine by three
// orders of magnitude; docs/performance.md), so every parallel loop of the
// reference kernels states its size with `if (parallel_worth(n))` or the constant.
#pragma once

#include <omp.h>

#include <cstdint>

namespace tt::ops::cpu {

constexpr int64_t kParallelMinElements = 1 << 15;
// Multiply-adds (M * N * K) from which a GEMM is shared between threads.
constexpr int64_t kParallelMinGemm = int64_t{1} << 22;

// True when `elements` of work (elements read) is large enough to share between
// threads.
inline bool parallel_worth(int64_t elements) { return elements >= kParallelMinElements; }

// The threads a parallel region over `elements` of work should use: all of OpenMP's
// for large work, one (no region worth waking) for tiny work.
inline int threads_for(int64_t elements) {
  return parallel_worth(elements) ? omp_get_max_threads() : 1;
}

}  // namespace tt::ops::cpu
