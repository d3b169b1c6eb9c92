// The sweep's verification metric computed where the data lives: ||out - ref|| /
// ||ref|| over two float32 tensors on the same CUDA device, accumulated in double by
// a small reduction kernel, so that checking a variant of a 7.5 GB output costs one
// pass over GPU memory instead of a copy to the host. A NaN or infinity in `out`
// gives +infinity (a variant that leaves garbage never passes). A zero reference
// gives the absolute error ||out||, as models::relative_l2_error does.
#pragma once

#include "core/tensor.h"

namespace tt::autotune {

// Both tensors contiguous float32 on one CUDA device with the same number of
// elements; throws tt::Error otherwise, or without CUDA.
double device_relative_l2_error(const Tensor& out, const Tensor& ref);

}  // namespace tt::autotune
