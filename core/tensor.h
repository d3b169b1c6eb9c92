// tt::Tensor: a strided view of a Storage. Copies of a Tensor are handles to the
// same tensor (as in libtorch): views (reshape, permute, narrow, ...) share storage
// and return new tensors; set_data() rebinds every handle at once, which is how
// Module::to() and load_state_dict() update parameters that models hold.
//
// The arithmetic on tensors (operators, the in-place members add_/sub_/mul_/div_/
// fill_/zero_) is declared here, libtorch style, but defined in the ops library
// (ops/tensor_ops.cpp), because it dispatches to tt::ops: link tt_ops (as every user
// does through tensortune::tensortune) to use it.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include "core/device.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/int_array_ref.h"
#include "core/storage.h"

namespace tt {

namespace indexing {
class TensorIndex;  // core/indexing.h
}

using Shape = std::vector<int64_t>;
constexpr int kMaxRank = 8;

std::string shape_str(const Shape& s);  // "[2, 3, 4]"
int64_t shape_numel(const Shape& s);
Shape contiguous_strides(const Shape& s);

struct TensorImpl {
  std::shared_ptr<Storage> storage;
  Shape sizes;
  Shape strides;       // in elements
  int64_t offset = 0;  // in elements
  DType dtype = DType::F32;
};

class Tensor;
Tensor scalar_tensor(int64_t value, Device device);  // below, with the integer scalars

class Tensor {
 public:
  Tensor() = default;  // undefined
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  // ---- factories ----
  static Tensor empty(const Shape& sizes, DType dtype = DType::F32, Device device = Device::cpu());
  static Tensor zeros(const Shape& sizes, DType dtype = DType::F32, Device device = Device::cpu());
  static Tensor full(const Shape& sizes, double value, DType dtype = DType::F32,
                     Device device = Device::cpu());
  static Tensor ones(const Shape& sizes, DType dtype = DType::F32, Device device = Device::cpu()) {
    return full(sizes, 1.0, dtype, device);
  }
  // Copies `values` (must have shape_numel(sizes) elements) into a new tensor of T's
  // dtype: float, double, int64_t, int32_t, uint8_t (uint8, not bool: as
  // torch::from_blob of uint8 data), bool (a std::vector<bool> gives a bool tensor).
  template <typename T>
  static Tensor from_vector(const std::vector<T>& values, const Shape& sizes,
                            Device device = Device::cpu());
  // Uniform [0, 1), standard normal, and uniform [lo, hi): element i of a tensor drawn
  // with `seed` is a pure function of (seed, i) (Philox 4x32-10), identical on CPU and
  // GPU and independent of the tensor's shape.
  static Tensor rand(const Shape& sizes, uint64_t seed, Device device = Device::cpu());
  static Tensor randn(const Shape& sizes, uint64_t seed, Device device = Device::cpu());
  static Tensor uniform(const Shape& sizes, double lo, double hi, uint64_t seed,
                        Device device = Device::cpu());
  // The same, drawing the seed from the global generator (tt::manual_seed): each call
  // takes the next seed, so two calls give different values and a program that seeds
  // once is reproducible.
  static Tensor rand(const Shape& sizes, Device device = Device::cpu());
  static Tensor randn(const Shape& sizes, Device device = Device::cpu());
  // torch::randint: int64 values uniform in [low, high) (low < high), element i a pure
  // function of (seed, i) as rand's (Philox, the same on CPU and GPU); the second form
  // draws the seed from the global generator.
  static Tensor randint(int64_t low, int64_t high, const Shape& sizes, uint64_t seed,
                        Device device = Device::cpu());
  static Tensor randint(int64_t low, int64_t high, const Shape& sizes,
                        Device device = Device::cpu());
  // torch.arange: [start, end) in steps of `step`. Integer arguments give int64, any
  // floating argument float32, as PyTorch; the 5-argument form names the dtype.
  template <typename E, typename = std::enable_if_t<std::is_arithmetic_v<E>>>
  static Tensor arange(E end) {
    return arange(0.0, static_cast<double>(end), 1.0,
                  std::is_integral_v<E> ? DType::I64 : DType::F32, Device::cpu());
  }
  template <typename S, typename E, typename St = int64_t,
            typename = std::enable_if_t<std::is_arithmetic_v<S> && std::is_arithmetic_v<E> &&
                                        std::is_arithmetic_v<St>>>
  static Tensor arange(S start, E end, St step = 1) {
    constexpr bool integral =
        std::is_integral_v<S> && std::is_integral_v<E> && std::is_integral_v<St>;
    return arange(static_cast<double>(start), static_cast<double>(end), static_cast<double>(step),
                  integral ? DType::I64 : DType::F32, Device::cpu());
  }
  static Tensor arange(double start, double end, double step, DType dtype, Device device);

