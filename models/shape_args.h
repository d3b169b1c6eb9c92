// Validation of the "bias_shape"/"scale_shape" constructor arguments. KernelBench
// passes them as tuples such as (out_features,); any shape that broadcasts as one
// value per output feature ([out], [1, out], ...) is accepted, because the fused ops
// take that vector as [out] while the parameter keeps PyTorch's shape for loading.
#pragma once

#include <cstdint>

#include "core/error.h"
#include "core/tensor.h"

namespace tt::models {

inline void check_per_feature_shape(const char* model, const char* arg, const Shape& shape,
                                    int64_t out_features) {
  bool ok = !shape.empty() && shape.back() == out_features;
  for (size_t i = 0; ok && i + 1 < shape.size(); ++i) ok = shape[i] == 1;
  TT_CHECK(ok, "{}: {} must hold one value per output feature ([{}]) but got {}", model, arg,
           out_features, shape_str(shape));
}

}  // namespace tt::models
