// The pointwise family's kernels and their launcher, generic over the functor
// (ops/pointwise_functors.h), the arity (1: unary, 2: binary, 3: where, whose
// first operand is the bool or uint8 condition) and the element types: O the
// output's, A the first operand's, T the others' (A = T but for where). Included by
// the family's .cu files only.
//
// flat_kernel: every operand unit-stride over the same numel elements. Each thread
// moves `Items` vectors of `Vec` elements per grid step (all loads first, then the
// math, then the stores: independent loads in flight hide latency, and an in-place
// op that aliases an input still reads before it writes); the n % Vec tail goes
// element by element. Vectors need every pointer aligned to Vec elements, which the
// launcher checks (the alignment is part of the problem key).
// strided_kernel: anything else; the output index is unravelled over the folded
// dims (ops/broadcast.h) into each operand's offset, in 32-bit arithmetic when every
// index and offset fits (64-bit division is several times slower).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "core/cuda/check.h"
#include "core/cuda/launch.h"
#include "core/cuda/runtime.h"
#include "core/cuda/stream.h"
#include "ops/broadcast.h"
#include "ops/cuda/pointwise/pointwise_config.h"
#include "ops/pointwise_functors.h"

namespace tt::ops::cuda::pointwise_kernels {

template <typename O, typename A, typename T>
struct Operands {
  O* out;
  const A* a;
  const T* b;
  const T* c;
};

template <int Arity, typename O, typename A, typename T, typename Fn>
__device__ __forceinline__ O apply(const Fn& fn, A a, T b, T c) {
  if constexpr (Arity == 1) {
    return static_cast<O>(fn(a));
  } else if constexpr (Arity == 2) {
    return static_cast<O>(fn(a, b));
  } else {
    return static_cast<O>(fn(a, b, c));
  }
}

// Vec elements as one load/store: the CUDA vector types for float and uint8 (as the
// float32 path always used), an aligned array for the other element types.
template <int Vec, typename T>
struct VecOf {
  struct alignas(sizeof(T) * Vec) type {
    T v[Vec];
  };
};
template <>
struct VecOf<1, float> {
  using type = float;
};
template <>
struct VecOf<2, float> {
  using type = float2;
};
template <>
struct VecOf<4, float> {
  using type = float4;
};
template <>
struct VecOf<1, uint8_t> {
  using type = uint8_t;
};
template <>
struct VecOf<2, uint8_t> {
  using type = uchar2;
};
template <>
struct VecOf<4, uint8_t> {
  using type = uchar4;
};

// Elements v*Vec .. v*Vec+Vec-1 of p, one load instruction.
template <int Vec, typename T>
__device__ __forceinline__ void load_vec(const T* p, int64_t v, T (&out)[Vec]) {
  using V = typename VecOf<Vec, T>::type;
  const V x = reinterpret_cast<const V*>(p)[v];
  const T* e = reinterpret_cast<const T*>(&x);
#pragma unroll
  for (int j = 0; j < Vec; ++j) out[j] = e[j];
}

template <int Vec, typename T>
__device__ __forceinline__ void store_vec(T* p, int64_t v, const T (&in)[Vec]) {
  using V = typename VecOf<Vec, T>::type;
  V x;
  T* e = reinterpret_cast<T*>(&x);
#pragma unroll
  for (int j = 0; j < Vec; ++j) e[j] = in[j];
  reinterpret_cast<V*>(p)[v] = x;
}

template <int Arity, int Vec, int Items, typename O, typename A, typename T, typename Fn>
__global__ void flat_kernel(Operands<O, A, T> op, int64_t n, Fn fn) {
  const int64_t nvec = n / Vec;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x * Items;
  for (int64_t base = static_cast<int64_t>(blockIdx.x) * blockDim.x * Items + threadIdx.x;
       base < nvec; base += step) {
    A va[Items][Vec];
    T vb[Items][Vec], vc[Items][Vec];
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      const int64_t v = base + static_cast<int64_t>(k) * blockDim.x;
      if (v < nvec) {
        load_vec<Vec>(op.a, v, va[k]);
        if constexpr (Arity >= 2) load_vec<Vec>(op.b, v, vb[k]);
        if constexpr (Arity >= 3) load_vec<Vec>(op.c, v, vc[k]);
      }
    }
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      const int64_t v = base + static_cast<int64_t>(k) * blockDim.x;
      if (v < nvec) {
        O r[Vec];
#pragma unroll
        for (int j = 0; j < Vec; ++j)
          r[j] = apply<Arity, O>(fn, va[k][j], Arity >= 2 ? vb[k][j] : T(0),
                                 Arity >= 3 ? vc[k][j] : T(0));
        store_vec<Vec>(op.out, v, r);
      }
    }
  }
  const int64_t first_tail = nvec * Vec;
  for (int64_t i = first_tail + static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    op.out[i] =
        apply<Arity, O>(fn, op.a[i], Arity >= 2 ? op.b[i] : T(0), Arity >= 3 ? op.c[i] : T(0));
  }
}

