// The two example blocks (examples/mlp_block, examples/attention_block) and the
// single ops against PyTorch's float64 results (tools/device/make_example_goldens.py,
// saved in tests/data/examples), on the CPU and on CUDA: relative L2 <= 1e-5, the
// bound of SEED_MODELS.md. Skips, saying which file is missing, until the goldens
// are generated on the GPU machine. The same goldens hold the float64 CPU path
// (ops::Float64Scope, models::forward_float64) to double rounding (<= 1e-12).
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "attention_block/attention_block.h"
#include "core/safetensors.h"
#include "mlp_block/mlp_block.h"
#include "models/compare.h"
#include "support/goldens.h"
#include "support/test_util.h"

namespace tt {
namespace {

#define TT_LOAD_GOLDEN(var, name) TT_LOAD_GOLDEN_OF(var, name, "make_example_goldens.py")
using test::golden_devices;

template <typename Block>
void check_block(Block& block, const safetensors::File& file) {
  block.load_state_dict(test::golden_parameters(file), /*strict=*/true);
  const Tensor& expected = file.tensors.at("expected.out");
  for (Device device : golden_devices()) {
    SCOPED_TRACE(device.str());
    block.to(device);
    const Tensor out = block(file.tensors.at("input.0").to(device));
    EXPECT_EQ(out.sizes(), expected.sizes());
    EXPECT_LE(test::rel_l2(out, expected), 1e-5);
  }
}

// The block's forward in float64 on the CPU (float64 copies of the file's float32
// parameters and input, as PyTorch computed expected.out): double rounding, far below
// float32's error.
template <typename Block>
void check_block_float64(Block& block, const safetensors::File& file) {
  block.to(Device::cpu());
  const models::Float64Forward wide = models::forward_float64(block, {file.tensors.at("input.0")});
  EXPECT_EQ(wide.outputs.at(0).dtype(), DType::F64);
  EXPECT_LE(test::rel_l2(wide.outputs.at(0), file.tensors.at("expected.out")), 1e-12);
}

TEST(ExampleGoldens, MlpBlockMatchesPyTorchFloat64) {
  TT_LOAD_GOLDEN(file, "mlp_block_small.safetensors");
  examples::MLPBlock block(64, 256);
  check_block(block, file);
  check_block_float64(block, file);
}

TEST(ExampleGoldens, AttentionBlockMatchesPyTorchFloat64) {
  TT_LOAD_GOLDEN(file, "attention_block_small.safetensors");
  examples::AttentionBlock block(64);
  check_block(block, file);
  check_block_float64(block, file);
}

// One row per case of make_example_goldens.py's op_cases(), same names.
using OpFn = std::function<Tensor(const std::vector<Tensor>&)>;
const std::map<std::string, OpFn>& op_rows() {
  using V = const std::vector<Tensor>&;
  static const std::map<std::string, OpFn> rows = {
      {"add", [](V in) { return in[0] + in[1]; }},
      {"sub", [](V in) { return in[0] - in[1]; }},
      {"mul", [](V in) { return in[0] * in[1]; }},
      {"div", [](V in) { return in[0] / in[1]; }},
      {"add_scalar", [](V in) { return in[0] + 2.5; }},
      {"rsub_scalar", [](V in) { return 2.5 - in[0]; }},
      {"rdiv_scalar", [](V in) { return 3.0 / in[0]; }},
      {"maximum", [](V in) { return ops::maximum(in[0], in[1]); }},
      {"minimum", [](V in) { return ops::minimum(in[0], in[1]); }},
      {"where", [](V in) { return ops::where(in[0], in[1], in[2]); }},
      {"neg", [](V in) { return ops::neg(in[0]); }},
      {"abs", [](V in) { return ops::abs(in[0]); }},
      {"exp", [](V in) { return ops::exp(in[0]); }},
      {"log", [](V in) { return ops::log(in[0]); }},
      {"sqrt", [](V in) { return ops::sqrt(in[0]); }},
      {"rsqrt", [](V in) { return ops::rsqrt(in[0]); }},
      {"tanh", [](V in) { return ops::tanh(in[0]); }},
      {"pow3", [](V in) { return ops::pow(in[0], 3.0); }},
      {"pow_half", [](V in) { return ops::pow(in[0], 0.5); }},
      {"clamp", [](V in) { return ops::clamp(in[0], -0.5, 0.5); }},
      {"gelu", [](V in) { return ops::gelu(in[0]); }},
      {"gelu_tanh", [](V in) { return ops::gelu(in[0], "tanh"); }},
      {"silu", [](V in) { return ops::silu(in[0]); }},
      {"leaky_relu", [](V in) { return ops::leaky_relu(in[0], 0.2); }},
      {"relu", [](V in) { return ops::relu(in[0]); }},
      {"sigmoid", [](V in) { return ops::sigmoid(in[0]); }},
      {"matmul_2d", [](V in) { return ops::matmul(in[0], in[1]); }},
      {"matmul_batch_2d", [](V in) { return ops::matmul(in[0], in[1]); }},
      {"matmul_vec_batch", [](V in) { return ops::matmul(in[0], in[1]); }},
      {"matmul_broadcast", [](V in) { return ops::matmul(in[0], in[1]); }},
      {"matmul_dot", [](V in) { return ops::matmul(in[0], in[1]); }},
      {"bmm", [](V in) { return ops::bmm(in[0], in[1]); }},
      {"sum_dim1_keep", [](V in) { return ops::sum(in[0], {1}, true); }},
      {"mean_all", [](V in) { return ops::mean(in[0]); }},
      {"var_02",
       [](V in) {
         return ops::var(in[0], {0, 2});
       }},
      {"std_last_biased", [](V in) { return ops::std(in[0], {-1}, false); }},
      {"amax_1", [](V in) { return ops::amax(in[0], {1}); }},
      {"amin_all", [](V in) { return ops::amin(in[0]); }},
      {"argmax_1", [](V in) { return ops::argmax(in[0], 1); }},
      {"argmin_last", [](V in) { return ops::argmin(in[0], -1); }},
      {"softmax_last", [](V in) { return ops::softmax(in[0], -1); }},
      {"softmax_0", [](V in) { return ops::softmax(in[0], 0); }},
      {"log_softmax_1", [](V in) { return ops::log_softmax(in[0], 1); }},
      {"layer_norm_affine", [](V in) { return ops::layer_norm(in[0], {6}, in[1], in[2]); }},
      {"layer_norm_2d",
       [](V in) {
         return ops::layer_norm(in[0], {5, 6});
       }},
      {"rms_norm", [](V in) { return ops::rms_norm(in[0], {6}, in[1]); }},
      {"cat_1",
       [](V in) {
         return ops::cat({in[0], in[1]}, 1);
       }},
      {"stack_last",
       [](V in) {
         return ops::stack({in[0], in[1]}, -1);
       }},
  };
  return rows;
}

TEST(ExampleGoldens, SingleOpsMatchPyTorchFloat64) {
  TT_LOAD_GOLDEN(file, "ops_small.safetensors");
  const int cases =
      test::check_golden_cases(file, op_rows(), [](const Tensor& out, const Tensor& expected) {
        EXPECT_EQ(out.sizes(), expected.sizes());
        EXPECT_EQ(out.dtype(), expected.dtype() == DType::F64 ? DType::F32 : expected.dtype());
        if (out.dtype() == DType::I64) {
          EXPECT_EQ(out.to_vector<int64_t>(), expected.to_vector<int64_t>());
        } else {
          EXPECT_LE(test::rel_l2(out, expected), 1e-5);
        }
      });
  EXPECT_GE(cases, static_cast<int>(op_rows().size()));
}

// Every op of the golden file on float64 copies of its float32 inputs, in a
// Float64Scope: float64 results within double rounding of PyTorch's float64 ones.
TEST(ExampleGoldens, SingleOpsInFloat64MatchPyTorchFloat64) {
  TT_LOAD_GOLDEN(file, "ops_small.safetensors");
  ops::Float64Scope scope;
  for (const auto& [name, fn] : op_rows()) {
    SCOPED_TRACE(name);
    const Tensor& expected = file.tensors.at(name + ".expected");
    std::vector<Tensor> in;
    for (int k = 0; file.tensors.count(name + ".in." + std::to_string(k)); ++k) {
      const Tensor& t = file.tensors.at(name + ".in." + std::to_string(k));
      in.push_back(t.dtype() == DType::F32 ? t.to(DType::F64) : t);
    }
    const Tensor out = fn(in);
    ASSERT_EQ(out.sizes(), expected.sizes());
    if (expected.dtype() == DType::I64) {
      EXPECT_EQ(out.to_vector<int64_t>(), expected.to_vector<int64_t>());
    } else {
      EXPECT_EQ(out.dtype(), DType::F64);
      EXPECT_LE(test::rel_l2(out, expected), 1e-12);
    }
  }
}

}  // namespace
}  // namespace tt
