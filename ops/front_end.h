// Checks and dispatch shared by the op front end's files (ops/ops.cpp,
// ops/pointwise_ops.cpp, ops/reduce_ops.cpp, ops/shape_ops.cpp, ops/tensor_ops.cpp):
// one wording for every user mistake, and the CPU/CUDA dispatch macro. Private to ops/.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "core/overlap.h"
#include "core/tensor.h"
#include "ops/ops.h"
#include "ops/pointwise_functors.h"

namespace tt::ops::detail {

struct NamedTensor {
  const char* name;
  const Tensor& tensor;
};

// A tensor the op needs: defined and float32; inside a Float64Scope (ops/ops.h) also
// float64 on the CPU.
inline void check_required(const char* op, const char* name, const Tensor& t) {
  TT_CHECK(t.defined(), "{}: {} is undefined; expected a float32 tensor", op, name);
  if (t.dtype() == DType::F64 && float64_enabled()) {
    TT_CHECK(t.device().is_cpu(),
             "{}: {} is a float64 tensor on {}, but float64 runs on the CPU only (the float64 "
             "reference); move it to the CPU or convert it to float32",
             op, name, t.device().str());
    return;
  }
  TT_CHECK(t.dtype() == DType::F32, "{}: {} has dtype {} but only float32 {} supported", op, name,
           dtype_name(t.dtype()), float64_enabled() ? "and float64 (on the CPU) are" : "is");
}

// An optional tensor: undefined, or float32.
inline void check_optional(const char* op, const char* name, const Tensor& t) {
  if (t.defined()) check_required(op, name, t);
}

// Every defined tensor must be on the device of the first one; returns that device
// (the CPU when none is defined).
inline Device same_device(const char* op, std::initializer_list<NamedTensor> tensors) {
  const NamedTensor* first = nullptr;
  for (const NamedTensor& nt : tensors) {
    if (!nt.tensor.defined()) continue;
    if (!first) {
      first = &nt;
      continue;
    }
    TT_CHECK(nt.tensor.device() == first->tensor.device(),
             "{}: {} is on {} but {} is on {}; all tensors must be on the same device", op, nt.name,
             nt.tensor.device().str(), first->name, first->tensor.device().str());
  }
  return first ? first->tensor.device() : Device::cpu();
}

// same_device, and one dtype for the float operands.
inline Device common_device(const char* op, std::initializer_list<NamedTensor> tensors) {
  const Device device = same_device(op, tensors);
  // Float64 (Float64Scope) does not mix with float32 within one op: the kernel reads
  // every operand as one scalar type. (where's uint8 condition is not a float operand.)
  const NamedTensor* first_float = nullptr;
  for (const NamedTensor& nt : tensors) {
    if (!nt.tensor.defined() || nt.tensor.dtype() == DType::U8) continue;
    if (!first_float) {
      first_float = &nt;
      continue;
    }
    TT_CHECK(nt.tensor.dtype() == first_float->tensor.dtype(),
             "{}: {} is {} but {} is {}; the tensors of one op must have one dtype", op, nt.name,
             dtype_name(nt.tensor.dtype()), first_float->name,
             dtype_name(first_float->tensor.dtype()));
  }
  return device;
}

// A norm's operands: the input (required) and its affine weight and bias (optional:
// undefined when the norm has none); the device they share.
inline Device affine_norm_device(const char* op, const Tensor& x, const Tensor& weight,
                                 const Tensor& bias) {
  check_required(op, "input", x);
  check_optional(op, "weight", weight);
  check_optional(op, "bias", bias);
  return common_device(op, {{"input", x}, {"weight", weight}, {"bias", bias}});
}

// Every tensor is required (check_required, in order), then on one device.
inline Device required_on_one_device(const char* op, std::initializer_list<NamedTensor> tensors) {
  for (const NamedTensor& nt : tensors) check_required(op, nt.name, nt.tensor);
  return common_device(op, tensors);
}

// A dim of a tensor of rank `rank`, negative counting from the end; a 0-d tensor
// accepts 0 and -1 as PyTorch does. Returns it non-negative.
inline int64_t wrap_dim(const char* op, int64_t dim, int64_t rank) {
  const int64_t r = rank > 0 ? rank : 1;
  TT_CHECK(dim >= -r && dim < r,
           "{}: dimension {} is out of range for a tensor of rank {} (expected a dim in [{}, {}])",
           op, dim, rank, -r, r - 1);
  return dim < 0 ? dim + r : dim;
}

// The pointwise family's unary and binary ops by kind (ops/pointwise_ops.cpp), checked
// and recorded as the named ops are: how the graph replays them.
Tensor unary(pointwise::UnaryOp kind, const Tensor& x, const pointwise::UnaryParams& params);
Tensor binary(pointwise::BinaryOp kind, const Tensor& a, const Tensor& b);

// scaled_dot_product_attention(q, k, v, attn_mask, 0, is_causal, scale) written into `out`,
// a view of the result's shape with any strides (tt::compile writes the head merge's layout
// directly).
void scaled_dot_product_attention_into(const Tensor& query, const Tensor& key, const Tensor& value,
                                       double scale, const Tensor& out,
                                       const Tensor& attn_mask = Tensor(), bool is_causal = false);

// The one overlap check of every write (in-place members, copy_, outputs an op updates):
// `out` has no two elements at one location, and each input read elementwise
// (`pointwise`, broadcast to out's shape) is either out's very view or disjoint from it;
// the other inputs must be disjoint (core/overlap.h, PyTorch's sentences).
inline void check_write(const char* op, const Tensor& out,
                        std::initializer_list<NamedTensor> pointwise,
                        std::initializer_list<NamedTensor> others = {}) {
  assert_no_internal_overlap(op, out);
  for (const NamedTensor& nt : pointwise) {
    if (!nt.tensor.defined() || !nt.tensor.shares_storage_with(out)) continue;
    assert_no_partial_overlap(
        op, out, nt.tensor.sizes() == out.sizes() ? nt.tensor : nt.tensor.expand(out.sizes()));
  }
  for (const NamedTensor& nt : others) {
    if (nt.tensor.defined()) assert_no_overlap(op, out, nt.tensor);
  }
}

// dst = src (same shape) where dst is any view of a tensor on any device (ops/shape_ops.cpp);
// a non-contiguous CUDA dst must be float32.
void copy_into(const char* op, Tensor dst, const Tensor& src);

[[noreturn]] inline void fail_without_cuda(const char* op, Device device) {
  TT_FAIL("{}: the inputs are on {} but tensortune was built without CUDA", op, device.str());
}

}  // namespace tt::ops::detail

// Runs `cpu_call` on the CPU, `cuda_call` on a CUDA device. Without TT_CUDA the CUDA
// branch is compiled out (the tt::ops::cuda symbols do not exist).
// The same as an expression: the result of `cpu_call` or `cuda_call` (for ops that report
// their result to the capture, ops/record.h, before returning it).
#if TT_CUDA
#define TT_RUN(op, device, cpu_call, cuda_call) ((device).is_cpu() ? (cpu_call) : (cuda_call))
#else
#define TT_RUN(op, device, cpu_call, cuda_call) \
  ((device).is_cpu() ? (cpu_call) : (::tt::ops::detail::fail_without_cuda(op, device), Tensor()))
#endif

#if TT_CUDA
#define TT_DISPATCH(op, device, cpu_call, cuda_call) \
  return (device).is_cpu() ? (cpu_call) : (cuda_call)
#else
#define TT_DISPATCH(op, device, cpu_call, cuda_call) \
  if ((device).is_cpu()) return (cpu_call);          \
  ::tt::ops::detail::fail_without_cuda(op, device)
#endif
