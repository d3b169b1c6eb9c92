// Indexing front end: index_select, gather, embedding, dropout, and Tensor::index /
// operator[] / index_put_ (libtorch's tensor indexing, core/indexing.h). Basic
// indices (integers, slices, None, Ellipsis) make views; index tensors make one
// gather (ops/cpu/index.cpp, ops/cuda/index/). Index values are read on the host to
// check them (and to build advanced indexing's flat index): a sentence naming the bad
// index instead of a device-side assert, for one small copy per call.
#include <algorithm>

#include "core/indexing.h"
#include "ops/broadcast.h"
#include "ops/cpu/cpu_ops.h"
#include "ops/front_end.h"
#include "ops/ops.h"
#include "ops/record.h"
#if TT_CUDA
#include "ops/cuda/index/index.h"
#endif

namespace tt::ops {
namespace {

using namespace detail;
using indexing::TensorIndex;

bool is_index_dtype(DType t) { return t == DType::I64 || t == DType::I32; }
bool is_mask_dtype(DType t) { return t == DType::U8 || t == DType::Bool; }

void check_index_tensor(const char* op, const Tensor& x, const Tensor& index) {
  TT_CHECK(x.defined(), "{}: input is undefined; expected a tensor", op);
  TT_CHECK(index.defined(), "{}: index is undefined; expected an int64 tensor", op);
  TT_CHECK(is_index_dtype(index.dtype()),
           "{}: index has dtype {}; expected an int64 or int32 tensor", op,
           dtype_name(index.dtype()));
  TT_CHECK(index.device() == x.device(),
           "{}: index is on {} but input is on {}; both must be on the same device", op,
           index.device().str(), x.device().str());
}

// The index values as int64 on the host, each checked against `size` (negative values
// count from the end when wrap_negative, as in x[idx]; index_select, gather and
// embedding refuse them, as PyTorch's).
std::vector<int64_t> checked_values(const char* op, const Tensor& index, int64_t dim, int64_t size,
                                    bool wrap_negative) {
  std::vector<int64_t> v = index.to_vector<int64_t>();
  for (int64_t& i : v) {
    const int64_t w = (wrap_negative && i < 0) ? i + size : i;
    TT_CHECK(w >= 0 && w < size,
             "{}: index {} is out of range for dimension {} of size {} (expected an index in "
             "[{}, {}])",
             op, i, dim, size, wrap_negative ? -size : 0, size - 1);
    i = w;
  }
  return v;
}

// `index` as a checked int64 tensor on its device: itself when it already is one.
Tensor checked_index(const char* op, const Tensor& index, int64_t dim, int64_t size) {
  const std::vector<int64_t> v = checked_values(op, index, dim, size, false);
  if (index.dtype() == DType::I64) return index;
  return Tensor::from_vector(v, index.sizes()).to(index.device());
}

void run_gather([[maybe_unused]] const char* op, const Tensor& x, int64_t dim, const Tensor& index,
                const Tensor& out) {
  if (out.numel() == 0) return;
  TT_DISPATCH(op, x.device(), cpu::gather(x, dim, index, out), cuda::gather(x, dim, index, out));
}

// index_select with the op's name in its messages; index values already in range
// when `checked`.
Tensor index_select_as(const char* op, const Tensor& x, int64_t dim, const Tensor& index,
                       bool checked) {
  check_index_tensor(op, x, index);
  TT_CHECK(index.dim() <= 1, "{}: index has shape {}; expected a 1-D (or 0-d) tensor", op,
           shape_str(index.sizes()));
  const Tensor in = x.dim() == 0 ? x.reshape({1}) : x;
  const int64_t d = wrap_dim(op, dim, x.dim());
  const Tensor idx = (checked ? index : checked_index(op, index, d, in.size(d))).reshape({-1});
  Shape out_shape = in.sizes();
  out_shape[d] = idx.numel();
  Shape idx_shape(out_shape.size(), 1);
  idx_shape[d] = idx.numel();
  Tensor out = Tensor::empty(out_shape, x.dtype(), x.device());
  run_gather(op, in, d, idx.reshape(idx_shape).expand(out_shape), out);
  return x.dim() == 0 ? out.reshape(index.sizes()) : out;
}

// A Python slice of dimension d: bounds clamp, the step must be positive.
Tensor slice_view(const Tensor& v, int64_t d, const indexing::Slice& s) {
  TT_CHECK(s.step() > 0, "index: slice step must be positive but got {}", s.step());
  const int64_t n = v.size(d);
  auto bound = [n](std::optional<int64_t> b, int64_t fallback) {
    if (!b) return fallback;
    const int64_t w = *b < 0 ? *b + n : *b;
    return std::clamp<int64_t>(w, 0, n);
  };
  const int64_t start = bound(s.start(), 0), stop = bound(s.stop(), n);
  const int64_t len = stop > start ? (stop - start + s.step() - 1) / s.step() : 0;
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = v.storage();
  impl->dtype = v.dtype();
  impl->sizes = v.sizes();
  impl->strides = v.strides();
  impl->offset = v.offset() + (len > 0 ? start * v.stride(d) : 0);
  impl->sizes[d] = len;
  impl->strides[d] *= s.step();
  return Tensor(impl);
}

int64_t dims_consumed(const TensorIndex& ix) {
  switch (ix.kind()) {
    case TensorIndex::Kind::Integer:
    case TensorIndex::Kind::Slice:
      return 1;
    case TensorIndex::Kind::Tensor:
      return is_mask_dtype(ix.tensor().dtype()) ? std::max<int64_t>(ix.tensor().dim(), 1) : 1;
    default:
      return 0;
  }
}

// An advanced index: the dim of the basic-indexed view it indexes and its values
// (int64 on the host, in range, negatives wrapped) with their shape.
struct Advanced {
  int64_t dim;
  Shape shape;
  std::vector<int64_t> values;
};

// The positions where a bool/uint8 mask over `k` dims is true, one int64 list per dim
// (PyTorch's mask.nonzero().unbind(1)).
std::vector<Advanced> mask_positions(const Tensor& mask, int64_t first_dim, const Tensor& view) {
  const int64_t k = mask.dim();
  TT_CHECK(first_dim + k <= view.dim(),
           "index: a mask of shape {} indexes {} dimensions but only {} remain",
           shape_str(mask.sizes()), k, view.dim() - first_dim);
  for (int64_t j = 0; j < k; ++j) {
    TT_CHECK(mask.size(j) == view.size(first_dim + j),
             "index: the mask of shape {} does not match the indexed shape {} at dimension {}",
             shape_str(mask.sizes()), shape_str(view.sizes()), first_dim + j);
  }
  // Bool and uint8 are one byte, nonzero = true: read the bytes as they are.
  const Tensor host = mask.cpu().contiguous();
  const auto* bytes = static_cast<const uint8_t*>(host.data_ptr());
  const std::vector<uint8_t> bits(bytes, bytes + host.numel());
  std::vector<Advanced> out(static_cast<size_t>(k));
  for (int64_t j = 0; j < k; ++j) out[j].dim = first_dim + j;
  const Shape& sizes = mask.sizes();
  for (int64_t i = 0; i < static_cast<int64_t>(bits.size()); ++i) {
    if (!bits[i]) continue;
    int64_t rest = i;
    for (int64_t j = k - 1; j >= 0; --j) {
      out[j].values.push_back(rest % sizes[j]);
      rest /= sizes[j];
    }
  }
  for (Advanced& a : out) a.shape = {static_cast<int64_t>(a.values.size())};
  return out;
}

// NumPy's advanced indexing over the basic-indexed view: the indexed dims flattened
// into one and gathered with one flat index. The result dims of the (broadcast)
// index take the place of the indexed dims when these are adjacent, else lead.
Tensor advanced_index(const Tensor& view, const std::vector<Advanced>& adv) {
  Shape bshape;
  for (const Advanced& a : adv) bshape = broadcast_shapes("index", bshape, a.shape);
  bool adjacent = true;
  for (size_t j = 1; j < adv.size(); ++j) adjacent = adjacent && adv[j].dim == adv[j - 1].dim + 1;
  std::vector<int64_t> order, rest;
  std::vector<bool> indexed(static_cast<size_t>(view.dim()), false);
  for (const Advanced& a : adv) indexed[a.dim] = true;
  for (int64_t d = 0; d < view.dim(); ++d)
    if (!indexed[d]) rest.push_back(d);
  const int64_t at = adjacent ? adv[0].dim : 0;
  order.assign(rest.begin(), rest.begin() + (adjacent ? at : 0));
  for (const Advanced& a : adv) order.push_back(a.dim);
  order.insert(order.end(), rest.begin() + (adjacent ? at : 0), rest.end());
  const Tensor moved = view.permute(order);

  Shape flat_shape(moved.sizes().begin(), moved.sizes().begin() + at);
  int64_t flat_size = 1;
  for (const Advanced& a : adv) flat_size *= view.size(a.dim);
  flat_shape.push_back(flat_size);
  const auto after = moved.sizes().begin() + at + static_cast<int64_t>(adv.size());
  flat_shape.insert(flat_shape.end(), after, moved.sizes().end());
  const Tensor flat = moved.reshape(flat_shape);

  // The flat index, element by element of the broadcast index shape.
  const int64_t n = shape_numel(bshape);
  std::vector<int64_t> lin(static_cast<size_t>(n), 0);
  int64_t mult = 1;
  for (int64_t j = static_cast<int64_t>(adv.size()) - 1; j >= 0; --j) {
    const Advanced& a = adv[j];
    const Shape st = contiguous_strides(a.shape);
    const int64_t lead = static_cast<int64_t>(bshape.size() - a.shape.size());
    for (int64_t e = 0; e < n; ++e) {
      int64_t rem = e, off = 0;
      for (int64_t d = static_cast<int64_t>(bshape.size()) - 1; d >= lead; --d) {
        const int64_t c = rem % bshape[d];
        rem /= bshape[d];
        if (a.shape[d - lead] != 1) off += c * st[d - lead];
      }
      lin[e] += a.values[off] * mult;
    }
    mult *= view.size(a.dim);
  }
  const Tensor idx = Tensor::from_vector(lin, {n}).to(view.device());
  const Tensor out = index_select_as("index", flat, at, idx, /*checked=*/true);
  Shape out_shape(flat_shape.begin(), flat_shape.begin() + at);
  out_shape.insert(out_shape.end(), bshape.begin(), bshape.end());
  out_shape.insert(out_shape.end(), flat_shape.begin() + at + 1, flat_shape.end());
  return out.reshape(out_shape);
}

// The basic-indexed view, and the advanced indices left to apply to it.
Tensor index_impl(const Tensor& self, const std::vector<TensorIndex>& indices,
                  std::vector<Advanced>* advanced) {
  TT_CHECK(self.defined(), "index: the tensor is undefined");
  int64_t consumed = 0, ellipses = 0;
  for (const TensorIndex& ix : indices) {
    consumed += dims_consumed(ix);
    if (ix.kind() == TensorIndex::Kind::Ellipsis) ++ellipses;
  }
  TT_CHECK(ellipses <= 1, "index: an index can have only one Ellipsis but got {}", ellipses);
  TT_CHECK(consumed <= self.dim(),
           "index: too many indices for a tensor of dimension {}: the indices address {} "
           "dimensions",
           self.dim(), consumed);
  Tensor v = self;
  int64_t cur = 0;
  for (const TensorIndex& ix : indices) {
    switch (ix.kind()) {
      case TensorIndex::Kind::None:
        v = v.unsqueeze(cur++);
        break;
      case TensorIndex::Kind::Ellipsis:
        cur += self.dim() - consumed;
        break;
      case TensorIndex::Kind::Integer: {
        const int64_t n = v.size(cur), i = ix.integer();
        TT_CHECK(i >= -n && i < n,
                 "index: index {} is out of range for dimension {} of size {} (expected an "
                 "index in [{}, {}])",
                 i, cur, n, -n, n - 1);
        v = v.select(cur, i < 0 ? i + n : i);
        break;
      }
      case TensorIndex::Kind::Slice:
        v = slice_view(v, cur++, ix.slice());
        break;
      case TensorIndex::Kind::Tensor: {
        const Tensor& t = ix.tensor();
        TT_CHECK(t.defined(), "index: an index tensor is undefined");
        TT_CHECK(t.device() == self.device(),
                 "index: an index tensor is on {} but the tensor is on {}; both must be on the "
                 "same device",
                 t.device().str(), self.device().str());
        if (is_mask_dtype(t.dtype())) {
          const Tensor m = t.dim() == 0 ? t.reshape({1}) : t;
          if (t.dim() == 0) v = v.unsqueeze(cur);
          for (Advanced& a : mask_positions(m, cur, v)) advanced->push_back(std::move(a));
          cur += m.dim();
        } else {
          TT_CHECK(is_index_dtype(t.dtype()),
                   "index: an index tensor has dtype {}; expected int64, int32, bool or uint8",
                   dtype_name(t.dtype()));
          const int64_t n = v.size(cur);
          advanced->push_back({cur, t.sizes(), checked_values("index", t, cur, n, true)});
          ++cur;
        }
        break;
      }
    }
  }
  return v;
}

}  // namespace

Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index) {
  const RecordScope record(OpKind::kOther);
  return record.done(
      index_select_as("index_select", x, dim, index, false), {x, index}, "index_select",
      [dim](const std::vector<Tensor>& in) { return index_select(in[0], dim, in[1]); });
}