template <int Arity, int Items, typename Index, typename O, typename A, typename T, typename Fn>
__global__ void strided_kernel(Operands<O, A, T> op, int64_t n, LoopPlan plan, Fn fn) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x * Items;
  for (int64_t base = static_cast<int64_t>(blockIdx.x) * blockDim.x * Items + threadIdx.x; base < n;
       base += step) {
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      const int64_t i = base + static_cast<int64_t>(k) * blockDim.x;
      if (i >= n) break;
      Index rest = static_cast<Index>(i);
      Index off[Arity + 1] = {};
      for (int d = plan.rank - 1; d >= 0; --d) {
        const Index size = static_cast<Index>(plan.sizes[d]);
        const Index coord = rest % size;
        rest /= size;
#pragma unroll
        for (int o = 0; o <= Arity; ++o) off[o] += coord * static_cast<Index>(plan.strides[o][d]);
      }
      op.out[off[0]] =
          apply<Arity, O>(fn, op.a[off[1]], Arity >= 2 ? op.b[off[Arity >= 2 ? 2 : 0]] : T(0),
                          Arity >= 3 ? op.c[off[Arity >= 3 ? 3 : 0]] : T(0));
    }
  }
}

// Largest alignment (in elements, up to 4) every pointer allows for vectors.
template <typename T>
int elements_aligned(const T* p) {
  const uintptr_t bytes = reinterpret_cast<uintptr_t>(p);
  for (int v = 4; v > 1; v /= 2)
    if (bytes % (v * sizeof(T)) == 0) return v;
  return 1;
}

// The largest element offset an operand reaches under the plan (strides >= 0).
inline int64_t max_offset(const LoopPlan& plan, int k) {
  int64_t offset = 0;
  for (int d = 0; d < plan.rank; ++d) offset += (plan.sizes[d] - 1) * plan.strides[k][d];
  return offset;
}

inline unsigned int blocks_for(int64_t work, int threads, int items) {
  return tt::cuda::grid_size((work + items - 1) / items, threads);
}

template <int Arity, int Vec, typename O, typename A, typename T, typename Fn>
void launch_flat_items(const Operands<O, A, T>& op, int64_t n, Fn fn, int threads, int items,
                       cudaStream_t s) {
  const unsigned int blocks = blocks_for(n / Vec > 0 ? n / Vec : 1, threads, items);
  if constexpr (!std::is_same_v<T, float>) {
    // One items value per op and type beyond float32 (the space allows only 1 there):
    // the build stays small.
    flat_kernel<Arity, Vec, 1><<<blocks, threads, 0, s>>>(op, n, fn);
    return;
  }
  switch (items) {
    case 1:
      flat_kernel<Arity, Vec, 1><<<blocks, threads, 0, s>>>(op, n, fn);
      break;
    case 2:
      flat_kernel<Arity, Vec, 2><<<blocks, threads, 0, s>>>(op, n, fn);
      break;
    default:
      flat_kernel<Arity, Vec, 4><<<blocks, threads, 0, s>>>(op, n, fn);
      break;
  }
}

