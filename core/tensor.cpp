#include "core/tensor.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <numeric>
#include <sstream>

#include "core/capture.h"
#include "core/checked.h"
#include "core/convert.h"
#include "core/overlap.h"
#include "core/philox.h"
// Declarations only: without TT_CUDA the GPU fills are named (fill_counter_based's
// lambdas) but never called.
#include "core/cuda/runtime.h"

namespace tt {

// ---------------------------------------------------------------- shapes

std::string shape_str(const Shape& s) { return fmt::format("[{}]", fmt::join(s, ", ")); }

namespace {

// The product of max(size, 1) over the shape, or nullopt when it overflows int64_t.
// Zero sizes count as 1 so that a shape whose contiguous strides would overflow is
// refused even when it holds no elements ([0, 2^63-1, 2^63-1]).
bool checked_extent(const Shape& s, int64_t* extent) {
  int64_t acc = 1;
  for (int64_t d : s) {
    if (__builtin_mul_overflow(acc, std::max<int64_t>(d, 1), &acc)) return false;
  }
  *extent = acc;
  return true;
}

[[noreturn]] void fail_too_large(const Shape& s) {
  TT_FAIL("tensor shape {} is too large: its element count does not fit in a 64-bit signed integer",
          shape_str(s));
}

}  // namespace

int64_t shape_numel(const Shape& s) {
  int64_t extent = 1;
  if (!checked_extent(s, &extent)) fail_too_large(s);
  for (int64_t d : s) {
    TT_CHECK(d >= 0, "tensor shape {} has a negative size; sizes must be non-negative",
             shape_str(s));
  }
  for (int64_t d : s) {
    if (d == 0) return 0;
  }
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

Shape contiguous_strides(const Shape& s) {
  int64_t extent = 1;
  if (!checked_extent(s, &extent)) fail_too_large(s);
  Shape st(s.size());
  int64_t acc = 1;
  for (size_t i = s.size(); i-- > 0;) {
    st[i] = acc;
    acc *= std::max<int64_t>(s[i], 1);
  }
  return st;
}

namespace {

void check_shape(const Shape& s) {
  TT_CHECK(s.size() <= static_cast<size_t>(kMaxRank), "tensor rank {} exceeds the maximum of {}",
           s.size(), kMaxRank);
  for (int64_t d : s) TT_CHECK(d >= 0, "tensor sizes must be non-negative, got {}", shape_str(s));
  int64_t extent = 1;
  if (!checked_extent(s, &extent)) fail_too_large(s);
}

// The byte size of a tensor of shape `s` (checked by check_shape) and element size
// `element_size`, refusing sizes that do not fit in memory's address range.
size_t checked_nbytes(const Shape& s, size_t element_size) {
  int64_t nbytes = 0;
  if (__builtin_mul_overflow(shape_numel(s), static_cast<int64_t>(element_size), &nbytes)) {
    TT_FAIL(
        "tensor shape {} is too large: {} bytes per element times {} elements does not fit in "
        "a 64-bit signed byte count",
        shape_str(s), element_size, shape_numel(s));
  }
  return static_cast<size_t>(nbytes);
}

int64_t wrap_dim(int64_t d, int64_t rank, const char* what) {
  int64_t r = std::max<int64_t>(rank, 1);
  TT_CHECK(d >= -r && d < r, "{}: dimension {} is out of range for a tensor of rank {}", what, d,
           rank);
  return d < 0 ? d + r : d;
}

#if !TT_CUDA
[[noreturn]] void no_cuda() {
  TT_FAIL("this operation needs CUDA but tensortune was built without CUDA (TT_CUDA=OFF)");
}
#endif

// Calls fn(linear_index, storage_offset) for every element of a strided view, in
// row-major order.
template <typename Fn>
void for_each_offset(const Shape& sizes, const Shape& strides, int64_t offset, Fn fn) {
  int64_t n = shape_numel(sizes);
  if (n == 0) return;
  int rank = static_cast<int>(sizes.size());
  std::vector<int64_t> idx(rank, 0);
  int64_t off = offset;
  for (int64_t i = 0; i < n; ++i) {
    fn(i, off);
    for (int d = rank - 1; d >= 0; --d) {
      if (++idx[d] < sizes[d]) {
        off += strides[d];
        break;
      }
      off -= strides[d] * (sizes[d] - 1);
      idx[d] = 0;
    }
  }
}

// PyTorch's rule for viewing a strided tensor with a new shape without copying;
// returns false when the strides are incompatible.
bool compute_view_strides(const Shape& old_sizes, const Shape& old_strides, const Shape& new_sizes,
                          Shape& new_strides) {
  new_strides.assign(new_sizes.size(), 0);
  // Empty tensors, and 0-d ones (one element: every view of it is valid).
  if (shape_numel(old_sizes) == 0 || old_sizes.empty()) {
    new_strides = contiguous_strides(new_sizes);
    return true;
  }
  int64_t view_d = static_cast<int64_t>(new_sizes.size()) - 1;
  int64_t chunk_base_stride = old_strides.empty() ? 1 : old_strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t tensor_d = static_cast<int64_t>(old_sizes.size()) - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= old_sizes[tensor_d];
    if (tensor_d == 0 || (old_sizes[tensor_d - 1] != 1 &&
                          old_strides[tensor_d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
        new_strides[view_d] = view_numel * chunk_base_stride;
        view_numel *= new_sizes[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (tensor_d > 0) {
        chunk_base_stride = old_strides[tensor_d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

Shape infer_sizes(Shape sizes, int64_t numel, const Shape& from) {
  int64_t infer = -1, known = 1;
  bool overflow = false;  // the known sizes' product (so the shape) cannot match numel
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      TT_CHECK(infer < 0, "view/reshape: only one dimension can be -1, got {}", shape_str(sizes));
      infer = static_cast<int64_t>(i);
    } else {
      TT_CHECK(sizes[i] >= 0, "view/reshape: invalid size {} in {}", sizes[i], shape_str(sizes));
      overflow = overflow || __builtin_mul_overflow(known, sizes[i], &known);
    }
  }
  int64_t extent = 1;
  TT_CHECK(!overflow && checked_extent(sizes, &extent),
           "view/reshape: shape {} is invalid for a tensor of shape {} ({} elements)",
           shape_str(sizes), shape_str(from), numel);
  if (infer >= 0) {
    TT_CHECK(known != 0 && numel % known == 0,
             "view/reshape: shape {} is invalid for a tensor of shape {} ({} elements)",
             shape_str(sizes), shape_str(from), numel);
    sizes[infer] = numel / known;
  }
  TT_CHECK(shape_numel(sizes) == numel,
           "view/reshape: shape {} is invalid for a tensor of shape {} ({} elements)",
           shape_str(sizes), shape_str(from), numel);
  return sizes;
}

Tensor make_view(const Tensor& base, Shape sizes, Shape strides, int64_t offset) {
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = base.storage();
  impl->sizes = std::move(sizes);
  impl->strides = std::move(strides);
  impl->offset = offset;
  impl->dtype = base.dtype();
  return Tensor(impl);
}

// Converts n contiguous elements of src_type at src into dst_type at dst (CPU).
void convert_elements(DType dst_type, void* dst, DType src_type, const void* src, int64_t n) {
  visit_dtype(dst_type, "to", [&](auto dst_zero) {
    using Dst = decltype(dst_zero);
    visit_dtype(src_type, "to", [&](auto src_zero) {
      using Src = decltype(src_zero);
      const Src* s = static_cast<const Src*>(src);
      Dst* d = static_cast<Dst*>(dst);
#pragma omp parallel for schedule(static) if (n > 65536)
      for (int64_t i = 0; i < n; ++i) d[i] = convert_value<Dst>(s[i]);
    });
  });
}

// The seeded factories: element i is elem(i), counter-based (philox), so the values do
// not depend on the device or the thread count; on a GPU gpu(data, n, device) writes
// the same values.
template <typename T, typename Elem, typename Gpu>
Tensor fill_counter_based(Tensor t, const Elem& elem, [[maybe_unused]] const Gpu& gpu) {
  const int64_t n = t.numel();
  if (t.device().is_cpu()) {
    T* p = t.data<T>();
#pragma omp parallel for schedule(static) if (n > 65536)
    for (int64_t i = 0; i < n; ++i) p[i] = elem(static_cast<uint64_t>(i));
  } else {
#if TT_CUDA
    gpu(t.data<T>(), n, t.device().index);
#else
    no_cuda();
#endif
  }
  return t;
}

}  // namespace

// ---------------------------------------------------------------- factories

TensorImpl& Tensor::impl() const {
  TT_CHECK(impl_ != nullptr, "operation on an undefined tensor");
  return *impl_;
}

Tensor Tensor::empty(const Shape& sizes, DType dtype, Device device) {
  check_shape(sizes);
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = Storage::allocate(checked_nbytes(sizes, dtype_size(dtype)), device);
  impl->sizes = sizes;
  impl->strides = contiguous_strides(sizes);
  impl->dtype = dtype;
  Tensor out(impl);
  capture::note_allocation(out);
  return out;
}

Tensor Tensor::zeros(const Shape& sizes, DType dtype, Device device) {
  return full(sizes, 0.0, dtype, device);
}

Tensor Tensor::full(const Shape& sizes, double value, DType dtype, Device device) {
  const capture::FactoryScope factory;
  Tensor t = empty(sizes, dtype, device);
  int64_t n = t.numel();
  unsigned char elem[8] = {};
  TT_CHECK(dtype_has_kernels(dtype) || value == 0.0, "full: only zeros are supported for {}",
           dtype_name(dtype));
  if (dtype_has_kernels(dtype)) {
    visit_dtype(dtype, "full", [&](auto zero) {
      using T = decltype(zero);
      // As PyTorch: a value an integer type cannot hold (NaN, inf, out of range) is
      // refused, not converted.
      T v;
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        v = checked::to_int<T>("full", value);
      } else {
        v = convert_value<T>(value);
      }
      std::memcpy(elem, &v, sizeof v);
    });
  }
  size_t es = dtype_size(dtype);
  if (device.is_cpu()) {
    auto* p = static_cast<unsigned char*>(t.data_ptr());
    for (int64_t i = 0; i < n; ++i) std::memcpy(p + i * es, elem, es);
  } else {
#if TT_CUDA
    cuda::fill_value(t.data_ptr(), n, es, elem, device.index);
#else
    no_cuda();
#endif
  }
  return t;
}

template <typename T>
Tensor Tensor::from_vector(const std::vector<T>& values, const Shape& sizes, Device device) {
  const capture::FactoryScope factory;
  check_shape(sizes);
  TT_CHECK(static_cast<int64_t>(values.size()) == shape_numel(sizes),
           "from_vector: {} values do not fill a tensor of shape {} ({} elements)", values.size(),
           shape_str(sizes), shape_numel(sizes));
  Tensor t = empty(sizes, DTypeOf<T>::value, Device::cpu());
  if constexpr (std::is_same_v<T, bool>) {
    // std::vector<bool> is packed bits: element by element.
    bool* p = t.data<bool>();
    for (size_t i = 0; i < values.size(); ++i) p[i] = values[i];
  } else {
    if (!values.empty()) std::memcpy(t.data_ptr(), values.data(), values.size() * sizeof(T));
  }
  return t.to(device);
}

template Tensor Tensor::from_vector<float>(const std::vector<float>&, const Shape&, Device);
template Tensor Tensor::from_vector<double>(const std::vector<double>&, const Shape&, Device);
template Tensor Tensor::from_vector<int64_t>(const std::vector<int64_t>&, const Shape&, Device);
template Tensor Tensor::from_vector<int32_t>(const std::vector<int32_t>&, const Shape&, Device);
template Tensor Tensor::from_vector<uint8_t>(const std::vector<uint8_t>&, const Shape&, Device);
template Tensor Tensor::from_vector<bool>(const std::vector<bool>&, const Shape&, Device);

Tensor Tensor::uniform(const Shape& sizes, double lo, double hi, uint64_t seed, Device device) {
  const capture::FactoryScope factory;
  TT_CHECK(lo <= hi, "uniform: low bound {} is above high bound {}", lo, hi);
  const float flo = static_cast<float>(lo), span = static_cast<float>(hi - lo);
  return fill_counter_based<float>(
      empty(sizes, DType::F32, device),
      [&](uint64_t i) { return philox::uniform_in(seed, i, flo, span); },
      [&](float* p, int64_t n, int index) { cuda::fill_uniform(p, n, seed, lo, hi, index); });
}

Tensor Tensor::rand(const Shape& sizes, Device device) {
  return rand(sizes, next_generator_seed(), device);
}

Tensor Tensor::randn(const Shape& sizes, Device device) {
  return randn(sizes, next_generator_seed(), device);
}

Tensor Tensor::randint(int64_t low, int64_t high, const Shape& sizes, uint64_t seed,
                       Device device) {
  const capture::FactoryScope factory;
  TT_CHECK(low < high, "randint: low ({}) must be below high ({}) to give values in [low, high)",
           low, high);
  // high - low in unsigned arithmetic: [INT64_MIN, INT64_MAX) does not overflow.
  const uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  return fill_counter_based<int64_t>(
      empty(sizes, DType::I64, device),
      [&](uint64_t i) { return philox::randint(seed, i, low, range); },
      [&](int64_t* p, int64_t n, int index) { cuda::fill_randint(p, n, seed, low, range, index); });
}

Tensor Tensor::randint(int64_t low, int64_t high, const Shape& sizes, Device device) {
  return randint(low, high, sizes, next_generator_seed(), device);
}

Tensor Tensor::arange(double start, double end, double step, DType dtype, Device device) {
  const capture::FactoryScope factory;
  TT_CHECK(step != 0.0 && std::isfinite(step), "arange: step must be finite and nonzero but is {}",
           step);
  TT_CHECK(std::isfinite(start) && std::isfinite(end),
           "arange: start and end must be finite but are {} and {}", start, end);
  TT_CHECK((end - start) / step >= 0.0 || start == end,
           "arange: the step {} goes away from end {} starting at {}", step, end, start);
  TT_CHECK(dtype == DType::F32 || dtype == DType::F64 || dtype == DType::I64 || dtype == DType::I32,
           "arange: dtype {} is not supported; expected float32, float64, int64 or int32",
           dtype_name(dtype));
  // PyTorch's size: ceil((end - start) / step), computed in double; (end - start) may
  // overflow to inf, and a count past int64 is refused before any allocation.
  const double count = std::ceil((end - start) / step);
  TT_CHECK(checked::fits<int64_t>(count),
           "arange: [{}, {}) in steps of {} has {} elements, more than a tensor can hold", start,
           end, step, count);
  const int64_t n = std::max<int64_t>(static_cast<int64_t>(count), 0);
  Tensor values = empty({n}, DType::F64, Device::cpu());
  double* v = values.data<double>();
  for (int64_t i = 0; i < n; ++i) v[i] = start + static_cast<double>(i) * step;
  return values.to(dtype).to(device);
}

Tensor Tensor::rand(const Shape& sizes, uint64_t seed, Device device) {
  return uniform(sizes, 0.0, 1.0, seed, device);
}

Tensor Tensor::randn(const Shape& sizes, uint64_t seed, Device device) {
  const capture::FactoryScope factory;
  return fill_counter_based<float>(
      empty(sizes, DType::F32, device), [&](uint64_t i) { return philox::normal(seed, i); },
      [&](float* p, int64_t n, int index) { cuda::fill_normal(p, n, seed, index); });
}

// ---------------------------------------------------------------- properties

int64_t Tensor::size(int64_t d) const {
  TT_CHECK(dim() > 0, "size: dimension {} was asked of a 0-d tensor, which has no dimensions", d);
  return impl().sizes[wrap_dim(d, dim(), "size")];
}
int64_t Tensor::stride(int64_t d) const {
  TT_CHECK(dim() > 0, "stride: dimension {} was asked of a 0-d tensor, which has no dimensions", d);
  return impl().strides[wrap_dim(d, dim(), "stride")];
}

bool Tensor::is_contiguous() const {
  const auto& s = impl().sizes;
  const auto& st = impl().strides;
  int64_t expected = 1;
  for (size_t i = s.size(); i-- > 0;) {
    if (s[i] == 1) continue;
    if (st[i] != expected) return false;
    expected *= s[i];
  }
  return true;
}

void* Tensor::data_ptr() const {
  return static_cast<char*>(impl().storage->data()) +
         impl().offset * static_cast<int64_t>(dtype_size(impl().dtype));
}

template <typename T>
T* Tensor::data() const {
  TT_CHECK(dtype() == DTypeOf<T>::value, "data<{}>(): the tensor holds {}",
           dtype_name(DTypeOf<T>::value), dtype_name(dtype()));
  return static_cast<T*>(data_ptr());
}
template float* Tensor::data<float>() const;
template double* Tensor::data<double>() const;
template int64_t* Tensor::data<int64_t>() const;
template int32_t* Tensor::data<int32_t>() const;
template uint8_t* Tensor::data<uint8_t>() const;
template bool* Tensor::data<bool>() const;

// ---------------------------------------------------------------- views

Tensor Tensor::view(const Shape& sizes) const {
  Shape target = infer_sizes(sizes, numel(), this->sizes());
  check_shape(target);
  Shape strides;
  TT_CHECK(compute_view_strides(this->sizes(), this->strides(), target, strides),
           "view: a tensor of shape {} with strides {} cannot be viewed as {}; use reshape()",
           shape_str(this->sizes()), shape_str(this->strides()), shape_str(target));
  return make_view(*this, target, strides, offset());
}

Tensor Tensor::reshape(const Shape& sizes) const {
  Shape target = infer_sizes(sizes, numel(), this->sizes());
  check_shape(target);
  Shape strides;
  if (compute_view_strides(this->sizes(), this->strides(), target, strides)) {
    return make_view(*this, target, strides, offset());
  }
  return contiguous().view(target);
}

Tensor Tensor::unsqueeze(int64_t d) const {
  int64_t rank = dim();
  TT_CHECK(d >= -(rank + 1) && d <= rank,
           "unsqueeze: dimension {} is out of range for a tensor of rank {}", d, rank);
  if (d < 0) d += rank + 1;
  TT_CHECK(rank + 1 <= kMaxRank, "unsqueeze: the result would exceed rank {}", kMaxRank);
  Shape s = sizes(), st = strides();
  int64_t new_stride = d < rank ? st[d] * s[d] : 1;
  s.insert(s.begin() + d, 1);
  st.insert(st.begin() + d, new_stride);
  return make_view(*this, s, st, offset());
}

Tensor Tensor::squeeze(int64_t d) const {
  if (dim() == 0) return *this;
  d = wrap_dim(d, dim(), "squeeze");
  if (sizes()[d] != 1) return make_view(*this, sizes(), strides(), offset());
  Shape s = sizes(), st = strides();
  s.erase(s.begin() + d);
  st.erase(st.begin() + d);
  return make_view(*this, s, st, offset());
}

Tensor Tensor::squeeze() const {
  Shape s, st;
  for (int64_t i = 0; i < dim(); ++i) {
    if (sizes()[i] != 1) {
      s.push_back(sizes()[i]);
      st.push_back(strides()[i]);
    }
  }
  return make_view(*this, s, st, offset());
}

Tensor Tensor::permute(const std::vector<int64_t>& dims) const {
  TT_CHECK(static_cast<int64_t>(dims.size()) == dim(),
           "permute: got {} dimensions for a tensor of rank {}", dims.size(), dim());
  Shape s(dims.size()), st(dims.size());
  std::vector<bool> seen(dims.size(), false);
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = wrap_dim(dims[i], dim(), "permute");
    TT_CHECK(!seen[d], "permute: dimension {} appears twice in {}", d, shape_str(dims));
    seen[d] = true;
    s[i] = sizes()[d];
    st[i] = strides()[d];
  }
  return make_view(*this, s, st, offset());
}

Tensor Tensor::transpose(int64_t a, int64_t b) const {
  a = wrap_dim(a, dim(), "transpose");
  b = wrap_dim(b, dim(), "transpose");
  if (dim() == 0) return make_view(*this, sizes(), strides(), offset());  // as PyTorch
  std::vector<int64_t> dims(dim());
  std::iota(dims.begin(), dims.end(), 0);
  std::swap(dims[a], dims[b]);
  return permute(dims);
}

Tensor Tensor::narrow(int64_t d, int64_t start, int64_t length) const {
  d = wrap_dim(d, dim(), "narrow");
  TT_CHECK(dim() > 0, "narrow: cannot narrow a 0-d tensor");
  const int64_t size = sizes()[d];
  if (start < 0) start += size;
  // Compared without forming start + length, which can overflow (start = INT64_MAX).
  if (!(start >= 0 && length >= 0 && start <= size && length <= size - start)) {
    int64_t end = 0;
    const std::string end_text = __builtin_add_overflow(start, length, &end)
                                     ? fmt::format("{} + {}", start, length)
                                     : std::to_string(end);
    TT_FAIL("narrow: range [{}, {}) is out of bounds for dimension {} of size {}", start, end_text,
            d, size);
  }
  Shape s = sizes();
  s[d] = length;
  return make_view(*this, s, strides(), offset() + start * strides()[d]);
}

Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim) const {
  if (dim() == 0) return reshape({1});
  start_dim = wrap_dim(start_dim, dim(), "flatten");
  end_dim = wrap_dim(end_dim, dim(), "flatten");
  TT_CHECK(start_dim <= end_dim,
           "flatten: start_dim {} comes after end_dim {} (after counting negative dims from the "
           "end of a tensor of rank {})",
           start_dim, end_dim, dim());
  Shape s(sizes().begin(), sizes().begin() + start_dim);
  s.push_back(shape_numel(Shape(sizes().begin() + start_dim, sizes().begin() + end_dim + 1)));
  s.insert(s.end(), sizes().begin() + end_dim + 1, sizes().end());
  return reshape(s);
}

Tensor Tensor::select(int64_t d, int64_t index) const {
  TT_CHECK(dim() > 0, "select: cannot select from a 0-d tensor");
  d = wrap_dim(d, dim(), "select");
  const int64_t n = sizes()[d];
  TT_CHECK(index >= -n && index < n, "select: index {} is out of range for dimension {} of size {}",
           index, d, n);
  if (index < 0) index += n;
  Shape s = sizes(), st = strides();
  s.erase(s.begin() + d);
  st.erase(st.begin() + d);
  return make_view(*this, s, st, offset() + index * strides()[d]);
}

Tensor Tensor::expand(const Shape& target) const {
  const int64_t rank = static_cast<int64_t>(target.size());
  TT_CHECK(rank >= dim(),
           "expand: the target shape {} has fewer dimensions than the tensor's shape {}",
           shape_str(target), shape_str(sizes()));
  TT_CHECK(rank <= kMaxRank, "expand: the target shape {} exceeds the maximum rank {}",
           shape_str(target), kMaxRank);
  Shape s(rank), st(rank);
  for (int64_t i = rank - 1; i >= 0; --i) {
    const int64_t own = i - (rank - dim());  // this tensor's dim, right-aligned
    const int64_t want = target[i];
    if (own < 0) {
      TT_CHECK(want >= 0, "expand: the new leading dimension {} of {} must be non-negative", i,
               shape_str(target));
      s[i] = want;
      st[i] = 0;
      continue;
    }
    const int64_t have = sizes()[own];
    if (want == -1 || want == have) {
      s[i] = have;
      st[i] = strides()[own];
      continue;
    }
    TT_CHECK(have == 1,
             "expand: the tensor of shape {} cannot be expanded to {}: dimension {} has size {} "
             "(only size-1 dimensions can be expanded)",
             shape_str(sizes()), shape_str(target), own, have);
    TT_CHECK(want >= 0, "expand: invalid size {} in {}", want, shape_str(target));
    s[i] = want;
    st[i] = 0;
  }
  check_shape(s);  // the element count of the expanded shape fits in int64_t
  return make_view(*this, s, st, offset());
}

// ---------------------------------------------------------------- copies

Tensor Tensor::as_strided(const Shape& sizes, const Shape& strides, int64_t offset) const {
  TT_CHECK(sizes.size() == strides.size(),
           "as_strided: {} sizes but {} strides; give one stride per dimension", sizes.size(),
           strides.size());
  check_shape(sizes);
  int64_t last = offset;  // the largest element offset the view reaches
  for (size_t d = 0; d < sizes.size(); ++d) {
    TT_CHECK(strides[d] >= 0, "as_strided: stride {} of dimension {} is negative", strides[d], d);
    if (sizes[d] > 0) last += (sizes[d] - 1) * strides[d];
  }
  const int64_t capacity = static_cast<int64_t>(storage()->nbytes() / dtype_size(dtype()));
  TT_CHECK(offset >= 0 && (shape_numel(sizes) == 0 || last < capacity),
           "as_strided: sizes {}, strides {} and offset {} reach element {}, but the storage "
           "holds {} elements",
           shape_str(sizes), shape_str(strides), offset, last, capacity);
  return make_view(*this, sizes, strides, offset);
}

Tensor Tensor::contiguous() const {
  if (is_contiguous()) return *this;
  return clone();
}

Tensor Tensor::clone() const {
  const capture::OpScope scope;
  Tensor out = empty(sizes(), dtype(), device());
  size_t es = dtype_size(dtype());
  if (device().is_cpu()) {
    if (is_contiguous()) {
      std::memcpy(out.data_ptr(), data_ptr(), numel() * es);
    } else {
      auto* dst = static_cast<char*>(out.data_ptr());
      const auto* base = static_cast<const char*>(storage()->data());
      for_each_offset(sizes(), strides(), offset(), [&](int64_t i, int64_t off) {
        std::memcpy(dst + i * es, base + off * es, es);
      });
    }
  } else {
#if TT_CUDA
    cuda::strided_copy(out.data_ptr(), storage()->data(), es, static_cast<int>(dim()),
                       sizes().data(), strides().data(), offset(), device().index);
#else
    no_cuda();
#endif
  }
  if (capture::Recorder* r = scope.recorder()) r->copy(*this, out);
  return out;
}

Tensor Tensor::to(Device target) const {
  if (device() == target) return *this;
  capture::note_unreplayable_with(
      *this, [&] { return "to(" + target.str() + ") moves it to another device"; });
  const capture::OpScope scope;
  Tensor src = contiguous();
  Tensor out = empty(sizes(), dtype(), target);
  copy_bytes(out.data_ptr(), target, src.data_ptr(), src.device(), numel() * dtype_size(dtype()));
  return out;
}

Tensor Tensor::to(DType target) const {
  if (dtype() == target) return *this;
  const capture::OpScope scope;
  TT_CHECK(dtype_has_kernels(dtype()) && dtype_has_kernels(target),
           "to: cannot convert {} to {}; conversions exist between float32, float64, int64, "
           "int32, uint8 and bool",
           dtype_name(dtype()), dtype_name(target));
  Tensor src = contiguous();
  Tensor out = empty(sizes(), target, device());
  if (device().is_cpu()) {
    convert_elements(target, out.data_ptr(), dtype(), src.data_ptr(), numel());
  } else {
#if TT_CUDA
    cuda::convert(out.data_ptr(), target, src.data_ptr(), dtype(), numel(), device().index);
#else
    no_cuda();
#endif
  }
  if (capture::Recorder* r = scope.recorder()) r->copy(*this, out);
  return out;
}

void Tensor::copy_(const Tensor& src) {
  TT_CHECK(src.defined(), "copy_: the source tensor is undefined");
  capture::note_unreplayable(*this, "copy_ writes into it in place");
  TT_CHECK(src.sizes() == sizes(), "copy_: source shape {} does not match destination shape {}",
           shape_str(src.sizes()), shape_str(sizes()));
  // PyTorch's rules: no destination element written twice; the source is the
  // destination's very view (nothing to do) or shares none of its memory.
  assert_no_internal_overlap("copy_", *this);
  assert_no_partial_overlap("copy_", *this, src);
  if (overlap_status(*this, src) == MemOverlap::kFull) return;
  Tensor s = src.to(dtype()).to(device()).contiguous();
  // Disjoint elements of one storage: memcpy never sees both ends in one allocation.
  if (s.shares_storage_with(*this)) s = s.clone();
  size_t es = dtype_size(dtype());
  if (is_contiguous()) {
    copy_bytes(data_ptr(), device(), s.data_ptr(), device(), numel() * es);
    return;
  }
  TT_CHECK(device().is_cpu(), "copy_: a non-contiguous destination on {} is not supported",
           device().str());
  auto* base = static_cast<char*>(storage()->data());
  const auto* from = static_cast<const char*>(s.data_ptr());
  for_each_offset(sizes(), strides(), offset(),
                  [&](int64_t i, int64_t off) { std::memcpy(base + off * es, from + i * es, es); });
}

void Tensor::set_data(const Tensor& other) {
  TT_CHECK(defined() && other.defined(), "set_data: both tensors must be defined");
  *impl_ = *other.impl_;
}

template <typename T>
std::vector<T> Tensor::to_vector() const {
  capture::note_unreplayable(*this, "its values are read on the host (item/to_vector/printing)");
  const capture::OpScope scope;
  Tensor c = to(DTypeOf<T>::value).cpu().contiguous();
  std::vector<T> out(static_cast<size_t>(numel()));
  if constexpr (std::is_same_v<T, bool>) {
    const bool* p = c.data<bool>();
    for (size_t i = 0; i < out.size(); ++i) out[i] = p[i];
  } else {
    if (!out.empty()) std::memcpy(out.data(), c.data_ptr(), out.size() * sizeof(T));
  }
  return out;
}
template std::vector<float> Tensor::to_vector<float>() const;
template std::vector<double> Tensor::to_vector<double>() const;
template std::vector<int64_t> Tensor::to_vector<int64_t>() const;
template std::vector<int32_t> Tensor::to_vector<int32_t>() const;
template std::vector<uint8_t> Tensor::to_vector<uint8_t>() const;
template std::vector<bool> Tensor::to_vector<bool>() const;

double Tensor::item() const {
  TT_CHECK(numel() == 1, "item: the tensor has {} elements, expected exactly 1", numel());
  return to_vector<double>()[0];
}

// ---------------------------------------------------------------- printing

namespace {

// Which indices of a dimension of size n are shown: all when n <= max_per_dim, else
// the first and last `edge`.
std::vector<int64_t> shown_indices(int64_t n, int64_t max_per_dim) {
  const int64_t edge = std::max<int64_t>(max_per_dim / 2, 1);
  std::vector<int64_t> out;
  if (n <= max_per_dim) {
    for (int64_t i = 0; i < n; ++i) out.push_back(i);
  } else {
    for (int64_t i = 0; i < edge; ++i) out.push_back(i);
    for (int64_t i = n - edge; i < n; ++i) out.push_back(i);
  }
  return out;
}

// The shown values only, row-major over the shown indices: each corner block (one
// narrow per summarised dim) is brought to the CPU on its own, so a 7.5 GB tensor
// costs a few hundred values, never a copy of itself.
template <typename V>
std::vector<V> gather_shown(const Tensor& t, const std::vector<std::vector<int64_t>>& shown) {
  const int64_t rank = t.dim();
  Shape shown_sizes(rank);
  int64_t count = 1;
  for (int64_t d = 0; d < rank; ++d) {
    shown_sizes[d] = static_cast<int64_t>(shown[d].size());
    count *= shown_sizes[d];
  }
  std::vector<V> out(static_cast<size_t>(count));
  // Every corner: for each dim, a run of consecutive shown indices (1 or 2 runs).
  std::vector<std::vector<std::pair<int64_t, int64_t>>> runs(rank);  // (start, position)
  for (int64_t d = 0; d < rank; ++d) {
    for (size_t k = 0; k < shown[d].size(); ++k) {
      if (k == 0 || shown[d][k] != shown[d][k - 1] + 1)
        runs[d].emplace_back(shown[d][k], static_cast<int64_t>(k));
    }
  }
  auto run_length = [&](int64_t d, size_t r) {
    const int64_t end = r + 1 < runs[d].size() ? runs[d][r + 1].second : shown_sizes[d];
    return end - runs[d][r].second;
  };
  std::vector<size_t> pick(rank, 0);
  const Shape out_strides = contiguous_strides(shown_sizes);
  while (true) {
    Tensor block = t;
    int64_t base = 0;
    for (int64_t d = 0; d < rank; ++d) {
      block = block.narrow(d, runs[d][pick[d]].first, run_length(d, pick[d]));
      base += runs[d][pick[d]].second * out_strides[d];
    }
    const std::vector<V> v = block.to_vector<V>();
    const Shape& bs = block.sizes();
    // Scatter the block (row-major) into its place in `out`.
    std::vector<int64_t> idx(rank, 0);
    for (size_t i = 0; i < v.size(); ++i) {
      int64_t pos = base;
      for (int64_t d = 0; d < rank; ++d) pos += idx[d] * out_strides[d];
      out[static_cast<size_t>(pos)] = v[i];
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (++idx[d] < bs[d]) break;
        idx[d] = 0;
      }
    }
    int64_t d = rank - 1;
    for (; d >= 0; --d) {
      if (++pick[d] < runs[d].size()) break;
      pick[d] = 0;
    }
    if (d < 0) break;
  }
  return out;
}

template <typename V, typename Number>
void print_values(std::ostringstream& os, const std::vector<V>& v, const Shape& sizes,
                  const std::vector<std::vector<int64_t>>& shown, size_t dimi, int64_t base,
                  int indent, const Number& number) {
  if (sizes.empty()) {
    os << number(v[0]);
    return;
  }
  const auto& idx = shown[dimi];
  int64_t inner = 1;
  for (size_t i = dimi + 1; i < shown.size(); ++i) inner *= static_cast<int64_t>(shown[i].size());
  const bool last_dim = dimi + 1 == sizes.size();
  os << "[";
  for (size_t k = 0; k < idx.size(); ++k) {
    if (k > 0 && idx[k] != idx[k - 1] + 1)
      os << (last_dim ? "..., " : "...,\n" + std::string(indent + 1, ' '));
    if (last_dim) {
      os << number(v[base + static_cast<int64_t>(k)]);
      if (k + 1 < idx.size()) os << ", ";
    } else {
      print_values(os, v, sizes, shown, dimi + 1, base + static_cast<int64_t>(k) * inner,
                   indent + 1, number);
      if (k + 1 < idx.size()) os << ",\n" << std::string(indent + 1, ' ');
    }
  }
  os << "]";
}

// PyTorch's float format, chosen from the shown values: 4 decimals, or scientific
// (1.0000e-07) when the finite nonzero magnitudes span more than 1000x, exceed 1e8 or
// fall below 1e-4 (integral values: only above 1e8), so small values never print as 0.
bool wants_scientific(const std::vector<double>& v) {
  double lo = std::numeric_limits<double>::infinity(), hi = 0.0;
  bool integral = true;
  for (double x : v) {
    if (!std::isfinite(x)) continue;
    integral = integral && x == std::nearbyint(x);
    const double a = std::fabs(x);
    if (a == 0.0) continue;
    lo = std::min(lo, a);
    hi = std::max(hi, a);
  }
  if (hi == 0.0) return false;
  if (integral) return hi > 1e8;
  return hi / lo > 1000.0 || hi > 1e8 || lo < 1e-4;
}

}  // namespace

std::string Tensor::str(int64_t max_per_dim) const {
  if (!defined()) return "tensor(undefined)";
  std::ostringstream os;
  os << "tensor(shape=" << shape_str(sizes()) << ", dtype=" << dtype_name(dtype())
     << ", device=" << device().str() << ")\n";
  if (!dtype_has_kernels(dtype())) return os.str();
  if (numel() == 0) {
    os << "[]";
    return os.str();
  }
  std::vector<std::vector<int64_t>> shown;
  for (int64_t d = 0; d < dim(); ++d) shown.push_back(shown_indices(sizes()[d], max_per_dim));
  if (dtype_is_floating(dtype())) {
    const std::vector<double> v = gather_shown<double>(*this, shown);
    const bool sci = wants_scientific(v);
    print_values(os, v, sizes(), shown, 0, 0, 0, [sci](double x) {
      if (std::isnan(x)) return std::string("nan");
      if (std::isinf(x)) return std::string(x > 0 ? "inf" : "-inf");
      return sci ? fmt::format("{:.4e}", x) : fmt::format("{:.4f}", x);
    });
  } else if (dtype() == DType::Bool) {
    print_values(os, gather_shown<int64_t>(*this, shown), sizes(), shown, 0, 0, 0,
                 [](int64_t x) { return std::string(x ? "True" : "False"); });
  } else {
    print_values(os, gather_shown<int64_t>(*this, shown), sizes(), shown, 0, 0, 0,
                 [](int64_t x) { return std::to_string(x); });
  }
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << t.str(); }

// ---------------------------------------------------------------- creation like

Tensor scalar_tensor(int64_t value, Device device) {
  return Tensor::from_vector(std::vector<int64_t>{value}, {}, device);
}

Tensor zeros_like(const Tensor& t) { return Tensor::zeros(t.sizes(), t.dtype(), t.device()); }
Tensor ones_like(const Tensor& t) { return Tensor::ones(t.sizes(), t.dtype(), t.device()); }
Tensor full_like(const Tensor& t, double value) {
  return Tensor::full(t.sizes(), value, t.dtype(), t.device());
}

// ---------------------------------------------------------------- generator

namespace {
struct Generator {
  std::mutex mutex;
  uint64_t seed = 0;
  uint64_t draws = 0;
};
Generator& generator() {
  static Generator g;
  return g;
}
}  // namespace

void manual_seed(uint64_t seed) {
  Generator& g = generator();
  std::lock_guard<std::mutex> lock(g.mutex);
  g.seed = seed;
  g.draws = 0;
}

// Draw k uses the SplitMix64 finaliser of (seed, k): distinct draws get unrelated
// Philox streams, and the same manual_seed replays the same sequence.
uint64_t next_generator_seed() {
  // A replay would draw the recorded values again: a forward that draws cannot be.
  capture::note_unreplayable(Tensor(), "the forward draws from the global random generator");
  Generator& g = generator();
  std::lock_guard<std::mutex> lock(g.mutex);
  uint64_t x = g.seed * 0x9E3779B97F4A7C15ull + (++g.draws);
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace tt
