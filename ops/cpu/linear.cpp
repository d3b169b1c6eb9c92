// y = x W^T + b through Eigen's GEMM. x and W are mapped as row-major matrices and
// W^T is an expression over that map, so no transposed copy of W is ever made. Eigen
// parallelises its GEMM with OpenMP over Eigen::nbThreads() threads (all cores by
// default) when the caller is not already inside a parallel region.
#include <Eigen/Core>
#include <cstdint>

#include "ops/cpu/cpu_ops.h"
#include "ops/cpu/parallel.h"
#include "ops/cpu/scalar.h"
#include "ops/linear_problem.h"

namespace tt::ops::cpu {
namespace {

template <typename T>
using RowMajorMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

template <typename T>
Tensor linear_of(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  using Matrix = RowMajorMatrix<T>;
  const LinearProblem p = linear_problem(x, weight);
  const Tensor& xc = p.x;
  const Tensor& wc = p.weight;
  const int64_t in_features = p.in_features, out_features = p.out_features, rows = p.rows;

  Tensor out = Tensor::empty(p.out_shape, DTypeOf<T>::value, Device::cpu());
  if (out.numel() == 0) return out;

  Eigen::Map<Matrix> y(out.data<T>(), rows, out_features);
  if (in_features == 0) {
    y.setZero();
  } else {
    Eigen::Map<const Matrix> xm(xc.data<T>(), rows, in_features);
    Eigen::Map<const Matrix> wm(wc.data<T>(), out_features, in_features);
    // Eigen splits a GEMM between OpenMP threads from ~50k multiply-adds on; below
    // kParallelMinGemm waking the second thread costs more than it saves (parallel.h).
    Eigen::setNbThreads(rows * out_features * in_features >= kParallelMinGemm ? 0 : 1);
    y.noalias() = xm * wm.transpose();
  }

  if (bias.defined()) {
    const Tensor bc = bias.contiguous();
    const Eigen::Map<const Eigen::Matrix<T, 1, Eigen::Dynamic>> b(bc.data<T>(), out_features);
#pragma omp parallel for schedule(static) if (out.numel() >= kParallelMinElements)
    for (int64_t r = 0; r < rows; ++r) y.row(r) += b;
  }
  return out;
}

}  // namespace

Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  return with_scalar(x.dtype(), [&](auto t) { return linear_of<decltype(t)>(x, weight, bias); });
}

}  // namespace tt::ops::cpu
