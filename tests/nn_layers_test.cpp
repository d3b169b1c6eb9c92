// The layers and containers of issue 9 (tt::nn::LayerNorm, RMSNorm, GELU, ReLU, SiLU,
// Softmax, Sequential, ModuleList) and Module's parameters(), buffers(),
// named_modules(), apply() and PyTorch-style printing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/module.h"
#include "models/layers.h"
#include "ops/ops.h"
#include "support/test_util.h"

namespace tt {
namespace {

using test::error_of;
using ::testing::ElementsAre;

std::vector<std::string> names_of(const NamedTensors& named) {
  std::vector<std::string> out;
  for (const auto& entry : named) out.push_back(entry.first);
  return out;
}

TEST(Layers, LayerNormHasPyTorchParametersAndMatchesTheOp) {
  nn::LayerNorm norm(Shape{2, 3});
  EXPECT_THAT(names_of(norm.named_parameters()), ElementsAre("weight", "bias"));
  EXPECT_EQ(norm.weight.sizes(), (Shape{2, 3}));
  EXPECT_THAT(norm.weight.to_vector<float>(), ElementsAre(1, 1, 1, 1, 1, 1));
  EXPECT_THAT(norm.bias.to_vector<float>(), ElementsAre(0, 0, 0, 0, 0, 0));
  norm.weight.fill_(2.0);
  const Tensor x = Tensor::randn({4, 2, 3}, 1);
  EXPECT_LE(test::rel_l2(norm(x), ops::layer_norm(x, {2, 3}) * 2.0), 1e-7);
  EXPECT_TRUE(nn::LayerNorm(8, 1e-5, /*elementwise_affine=*/false).named_parameters().empty());
  EXPECT_THAT(names_of(nn::LayerNorm(8, 1e-5, true, /*bias=*/false).named_parameters()),
              ElementsAre("weight"));
  EXPECT_EQ(norm.str(), "LayerNorm((2, 3), eps=1e-05, elementwise_affine=True)");
  EXPECT_EQ(nn::LayerNorm(8).str(), "LayerNorm((8,), eps=1e-05, elementwise_affine=True)");
  EXPECT_EQ(error_of([] { nn::LayerNorm(Shape{}); }),
            "LayerNorm: normalized_shape is empty; expected at least one size");
  EXPECT_EQ(error_of([] {
              nn::LayerNorm(Shape{4, 0});
            }),
            "LayerNorm: normalized_shape must hold positive sizes but is [4, 0]");
}

TEST(Layers, RmsNormAndActivations) {
  nn::RMSNorm rms(4);
  EXPECT_THAT(names_of(rms.named_parameters()), ElementsAre("weight"));
  EXPECT_EQ(rms.str(), "RMSNorm((4,), eps=None, elementwise_affine=True)");
  EXPECT_EQ(nn::RMSNorm(4, 1e-6).str(), "RMSNorm((4,), eps=1e-06, elementwise_affine=True)");
  const Tensor x = Tensor::randn({3, 4}, 2);
  EXPECT_LE(test::rel_l2(rms(x), ops::rms_norm(x, {4})), 1e-7);
  EXPECT_LE(test::rel_l2(nn::GELU("tanh")(x), ops::gelu(x, "tanh")), 0.0);
  EXPECT_LE(test::rel_l2(nn::ReLU()(x), ops::relu(x)), 0.0);
  EXPECT_LE(test::rel_l2(nn::SiLU()(x), ops::silu(x)), 0.0);
  EXPECT_LE(test::rel_l2(nn::Softmax(0)(x), ops::softmax(x, 0)), 0.0);
  EXPECT_EQ(nn::GELU().str(), "GELU(approximate='none')");
  EXPECT_EQ(nn::ReLU().str(), "ReLU()");
  EXPECT_EQ(nn::Softmax(-1).str(), "Softmax(dim=-1)");
  EXPECT_EQ(error_of([] { nn::GELU("fast"); }),
            "GELU: approximate must be 'none' or 'tanh' but is 'fast'");
  EXPECT_EQ(error_of([&] { nn::ReLU().forward({x, x}); }), "ReLU expects 1 input but got 2");
}

TEST(Layers, SequentialNamesChildrenLikePyTorchAndChainsThem) {
  nn::Sequential seq{std::make_shared<nn::Linear>(4, 8, true, 1), std::make_shared<nn::GELU>(),
                     std::make_shared<nn::Linear>(8, 4, true, 2)};
  seq.push_back(std::make_shared<nn::LayerNorm>(4));
  EXPECT_EQ(seq.size(), 4u);
  EXPECT_THAT(names_of(seq.named_parameters()),
              ElementsAre("0.weight", "0.bias", "2.weight", "2.bias", "3.weight", "3.bias"));
  const Tensor x = Tensor::randn({5, 4}, 3);
  auto& fc1 = static_cast<nn::Linear&>(*seq[0]);
  auto& fc2 = static_cast<nn::Linear&>(*seq[2]);
  const Tensor want = ops::layer_norm(
      ops::linear(ops::gelu(ops::linear(x, fc1.weight, fc1.bias)), fc2.weight, fc2.bias), {4});
  EXPECT_LE(test::rel_l2(seq(x), want), 0.0);
  EXPECT_EQ(seq.str(),
            "Sequential(\n"
            "  (0): Linear(in_features=4, out_features=8, bias=True)\n"
            "  (1): GELU(approximate='none')\n"
            "  (2): Linear(in_features=8, out_features=4, bias=True)\n"
            "  (3): LayerNorm((4,), eps=1e-05, elementwise_affine=True)\n"
            ")");
  EXPECT_EQ(error_of([&] { seq[4]; }), "Sequential: index 4 is out of range for 4 modules");
  EXPECT_EQ(error_of([&] { seq.push_back(nullptr); }), "Sequential: module 4 is null");
}

class Block : public Module {
 public:
  Block() {
    layers = register_module("layers", std::make_shared<nn::ModuleList>());
    layers->push_back(std::make_shared<nn::Linear>(3, 3, false, 4));
    layers->push_back(std::make_shared<nn::BatchNorm1d>(3));
    head = register_module(
        "head", std::make_shared<nn::Sequential>(
                    std::initializer_list<std::shared_ptr<Module>>{std::make_shared<nn::ReLU>()}));
  }
  std::vector<Tensor> forward(const std::vector<Tensor>& in) override {
    Tensor x = in.at(0);
    for (const auto& m : *layers) x = m->forward({x})[0];
    return head->forward({x});
  }
  std::string name() const override { return "Block"; }
  std::shared_ptr<nn::ModuleList> layers;
  std::shared_ptr<nn::Sequential> head;
};

TEST(Modules, ParametersBuffersNamedModulesApplyAndPrinting) {
  Block block;
  EXPECT_THAT(names_of(block.named_parameters()),
              ElementsAre("layers.0.weight", "layers.1.weight", "layers.1.bias"));
  EXPECT_EQ(block.parameters().size(), 3u);
  EXPECT_TRUE(block.parameters()[0].is_same(block.named_parameters()[0].second));
  EXPECT_EQ(block.buffers().size(), 2u);  // running_mean, running_var
  std::vector<std::string> module_names;
  for (const auto& [name, m] : block.named_modules())
    module_names.push_back(name + ":" + m->name());
  EXPECT_THAT(module_names, ElementsAre(":Block", "layers:ModuleList", "layers.0:Linear",
                                        "layers.1:BatchNorm1d", "head:Sequential", "head.0:ReLU"));
  std::vector<std::string> visited;
  block.apply([&](Module& m) {
    visited.push_back(m.name());
    if (auto* linear = dynamic_cast<nn::Linear*>(&m)) linear->weight.zero_();
  });
  EXPECT_THAT(visited,
              ElementsAre("Block", "ModuleList", "Linear", "BatchNorm1d", "Sequential", "ReLU"));
  EXPECT_EQ(ops::amax(ops::abs(block.layers->operator[](0)->parameters()[0])).item<float>(), 0.0f);
  std::ostringstream printed;
  printed << block;
  EXPECT_EQ(printed.str(),
            "Block(\n"
            "  (layers): ModuleList(\n"
            "    (0): Linear(in_features=3, out_features=3, bias=False)\n"
            "    (1): BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, "
            "track_running_stats=True)\n"
            "  )\n"
            "  (head): Sequential(\n"
            "    (0): ReLU()\n"
            "  )\n"
            ")");
  EXPECT_EQ(error_of([&] { block.layers->forward({}); }),
            "ModuleList: a ModuleList has no forward; call its modules (list[i]->forward(...)) "
            "instead");
}

}  // namespace
}  // namespace tt
