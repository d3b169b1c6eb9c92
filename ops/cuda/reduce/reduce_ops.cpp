// tt::ops::cuda reductions and softmax on tensors (ops/cuda/cuda_ops_reduce.h):
// folds a dim list onto the family's two kernel shapes (reduce.h) and launches the
// config the tuning database gives.
//
// Folding: size-1 dims are dropped; a view whose dims, ordered by stride, are dense
// (a transpose or permutation of a contiguous tensor) is used in place, provided the
// kept dims keep their order in memory (so the output comes out in logical order);
// anything else is copied with contiguous(). Adjacent dims of the same kind (kept or
// reduced) then merge, and
//   [K, R]      -> inner (rows K, cols R)             [R] -> inner (1, R)
//   [K, R, K2]  -> outer (outer K, rows R, inner K2)   [R, K2] -> outer (1, R, K2)
// Other patterns (reduced dims on both sides of a kept one) have no fold: the kept dims
// are permuted to the front and copied, then reduced as inner.
#include <algorithm>
#include <limits>

#include "core/cuda/stream.h"
#include "core/error.h"
#include "ops/cuda/cuda_ops_reduce.h"
#include "ops/cuda/reduce/reduce.h"

namespace tt::ops::cuda {
namespace {

using reduce::Op;

struct Dim {
  int64_t size;
  int64_t stride;
  bool reduced;
  int64_t index;  // logical position in x
};

struct Group {
  int64_t size;
  bool reduced;
};

// Merges adjacent dims of the same kind (dims in memory order, dense).
std::vector<Group> coalesce(const std::vector<Dim>& dims) {
  std::vector<Group> groups;
  for (const Dim& d : dims) {
    if (!groups.empty() && groups.back().reduced == d.reduced) {
      groups.back().size *= d.size;
    } else {
      groups.push_back({d.size, d.reduced});
    }
  }
  return groups;
}

// Sets *out to the dims (size > 1) of x in memory order when x is a dense permutation
// of a contiguous tensor whose kept dims keep their logical order; false otherwise.
bool dense_in_memory_order(const Tensor& x, const std::vector<bool>& reduced,
                           std::vector<Dim>* out) {
  std::vector<Dim> dims;
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (x.size(d) != 1) dims.push_back({x.size(d), x.stride(d), reduced[d], d});
  }
  std::stable_sort(dims.begin(), dims.end(),
                   [](const Dim& a, const Dim& b) { return a.stride > b.stride; });
  int64_t expect = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    if (dims[i].stride != expect) return false;
    expect *= dims[i].size;
  }
  int64_t last_kept = -1;
  for (const Dim& d : dims) {
    if (d.reduced) continue;
    if (d.index < last_kept) return false;
    last_kept = d.index;
  }
  *out = std::move(dims);
  return true;
}

Shape reduced_shape(const Tensor& x, const std::vector<bool>& reduced, bool keepdim) {
  Shape s;
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (!reduced[d]) {
      s.push_back(x.size(d));
    } else if (keepdim) {
      s.push_back(1);
    }
  }
  return s;
}