  // ---- properties ----
  bool defined() const { return impl_ != nullptr; }
  int64_t dim() const { return static_cast<int64_t>(impl().sizes.size()); }
  const Shape& sizes() const { return impl().sizes; }
  const Shape& strides() const { return impl().strides; }
  int64_t size(int64_t d) const;  // negative d counts from the end
  int64_t stride(int64_t d) const;
  int64_t offset() const { return impl().offset; }
  int64_t numel() const { return shape_numel(impl().sizes); }
  DType dtype() const { return impl().dtype; }
  Device device() const { return impl().storage->device(); }
  bool is_contiguous() const;
  const std::shared_ptr<Storage>& storage() const { return impl().storage; }
  bool shares_storage_with(const Tensor& o) const { return storage() == o.storage(); }
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }

  // Pointer to element 0 of the view (storage base + offset).
  void* data_ptr() const;
  template <typename T>
  T* data() const;  // checks dtype

  // ---- views (share storage) ----
  Tensor view(const Shape& sizes) const;     // needs compatible strides; -1 infers one size
  Tensor reshape(const Shape& sizes) const;  // a view when possible, else a contiguous copy
  Tensor unsqueeze(int64_t d) const;
  Tensor squeeze(int64_t d) const;  // no-op if size(d) != 1, like PyTorch
  Tensor squeeze() const;           // drops every size-1 dimension
  Tensor permute(const std::vector<int64_t>& dims) const;
  Tensor transpose(int64_t a, int64_t b) const;
  Tensor narrow(int64_t d, int64_t start, int64_t length) const;
  // Dims start_dim..end_dim merged into one (a view when the strides allow, else a
  // copy, as reshape); a 0-d tensor becomes 1-D.
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  // The slice at `index` of dimension `dim`, which is removed (a view).
  Tensor select(int64_t dim, int64_t index) const;
  // A view with size-1 dimensions repeated (stride 0) to `sizes`; new leading dims may
  // be added; -1 keeps a size.
  Tensor expand(const Shape& sizes) const;
  // A view of the same storage with the given sizes, strides and storage offset (all in
  // elements), as torch.as_strided; it must stay inside the storage.
  Tensor as_strided(const Shape& sizes, const Shape& strides, int64_t offset) const;

  // ---- copies ----
  Tensor contiguous() const;       // self when already contiguous
  Tensor clone() const;            // always a new contiguous copy
  Tensor to(Device device) const;  // self when already there
  // Converts between float32/float64/int64/int32/uint8/bool on any device (self when
  // already of that dtype); the rules (truncation, saturation of NaN and out-of-range
  // floats) are core/convert.h's.
  Tensor to(DType dtype) const;
  Tensor cpu() const { return to(Device::cpu()); }
  // Copies src (same shape; any device, any strides) into this tensor's storage.
  void copy_(const Tensor& src);
  // Makes every handle of this tensor refer to `other`'s storage, shape and dtype.
  void set_data(const Tensor& other);

  // Row-major copy of the elements, converted to T (any dtype of from_vector).
  template <typename T>
  std::vector<T> to_vector() const;
  // A scalar of a 1-element tensor, as double.
  double item() const;
  // The same as T (float, double, int64_t, int32_t, uint8_t, bool), like libtorch's
  // item<T>(); converted exactly as to(dtype) (an int64 stays exact).
  template <typename T>
  T item() const {
    TT_CHECK(numel() == 1, "item: the tensor has {} elements, expected exactly 1", numel());
    return to_vector<T>()[0];
  }

