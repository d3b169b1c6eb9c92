// The one public op front end, with libtorch's names, argument orders and result
// dtypes (torch::matmul, torch::softmax(x, dim), torch::nn::functional::layer_norm,
// ...). Each op checks shapes, dtypes and devices (a tt::Error sentence naming the op
// otherwise), normalises dims (negative dims count from the end everywhere), then
// dispatches to the CPU reference (ops/cpu, Eigen) or to CUDA (ops/cuda). Inputs are
// float32 (argmax/argmin return int64; where's condition is uint8, 0 = false), or
// float64 on the CPU inside a Float64Scope (below).
// Outputs are new contiguous tensors on the inputs' device; inputs may be any strided
// view. Tensor operators (a + b, 2.0 * a, -a) and the in-place members (add_, fill_,
// ...) declared in core/tensor.h are defined with these ops (ops/tensor_ops.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace tt::ops {

// ---- float64 on the CPU (the float64 reference) ----
// While a Float64Scope lives on the calling thread, every op of this header accepts
// float64 CPU tensors and computes in double (the same CPU code as float32, templated
// on the scalar: ops/cpu/scalar.h); one op's tensors must then share one dtype, and a
// float64 tensor on a GPU is an error. Outside a scope the ops are float32 only, as
// documented above. `tt compare --reference float64` runs the models' forwards so
// (models/compare.h); scopes nest.
class Float64Scope {
 public:
  Float64Scope();
  ~Float64Scope();
  Float64Scope(const Float64Scope&) = delete;
  Float64Scope& operator=(const Float64Scope&) = delete;

 private:
  bool previous_;
};
// True inside a Float64Scope on this thread.
bool float64_enabled();

// ---- building blocks ----
// y = x W^T + b. x [..., in], weight [out, in], bias [out] or undefined.
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor());
// ---- pointwise (the pointwise family: ops/pointwise_functors.h) ----
// Binary ops broadcast as NumPy/PyTorch. The double forms treat the scalar as a
// float32 0-d tensor, as PyTorch does for a Python number (the result stays float32).
Tensor add(const Tensor& a, const Tensor& b);
Tensor add(const Tensor& a, double b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, double b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, double b);
Tensor div(const Tensor& a, const Tensor& b);  // true division (IEEE: x/0 = inf, 0/0 = nan)
Tensor div(const Tensor& a, double b);
Tensor maximum(const Tensor& a, const Tensor& b);  // NaN propagates, as PyTorch
Tensor minimum(const Tensor& a, const Tensor& b);
// cond ? a : b elementwise, cond bool (or uint8, nonzero = true), a and b broadcast
// together and promoted to one dtype.
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);

