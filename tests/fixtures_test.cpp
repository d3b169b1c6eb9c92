// Every golden fixture in tests/data (PyTorch float64 results) must be reproduced to a
// relative L2 error of 1e-5, running statistics included, on the CPU and, when there
// is a GPU, on CUDA. Also: what the fixture checker reports for broken fixtures.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <set>
#include <string>

#include "core/safetensors.h"
#include "models/fixture_check.h"
#include "models/registry.h"
#include "ops/ops.h"
#include "support/test_util.h"

namespace tt {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::vector<std::string> fixture_files() {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(TT_TEST_DATA_DIR))
    if (entry.path().extension() == ".safetensors") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

std::string test_name(const testing::TestParamInfo<std::string>& info) {
  std::string name = fs::path(info.param).stem().string();
  for (char& c : name)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

TEST(Fixtures, CoverEveryRegisteredModel) {
  std::set<std::string> covered;
  for (const std::string& f : fixture_files())
    covered.insert(safetensors::load(f).metadata.at("model"));
  for (const models::ModelInfo& info : models::registered_models())
    EXPECT_EQ(covered.count(info.name), 1u) << info.name << " has no fixture";
  EXPECT_GE(fixture_files().size(), 7u);
}

class FixtureTest : public testing::TestWithParam<std::string> {
 protected:
  void expect_pass(Device device, bool compiled = false) {
    const models::FixtureResult r =
        models::check_fixture(GetParam(), device, models::kFixtureTolerance, compiled);
    EXPECT_LE(r.out_error, 1e-5) << r.model << " " << r.shape;
    for (const auto& [buffer, err] : r.buffer_errors) EXPECT_LE(err, 1e-5) << buffer;
    EXPECT_TRUE(r.pass);
    const auto metadata = safetensors::load(GetParam()).metadata;
    EXPECT_EQ(r.model, metadata.at("model"));
    EXPECT_EQ(r.init, metadata.at("init"));
    // Training-mode batch norm fixtures state the running statistics; they must be checked.
    if (metadata.at("model") == "GemmScaleBatchNorm" && metadata.at("mode") == "train") {
      ASSERT_EQ(r.buffer_errors.size(), 2u);
      EXPECT_EQ(r.buffer_errors[0].first, "bn.running_mean");
      EXPECT_EQ(r.buffer_errors[1].first, "bn.running_var");
    }
  }
};

TEST_P(FixtureTest, PassesOnCpu) { expect_pass(Device::cpu()); }

TEST_P(FixtureTest, PassesOnCuda) {
  TT_REQUIRE_CUDA();
  expect_pass(Device::cuda(0));
}

// The compiled replay (the seeds' fused plans) against PyTorch's float64 result.
TEST_P(FixtureTest, PassesOnCudaCompiled) {
  TT_REQUIRE_CUDA();
  expect_pass(Device::cuda(0), /*compiled=*/true);
}

INSTANTIATE_TEST_SUITE_P(AllFixtures, FixtureTest, testing::ValuesIn(fixture_files()), test_name);

// GPU against the CPU reference on random weights and inputs at the small shapes, in
// both modes, running statistics included.
TEST(FixturesCuda, EveryModelAgreesWithTheCpuReference) {
  TT_REQUIRE_CUDA();
  for (const models::ModelInfo& info : models::registered_models()) {
    for (bool training : {true, false}) {
      auto cpu_model = models::build_model(info.name, info.small.init, 11);
      auto gpu_model = models::build_model(info.name, info.small.init, 11);
      cpu_model->train(training);
      gpu_model->train(training);
      gpu_model->to(Device::cuda(0));
      auto inputs = models::random_inputs(info.small.input_shapes, 11);
      std::vector<Tensor> gpu_inputs;
      for (const Tensor& t : inputs) gpu_inputs.push_back(t.to(Device::cuda(0)));
      Tensor want = cpu_model->forward(inputs)[0];
      Tensor got = gpu_model->forward(gpu_inputs)[0];
      EXPECT_EQ(got.device(), Device::cuda(0));
      EXPECT_LE(models::relative_l2_error(got, want), 1e-5) << info.name << " train=" << training;
      const StateDict cpu_state = cpu_model->state_dict(), gpu_state = gpu_model->state_dict();
      for (const auto& [name, t] : cpu_state)
        EXPECT_LE(models::relative_l2_error(gpu_state.at(name), t), 1e-5)
            << info.name << " " << name;
    }
  }
}

// ---- the checker itself ----

TEST(RelativeL2Error, GoldenValues) {
  Tensor ref = Tensor::from_vector<double>({1, 2}, {2});
  EXPECT_DOUBLE_EQ(models::relative_l2_error(Tensor::from_vector<float>({2, 2}, {2}), ref),
                   1.0 / std::sqrt(5.0));
  EXPECT_DOUBLE_EQ(models::relative_l2_error(Tensor::from_vector<float>({1, 2}, {2}), ref), 0.0);
  // A zero reference falls back to the absolute error.
  EXPECT_DOUBLE_EQ(models::relative_l2_error(Tensor::from_vector<float>({3, 4}, {2}),
                                             Tensor::zeros({2}, DType::F64)),
                   5.0);
  try {
    models::relative_l2_error(Tensor::zeros({2, 3}), Tensor::zeros({3, 2}));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "relative_l2_error: output has shape [2, 3] but reference has [3, 2]");
  }
}

// Writes altered copies of a good fixture into a temporary folder.
class BrokenFixture : public testing::Test {
 protected:
  static safetensors::File load(const std::string& name) {
    return safetensors::load(std::string(TT_TEST_DATA_DIR) + "/" + name);
  }
  std::string save(const std::string& name, const safetensors::File& file) {
    const std::string path = scratch_.path(name);
    safetensors::save(path, file.tensors, file.metadata);
    return path;
  }
  static std::string error_of(const std::string& path) {
    try {
      models::check_fixture(path);
    } catch (const Error& e) {
      return e.what();
    }
    return "(no error)";
  }

