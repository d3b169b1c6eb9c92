// The float64 CPU reference (ops::Float64Scope, models::forward_float64): the seed
// models in float64 against PyTorch's float64 goldens (tests/data), against the CPU
// float32 path, the model left unchanged by a float64 forward, and the scope's
// contract in the op front end. CPU only.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "models/compare.h"
#include "models/fixture_check.h"
#include "models/registry.h"
#include "ops/ops.h"
#include "support/test_util.h"

namespace tt {
namespace {

namespace fs = std::filesystem;
using test::error_of;

std::vector<std::string> seed_fixtures() {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(TT_TEST_DATA_DIR)) {
    if (entry.path().extension() == ".safetensors") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// PyTorch computed expected.out in float64 from the same float32 parameters and inputs,
// so the float64 path must agree to float64 rounding (measured 1e-16..1e-15), four
// orders of magnitude below the float32 path's 2e-8..2e-7. Running statistics are
// stored as float32 by PyTorch, so they agree to float32 rounding only.
TEST(Float64Reference, SeedFixturesMatchPyTorchFloat64ToDoubleRounding) {
  const std::vector<std::string> files = seed_fixtures();
  ASSERT_EQ(files.size(), 7u);
  for (const std::string& path : files) {
    SCOPED_TRACE(path);
    const models::FixtureResult wide = models::check_fixture_float64(path, 1e-12);
    const models::FixtureResult narrow = models::check_fixture(path);
    EXPECT_LE(wide.out_error, 1e-12);
    EXPECT_LT(wide.out_error * 1e3, narrow.out_error);  // it really computed in double
    for (const auto& [buffer, err] : wide.buffer_errors) EXPECT_LE(err, 1e-7) << buffer;
  }
}

// Every registered model at its small shape: the float64 forward returns float64,
// and the float32 CPU output is within the strict bound of it (and not equal to it).
TEST(Float64Reference, Float32CpuIsWithinTheStrictBoundOfFloat64) {
  for (const models::ModelInfo& info : models::registered_models()) {
    SCOPED_TRACE(info.name);
    const models::ShapePreset& preset = info.preset("small");
    const std::vector<Tensor> inputs = models::random_inputs(preset.input_shapes, 7);
    auto model = models::build_model(info.name, preset.init, 7);
    const models::Float64Forward wide = models::forward_float64(*model, inputs);
    const Tensor narrow = model->forward(inputs).at(0);
    ASSERT_EQ(wide.outputs.at(0).dtype(), DType::F64);
    const models::ErrorVsReference e = models::error_against(narrow, wide.outputs.at(0));
    EXPECT_LE(e.rel_l2, models::kFixtureTolerance);
    EXPECT_GT(e.rel_l2, 0.0);
    EXPECT_GT(e.max_abs, 0.0);
    EXPECT_LE(e.max_abs, 1e-4);
  }
}

// The model keeps its float32 tensors (the same handles, bit for bit) and a
// training-mode batch norm's running statistics are those of before the float64
// forward; the float64 running statistics come back in the result instead.
TEST(Float64Reference, TheModelIsUnchangedAfterAFloat64Forward) {
  const models::ModelInfo& info = models::find_model("GemmScaleBatchNorm");
  const models::ShapePreset& preset = info.preset("small");
  auto model = models::build_model(info.name, preset.init, 3);
  model->train(true);
  const StateDict before = model->state_dict();
  std::vector<std::vector<float>> values;
  for (const auto& [name, t] : before) values.push_back(t.to_vector<float>());

  const std::vector<Tensor> inputs = models::random_inputs(preset.input_shapes, 3);
  const models::Float64Forward wide = models::forward_float64(*model, inputs);

  const StateDict after = model->state_dict();
  size_t i = 0;
  for (const auto& [name, t] : after) {
    SCOPED_TRACE(name);
    EXPECT_EQ(t.dtype(), DType::F32);
    EXPECT_TRUE(t.shares_storage_with(before.at(name)));
    EXPECT_EQ(t.to_vector<float>(), values[i++]);
  }
  ASSERT_EQ(wide.buffers.size(), 2u);
  EXPECT_EQ(wide.buffers[0].first, "bn.running_mean");
  EXPECT_EQ(wide.buffers[0].second.dtype(), DType::F64);
  // The float32 forward then updates the statistics as it would have without the
  // float64 one, to float32 rounding of the float64 update.
  model->forward(inputs);
  for (const auto& [name, t] : wide.buffers) {
    EXPECT_LE(models::relative_l2_error(model->state_dict().at(name), t), 1e-6) << name;
  }
}

TEST(Float64Reference, ALinearInDoubleIsExact) {
  // Values whose products and sums are exact in double but not in float: 1 + 2^-30.
  const double tiny = std::ldexp(1.0, -30);
  const Tensor x = Tensor::from_vector<double>({1.0 + tiny, 1.0}, {1, 2});
  const Tensor w = Tensor::from_vector<double>({1.0, -1.0, 2.0, 1.0}, {2, 2});
  const Tensor b = Tensor::from_vector<double>({0.5, 0.0}, {2});
  ops::Float64Scope scope;
  const Tensor y = ops::linear(x, w, b);
  EXPECT_EQ(y.dtype(), DType::F64);
  EXPECT_EQ(y.to_vector<double>(), (std::vector<double>{0.5 + tiny, 3.0 + 2 * tiny}));
  // A Python-number operand keeps the tensor's dtype, as in PyTorch.
  EXPECT_EQ((y * 2.0).dtype(), DType::F64);
  EXPECT_EQ(ops::softmax(y, -1).dtype(), DType::F64);
}

TEST(Float64Reference, TheScopeGatesFloat64AndOneOpHasOneDtype) {
  const Tensor f64 = Tensor::zeros({2, 2}, DType::F64);
  const Tensor f32 = Tensor::zeros({2, 2});
  EXPECT_FALSE(ops::float64_enabled());
  EXPECT_EQ(error_of([&] { ops::sigmoid(f64); }),
            "sigmoid: input has dtype float64 but only float32 is supported");
  {
    ops::Float64Scope outer;
    { ops::Float64Scope inner; }
    EXPECT_TRUE(ops::float64_enabled());  // an inner scope restores, not clears
    EXPECT_EQ(ops::sigmoid(f64).dtype(), DType::F64);
    // The pointwise ops promote as PyTorch (float64 wins; issue 20), the others keep
    // one dtype per op.
    EXPECT_EQ(ops::add(f64, f32).dtype(), DType::F64);
    EXPECT_EQ(error_of([&] { ops::linear(f32, f64); }),
              "linear: weight is float64 but input is float32; the tensors of one op must have "
              "one dtype");
    EXPECT_EQ(ops::add(f64, Tensor::zeros({2}, DType::I64)).dtype(), DType::F64);
  }
  EXPECT_FALSE(ops::float64_enabled());
}

TEST(Float64Reference, Float64OnAGpuIsRefused) {
  TT_REQUIRE_CUDA();
  ops::Float64Scope scope;
  const Tensor g = Tensor::zeros({2, 2}, DType::F64, Device::cuda(0));
  EXPECT_EQ(error_of([&] { ops::relu(g); }),
            "relu: input is a float64 tensor on cuda:0, but float64 runs on the CPU only (the "
            "float64 reference); move it to the CPU or convert it to float32");
}

}  // namespace
}  // namespace tt