Tensor neg(const Tensor& x);
Tensor abs(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor rsqrt(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor pow(const Tensor& x, double exponent);
// min(max(x, min), max); at least one bound must be given. min > max gives max, as
// PyTorch.
Tensor clamp(const Tensor& x, std::optional<double> min, std::optional<double> max);
Tensor relu(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor swish(const Tensor& x);  // x * sigmoid(x)
Tensor silu(const Tensor& x);   // x * sigmoid(x) (PyTorch's name for swish)
// approximate: "none" (x * Phi(x), with erf) or "tanh" (the tanh approximation).
Tensor gelu(const Tensor& x, const std::string& approximate = "none");
Tensor leaky_relu(const Tensor& x, double negative_slope = 0.01);

// ---- dtypes beyond float32 (issue 20): comparisons, logic, masking, integer math ----
// These ops, and add/sub/mul/div/maximum/minimum/neg/abs/relu/where above, take
// float32, int64, int32, uint8 and bool tensors (float64 as everywhere: in a
// Float64Scope on the CPU) and promote mixed operands as PyTorch's result_type: the
// higher category wins (bool < integer < floating; int64 + float32 -> float32), and a
// 0-d tensor or a double scalar only lifts the category (int64 [n] + 2.5 -> float32,
// float32 [n] + float64 [] -> float32). div of integers is true division (float32);
// exp, log, sqrt, ... of integers compute in float32. Integer add/sub/mul/neg wrap on
// overflow, as PyTorch.
// Elementwise comparisons, broadcasting, giving bool (also a == b, a < 2.0, ...).
Tensor eq(const Tensor& a, const Tensor& b);
Tensor eq(const Tensor& a, double b);
Tensor ne(const Tensor& a, const Tensor& b);
Tensor ne(const Tensor& a, double b);
Tensor lt(const Tensor& a, const Tensor& b);
Tensor lt(const Tensor& a, double b);
Tensor le(const Tensor& a, const Tensor& b);
Tensor le(const Tensor& a, double b);
Tensor gt(const Tensor& a, const Tensor& b);
Tensor gt(const Tensor& a, double b);
Tensor ge(const Tensor& a, const Tensor& b);
Tensor ge(const Tensor& a, double b);
// Nonzero is true, any dtype; bool results (also a & b, a | b, a ^ b, ~a on bools).
Tensor logical_and(const Tensor& a, const Tensor& b);
Tensor logical_or(const Tensor& a, const Tensor& b);
Tensor logical_xor(const Tensor& a, const Tensor& b);
Tensor logical_not(const Tensor& x);
// bool; false everywhere for integers and bool.
Tensor isnan(const Tensor& x);
Tensor isinf(const Tensor& x);
// Python's // and % (the result's sign follows the divisor), as torch.floor_divide
// and torch.remainder; an integer division by zero is an error (as PyTorch's CPU).
Tensor floor_divide(const Tensor& a, const Tensor& b);
Tensor floor_divide(const Tensor& a, double b);
Tensor remainder(const Tensor& a, const Tensor& b);
Tensor remainder(const Tensor& a, double b);
// where with a scalar branch (the scalar as a 0-d float32 tensor: it lifts an integer
// tensor to float32, as PyTorch's where(cond, int_tensor, 2.5)).
Tensor where(const Tensor& cond, const Tensor& a, double b);
Tensor where(const Tensor& cond, double a, const Tensor& b);
// x with `value` where mask (bool, broadcast to x's shape) is true; x's dtype and
// shape (the value is converted to x's dtype).
Tensor masked_fill(const Tensor& x, const Tensor& mask, double value);
Tensor masked_fill(const Tensor& x, const Tensor& mask, const Tensor& value);  // 0-d value
// The upper / lower triangle of the last two dims (batched over the others): element
// (i, j) kept where j - i >= k (triu) or j - i <= k (tril), else 0; rank >= 2.
Tensor triu(const Tensor& x, int64_t k = 0);
Tensor tril(const Tensor& x, int64_t k = 0);
// bool: whether any / every element (nonzero = true) over the dims (empty = all; an
// empty reduction gives false / true); any dtype. sum/amax/amin/argmax/argmin (the
// reductions below) take integer and bool tensors too: sum gives int64 for them, as
// PyTorch.
Tensor any(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false);
Tensor all(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false);
// Running sum along dim; integers and bool give int64 (as PyTorch), floats keep their
// dtype (accumulated in double on both backends).
Tensor cumsum(const Tensor& x, int64_t dim);
// The integral-scalar forms (ops::add(ids, 1), ops::eq(ids, 3)): the scalar is an int64
// 0-d tensor (tt::scalar_tensor), PyTorch's Python int, so integer tensors keep their
// dtype; see core/tensor.h.
#define TT_INTEGER_SCALAR_OP(name)                                         \
  template <typename I, std::enable_if_t<is_integer_scalar_v<I>, int> = 0> \
  Tensor name(const Tensor& a, I b) {                                      \
    return name(a, scalar_tensor(static_cast<int64_t>(b), a.device()));    \
  }
TT_INTEGER_SCALAR_OP(add)
TT_INTEGER_SCALAR_OP(sub)
TT_INTEGER_SCALAR_OP(mul)
TT_INTEGER_SCALAR_OP(floor_divide)
TT_INTEGER_SCALAR_OP(remainder)
TT_INTEGER_SCALAR_OP(eq)
TT_INTEGER_SCALAR_OP(ne)
TT_INTEGER_SCALAR_OP(lt)
TT_INTEGER_SCALAR_OP(le)
TT_INTEGER_SCALAR_OP(gt)
TT_INTEGER_SCALAR_OP(ge)
#undef TT_INTEGER_SCALAR_OP
template <typename I, std::enable_if_t<is_integer_scalar_v<I>, int> = 0>
Tensor where(const Tensor& cond, const Tensor& a, I b) {
  return where(cond, a, scalar_tensor(static_cast<int64_t>(b), a.device()));
}
template <typename I, std::enable_if_t<is_integer_scalar_v<I>, int> = 0>
Tensor where(const Tensor& cond, I a, const Tensor& b) {
  return where(cond, scalar_tensor(static_cast<int64_t>(a), b.device()), b);
}

// ---- matrix products (strict float32, as linear) ----
// torch.matmul: 1-D x 1-D dot (0-d result), 2-D x 2-D, 1-D operands promoted (and the
// added dimension removed again), batch dimensions broadcast. Transposed and other
// strided views are read in place where the backend can (no copy).
Tensor matmul(const Tensor& a, const Tensor& b);
// a [B, n, m] x b [B, m, p] -> [B, n, p]; exactly 3-D, same B.
Tensor bmm(const Tensor& a, const Tensor& b);

// ---- reductions ----
// `dims` empty = every dimension (libtorch's sum(x) / sum(x, {})); one int or a list
// (sum(x, 1), sum(x, {0, 2}): core/int_array_ref.h). Dims may be
// negative; a dim listed twice is an error. keepdim keeps reduced dims as size 1.
Tensor sum(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false);
Tensor mean(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false);
// unbiased: Bessel's correction (divide by N - 1); N - 1 = 0 gives nan/inf, as PyTorch.
Tensor var(const Tensor& x, IntArrayRef dims = {}, bool unbiased = true, bool keepdim = false);
Tensor std(const Tensor& x, IntArrayRef dims = {}, bool unbiased = true, bool keepdim = false);
Tensor amax(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false);
Tensor amin(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false);
// int64 indices; no dim: the index into the flattened tensor. Ties give the first
// index; NaN counts as the largest (smallest) value, as PyTorch.
Tensor argmax(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor argmin(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor softmax(const Tensor& x, int64_t dim);      // max-subtracted
Tensor log_softmax(const Tensor& x, int64_t dim);  // x - max - log(sum(exp(x - max)))
// Normalises over the trailing dims given by normalized_shape (biased variance, eps
// inside the sqrt), then weight/bias (shape normalized_shape, or undefined).
Tensor layer_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight = Tensor(),
                  const Tensor& bias = Tensor(), double eps = 1e-5);
// x * rsqrt(mean(x^2) + eps) * weight over the trailing normalized_shape dims; eps
// defaults to the machine epsilon of x's dtype (float32's; float64's in a
// Float64Scope), as PyTorch.
Tensor rms_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight = Tensor(),
                std::optional<double> eps = std::nullopt);

// ---- shape ops (views where possible, else one copy; any device) ----
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim = 0);
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim = 0);
// Views of consecutive pieces of split_size along dim (the last may be smaller).
std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t dim = 0);
// Views of the given sizes along dim (they must add up to x.size(dim)).
std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& split_sizes,
                          int64_t dim = 0);