Tensor run_reduction(Op op, const Tensor& x, const std::vector<int64_t>& dims, bool keepdim,
                     int64_t correction = 0) {
  std::vector<bool> reduced(static_cast<size_t>(x.dim()), false);
  int64_t count = 1;
  for (int64_t d : dims) {
    reduced[static_cast<size_t>(d)] = true;
    count *= x.size(d);
  }
  const DType out_dtype = reduce::is_arg(op) ? DType::I64 : DType::F32;
  Tensor out = Tensor::empty(reduced_shape(x, reduced, keepdim), out_dtype, x.device());
  if (out.numel() == 0) return out;
  if (count == 0) {
    // PyTorch: an empty sum is 0, an empty mean/var/std NaN; the front end rejects the rest.
    TT_CHECK(op == Op::kSum || op == Op::kMean || op == Op::kVar || op == Op::kStd,
             "{}: cannot reduce over dims of total size 0 (the reduction has no identity)",
             reduce::op_name(op));
    return Tensor::full(out.sizes(),
                        op == Op::kSum ? 0.0 : std::numeric_limits<double>::quiet_NaN(), DType::F32,
                        x.device());
  }

  Tensor src = x;
  std::vector<Dim> order;
  if (!dense_in_memory_order(x, reduced, &order)) {
    src = x.contiguous();
    dense_in_memory_order(src, reduced, &order);
  }
  const std::vector<Group> groups = coalesce(order);
  // Read the groups as [outer kept] [reduced] [inner kept]; anything left over means
  // no fold.
  int64_t outer = 1, rows = 1, inner = 1;
  size_t g = 0;
  if (g < groups.size() && !groups[g].reduced) outer = groups[g++].size;
  if (g < groups.size() && groups[g].reduced) rows = groups[g++].size;
  if (g < groups.size() && !groups[g].reduced) inner = groups[g++].size;
  if (g < groups.size()) {
    // No fold: kept dims first, then the reduced ones, copied.
    std::vector<int64_t> perm;
    for (int64_t d = 0; d < x.dim(); ++d)
      if (!reduced[d]) perm.push_back(d);
    for (int64_t d : dims) perm.push_back(d);
    src = x.permute(perm).contiguous();
    outer = out.numel();
    rows = count;
    inner = 1;
  }

  const int device = x.device().index;
  tt::cuda::DeviceGuard guard(device);
  const float* xp = src.data<float>();
  void* op_out = out.data_ptr();
  reduce::Finish finish;
  if (op == Op::kMean) finish.divisor = static_cast<double>(count);
  if (op == Op::kVar || op == Op::kStd) finish.divisor = static_cast<double>(count - correction);
  const int align = reduce::ptr_align(xp);
  if (inner > 1) {
    const reduce::OuterProblem p{outer, rows, inner, align};
    reduce::launch_outer(op, reduce::choose_outer(op, p, device), p, xp, op_out, finish, device,
                         tt::cuda::stream(device));
  } else {
    const reduce::InnerProblem p{outer, rows, align};
    reduce::launch_inner(op, reduce::choose_inner(op, p, device), p, xp, op_out, finish, device,
                         tt::cuda::stream(device));
  }
  return out;
}

// softmax / log_softmax over `dim`: a row map over the dim moved innermost.
Tensor run_softmax(reduce::RowMap m, const Tensor& x, int64_t dim) {
  const int64_t last = x.dim() - 1;
  if (x.numel() == 0) return Tensor::empty(x.sizes(), DType::F32, x.device());
  if (x.dim() == 0) return run_softmax(m, x.reshape({1}), 0).reshape({});
  // Rows are the normalised dim made innermost: in place when nothing follows it (or
  // it has size 1: every element is its own row); otherwise on a transposed copy (two
  // extra passes over memory; a column kernel would avoid them).
  int64_t inner = 1;
  for (int64_t d = dim + 1; d < x.dim(); ++d) inner *= x.size(d);
  const int64_t n = x.size(dim);
  const bool moved = inner > 1 && n > 1;
  const Tensor src = (moved ? x.transpose(dim, last) : x).contiguous();
  Tensor out = Tensor::empty(src.sizes(), DType::F32, x.device());
  const int64_t cols = moved ? src.size(last) : n;
  const reduce::RowProblem p{
      src.numel() / cols, cols,
      std::min(reduce::ptr_align(src.data<float>()), reduce::ptr_align(out.data<float>()))};
  const int device = x.device().index;
  tt::cuda::DeviceGuard guard(device);
  reduce::launch_row_map(m, reduce::choose_row(m, p, device), p, src.data<float>(),
                         out.data<float>(), nullptr, 0.f, tt::cuda::stream(device));
  return moved ? out.transpose(dim, last).contiguous() : out;
}

}  // namespace

Tensor sum(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  return run_reduction(Op::kSum, x, dims, keepdim);
}

Tensor mean(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  return run_reduction(Op::kMean, x, dims, keepdim);
}

Tensor var(const Tensor& x, const std::vector<int64_t>& dims, int64_t correction, bool keepdim) {
  return run_reduction(Op::kVar, x, dims, keepdim, correction);
}

Tensor std(const Tensor& x, const std::vector<int64_t>& dims, int64_t correction, bool keepdim) {
  return run_reduction(Op::kStd, x, dims, keepdim, correction);
}

Tensor amax(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  return run_reduction(Op::kAmax, x, dims, keepdim);
}

Tensor amin(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  return run_reduction(Op::kAmin, x, dims, keepdim);
}

Tensor argmax(const Tensor& x, int64_t dim, bool keepdim) {
  return run_reduction(Op::kArgmax, x, {dim}, keepdim);
}

Tensor argmin(const Tensor& x, int64_t dim, bool keepdim) {
  return run_reduction(Op::kArgmin, x, {dim}, keepdim);
}

Tensor softmax(const Tensor& x, int64_t dim) {
  return run_softmax(reduce::RowMap::kSoftmax, x, dim);
}

Tensor log_softmax(const Tensor& x, int64_t dim) {
  return run_softmax(reduce::RowMap::kLogSoftmax, x, dim);
}

}  // namespace tt::ops::cuda