  test::ScratchDir scratch_{"tt_fixtures_test"};
};

TEST_F(BrokenFixture, MissingFileIsNamed) {
  const std::string path = scratch_.path("absent.safetensors");
  EXPECT_THAT(error_of(path), HasSubstr(path));
}

// Each case: a good fixture altered one way, and the sentence naming what is wrong
// (the whole message, or its start where the rest lists the known models).
TEST_F(BrokenFixture, BrokenMetadataAndInputsAreNamed) {
  struct Case {
    const char* source;
    const char* name;
    std::function<void(safetensors::File&)> edit;
    std::string message;
    bool whole;
  };
  const Case cases[] = {
      {"gemm_bias_relu_small.safetensors", "no_model.safetensors",
       [](safetensors::File& f) { f.metadata.erase("model"); }, "the metadata has no 'model' entry",
       true},
      {"gemm_bias_relu_small.safetensors", "bad_inputs.safetensors",
       [](safetensors::File& f) { f.metadata["inputs"] = "one"; },
       "the metadata 'inputs' must be a positive integer but is 'one'", true},
      {"gemm_instnorm_add_mul_small.safetensors", "no_input.safetensors",
       [](safetensors::File& f) { f.tensors.erase("input.1"); }, "the file has no tensor 'input.1'",
       true},
      {"gemm_bias_relu_small.safetensors", "unknown.safetensors",
       [](safetensors::File& f) { f.metadata["model"] = "Transformer"; },
       "unknown model 'Transformer'", false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto file = load(c.source);
    c.edit(file);
    const std::string path = save(c.name, file);
    const std::string expected = "fixture " + path + ": " + c.message;
    if (c.whole) {
      EXPECT_EQ(error_of(path), expected);
    } else {
      EXPECT_THAT(error_of(path), HasSubstr(expected));
    }
  }
}

TEST_F(BrokenFixture, WrongParameterShapeIsNamed) {
  auto file = load("gemm_bias_relu_small.safetensors");
  file.tensors["gemm.weight"] = Tensor::zeros({80, 63});
  const std::string path = save("wrong_shape.safetensors", file);
  const std::string message = error_of(path);
  EXPECT_THAT(message, HasSubstr(path));
  EXPECT_THAT(message, HasSubstr("gemm.weight"));
}

TEST_F(BrokenFixture, WrongExpectedOutputFails) {
  auto file = load("gemm_bias_relu_small.safetensors");
  const Tensor& expected = file.tensors["expected.out"];
  std::vector<double> values = expected.to_vector<double>();
  for (double& v : values) v *= 1.001;
  file.tensors["expected.out"] = Tensor::from_vector<double>(values, expected.sizes());
  const models::FixtureResult r = models::check_fixture(save("off.safetensors", file));
  EXPECT_FALSE(r.pass);
  // ||out - 1.001 ref|| / ||1.001 ref|| with out within 1e-7 of ref.
  EXPECT_NEAR(r.out_error, 0.001 / 1.001, 1e-6);
}

TEST_F(BrokenFixture, WrongRunningStatisticsFail) {
  auto file = load("gemm_scale_batchnorm_train_small.safetensors");
  file.tensors["expected.bn.running_var"] =
      ops::add(file.tensors["expected.bn.running_var"], Tensor::full({72}, 1.0));
  const models::FixtureResult r = models::check_fixture(save("stats.safetensors", file));
  EXPECT_LE(r.out_error, 1e-5);
  ASSERT_EQ(r.buffer_errors.size(), 2u);
  EXPECT_LE(r.buffer_errors[0].second, 1e-5);
  EXPECT_GT(r.buffer_errors[1].second, 1e-2);
  EXPECT_FALSE(r.pass);
}

}  // namespace
}  // namespace tt
