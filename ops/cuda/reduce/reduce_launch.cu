// Dispatch of the reduction launchers to the per-op instantiations (reduce.h).
#include <map>
#include <mutex>
#include <utility>

#include "core/cuda/device.h"
#include "ops/cuda/reduce/reduce_kernels.cuh"

namespace tt::ops::cuda::reduce {

const char* op_name(Op op) {
  switch (op) {
    case Op::kSum:
      return "sum";
    case Op::kMean:
      return "mean";
    case Op::kVar:
      return "var";
    case Op::kStd:
      return "std";
    case Op::kAmax:
      return "amax";
    case Op::kAmin:
      return "amin";
    case Op::kArgmax:
      return "argmax";
    case Op::kArgmin:
      return "argmin";
  }
  return "?";
}

int ptr_align(const void* p) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  return a % 16 == 0 ? 4 : a % 8 == 0 ? 2 : 1;
}

int sm_count(int device) { return tt::cuda::device_limits(device).sm_count; }

unsigned* arrival_counters(int device, cudaStream_t stream, int64_t n) {
  if (n > kArrivalCounters) return nullptr;
  static std::mutex mutex;
  static std::map<std::pair<int, cudaStream_t>, unsigned*> counters;
  std::lock_guard<std::mutex> lock(mutex);
  unsigned*& c = counters[{device, stream}];
  if (!c) {
    const size_t bytes = sizeof(unsigned) * static_cast<size_t>(kArrivalCounters);
    c = static_cast<unsigned*>(tt::cuda::allocate(bytes, device));  // kept for the process
    TT_CUDA_CHECK(cudaMemsetAsync(c, 0, bytes, stream));
  }
  return c;
}

namespace {

FinishDev finish_of(Op op, Finish f) {
  FinishDev d;
  d.divisor = static_cast<float>(f.divisor);
  d.root = op == Op::kStd ? 1 : 0;
  return d;
}

// Calls launch(OpT{}) with the op's state type.
template <class Launch>
void with_op(Op op, Launch&& launch) {
  switch (op) {
    case Op::kSum:
    case Op::kMean:
      return launch(SumOp{});
    case Op::kVar:
    case Op::kStd:
      return launch(VarOp{});
    case Op::kAmax:
      return launch(ExtremeOp<true>{});
    case Op::kAmin:
      return launch(ExtremeOp<false>{});
    case Op::kArgmax:
      return launch(ArgOp<true>{});
    case Op::kArgmin:
      return launch(ArgOp<false>{});
  }
}

}  // namespace

void launch_inner(Op op, const InnerConfig& cfg, const InnerProblem& p, const float* x, void* out,
                  Finish finish, int device, cudaStream_t stream) {
  if (p.rows == 0) return;
  with_op(op, [&](auto tag) {
    launch_inner_t<decltype(tag)>(cfg, p, x, out, finish_of(op, finish), device, stream);
  });
}

void launch_outer(Op op, const OuterConfig& cfg, const OuterProblem& p, const float* x, void* out,
                  Finish finish, int device, cudaStream_t stream) {
  if (p.outer * p.inner == 0) return;
  with_op(op, [&](auto tag) {
    launch_outer_t<decltype(tag)>(cfg, p, x, out, finish_of(op, finish), device, stream);
  });
}

}  // namespace tt::ops::cuda::reduce
