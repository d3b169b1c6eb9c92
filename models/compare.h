// The float64 reference of a model, and errors against a reference: what
// `tt compare --reference float64` and the precision-bound tests measure.
//
// forward_float64() runs a model's own forward on the CPU in double: its parameters,
// buffers and the inputs are converted to float64 copies for the call, the ops run
// inside an ops::Float64Scope (the CPU kernels templated on the scalar,
// ops/cpu/scalar.h), and the model's float32 tensors are put back afterwards, also
// when the forward throws, so the model is unchanged (a training-mode batch norm
// updates the float64 copies of its running statistics, which are returned).
// Constants the forward makes itself (Tensor::ones, full, ... default to float32)
// meet the float64 activations through PyTorch's type promotion (ops/ops.h: float32
// [n] with float64 [n] computes in float64), not by a conversion here, as a PyTorch
// model under .double() behaves; an op without promotion (matmul, the norms) wants
// such a constant made with the input's dtype (zeros_like, full_like, x.dtype()).
#pragma once

#include <vector>

#include "core/module.h"
#include "core/tensor.h"

namespace tt::models {

struct Float64Forward {
  std::vector<Tensor> outputs;  // float64, on the CPU
  NamedTensors buffers;         // the model's buffers after the forward, float64
};

// The model must be on the CPU (its parameters float32 or float64); the inputs may
// be on any device and are copied to the CPU.
Float64Forward forward_float64(Module& model, const std::vector<Tensor>& inputs);

// How far `out` is from `ref` (same shape, float32 or float64, any device): the
// relative L2 error ||out - ref|| / ||ref|| (as relative_l2_error,
// models/fixture_check.h; ||out|| for a zero reference) and the largest absolute
// difference, in one pass in double; NaN anywhere makes both NaN/infinite.
struct ErrorVsReference {
  double rel_l2 = 0;
  double max_abs = 0;
};
ErrorVsReference error_against(const Tensor& out, const Tensor& ref);

}  // namespace tt::models