template <int Arity, typename Index, typename O, typename A, typename T, typename Fn>
void launch_strided_items(const Operands<O, A, T>& op, int64_t n, const LoopPlan& plan, Fn fn,
                          int threads, int items, cudaStream_t s) {
  const unsigned int blocks = blocks_for(n, threads, items);
  if constexpr (!std::is_same_v<T, float>) {
    strided_kernel<Arity, 1, Index><<<blocks, threads, 0, s>>>(op, n, plan, fn);
    return;
  }
  switch (items) {
    case 1:
      strided_kernel<Arity, 1, Index><<<blocks, threads, 0, s>>>(op, n, plan, fn);
      break;
    case 2:
      strided_kernel<Arity, 2, Index><<<blocks, threads, 0, s>>>(op, n, plan, fn);
      break;
    default:
      strided_kernel<Arity, 4, Index><<<blocks, threads, 0, s>>>(op, n, plan, fn);
      break;
  }
}

// A binary functor with one operand a single float in device memory (a 0-d or
// one-element tensor broadcast over the other, as `x / 2.0` makes): the unary
// functor that the flat kernel runs. Every thread reads the scalar through the
// read-only cache; one address for the whole grid, so it costs no bandwidth.
template <typename Fn, typename T, bool ScalarFirst>
struct WithScalar {
  Fn fn;
  const T* scalar;
  __device__ __forceinline__ auto operator()(T x) const {
    T s;
    if constexpr (std::is_same_v<T, float>) {
      s = __ldg(scalar);
    } else {
      s = *scalar;
    }
    return ScalarFirst ? fn(s, x) : fn(x, s);
  }
};

// Whether `t` is a single element (any shape of numel 1).
inline bool is_single(const Tensor* t) { return t && t->numel() == 1; }

template <int Arity, typename O, typename A, typename T, typename Fn>
void launch(const char* name, Fn fn, const Tensor& out, const Tensor& a, const Tensor* b,
            const Tensor* c);

// Binary ops with one single-element operand and the other unit-stride over out's
// elements run as a flat (vectorised) unary kernel instead of the strided one; same
// kernel name and results, so tuning and the CPU reference are unchanged. Returns
// whether it launched.
template <int Arity, typename O, typename A, typename T, typename Fn>
bool launch_with_scalar(const char* name, Fn fn, const Tensor& out, const Tensor& a,
                        const Tensor* b) {
  if constexpr (Arity == 2 && std::is_same_v<A, float> && std::is_same_v<T, float>) {
    if (out.numel() <= 1 || is_single(&a) == is_single(b)) return false;
    const Tensor& tensor = is_single(b) ? a : *b;
    const Tensor& single = is_single(b) ? *b : a;
    if (tensor.sizes() != out.sizes()) return false;
    if (!is_flat(plan_loop(out.sizes(), {&out, &tensor}))) return false;
    const T* s = static_cast<const T*>(single.data_ptr());
    if (is_single(b)) {
      launch<1, O, T, T>(name, WithScalar<Fn, T, false>{fn, s}, out, tensor, nullptr, nullptr);
    } else {
      launch<1, O, T, T>(name, WithScalar<Fn, T, true>{fn, s}, out, tensor, nullptr, nullptr);
    }
    return true;
  } else {
    return false;
  }
}