Tensor gather(const Tensor& x, int64_t dim, const Tensor& index) {
  const RecordScope record(OpKind::kOther);
  const char* op = "gather";
  check_index_tensor(op, x, index);
  const Tensor in = x.dim() == 0 ? x.reshape({1}) : x;
  const Tensor idx_in = index.dim() == 0 ? index.reshape({1}) : index;
  TT_CHECK(idx_in.dim() == in.dim(),
           "{}: index has shape {} but input has shape {}; expected index of the same rank", op,
           shape_str(index.sizes()), shape_str(x.sizes()));
  const int64_t d = wrap_dim(op, dim, x.dim());
  for (int64_t k = 0; k < in.dim(); ++k) {
    TT_CHECK(k == d || idx_in.size(k) <= in.size(k),
             "{}: index has shape {} but input has shape {}; expected index.size({}) <= "
             "input.size({}) outside dimension {}",
             op, shape_str(index.sizes()), shape_str(x.sizes()), k, k, d);
  }
  const Tensor idx = checked_index(op, idx_in, d, in.size(d));
  Tensor out = Tensor::empty(idx_in.sizes(), x.dtype(), x.device());
  run_gather(op, in, d, idx, out);
  return record.done(out.reshape(index.sizes()), {x, index}, op,
                     [dim](const std::vector<Tensor>& in) { return gather(in[0], dim, in[1]); });
}

