// Issue 9's op table: every op of the user-facing API as rows of cases, each run on
// the CPU reference and on CUDA and compared (relative L2 <= 1e-5; integer results
// and shape ops exactly), with broadcast, transposed (strided) and sliced operands.
// The pointwise family also runs under every config of its tunable space.
// (Rows of the `ops` helper: fold them into tests/op_table_test.cpp once the `fam`
// helper's table lands there.)
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "autotune/lookup.h"
#include "core/tensor.h"
#include "ops/ops.h"
#include "support/test_util.h"
#if TT_CUDA
#include "ops/cuda/pointwise/pointwise_space.h"
#endif

namespace tt {
namespace {

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

Tensor make_input(const Input& in, uint64_t seed) {
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
Input N(Shape s) { return {std::move(s)}; }
Input P(Shape s) { return {std::move(s), Domain::kPositive}; }
Input T(Shape s) { return {std::move(s), Domain::kNormal, true}; }
Input C(Shape s) { return {std::move(s), Domain::kCondition}; }

// In place on a clone, so the table's inputs stay untouched.
Tensor inplace(const Tensor& self, const std::function<void(const Tensor&)>& op) {
  Tensor out = self.clone();
  op(out);
  return out;
}

const std::vector<Row>& rows() {
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

std::vector<Tensor> inputs_of(const Row& row) {
  std::vector<Tensor> in;
  uint64_t seed = 100;
  for (const Input& i : row.inputs) in.push_back(make_input(i, seed++));
  return in;
}

void expect_same(const Tensor& cuda_out, const Tensor& cpu_out) {
  EXPECT_EQ(cuda_out.sizes(), cpu_out.sizes());
  EXPECT_EQ(cuda_out.dtype(), cpu_out.dtype());
  EXPECT_TRUE(cuda_out.device().is_cuda());
  if (cpu_out.dtype() == DType::I64) {
    EXPECT_EQ(cuda_out.to_vector<int64_t>(), cpu_out.to_vector<int64_t>());
  } else {
    EXPECT_LE(test::rel_l2(cuda_out, cpu_out), 1e-5);
  }
}

TEST(OpTableOps, EveryRowRunsOnTheCpu) {
  for (const Row& row : rows()) {
    SCOPED_TRACE(row.name);
    const Tensor out = row.fn(inputs_of(row));
    EXPECT_TRUE(out.device().is_cpu());
    EXPECT_TRUE(out.is_contiguous());
  }
}

TEST(OpTableOps, CudaMatchesTheCpuReference) {
  TT_REQUIRE_CUDA();
  int cases = 0;
  for (const Row& row : rows()) {
    SCOPED_TRACE(row.name);
    const std::vector<Tensor> in = inputs_of(row);
    std::vector<Tensor> in_cuda;
    for (const Tensor& t : in) {
      // Transposed inputs stay transposed views on the device.
      const bool t_view = t.dim() >= 2 && !t.is_contiguous();
      in_cuda.push_back(t_view
                            ? t.transpose(-1, -2).contiguous().to(Device::cuda(0)).transpose(-1, -2)
                            : t.to(Device::cuda(0)));
    }
    expect_same(row.fn(in_cuda), row.fn(in));
    ++cases;
  }
  EXPECT_EQ(cases, static_cast<int>(rows().size()));
}

#if TT_CUDA
// Every config of the pointwise family's space gives the reference's result, for a
// flat problem with a ragged tail, a misaligned (sliced) one, and a strided one.
TEST(OpTableOps, PointwiseFamilyUnderEveryConfig) {
  TT_REQUIRE_CUDA();
  const Device gpu = Device::cuda(0);
  const Tensor a = Tensor::randn({4099}, 1), b = Tensor::randn({4099}, 2);
  const Tensor m = Tensor::randn({33, 65}, 3);
  struct Case {
    const char* kernel;
    std::function<Tensor(Device)> run;
  };
  const std::vector<Case> cases = {
      {"pointwise.add", [&](Device d) { return ops::add(a.to(d), b.to(d)); }},
      {"pointwise.gelu", [&](Device d) { return ops::gelu(a.to(d).narrow(0, 1, 4097)); }},
      {"pointwise.mul",
       [&](Device d) { return ops::mul(m.to(d).transpose(0, 1), m.to(d).select(1, 2)); }},
  };
  namespace pointwise_tuning = ops::cuda::pointwise_tuning;
  using pointwise_tuning::Layout;
  for (const Case& c : cases) {
    const Tensor want = c.run(Device::cpu());
    int configs = 0;
    for (Layout layout : {Layout::kFlat, Layout::kStrided}) {
      for (int threads : {128, 256, 512})
        for (int vec : {1, 2, 4})
          for (int items : {1, 2, 4}) {
            pointwise_tuning::PointwiseConfig cfg;
            cfg.layout = layout;
            cfg.threads = threads;
            cfg.vec = layout == Layout::kFlat ? vec : 1;
            cfg.items = items;
            if (layout == Layout::kStrided && vec != 1) continue;
            const autotune::Config config = pointwise_tuning::descriptor().to_config(cfg);
            SCOPED_TRACE(std::string(c.kernel) + " " + config.str());
            autotune::ScopedConfigOverride force(c.kernel, config);
            try {
              EXPECT_LE(test::rel_l2(c.run(gpu), want), 1e-6);
              ++configs;
            } catch (const Error& e) {
              // The space rejects configs of the other layout and vectors wider than
              // the alignment; the override reports those as errors.
              EXPECT_NE(std::string(e.what()).find("is rejected"), std::string::npos) << e.what();
            }
          }
    }
    EXPECT_GE(configs, 9) << c.kernel;
  }
}
#endif

}  // namespace
}  // namespace tt
