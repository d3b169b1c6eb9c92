// Glue between tt::Tensor and the raw-pointer fused-op forwards (ops/cuda/fused/plans.h),
// shared by the Tensor-level fused ops in ops/cuda/fused/gemm_*.cu: dense aligned
// inputs, the problem description, scratch buffers, and in-place buffers that may be
// strided views.
#pragma once

#include <cstdint>

#include "core/cuda/stream.h"
#include "core/tensor.h"
#include "ops/cuda/gemm/gemm_config.h"

namespace tt::ops::cuda::gemm {

// A contiguous view of t whose data is 16-byte aligned: t itself when it already is,
// else a copy (so that vector loads and cuBLASLt's aligned algorithms always apply).
inline Tensor dense(const Tensor& t) {
  Tensor c = t.contiguous();
  if (reinterpret_cast<uintptr_t>(c.data_ptr()) % 16 != 0) c = c.clone();
  return c;
}

inline const float* fp(const Tensor& t) { return t.data<float>(); }
inline float* mfp(const Tensor& t) { return t.data<float>(); }

// X [m, k] and W [n, k], both dense.
inline GemmProblem problem_of(const Tensor& x, const Tensor& w) {
  return GemmProblem{x.size(0), w.size(0), x.size(1), pointer_align({x.data_ptr(), w.data_ptr()})};
}

// A float32 buffer of `floats` elements on the device (undefined when 0).
inline Tensor scratch(int64_t floats, Device device) {
  return floats > 0 ? Tensor::empty({floats}, DType::F32, device) : Tensor();
}

// A buffer that a kernel updates in place: the tensor itself when dense, else a
// dense copy that write_back() copies into the original.
class InPlace {
 public:
  explicit InPlace(const Tensor& t) : original_(t), work_(dense(t)) {}
  float* data() const { return mfp(work_); }
  void write_back() {
    if (!work_.is_same(original_)) original_.copy_(work_);
  }

 private:
  Tensor original_;
  Tensor work_;
};

}  // namespace tt::ops::cuda::gemm