// out = fn(a[, b[, c]]) with broadcasting; `name` is the op's name ("add", "gelu").
template <int Arity, typename O, typename A, typename T, typename Fn>
void launch(const char* name, Fn fn, const Tensor& out, const Tensor& a, const Tensor* b,
            const Tensor* c) {
  const int64_t n = out.numel();
  if (n == 0) return;
  if (launch_with_scalar<Arity, O, A, T>(name, fn, out, a, b)) return;
  std::vector<const Tensor*> operands{&out, &a};
  if (b) operands.push_back(b);
  if (c) operands.push_back(c);
  const LoopPlan plan = plan_loop(out.sizes(), operands);
  Operands<O, A, T> op{static_cast<O*>(out.data_ptr()), static_cast<const A*>(a.data_ptr()),
                       b ? static_cast<const T*>(b->data_ptr()) : nullptr,
                       c ? static_cast<const T*>(c->data_ptr()) : nullptr};
  const int device = out.device().index;
  tt::cuda::DeviceGuard guard(device);
  cudaStream_t s = tt::cuda::stream(device);
  const std::string kernel = std::string("pointwise.") + name;

  pointwise_tuning::PointwiseProblem problem;
  problem.numel = n;
  problem.dtype = std::is_same_v<T, float> ? nullptr : dtype_name(DTypeOf<T>::value);
  problem.flat = is_flat(plan);
  if (problem.flat) {
    int align = std::min(elements_aligned(op.out), elements_aligned(op.a));
    if (op.b) align = std::min(align, elements_aligned(op.b));
    if (op.c) align = std::min(align, elements_aligned(op.c));
    problem.align = align;
    const pointwise_tuning::PointwiseConfig cfg = pointwise_tuning::choose(kernel, problem, device);
    switch (cfg.vec) {
      case 4:
        launch_flat_items<Arity, 4>(op, n, fn, cfg.threads, cfg.items, s);
        break;
      case 2:
        launch_flat_items<Arity, 2>(op, n, fn, cfg.threads, cfg.items, s);
        break;
      default:
        launch_flat_items<Arity, 1>(op, n, fn, cfg.threads, cfg.items, s);
        break;
    }
  } else {
    problem.rank = plan.rank;
    const pointwise_tuning::PointwiseConfig cfg = pointwise_tuning::choose(kernel, problem, device);
    bool index32 = n <= (int64_t{1} << 30);
    for (int k = 0; k < plan.operands; ++k) index32 = index32 && max_offset(plan, k) <= INT32_MAX;
    if (index32) {
      launch_strided_items<Arity, int32_t>(op, n, plan, fn, cfg.threads, cfg.items, s);
    } else {
      launch_strided_items<Arity, int64_t>(op, n, plan, fn, cfg.threads, cfg.items, s);
    }
  }
  TT_CUDA_CHECK_LAUNCH();
}

// fn on a's element type (b's for where), if it is one of `Types` (float, int64_t,
// ...: each .cu file instantiates its share) and the functor accepts it; O is the
// functor's result type. Returns false when the type is not in `Types`.
template <typename... Types>
struct TypeList {
  template <typename T>
  static constexpr bool has = (std::is_same_v<T, Types> || ...);
};

template <typename List, int Arity, typename Fn>
bool launch_typed(const char* name, Fn fn, const Tensor& out, const Tensor& a, const Tensor* b,
                  const Tensor* c = nullptr) {
  const DType t = Arity == 3 ? b->dtype() : a.dtype();
  return visit_dtype(t, name, [&](auto zero) -> bool {
    using T = decltype(zero);
    if constexpr (!List::template has<T>) {
      return false;
    } else if constexpr (!tt::ops::pointwise::accepts<Fn, T>()) {
      TT_FAIL("{}: dtype {} is not supported", name, dtype_name(t));
    } else if constexpr (Arity == 1) {
      launch<1, decltype(fn(T{})), T, T>(name, fn, out, a, nullptr, nullptr);
      return true;
    } else if constexpr (Arity == 2) {
      launch<2, decltype(fn(T{}, T{})), T, T>(name, fn, out, a, b, nullptr);
      return true;
    } else {
      if (a.dtype() == DType::Bool) {
        launch<3, T, bool, T>(name, fn, out, a, b, c);
      } else {
        launch<3, T, uint8_t, T>(name, fn, out, a, b, c);
      }
      return true;
    }
  });
}

// The element types on CUDA (float64 runs on the CPU only), in two shares so two
// translation units compile them in parallel.
using FloatAndBool = TypeList<float, bool>;
using Integers = TypeList<int64_t, int32_t, uint8_t>;

// A binary op (with broadcasting) on the element types of `List`: binary.cu and
// binary_int.cu each instantiate one share. False when a's type is not in it.
template <typename List>
bool launch_binary(tt::ops::pointwise::BinaryOp op, const Tensor& a, const Tensor& b,
                   const Tensor& out) {
  switch (op) {
#define TT_BINARY_CASE(name, fn, text)     \
  case tt::ops::pointwise::BinaryOp::name: \
    return launch_typed<List, 2>(text, tt::ops::pointwise::fn{}, out, a, &b);
    TT_POINTWISE_BINARY_OPS(TT_BINARY_CASE)
#undef TT_BINARY_CASE
  }
  return false;
}

}  // namespace tt::ops::cuda::pointwise_kernels