Tensor embedding(const Tensor& weight, const Tensor& indices) {
  const RecordScope record(OpKind::kOther);
  const char* op = "embedding";
  TT_CHECK(weight.defined() && weight.dim() == 2,
           "{}: weight must be a 2-D tensor [num_embeddings, embedding_dim] but got {}", op,
           weight.defined() ? shape_str(weight.sizes()) : std::string("an undefined tensor"));
  check_index_tensor(op, weight, indices);
  Shape out_shape = indices.sizes();
  out_shape.push_back(weight.size(1));
  return record.done(index_select_as(op, weight, 0, indices.reshape({-1}), false).view(out_shape),
                     {weight, indices}, op,
                     [](const std::vector<Tensor>& in) { return embedding(in[0], in[1]); });
}

Tensor dropout(const Tensor& x, double p, bool train, std::optional<uint64_t> seed) {
  // Replayed with the same arguments: without a seed, each replay draws the next one from
  // the global generator, as each eager call does.
  const RecordScope record(OpKind::kOther);
  const auto replay = [p, train, seed](const std::vector<Tensor>& in) {
    return dropout(in[0], p, train, seed);
  };
  const char* op = "dropout";
  TT_CHECK(p >= 0.0 && p <= 1.0, "{}: probability p must be in [0, 1] but got {}", op, p);
  check_required(op, "input", x);
  if (!train || p == 0.0) return x;
  if (p == 1.0) return record.done(zeros_like(x), {x}, op, replay);
  const uint64_t s = seed ? *seed : next_generator_seed();
  return record.done(TT_RUN(op, x.device(), cpu::dropout(x, p, s), cuda::dropout(x, p, s)), {x}, op,
                     replay);
}

}  // namespace tt::ops