// At most `chunks` views of ceil(size / chunks) along dim, as PyTorch.
std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim = 0);
// The Tensor members of the same names, as free functions (libtorch has both).
Tensor select(const Tensor& x, int64_t dim, int64_t index);
Tensor expand(const Tensor& x, const Shape& sizes);
Tensor flatten(const Tensor& x, int64_t start_dim = 0, int64_t end_dim = -1);

// Instance norm over every (n, c) slice of x [N, C, *spatial] (rank >= 3); biased
// variance; optional per-channel affine (weight/bias [C] or undefined).
Tensor instance_norm(const Tensor& x, double eps = 1e-5, const Tensor& weight = Tensor(),
                     const Tensor& bias = Tensor());
// Group norm of x [N, C, *] (rank >= 2): C split into `groups` contiguous groups.
Tensor group_norm(const Tensor& x, int64_t groups, const Tensor& weight, const Tensor& bias,
                  double eps = 1e-5);
// Batch norm over x [N, C] or [N, C, L]. training: batch mean and biased variance
// normalise; running_mean/var (if defined) are updated in place with momentum and the
// unbiased variance. eval: running statistics normalise, nothing is updated.
Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight, const Tensor& bias, bool training, double momentum = 0.1,
                  double eps = 1e-5);

// ---- fused GEMM groups: written as plain ops, fused by tt::compile ----
// There is no fused-op entry point: relu(linear(x, w, b)), group_norm(silu(linear(x, w,
// b)) + bias, ...), batch_norm(linear(x, w, b) * scale, ...) and the like, in a module
// compiled with tt::compile (ops/graph/compile.h), run on CUDA as one plan of the fused
// family (a GEMM with the steps in its epilogue, then the norm's passes), tuned under a
// name derived from their structure.

