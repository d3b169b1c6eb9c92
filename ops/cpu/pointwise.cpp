// The pointwise family on the CPU: one strided loop for every unary, binary and
// where op (the functors of ops/pointwise_functors.h). The operands are read in place
// (no contiguous copies); the output may be any non-overlapping view. The loop runs
// over the folded plan (ops/broadcast.h): rows of the innermost dimension, with a
// unit-stride path the compiler vectorises. The operands share one element type T
// (the front end has converted them: float, double on the float64 path, int64,
// int32, uint8 or bool) but where's condition (bool or uint8); the output's type is
// the functor's result (T, or bool for the predicates).
#include <cstdint>
#include <type_traits>

#include "ops/broadcast.h"
#include "ops/cpu/cpu_ops.h"
#include "ops/cpu/parallel.h"

namespace tt::ops::cpu {
namespace {

using namespace pointwise;

// Arity 1: fn(a); 2: fn(a, b); 3: fn(a, b, c). A is T, or the condition's type for
// where; O is the output's type.
template <int Arity, typename O, typename T, typename A, typename Fn>
void run_loop(const Tensor& out, const Tensor& ta, const Tensor* tb, const Tensor* tc, Fn fn) {
  const int64_t numel = out.numel();
  if (numel == 0) return;
  std::vector<const Tensor*> operands{&out, &ta};
  if (tb) operands.push_back(tb);
  if (tc) operands.push_back(tc);
  const LoopPlan plan = plan_loop(out.sizes(), operands);
  const int inner_dim = plan.rank - 1;
  const int64_t inner = plan.sizes[inner_dim];
  const int64_t outer = numel / inner;
  O* po = static_cast<O*>(out.data_ptr());
  const A* pa = static_cast<const A*>(ta.data_ptr());
  const T* pb = tb ? static_cast<const T*>(tb->data_ptr()) : nullptr;
  const T* pc = tc ? static_cast<const T*>(tc->data_ptr()) : nullptr;
  const int64_t so = plan.strides[0][inner_dim], sa = plan.strides[1][inner_dim];
  const int64_t sb = Arity >= 2 ? plan.strides[2][inner_dim] : 0;
  const int64_t sc = Arity >= 3 ? plan.strides[3][inner_dim] : 0;
  const bool unit = so == 1 && sa == 1 && (Arity < 2 || sb == 1) && (Arity < 3 || sc == 1);

#pragma omp parallel for schedule(static) if (numel >= kParallelMinElements)
  for (int64_t row = 0; row < outer; ++row) {
    // Offsets of this row's first element, from its index over the outer dimensions.
    int64_t rest = row, off[kMaxLoopOperands] = {0, 0, 0, 0};
    for (int d = inner_dim - 1; d >= 0; --d) {
      const int64_t i = rest % plan.sizes[d];
      rest /= plan.sizes[d];
      for (int k = 0; k < plan.operands; ++k) off[k] += i * plan.strides[k][d];
    }
    O* ro = po + off[0];
    const A* ra = pa + off[1];
    const T* rb = pb ? pb + off[2] : nullptr;
    const T* rc = pc ? pc + off[3] : nullptr;
    if (unit) {
      if constexpr (Arity == 1) {
#pragma omp simd
        for (int64_t i = 0; i < inner; ++i) ro[i] = fn(ra[i]);
      } else if constexpr (Arity == 2) {
#pragma omp simd
        for (int64_t i = 0; i < inner; ++i) ro[i] = fn(ra[i], rb[i]);
      } else {
#pragma omp simd
        for (int64_t i = 0; i < inner; ++i) ro[i] = fn(ra[i], rb[i], rc[i]);
      }
    } else {
      for (int64_t i = 0; i < inner; ++i) {
        if constexpr (Arity == 1) {
          ro[i * so] = fn(ra[i * sa]);
        } else if constexpr (Arity == 2) {
          ro[i * so] = fn(ra[i * sa], rb[i * sb]);
        } else {
          ro[i * so] = fn(ra[i * sa], rb[i * sb], rc[i * sc]);
        }
      }
    }
  }
}

// T from the operands' dtype (a's, or b's for where), O from the functor's result.
template <int Arity, bool Where = false, typename Fn>
void run_typed(const char* op, const Tensor& out, const Tensor& ta, const Tensor* tb,
               const Tensor* tc, Fn fn) {
  const DType compute = Where ? tb->dtype() : ta.dtype();
  visit_dtype(compute, op, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (accepts<Fn, T>()) {
      if constexpr (Where) {
        if (ta.dtype() == DType::Bool) {
          run_loop<3, T, T, bool>(out, ta, tb, tc, fn);
        } else {
          run_loop<3, T, T, uint8_t>(out, ta, tb, tc, fn);
        }
      } else if constexpr (Arity == 1) {
        run_loop<1, decltype(fn(T{})), T, T>(out, ta, tb, tc, fn);
      } else {
        run_loop<2, decltype(fn(T{}, T{})), T, T>(out, ta, tb, tc, fn);
      }
    } else {
      TT_FAIL("{}: dtype {} is not supported", op, dtype_name(compute));
    }
  });
}

}  // namespace

void unary(UnaryOp op, const UnaryParams& params, const Tensor& x, const Tensor& out) {
  switch (op) {
#define TT_UNARY_CASE(name, fn, text)                         \
  case UnaryOp::name:                                         \
    run_typed<1>(text, out, x, nullptr, nullptr, fn{params}); \
    return;
    TT_POINTWISE_UNARY_OPS(TT_UNARY_CASE)
#undef TT_UNARY_CASE
  }
}

void binary(BinaryOp op, const Tensor& a, const Tensor& b, const Tensor& out) {
  switch (op) {
#define TT_BINARY_CASE(name, fn, text)             \
  case BinaryOp::name:                             \
    run_typed<2>(text, out, a, &b, nullptr, fn{}); \
    return;
    TT_POINTWISE_BINARY_OPS(TT_BINARY_CASE)
#undef TT_BINARY_CASE
  }
}

void where(const Tensor& cond, const Tensor& a, const Tensor& b, const Tensor& out) {
  run_typed<3, true>("where", out, cond, &a, &b, WhereFn{});
}

}  // namespace tt::ops::cpu
