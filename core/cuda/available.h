// Whether a CUDA device is usable, in every build: with TT_CUDA the runtime layer's
// answer (core/cuda/runtime.h), without it never. For code that asks before it picks
// a device (the tests' skips, `tt compare`, the public header).
#pragma once

#if TT_CUDA
#include "core/cuda/runtime.h"
#else
namespace tt::cuda {
// tensortune was built without CUDA (TT_CUDA=OFF): no device is ever available.
inline int device_count() { return 0; }
inline bool is_available() { return false; }
}  // namespace tt::cuda
#endif
