// The input-count check every layer and model runs at the top of forward(), so that
// a wrong call fails with one consistent sentence instead of an out-of-range access.
#pragma once

#include <string>
#include <vector>

#include "core/error.h"
#include "core/tensor.h"

namespace tt::nn {

inline void check_input_count(const std::string& module_name, const std::vector<Tensor>& inputs,
                              size_t expected) {
  TT_CHECK(inputs.size() == expected, "{} expects {} input{} but got {}", module_name, expected,
           expected == 1 ? "" : "s", inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i)
    TT_CHECK(inputs[i].defined(), "{}: input {} is an undefined tensor", module_name, i);
}

}  // namespace tt::nn
