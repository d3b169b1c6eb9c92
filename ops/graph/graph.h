// The graph IR of tt::compile: what one forward did, as values and the op nodes between
// them. A value is a forward input, a module's parameter or buffer (by handle, so a
// later Module::to or load_state_dict is seen), a constant the forward made (a scalar
// operand, a tensor built inside forward), an op's output, or a view (sizes, strides and
// storage offset) of another value's storage: views are not ops here, so every view a
// model takes (reshape, permute, transpose, narrow, select, expand, chunk, the head
// split and merge) is folded into the strides its consumer reads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/capture.h"
#include "core/tensor.h"
#include "ops/op_kind.h"

namespace tt::graph {

enum class ValueKind : uint8_t { kInput, kParameter, kConstant, kNode, kView };

struct Value {
  ValueKind kind = ValueKind::kConstant;
  int index = -1;    // kInput: the input's position; kNode: the producing node; kView: the base
  int output = 0;    // kNode: which output of the node
  Tensor tensor;     // kParameter, kConstant: the handle
  std::string name;  // kParameter: the dotted name
  Shape sizes;
  Shape strides;
  int64_t offset = 0;  // kView: storage offset minus the base's
  DType dtype = DType::F32;
  Device device = Device::cpu();
};

struct Node {
  ops::OpKind kind = ops::OpKind::kUnary;
  int sub = 0;              // the pointwise op of kUnary / kBinary
  std::vector<int> inputs;  // value ids; -1: an optional operand not given
  capture::Attrs attrs;
  std::vector<int> outputs;  // value ids
};

struct Graph {
  std::vector<Value> values;
  std::vector<Node> nodes;
  std::vector<int> inputs;   // value ids of the forward's inputs, in order
  std::vector<int> outputs;  // value ids of the forward's outputs, in order
  // Why the forward cannot be replayed from this graph (then it runs eagerly); empty
  // when it can.
  std::string break_reason;

  // "%3 = linear(%0, weight, bias) [8, 1024, 3072]", one line per node.
  std::string str() const;
  std::string node_str(const Node& n) const;
  std::string value_str(int v) const;
};

// The op's name as a user wrote it: "add", "gelu_tanh", "softmax", ...
std::string node_op_name(const Node& n);

// The value whose storage v reads: v itself, or the base of the view v is (what a read
// depends on for liveness and fusion).
int root_of(const Graph& g, int v);
// Whether the value's strides are the contiguous ones of its sizes.
bool contiguous(const Value& v);

}  // namespace tt::graph