  // ---- in place (defined in the ops library; see the top of this file) ----
  // self op= other, other broadcast to self's shape (self's shape never changes).
  const Tensor& add_(const Tensor& other) const;
  const Tensor& add_(double other) const;
  const Tensor& sub_(const Tensor& other) const;
  const Tensor& sub_(double other) const;
  const Tensor& mul_(const Tensor& other) const;
  const Tensor& mul_(double other) const;
  const Tensor& div_(const Tensor& other) const;
  const Tensor& div_(double other) const;
  // Integral scalars keep an integer self's dtype (ids.add_(1)), as libtorch's.
  template <typename I,
            std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
  const Tensor& add_(I other) const {
    return add_(scalar_tensor(static_cast<int64_t>(other), device()));
  }
  template <typename I,
            std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
  const Tensor& sub_(I other) const {
    return sub_(scalar_tensor(static_cast<int64_t>(other), device()));
  }
  template <typename I,
            std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
  const Tensor& mul_(I other) const {
    return mul_(scalar_tensor(static_cast<int64_t>(other), device()));
  }
  const Tensor& fill_(double value) const;
  const Tensor& zero_() const { return fill_(0.0); }

  // ---- method forms of the ops (issue 20; defined in the ops library, ops/methods.cpp) ----
  // x.softmax(-1) is ops::softmax(x, -1), and so on: the same checks and results.
  Tensor softmax(int64_t dim) const;
  Tensor log_softmax(int64_t dim) const;
  Tensor matmul(const Tensor& other) const;
  Tensor t() const;  // transpose(0, 1) of a 2-D tensor; a 0-d or 1-D tensor as it is
  Tensor sum(IntArrayRef dims = {}, bool keepdim = false) const;
  Tensor mean(IntArrayRef dims = {}, bool keepdim = false) const;
  Tensor var(IntArrayRef dims = {}, bool unbiased = true, bool keepdim = false) const;
  Tensor amax(IntArrayRef dims = {}, bool keepdim = false) const;
  Tensor amin(IntArrayRef dims = {}, bool keepdim = false) const;
  Tensor argmax(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor argmin(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor exp() const;
  Tensor log() const;
  Tensor sqrt() const;
  Tensor rsqrt() const;
  Tensor abs() const;
  Tensor neg() const;
  Tensor relu() const;
  Tensor sigmoid() const;
  Tensor tanh() const;
  Tensor pow(double exponent) const;
  Tensor clamp(std::optional<double> min, std::optional<double> max = std::nullopt) const;
  Tensor index_select(int64_t dim, const Tensor& index) const;
  Tensor gather(int64_t dim, const Tensor& index) const;
  Tensor masked_fill(const Tensor& mask, double value) const;
  Tensor masked_fill(const Tensor& mask, const Tensor& value) const;
  Tensor triu(int64_t k = 0) const;
  Tensor tril(int64_t k = 0) const;
  Tensor eq(const Tensor& other) const;
  Tensor eq(double other) const;
  Tensor ne(const Tensor& other) const;
  Tensor ne(double other) const;
  Tensor lt(const Tensor& other) const;
  Tensor lt(double other) const;
  Tensor le(const Tensor& other) const;
  Tensor le(double other) const;
  Tensor gt(const Tensor& other) const;
  Tensor gt(double other) const;
  Tensor ge(const Tensor& other) const;
  Tensor ge(double other) const;
  Tensor any(IntArrayRef dims = {}, bool keepdim = false) const;
  Tensor all(IntArrayRef dims = {}, bool keepdim = false) const;
  Tensor view_as(const Tensor& other) const { return view(other.sizes()); }
  Tensor expand_as(const Tensor& other) const { return expand(other.sizes()); }
  Tensor reshape_as(const Tensor& other) const { return reshape(other.sizes()); }

  // ---- indexing (core/indexing.h; defined in the ops library, ops/index_ops.cpp) ----
  // libtorch's x.index({Slice(1, None), None, Ellipsis, 0, idx}): integers, slices,
  // None and Ellipsis give a view; int64/int32 and bool/uint8 index tensors gather a copy
  // (advanced indexing, NumPy's placement rules).
  Tensor index(std::initializer_list<indexing::TensorIndex> indices) const;
  Tensor index(const std::vector<indexing::TensorIndex>& indices) const;
  // x[i]: the slice i of dimension 0 (a view; negative i counts from the end).
  Tensor operator[](int64_t i) const;
  // Writes into the basic-indexed view (integers, slices, None, Ellipsis) of this
  // tensor: value broadcast to it, or a constant.
  const Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices,
                           const Tensor& value) const;
  const Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices,
                           double value) const;

  // "tensor(shape=[2, 3], dtype=float32, device=cpu)\n[[...]]", PyTorch's summary style.
  std::string str(int64_t max_per_dim = 6) const;

 private:
  TensorImpl& impl() const;
  std::shared_ptr<TensorImpl> impl_;
};

std::ostream& operator<<(std::ostream& os, const Tensor& t);

