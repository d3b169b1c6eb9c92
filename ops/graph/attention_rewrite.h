// The attention group (ops/graph/fusion.h, kAttention) as one
// scaled_dot_product_attention step, backend-neutral: the CUDA lowering runs it
// (ops/graph/lower.cpp), and the CPU tests run it against the eager composition (the CPU
// replay itself stays op by op).
//
// The mask step becomes SDPA's attn_mask: a -inf fill's condition as a boolean mask
// (masked_fill's inverted: true there means masked), an added float32 tensor as an
// additive one. A mask computed from constants alone is computed once, when the step is
// made: when it is exactly the top-left causal pattern for (L, S) the step runs with
// is_causal and reads no mask, else it keeps the computed mask. Any other mask (an input,
// a parameter or buffer, or computed from them) is read on each run.
//
// A row the mask leaves nothing to attend to is NaN in the eager composition (softmax of
// all -inf) but zeros from SDPA: the step writes NaN into those rows, so the result is the
// eager one. The rows are found from the mask alone (scores that are -inf by themselves,
// from infinite q or k, are not looked for); for a constant mask once, else on each run
// (one pass over the mask and one over the result).
#pragma once

#include <string>
#include <vector>

#include "ops/graph/fusion.h"
#include "ops/graph/program.h"

namespace tt::graph {

// The step, or none with the reason in `why`.
std::vector<Step> attention_steps(const Graph& g, const Group& grp, std::string& why);

}  // namespace tt::graph
