// The backend lowering of a fused group (ops/graph/fusion.h) into steps: on CUDA the
// pointwise chain kernel (ops/cuda/pointwise/chain.h), the GEMM family with the
// epilogue chain (ops/cuda/gemm/gemm.h), the attention op. Returns no steps, with the
// reason in `why`, when the group cannot run fused (then its nodes run one by one);
// without CUDA it always says so.
#pragma once

#include <string>
#include <vector>

#include "ops/graph/fusion.h"

namespace tt::graph {

std::vector<Step> lower_group(const Graph& g, const Group& group, std::string& why);

}  // namespace tt::graph
