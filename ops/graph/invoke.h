// Runs one recorded node through the op front end (the same op, the same attributes):
// how the graph is replayed op by op, on the CPU reference or on CUDA.
#pragma once

#include <vector>

#include "ops/graph/graph.h"

namespace tt::graph {

std::vector<Tensor> invoke(const Node& n, const std::vector<Tensor>& in);

}  // namespace tt::graph