// ---- arithmetic operators (ops::add/sub/mul/div/neg; defined in the ops library) ----
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, double b);
Tensor operator-(const Tensor& a, double b);
Tensor operator*(const Tensor& a, double b);
Tensor operator/(const Tensor& a, double b);
Tensor operator+(double a, const Tensor& b);
Tensor operator-(double a, const Tensor& b);
Tensor operator*(double a, const Tensor& b);
Tensor operator/(double a, const Tensor& b);
Tensor operator-(const Tensor& a);

// ---- comparisons and logic (ops::eq/ne/lt/le/gt/ge, bool results; ops::logical_*
// on bool tensors; defined in the ops library) ----
Tensor operator==(const Tensor& a, const Tensor& b);
Tensor operator!=(const Tensor& a, const Tensor& b);
Tensor operator<(const Tensor& a, const Tensor& b);
Tensor operator<=(const Tensor& a, const Tensor& b);
Tensor operator>(const Tensor& a, const Tensor& b);
Tensor operator>=(const Tensor& a, const Tensor& b);
Tensor operator==(const Tensor& a, double b);
Tensor operator!=(const Tensor& a, double b);
Tensor operator<(const Tensor& a, double b);
Tensor operator<=(const Tensor& a, double b);
Tensor operator>(const Tensor& a, double b);
Tensor operator>=(const Tensor& a, double b);
// Bool tensors only (bitwise ops on integers are not implemented).
Tensor operator&(const Tensor& a, const Tensor& b);
Tensor operator|(const Tensor& a, const Tensor& b);
Tensor operator^(const Tensor& a, const Tensor& b);
Tensor operator~(const Tensor& a);

// ---- integer scalars ----
// A 0-d int64 tensor holding `value` (torch::scalar_tensor of an int).
Tensor scalar_tensor(int64_t value, Device device);
// An integral C++ scalar acts as PyTorch's Python int: an int64 0-d operand, so an
// integer tensor keeps its dtype (ids + 1 and ids % 2 stay int64, an int32 tensor stays
// int32) and a float tensor stays float; a double scalar lifts an integer tensor to
// float32 (the double operators above). Also the tt::ops forms (ops/ops.h).
template <typename I>
constexpr bool is_integer_scalar_v = std::is_integral_v<I> && !std::is_same_v<I, bool>;
#define TT_INTEGER_SCALAR_OPERATOR(op)                                     \
  template <typename I, std::enable_if_t<is_integer_scalar_v<I>, int> = 0> \
  Tensor operator op(const Tensor& a, I b) {                               \
    return a op scalar_tensor(static_cast<int64_t>(b), a.device());        \
  }
TT_INTEGER_SCALAR_OPERATOR(+)
TT_INTEGER_SCALAR_OPERATOR(-)
TT_INTEGER_SCALAR_OPERATOR(*)
TT_INTEGER_SCALAR_OPERATOR(==)
TT_INTEGER_SCALAR_OPERATOR(!=)
TT_INTEGER_SCALAR_OPERATOR(<)
TT_INTEGER_SCALAR_OPERATOR(<=)
TT_INTEGER_SCALAR_OPERATOR(>)
TT_INTEGER_SCALAR_OPERATOR(>=)
#undef TT_INTEGER_SCALAR_OPERATOR
#define TT_INTEGER_SCALAR_OPERATOR_LEFT(op)                                \
  template <typename I, std::enable_if_t<is_integer_scalar_v<I>, int> = 0> \
  Tensor operator op(I a, const Tensor& b) {                               \
    return scalar_tensor(static_cast<int64_t>(a), b.device()) op b;        \
  }
TT_INTEGER_SCALAR_OPERATOR_LEFT(+)
TT_INTEGER_SCALAR_OPERATOR_LEFT(-)
TT_INTEGER_SCALAR_OPERATOR_LEFT(*)
#undef TT_INTEGER_SCALAR_OPERATOR_LEFT

// ---- creation like another tensor (its shape, dtype and device) ----
Tensor zeros_like(const Tensor& t);
Tensor ones_like(const Tensor& t);
Tensor full_like(const Tensor& t, double value);

// ---- the global generator behind rand(sizes)/randn(sizes) ----
// Reseeds it (PyTorch's torch::manual_seed); the initial seed is 0.
void manual_seed(uint64_t seed);
// The seed the next rand(sizes)/randn(sizes) draws with, advancing the generator.
uint64_t next_generator_seed();

}  // namespace tt