// ---- attention (issue 19; ops/attention_ops.cpp) ----
// softmax(q k^T * scale + mask) v, as torch.nn.functional.scaled_dot_product_attention:
// query [..., L, E], key [..., S, E], value [..., S, Ev] -> [..., L, Ev], batch dims
// broadcast. attn_mask broadcasts to [..., L, S]: boolean (bool, or uint8: nonzero = attend) or
// additive (the query's dtype). is_causal (without attn_mask) lets query i attend keys
// j <= i (top-left aligned when L != S, as PyTorch). scale defaults to 1/sqrt(E). A row
// with nothing to attend to (every score -inf) gives zeros, as PyTorch's safe softmax.
// dropout_p must be 0 (inference only). Strided and broadcast views are read in place.
// CUDA: our flash-attention family (ops/cuda/attention) in the precision mode's
// arithmetic (strict: FMA only; tf32; accurate: split tf32).
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask = Tensor(), double dropout_p = 0.0,
                                    bool is_causal = false,
                                    std::optional<double> scale = std::nullopt);

// ---- indexing, embeddings, dropout (issue 20, part B: ops/index_ops.cpp) ----
// Index tensors are int64 (or int32); the values are checked against the indexed
// dimension on the host before the gather runs (a tt::Error naming the index, where
// PyTorch's CUDA kernels assert on the device). Any dtype is gathered.
// torch.index_select: the entries `index` (1-D, or 0-d) of dimension dim.
Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index);
// torch.gather: out[i][j][k] = x[index[i][j][k]][j][k] for dim 0 (and so on); index has
// x's rank and index.size(d) <= x.size(d) for d != dim; the result has index's shape.
Tensor gather(const Tensor& x, int64_t dim, const Tensor& index);
// torch.nn.functional.embedding: the rows `indices` (any shape) of weight [num, dim];
// result indices.sizes() + [dim].
Tensor embedding(const Tensor& weight, const Tensor& indices);
// torch.nn.functional.dropout: identity when !train or p == 0; in train each element is
// kept when Philox's uniform for (seed, its row-major index) is >= p and then scaled by
// 1 / (1 - p), so one seed gives one mask on the CPU and on CUDA; p == 1 gives zeros.
// No seed: the next seed of the global generator (tt::manual_seed).
Tensor dropout(const Tensor& x, double p = 0.5, bool train = true,
               std::optional<uint64_t> seed = std::nullopt);

}  // namespace tt::ops