namespace tt {

Tensor Tensor::index(const std::vector<indexing::TensorIndex>& indices) const {
  std::vector<ops::Advanced> advanced;
  const Tensor view = ops::index_impl(*this, indices, &advanced);
  return advanced.empty() ? view : ops::advanced_index(view, advanced);
}

Tensor Tensor::index(std::initializer_list<indexing::TensorIndex> indices) const {
  return index(std::vector<indexing::TensorIndex>(indices));
}

Tensor Tensor::operator[](int64_t i) const {
  TT_CHECK(defined() && dim() > 0, "operator[]: a {} tensor cannot be indexed",
           defined() ? "0-d" : "undefined");
  return index({i});
}

const Tensor& Tensor::index_put_(std::initializer_list<indexing::TensorIndex> indices,
                                 const Tensor& value) const {
  std::vector<ops::Advanced> advanced;
  const Tensor view = ops::index_impl(*this, indices, &advanced);
  TT_CHECK(advanced.empty(),
           "index_put_: only integers, slices, None and Ellipsis are supported; writing through "
           "an index tensor is not");
  TT_CHECK(value.defined(), "index_put_: value is undefined; expected a tensor");
  TT_CHECK(value.device() == device(), "index_put_: value is on {} but the tensor is on {}",
           value.device().str(), device().str());
  ops::broadcast_shapes("index_put_", view.sizes(), value.sizes());
  ops::detail::copy_into("index_put_", view, value.to(dtype()).expand(view.sizes()));
  return *this;
}

const Tensor& Tensor::index_put_(std::initializer_list<indexing::TensorIndex> indices,
                                 double value) const {
  return index_put_(indices, Tensor::full({}, value, dtype(), device()));
}

}  // namespace tt
