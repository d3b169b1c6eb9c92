// Backend-neutral fusion of a recorded graph: which nodes can run as one kernel, with
// explicit legality. A group's intermediate values are read by the next node of the group
// only (one use, index for index: same shape, read directly, not through a view, not a
// graph output), so they never need to exist in memory.
//   kPointwise     elementwise float32 ops of one output shape as a DAG: any number of
//                  external inputs (each broadcast into the output by its own strides),
//                  values used more than once inside the group, and one or more outputs
//                  (a value also read outside the group, or returned, is written; nothing
//                  else is). A node joins when every value passing between it and the
//                  group is read directly (index for index, not through a view) and no
//                  path leaves the group and comes back (through a node or another group,
//                  which runs as one step). At most 16 nodes, 8 inputs and 4 outputs (the
//                  chain kernel's limits). GELU written out in plain ops, swish x *
//                  sigmoid(x), (x + y) * sigmoid(z) - 1 are one group each.
//                  set_pointwise_dags(false) (TT_POINTWISE_GROUPS=chains) forms the
//                  earlier straight chains instead (each node's first operand the previous
//                  node's output, the other from outside), to measure one against the other;
//   kGemmEpilogue  a linear followed by the elementwise steps a GEMM epilogue can apply
//                  (gemm/epilogue.h): bias and per-column vectors, a scalar scale, the
//                  activations, a residual of the output's shape.
//   kGemmNorm      a kGemmEpilogue group followed by one norm over the GEMM's rows or
//                  columns (group_norm of the [M, N] output; instance_norm of a
//                  contiguous reshape of it without affine, whose segments lie inside
//                  rows; layer_norm and rms_norm over the output's last dim; batch_norm of
//                  the [M, N] output), and after a segment norm the elementwise steps a GEMM
//                  epilogue expresses (read index for index as [M, N], e.g. model 1's
//                  ((v + y) * y)): the structures of fused/pattern.h, lowered into a plan
//                  of the fused family. sigmoid(v) * v, with v read by those two alone, is
//                  one silu step.
//   kNorm          a layer_norm or rms_norm over the last dim (not after a GEMM group)
//                  with the chain of epilogue-like steps that computes its input (its
//                  prologue: each intermediate read once, by the next) and the one after
//                  it (its epilogue); when the norm's input is read elsewhere too (the
//                  residual stream: h = x + a; y = layer_norm(h); ... h + f(y)), the group
//                  writes it as a second output, `pre`.
//   kAttention     matmul(q, k^T) -> [a scale by a constant, a mask, in either order]
//                  -> softmax(-1) -> matmul(., v), rewritten into
//                  scaled_dot_product_attention, with the head merge after it (a copy of
//                  a permutation of its output) when there is one. The mask step is where
//                  SDPA's attn_mask means the same: masked_fill(m, -inf) or where(keep,
//                  s, -inf) (before or after a positive scale: a boolean mask), or s + M
//                  after the scale (an additive float32 mask broadcast to the scores).
//                  A mask computed from constants alone (a tril built in the forward) is
//                  constant for the key: the nodes that compute it join the group (the
//                  lowering computes it once, and runs a causal one as is_causal).
// Which groups actually run fused, and as which kernel, is the backend lowering's call
// (compile_program); a group it cannot run falls back to its nodes. Steps run in graph
// order, each group at its last node, except where a group's output is read before that
// (a DAG group's value read by a node between its nodes): the steps are then ordered by
// their dependencies, earliest first.
#pragma once

#include <string>
#include <vector>

#include "ops/graph/graph.h"
#include "ops/graph/program.h"

namespace tt::graph {

struct Group {
  enum class Kind {
    kPointwise,
    kGemmEpilogue,
    kGemmNorm,
    kAttention,
    kNorm
  } kind = Kind::kPointwise;
  std::vector<int> nodes;    // in graph order
  int output = -1;           // the value the group writes (its last node's output)
  int pre = -1;              // kNorm: the norm's input, written too (read outside the group)
  std::vector<int> outputs;  // kPointwise: every value it writes, in graph order (`output` last)
  // kAttention: the mask step's mask (the where's condition or the added tensor; -1 when
  // there is no mask step), and the nodes of `nodes` that compute it from constants alone.
  int mask = -1;
  std::vector<int> mask_nodes;
};

// Whether pointwise groups are DAGs (the default) or straight chains; the environment's
// TT_POINTWISE_GROUPS=chains sets the start value.
void set_pointwise_dags(bool on);
bool pointwise_dags();

// Groups of at least two nodes, each node in at most one group. `left_out`, when given,
// receives a sentence for each chain shaped like attention that is not rewritten (a mask
// step scaled_dot_product_attention does not express, e.g. a finite fill).
std::vector<Group> find_groups(const Graph& g, std::vector<std::string>* left_out = nullptr);
// Per value: whether it depends on no input and no parameter (a constant, a view of one,
// or an op's output over such values), so that it is the same on every replay of the key.
std::vector<bool> constant_values(const Graph& g);
// For each dim of `view` (a view of the contiguous value `base`), the dim of base it is,
// when view only permutes base's dims (same offset, same elements); empty otherwise.
std::vector<int> permutation_of(const Value& view, const Value& base);
// "gemm+epilogue: linear -> gelu", for reports and tests.
std::string group_str(const Graph& g, const Group& group);
// A pointwise group's expression as written: inputs x0, x1, ... by first use, scalar
// constants by value, "(x0 + x1) * sigmoid(x2) - 1". A value the group reads twice is named
// (t0 = ...), and with several outputs each is (y0 = ...), statements joined by "; ".
std::string group_expression(const Graph& g, const Group& group);

// The steps of p.graph and the explain() report: none for a graph that runs eagerly (a
// graph break), the nodes one by one on the CPU or with fuse off, and on CUDA each group
// the lowering can run as one step.
void compile_program(Program& p, bool fuse);

}  // namespace tt::graph
