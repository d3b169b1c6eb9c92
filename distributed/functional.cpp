#include "distributed/functional.h"

#include "core/capture.h"
#include "core/error.h"
#include "ops/op_kind.h"
#include "ops/ops.h"

namespace tt::distributed::functional {
namespace {

void record(capture::Recorder* r, const char* name, const Tensor& in, const Tensor& out,
            std::function<Tensor(const Tensor&)> again) {
  capture::Attrs attrs;
  attrs.text = name;
  attrs.replay = [again](const std::vector<Tensor>& ins) {
    return std::vector<Tensor>{again(ins[0])};
  };
  r->op(static_cast<int>(ops::OpKind::kOther), 0, {in}, attrs, {out});
}

}  // namespace

Tensor all_reduce(const Tensor& x, ReduceOp op, const std::shared_ptr<ProcessGroup>& group) {
  TT_CHECK(group != nullptr, "all_reduce expects a process group, but got none.");
  const capture::OpScope scope;
  // A recorded graph may read x again, so the result must be a tensor of its own there.
  Tensor out = scope.recorder() != nullptr ? x.clone() : x.contiguous();
  group->all_reduce(out, op);
  if (capture::Recorder* r = scope.recorder())
    // The replay reduces a copy: the graph's input value may have other readers.
    record(r, "all_reduce", x, out, [op, group](const Tensor& in) {
      Tensor copy = in.clone();
      group->all_reduce(copy, op);
      return copy;
    });
  return out;
}

Tensor all_gather(const Tensor& x, int64_t dim, const std::shared_ptr<ProcessGroup>& group) {
  TT_CHECK(group != nullptr, "all_gather expects a process group, but got none.");
  TT_CHECK(x.defined() && x.dim() >= 1, "all_gather expects a tensor of at least 1 dimension.");
  const int64_t d = dim < 0 ? dim + x.dim() : dim;
  TT_CHECK(d >= 0 && d < x.dim(), "all_gather: dimension {} is out of range for a {}-d tensor.",
           dim, x.dim());
  const capture::OpScope scope;
  const Tensor in = x.contiguous();
  const int w = group->size();
  Tensor flat = Tensor::empty({w * in.numel()}, in.dtype(), in.device());
  group->all_gather_into_tensor(flat, in);
  // [W, outer, n, inner] -> [outer, W, n, inner]: rank r's block lands at r * n along d.
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < d; ++i) outer *= in.size(i);
  for (int64_t i = d + 1; i < in.dim(); ++i) inner *= in.size(i);
  Shape sizes = in.sizes();
  sizes[static_cast<size_t>(d)] *= w;
  const Tensor out =
      w == 1
          ? flat.view(in.sizes())
          : flat.view({w, outer, in.size(d), inner}).permute({1, 0, 2, 3}).contiguous().view(sizes);
  if (capture::Recorder* r = scope.recorder())
    record(r, "all_gather", x, out,
           [d, group](const Tensor& t) { return all_gather(t, d, group); });
  return out;
}

}  // namespace tt::distributed::functional
