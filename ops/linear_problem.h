// The problem a linear layer solves, shared by the CPU and CUDA backends: x [..., in]
// as a `rows` x `in_features` matrix times weight [out, in] transposed, giving
// [..., out]. Both operands are made contiguous here, once.
#pragma once

#include "core/tensor.h"

namespace tt::ops {

struct LinearProblem {
  Tensor x;       // contiguous input
  Tensor weight;  // contiguous weight
  int64_t rows = 0;
  int64_t in_features = 0;
  int64_t out_features = 0;
  Shape out_shape;  // x's shape with the last size replaced by out_features
};

inline LinearProblem linear_problem(const Tensor& x, const Tensor& weight) {
  LinearProblem p;
  p.x = x.contiguous();
  p.weight = weight.contiguous();
  p.in_features = p.weight.size(1);
  p.out_features = p.weight.size(0);
  p.out_shape = x.sizes();
  p.out_shape.back() = p.out_features;
  p.rows = shape_numel(Shape(p.out_shape.begin(), p.out_shape.end() - 1));
  return p;
}

}  // namespace tt::ops
