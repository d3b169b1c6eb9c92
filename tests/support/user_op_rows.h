// Issue 9's rows of the op table: every user-facing op of ops/ops.h that the seed
// models do not use (pointwise, matrix products, reductions, softmax, norms, shape
// ops) and the Tensor's in-place members, as rows of cases with broadcast, transposed
// (strided) and sliced operands. tests/op_rows_ops_test.cpp runs each on the CPU
// reference and on CUDA; tests/op_table_test.cpp counts them towards the coverage of
// ops/ops.h. (Folding these rows into op_table_test's table, with its every-config
// sweep, is the next step; the pointwise and reduce families' every-config sweeps run
// in op_rows_ops_test and cuda_reduce_test meanwhile.)
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "ops/ops.h"

namespace tt::test::user_op_rows {

enum class Domain { kNormal, kPositive, kCondition };

struct Input {
  Shape shape;
  Domain domain = Domain::kNormal;
  bool transposed = false;  // built as shape with the last two dims swapped, then transposed
};

using OpFn = std::function<Tensor(const std::vector<Tensor>&)>;

struct Row {
  std::string name;
  std::vector<Input> inputs;
  OpFn fn;
};

inline Tensor make_input(const Input& in, uint64_t seed) {
  Shape stored = in.shape;
  if (in.transposed) std::swap(stored[stored.size() - 1], stored[stored.size() - 2]);
  Tensor t;
  switch (in.domain) {
    case Domain::kNormal:
      t = Tensor::randn(stored, seed);
      break;
    case Domain::kPositive:
      t = Tensor::uniform(stored, 0.25, 4.0, seed);
      break;
    case Domain::kCondition: {
      std::vector<uint8_t> c;
      for (float v : Tensor::rand(stored, seed).to_vector<float>()) c.push_back(v > 0.5f);
      t = Tensor::from_vector(c, stored);
      break;
    }
  }
  return in.transposed ? t.transpose(-1, -2) : t;
}

using V = const std::vector<Tensor>&;
inline Input N(Shape s) { return {std::move(s)}; }
inline Input P(Shape s) { return {std::move(s), Domain::kPositive}; }
inline Input T(Shape s) { return {std::move(s), Domain::kNormal, true}; }
inline Input C(Shape s) { return {std::move(s), Domain::kCondition}; }

// In place on a clone, so the table's inputs stay untouched.
inline Tensor inplace(const Tensor& self, const std::function<void(const Tensor&)>& op) {
  Tensor out = self.clone();
  op(out);
  return out;
}

inline const std::vector<Row>& rows() {
  static const std::vector<Row> table = {
      // ---- binary pointwise, scalar forms, operators, in place ----
      {"add", {N({4, 5, 6}), N({5, 1})}, [](V in) { return ops::add(in[0], in[1]); }},
      {"add", {N({1000}), N({1000})}, [](V in) { return in[0] + in[1]; }},
      {"add", {T({33, 17}), N({17})}, [](V in) { return in[0] + in[1]; }},
      {"sub", {N({4, 6}), N({6})}, [](V in) { return ops::sub(in[0], in[1]); }},
      {"mul", {N({3, 1, 6}), N({4, 6})}, [](V in) { return ops::mul(in[0], in[1]); }},
      {"div", {N({4, 6}), P({4, 6})}, [](V in) { return ops::div(in[0], in[1]); }},
      {"div", {T({7, 9}), P({9})}, [](V in) { return in[0] / in[1]; }},
      {"maximum", {N({4, 6}), N({1, 6})}, [](V in) { return ops::maximum(in[0], in[1]); }},
      {"minimum", {T({8, 5}), N({8, 1})}, [](V in) { return ops::minimum(in[0], in[1]); }},
      {"where",
       {C({4, 6}), N({4, 6}), N({6})},
       [](V in) { return ops::where(in[0], in[1], in[2]); }},
      {"where",
       {C({4, 1}), T({4, 6}), N({4, 6})},
       [](V in) { return ops::where(in[0], in[1], in[2]); }},
      {"add(scalar)", {N({5, 7})}, [](V in) { return ops::add(in[0], 2.5); }},
      {"sub(scalar)", {N({5, 7})}, [](V in) { return 1.5 - in[0]; }},
      {"mul(scalar)", {T({5, 7})}, [](V in) { return 3.0 * in[0]; }},
      {"div(scalar)", {P({5, 7})}, [](V in) { return 2.0 / in[0]; }},
      {"neg(operator)", {N({5, 7})}, [](V in) { return -in[0]; }},
      {"add_",
       {N({4, 6}), N({6})},
       [](V in) { return inplace(in[0], [&](const Tensor& s) { s.add_(in[1]); }); }},
      {"sub_",
       {N({4, 6})},
       [](V in) { return inplace(in[0], [](const Tensor& s) { s.sub_(1.5); }); }},
      {"mul_",
       {N({4, 6}), N({4, 1})},
       [](V in) { return inplace(in[0], [&](const Tensor& s) { s.mul_(in[1]); }); }},
      {"div_",
       {N({4, 6}), P({4, 6})},
       [](V in) {
         return inplace(in[0],
                        [&](const Tensor& s) { s.transpose(0, 1).div_(in[1].transpose(0, 1)); });
       }},
      {"fill_",
       {N({4, 6})},
       [](V in) { return inplace(in[0], [](const Tensor& s) { s.narrow(1, 2, 3).fill_(7.0); }); }},
      {"zero_",
       {N({4, 6})},
       [](V in) { return inplace(in[0], [](const Tensor& s) { s.select(0, 1).zero_(); }); }},
      // ---- unary pointwise ----
      {"neg", {N({5, 7})}, [](V in) { return ops::neg(in[0]); }},
      {"abs", {T({5, 7})}, [](V in) { return ops::abs(in[0]); }},
      {"exp", {N({1027})}, [](V in) { return ops::exp(in[0]); }},
      {"log", {P({5, 7})}, [](V in) { return ops::log(in[0]); }},
      {"sqrt", {P({5, 7})}, [](V in) { return ops::sqrt(in[0]); }},
      {"rsqrt", {P({5, 7})}, [](V in) { return ops::rsqrt(in[0]); }},
      {"tanh", {N({5, 7})}, [](V in) { return ops::tanh(in[0]); }},
      {"pow", {N({5, 7})}, [](V in) { return ops::pow(in[0], 3.0); }},
      {"pow", {P({5, 7})}, [](V in) { return ops::pow(in[0], -0.75); }},
      {"clamp", {N({5, 7})}, [](V in) { return ops::clamp(in[0], -0.5, 0.25); }},
      {"gelu", {N({5, 7})}, [](V in) { return ops::gelu(in[0]); }},
      {"gelu", {T({5, 7})}, [](V in) { return ops::gelu(in[0], "tanh"); }},
      {"silu", {N({5, 7})}, [](V in) { return ops::silu(in[0]); }},
      {"leaky_relu", {N({5, 7})}, [](V in) { return ops::leaky_relu(in[0], 0.2); }},
      {"relu", {N({5, 7})}, [](V in) { return ops::relu(in[0]); }},
      {"sigmoid", {N({5, 7})}, [](V in) { return ops::sigmoid(in[0]); }},
      {"swish", {N({5, 7})}, [](V in) { return ops::swish(in[0]); }},
      // ---- matrix products ----
      {"matmul", {N({7, 9}), N({9, 5})}, [](V in) { return ops::matmul(in[0], in[1]); }},
      {"matmul", {T({33, 65}), T({65, 17})}, [](V in) { return ops::matmul(in[0], in[1]); }},
      {"matmul", {N({3, 7, 9}), N({9, 5})}, [](V in) { return ops::matmul(in[0], in[1]); }},
      {"matmul", {N({9}), N({3, 9, 5})}, [](V in) { return ops::matmul(in[0], in[1]); }},
      {"matmul", {N({2, 1, 4, 9}), N({3, 9, 6})}, [](V in) { return ops::matmul(in[0], in[1]); }},
      {"matmul", {N({9}), N({9})}, [](V in) { return ops::matmul(in[0], in[1]); }},
      {"bmm", {N({3, 7, 9}), T({3, 9, 5})}, [](V in) { return ops::bmm(in[0], in[1]); }},
      // ---- reductions ----
      {"sum", {N({4, 5, 6})}, [](V in) { return ops::sum(in[0], {1}, true); }},
      {"sum", {T({4, 33, 65})}, [](V in) { return ops::sum(in[0]); }},
      {"mean",
       {N({4, 5, 6})},
       [](V in) {
         return ops::mean(in[0], {0, -1});
       }},
      {"var",
       {N({4, 5, 6})},
       [](V in) {
         return ops::var(in[0], {0, 2});
       }},
      {"std", {T({4, 5, 6})}, [](V in) { return ops::std(in[0], {-1}, false); }},
      {"amax", {N({4, 5, 6})}, [](V in) { return ops::amax(in[0], {1}); }},
      {"amin", {N({4, 5, 6})}, [](V in) { return ops::amin(in[0]); }},
      {"argmax", {N({4, 5, 6})}, [](V in) { return ops::argmax(in[0], 1); }},
      {"argmax", {N({4, 5, 6})}, [](V in) { return ops::argmax(in[0]); }},
      {"argmin", {T({4, 5, 6})}, [](V in) { return ops::argmin(in[0], -1, true); }},
      {"softmax", {N({4, 5, 6})}, [](V in) { return ops::softmax(in[0] * 4.0, -1); }},
      {"softmax", {N({4, 5, 6})}, [](V in) { return ops::softmax(in[0], 0); }},
      {"softmax", {N({3, 4099})}, [](V in) { return ops::softmax(in[0], 1); }},
      {"log_softmax", {T({4, 5, 6})}, [](V in) { return ops::log_softmax(in[0], 1); }},
      {"layer_norm",
       {N({4, 5, 6}), N({6}), N({6})},
       [](V in) { return ops::layer_norm(in[0], {6}, in[1], in[2]); }},
      {"layer_norm", {N({4, 5, 6})}, [](V in) { return ops::layer_norm(in[0], {5, 6}); }},
      {"layer_norm",
       {N({8, 1031})},
       [](V in) { return ops::layer_norm(in[0] * 3.0 + 1.0, {1031}); }},
      {"rms_norm", {N({4, 5, 6}), N({6})}, [](V in) { return ops::rms_norm(in[0], {6}, in[1]); }},
      {"rms_norm", {T({4, 6, 5})}, [](V in) { return ops::rms_norm(in[0], {5}, Tensor(), 1e-3); }},
      // ---- shape ops ----
      {"cat", {N({2, 3, 4}), T({2, 5, 4})}, [](V in) { return ops::cat({in[0], in[1]}, 1); }},
      {"cat", {N({2, 3}), N({4, 3})}, [](V in) { return ops::cat({in[0], in[1]}); }},
      {"stack", {N({2, 3}), N({2, 3})}, [](V in) { return ops::stack({in[0], in[1]}, -1); }},
      {"split", {N({7, 3})}, [](V in) { return ops::split(in[0], 3)[2].contiguous(); }},
      {"chunk", {N({3, 7})}, [](V in) { return ops::chunk(in[0], 3, 1)[1].contiguous(); }},
      {"select", {N({3, 7})}, [](V in) { return ops::select(in[0], 1, -2).contiguous(); }},
      {"expand", {N({3, 1})}, [](V in) { return ops::expand(in[0], {2, 3, 4}).contiguous(); }},
      {"flatten", {T({3, 4, 5})}, [](V in) { return ops::flatten(in[0], 1); }},
  };
  return table;
}

inline std::vector<Tensor> inputs_of(const Row& row) {
  std::vector<Tensor> in;
  uint64_t seed = 100;
  for (const Input& i : row.inputs) in.push_back(make_input(i, seed++));
  return in;
}

}  // namespace tt::test::user_op_rows
