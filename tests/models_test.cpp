// The layers, the five seed models and the registry: PyTorch parameter names and
// shapes, default initialisation, seeding, forward semantics on hand-computed values,
// and the error messages for wrong calls and wrong constructor arguments.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "models/models.h"
#include "ops/ops.h"
#include "support/test_util.h"

namespace tt {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::map<std::string, Shape> shapes_of(const NamedTensors& named) {
  std::map<std::string, Shape> out;
  for (const auto& [name, t] : named) out[name] = t.sizes();
  return out;
}

using tt::test::error_of;

// ---- parameter and buffer names, as PyTorch's state_dict has them ----

TEST(ModelParameters, NamesAndShapesMatchPyTorch) {
  using Shapes = std::map<std::string, Shape>;
  struct Case {
    std::shared_ptr<Module> model;
    Shapes params;
    Shapes buffers;
  };
  const Case cases[] = {
      {std::make_shared<models::GemmInstanceNormAddMul>(64, 96),
       {{"bmm.weight", {96, 64}}, {"bmm.bias", {96}}},
       {}},
      {std::make_shared<models::InstanceNorm2dModel>(3), {}, {}},
      {std::make_shared<models::GemmSwishBiasGroupNorm>(48, 128, 8, Shape{128}),
       {{"matmul.weight", {128, 48}},
        {"matmul.bias", {128}},
        {"bias", {128}},
        {"group_norm.weight", {128}},
        {"group_norm.bias", {128}}},
       {}},
      {std::make_shared<models::GemmScaleBatchNorm>(40, 72, Shape{72}),
       {{"gemm.weight", {72, 40}},
        {"gemm.bias", {72}},
        {"scale", {72}},
        {"bn.weight", {72}},
        {"bn.bias", {72}}},
       {{"bn.running_mean", {72}}, {"bn.running_var", {72}}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.model->name());
    EXPECT_EQ(shapes_of(c.model->named_parameters()), c.params);
    EXPECT_EQ(shapes_of(c.model->named_buffers()), c.buffers);
  }
}

TEST(ModelParameters, GemmBiasReLUHasNoLinearBias) {
  models::GemmBiasReLU m(64, 80, {80});
  EXPECT_EQ(shapes_of(m.named_parameters()),
            (std::map<std::string, Shape>{{"gemm.weight", {80, 64}}, {"bias", {80}}}));
  EXPECT_FALSE(m.gemm->bias.defined());
}

TEST(ModelParameters, ExtraBiasKeepsItsPyTorchShape) {
  models::GemmBiasReLU m(4, 3, {1, 3});
  EXPECT_EQ(m.bias.sizes(), (Shape{1, 3}));
  EXPECT_EQ(m.forward({Tensor::rand({2, 4}, 1)})[0].sizes(), (Shape{2, 3}));
}

// ---- initialisation and seeds ----

TEST(LayerInit, LinearIsUniformWithinOneOverSqrtIn) {
  nn::Linear linear(16, 300, true, 7);
  const double bound = 1.0 / std::sqrt(16.0);
  for (const Tensor& t : {linear.weight, linear.bias}) {
    std::vector<float> v = t.to_vector<float>();
    float lo = v[0], hi = v[0];
    for (float x : v) lo = std::min(lo, x), hi = std::max(hi, x);
    EXPECT_GE(lo, -bound);
    EXPECT_LT(hi, bound);
    // 300+ draws fill most of the interval.
    EXPECT_LT(lo, -0.8 * bound);
    EXPECT_GT(hi, 0.8 * bound);
  }
}

TEST(LayerInit, NormsStartAtIdentityAndNeutralStatistics) {
  nn::BatchNorm1d bn(5);
  EXPECT_THAT(bn.weight.to_vector<float>(), ElementsAre(1, 1, 1, 1, 1));
  EXPECT_THAT(bn.bias.to_vector<float>(), ElementsAre(0, 0, 0, 0, 0));
  EXPECT_THAT(bn.running_mean.to_vector<float>(), ElementsAre(0, 0, 0, 0, 0));
  EXPECT_THAT(bn.running_var.to_vector<float>(), ElementsAre(1, 1, 1, 1, 1));
  nn::GroupNorm gn(2, 4);
  EXPECT_THAT(gn.weight.to_vector<float>(), ElementsAre(1, 1, 1, 1));
  EXPECT_THAT(gn.bias.to_vector<float>(), ElementsAre(0, 0, 0, 0));
  EXPECT_TRUE(nn::GroupNorm(2, 4, 1e-5, false).named_parameters().empty());
  EXPECT_TRUE(nn::InstanceNorm2d(4).named_parameters().empty());
  EXPECT_EQ(shapes_of(nn::InstanceNorm2d(4, 1e-5, 0.1, true).named_parameters()),
            (std::map<std::string, Shape>{{"weight", {4}}, {"bias", {4}}}));
}

TEST(LayerInit, SameSeedSameWeightsOtherSeedOtherWeights) {
  models::GemmScaleBatchNorm a(8, 6, {6}, 1e-5, 0.1, 42), b(8, 6, {6}, 1e-5, 0.1, 42),
      c(8, 6, {6}, 1e-5, 0.1, 43);
  for (const std::string name : {"gemm.weight", "gemm.bias", "scale"}) {
    EXPECT_EQ(a.state_dict().at(name).to_vector<float>(),
              b.state_dict().at(name).to_vector<float>())
        << name;
    EXPECT_NE(a.state_dict().at(name).to_vector<float>(),
              c.state_dict().at(name).to_vector<float>())
        << name;
  }
  // Parameters of one model draw from distinct streams.
  EXPECT_NE(a.gemm->bias.to_vector<float>(),
            a.gemm->weight.reshape({-1}).narrow(0, 0, 6).to_vector<float>());
}

TEST(LayerInit, ExtraParametersAreStandardNormal) {
  models::GemmBiasReLU m(2, 4000, {4000}, 5);
  std::vector<float> v = m.bias.to_vector<float>();
  double mean = 0, sq = 0;
  for (float x : v) mean += x, sq += double(x) * x;
  mean /= v.size();
  const double var = sq / v.size() - mean * mean;
  EXPECT_NEAR(mean, 0.0, 0.06);
  EXPECT_NEAR(var, 1.0, 0.08);
}

// ---- forward semantics on hand-computed values ----

TEST(ModelForward, GemmBiasReLUAddsBiasBeforeReLU) {
  models::GemmBiasReLU m(2, 3, {3});
  m.gemm->weight.copy_(Tensor::from_vector<float>({1, 0, 0, 1, 1, -1}, {3, 2}));
  m.bias.copy_(Tensor::from_vector<float>({0.5f, -3.0f, 1.0f}, {3}));
  Tensor out = m.forward({Tensor::from_vector<float>({1, 2}, {1, 2})})[0];
  // x W^T = [1, 2, -1]; + bias = [1.5, -1, 0]; relu = [1.5, 0, 0].
  EXPECT_THAT(out.to_vector<float>(), ElementsAre(1.5f, 0.0f, 0.0f));
}

TEST(ModelForward, GemmInstanceNormAddMulNormalisesEachRow) {
  models::GemmInstanceNormAddMul m(2, 2, 1e-5);
  m.bmm->weight.copy_(Tensor::from_vector<float>({1, 0, 0, 1}, {2, 2}));
  m.bmm->bias.copy_(Tensor::zeros({2}));
  // Row [1, 3]: mean 2, biased variance 1, so it normalises to about [-1, 1].
  Tensor x = Tensor::from_vector<float>({1, 3}, {1, 2});
  Tensor y = Tensor::from_vector<float>({2, 3}, {1, 2});
  std::vector<float> out = m.forward({x, y})[0].to_vector<float>();
  const double s = 1.0 / std::sqrt(1.0 + 1e-5);
  EXPECT_NEAR(out[0], (-s + 2) * 2, 1e-5);
  EXPECT_NEAR(out[1], (s + 3) * 3, 1e-5);
}

TEST(ModelForward, GemmScaleBatchNormTrainUpdatesRunningStatsEvalDoesNot) {
  models::GemmScaleBatchNorm m(1, 1, {1}, 1e-5, 0.5);
  m.gemm->weight.copy_(Tensor::ones({1, 1}));
  m.gemm->bias.copy_(Tensor::zeros({1}));
  m.scale.copy_(Tensor::full({1}, 2.0));
  Tensor x = Tensor::from_vector<float>({1, 2, 3}, {3, 1});  // after scale: [2, 4, 6]
  m.forward({x});
  // mean 4, unbiased variance 4: running = 0.5 * old + 0.5 * batch.
  EXPECT_THAT(m.bn->running_mean.to_vector<float>(), ElementsAre(2.0f));
  EXPECT_THAT(m.bn->running_var.to_vector<float>(), ElementsAre(2.5f));
  m.eval();
  std::vector<float> out = m.forward({x})[0].to_vector<float>();
  EXPECT_THAT(m.bn->running_mean.to_vector<float>(), ElementsAre(2.0f));
  EXPECT_NEAR(out[0], (2 - 2) / std::sqrt(2.5 + 1e-5), 1e-6);
  EXPECT_NEAR(out[2], (6 - 2) / std::sqrt(2.5 + 1e-5), 1e-6);
}

TEST(ModelForward, SmallPresetsGiveOutputsOfTheRightShape) {
  const std::map<std::string, Shape> expected = {{"GemmInstanceNormAddMul", {16, 96}},
                                                 {"InstanceNorm2dModel", {4, 8, 32, 32}},
                                                 {"GemmSwishBiasGroupNorm", {32, 128}},
                                                 {"GemmScaleBatchNorm", {64, 72}},
                                                 {"GemmBiasReLU", {16, 80}}};
  for (const models::ModelInfo& info : models::registered_models()) {
    auto model = models::build_model(info.name, info.small.init, 1);
    std::vector<Tensor> out = model->forward(models::random_inputs(info.small.input_shapes, 1));
    ASSERT_EQ(out.size(), 1u) << info.name;
    EXPECT_EQ(out[0].sizes(), expected.at(info.name)) << info.name;
  }
}

// ---- wrong calls ----

TEST(ModelErrors, WrongInputCountIsNamed) {
  models::GemmInstanceNormAddMul m1(4, 4);
  EXPECT_EQ(error_of([&] {
              m1.forward({Tensor::rand({2, 4}, 1)});
            }),
            "GemmInstanceNormAddMul expects 2 inputs but got 1");
  models::GemmBiasReLU m5(4, 4, {4});
  EXPECT_EQ(error_of([&] {
              m5.forward({Tensor::rand({2, 4}, 1), Tensor::rand({2, 4}, 2)});
            }),
            "GemmBiasReLU expects 1 input but got 2");
  EXPECT_EQ(error_of([&] { m5.forward({}); }), "GemmBiasReLU expects 1 input but got 0");
}

TEST(ModelErrors, WrongShapesAreClear) {
  models::InstanceNorm2dModel m2(3);
  EXPECT_EQ(error_of([&] {
              m2.forward({Tensor::rand({2, 4, 5, 5}, 1)});
            }),
            "InstanceNorm2dModel: expected an input [N, 3, H, W] but got [2, 4, 5, 5]");
  EXPECT_EQ(error_of([] { models::GemmBiasReLU(4, 8, {4}); }),
            "GemmBiasReLU: bias_shape must hold one value per output feature ([8]) but got [4]");
  EXPECT_EQ(error_of([] {
              models::GemmScaleBatchNorm(4, 8, {8, 1});
            }),
            "GemmScaleBatchNorm: scale_shape must hold one value per output feature ([8]) but got "
            "[8, 1]");
  EXPECT_EQ(error_of([] { nn::GroupNorm(7, 128); }),
            "GroupNorm: num_channels must be divisible by num_groups but got 128 channels and 7 "
            "groups");
  EXPECT_EQ(error_of([] { nn::Linear(0, 3); }), "Linear: in_features must be positive but got 0");
}

// ---- registry ----

TEST(Registry, ListsTheFiveSeedModelsInOrder) {
  std::vector<std::string> names;
  for (const auto& info : models::registered_models()) names.push_back(info.name);
  EXPECT_THAT(names, ElementsAre("GemmInstanceNormAddMul", "InstanceNorm2dModel",
                                 "GemmSwishBiasGroupNorm", "GemmScaleBatchNorm", "GemmBiasReLU"));
}

TEST(Registry, FullShapesAreTheKernelBenchOnes) {
  EXPECT_EQ(models::find_model("GemmSwishBiasGroupNorm").full.input_shapes,
            (std::vector<Shape>{{32768, 1024}}));
  EXPECT_EQ(models::find_model("GemmSwishBiasGroupNorm").full.init, "[1024, 4096, 64, [4096]]");
  EXPECT_EQ(models::find_model("InstanceNorm2dModel").full.input_shapes,
            (std::vector<Shape>{{112, 64, 512, 512}}));
  EXPECT_EQ(models::find_model("GemmInstanceNormAddMul").full.input_shapes,
            (std::vector<Shape>{{1024, 8192}, {1024, 8192}}));
  EXPECT_EQ(models::find_model("GemmScaleBatchNorm").full.input_shapes,
            (std::vector<Shape>{{16384, 4096}}));
  EXPECT_EQ(models::find_model("GemmBiasReLU").full.init, "[8192, 8192, [8192]]");
}

TEST(Registry, BuildsFromJsonWithDefaults) {
  auto m = models::build_model("GemmScaleBatchNorm", "[40, 72, [72]]", 3);
  auto* bn_model = dynamic_cast<models::GemmScaleBatchNorm*>(m.get());
  ASSERT_NE(bn_model, nullptr);
  EXPECT_EQ(bn_model->bn->eps, 1e-5);
  EXPECT_EQ(bn_model->bn->momentum, 0.1);
  EXPECT_EQ(bn_model->gemm->weight.sizes(), (Shape{72, 40}));

  auto explicit_args = models::build_model("GemmScaleBatchNorm", "[40, 72, [72], 0.001, 0.5]", 3);
  auto* e = dynamic_cast<models::GemmScaleBatchNorm*>(explicit_args.get());
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->bn->eps, 0.001);
  EXPECT_EQ(e->bn->momentum, 0.5);
  // The same seed through the registry and the constructor gives the same weights.
  models::GemmScaleBatchNorm direct(40, 72, {72}, 1e-5, 0.1, 3);
  EXPECT_EQ(direct.scale.to_vector<float>(), bn_model->scale.to_vector<float>());
  EXPECT_EQ(models::build_model("GemmInstanceNormAddMul", "[4, 6, 1]")->name(),
            "GemmInstanceNormAddMul");
}

TEST(Registry, UnknownModelListsTheKnownOnes) {
  EXPECT_EQ(error_of([] { models::build_model("GemmBiasRelu", "[1, 2, [2]]"); }),
            "unknown model 'GemmBiasRelu' (did you mean GemmBiasReLU?); the known models are "
            "GemmInstanceNormAddMul, "
            "InstanceNorm2dModel, GemmSwishBiasGroupNorm, GemmScaleBatchNorm, GemmBiasReLU");
  EXPECT_THAT(error_of([] { models::find_model(""); }), HasSubstr("unknown model ''"));
}

TEST(Registry, BadInitArgumentsNameTheModelAndArgument) {
  EXPECT_THAT(
      error_of([] { models::build_model("GemmBiasReLU", "[64, 80, [80]"); }),
      HasSubstr("GemmBiasReLU: the constructor arguments '[64, 80, [80]' are not valid JSON"));
  // {model, constructor arguments, the error}
  const std::tuple<const char*, const char*, const char*> cases[] = {
      {"GemmBiasReLU", "{\"in\": 64}",
       "GemmBiasReLU: the constructor arguments must be a JSON list like [64, 80, [80]] but got "
       "{\"in\":64}"},
      {"GemmBiasReLU", "[64, 80]",
       "GemmBiasReLU takes 3 arguments (in_features, out_features, bias_shape) but got 2"},
      {"GemmScaleBatchNorm", "[1, 2, [2], 1, 1, 1]",
       "GemmScaleBatchNorm takes 3 to 5 arguments (in_features, out_features, scale_shape, eps, "
       "momentum) but got 6"},
      {"GemmBiasReLU", "[64, \"80\", [80]]",
       "GemmBiasReLU: argument 2 (out_features) must be an integer but got \"80\""},
      {"GemmBiasReLU", "[64, 80, 80]",
       "GemmBiasReLU: argument 3 (bias_shape) must be a list of integers such as [80] but got 80"},
      {"GemmBiasReLU", "[64.5, 80, [80]]",
       "GemmBiasReLU: argument 1 (in_features) must be an integer but got 64.5"},
      {"GemmInstanceNormAddMul", "[4, 4, \"tiny\"]",
       "GemmInstanceNormAddMul: argument 3 (eps) must be a number but got \"tiny\""},
  };
  for (const auto& [model, args, message] : cases) {
    const std::string name = model, init = args;
    EXPECT_EQ(error_of([&] { models::build_model(name, init); }), message) << init;
  }
  EXPECT_EQ(error_of([] { models::find_model("GemmBiasReLU").preset("medium"); }),
            "GemmBiasReLU: unknown shape preset 'medium'; expected 'small' or 'full'");
}

TEST(Registry, RandomInputsAreSeededUniformAndDistinct) {
  std::vector<Tensor> a = models::random_inputs({{2, 3}, {2, 3}}, 9);
  std::vector<Tensor> b = models::random_inputs({{2, 3}, {2, 3}}, 9);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].to_vector<float>(), b[0].to_vector<float>());
  EXPECT_NE(a[0].to_vector<float>(), a[1].to_vector<float>());
  for (float v : a[1].to_vector<float>()) {
    EXPECT_GE(v, 0.0f);
    EXPECT_LT(v, 1.0f);
  }
}

}  // namespace
}  // namespace tt
