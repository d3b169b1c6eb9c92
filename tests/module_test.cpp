// tt::Module: dotted names in registration order, state dicts, strict and
// non-strict loading with exact messages, train/eval, device moves, name checks.
#include "core/module.h"
#include "support/test_util.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/safetensors.h"
#include "core/tensor.h"
#if TT_CUDA
#include "core/cuda/runtime.h"
#endif

namespace tt {
namespace {

using ::testing::ElementsAre;

// A Linear-like leaf: weight [out, in], bias [out], and a running-mean buffer.
class Leaf : public Module {
 public:
  Leaf(int64_t in, int64_t out) {
    weight = register_parameter("weight", Tensor::zeros({out, in}));
    bias = register_parameter("bias", Tensor::zeros({out}));
    running_mean = register_buffer("running_mean", Tensor::zeros({out}));
  }
  std::vector<Tensor> forward(const std::vector<Tensor>& inputs) override { return inputs; }
  std::string name() const override { return "Leaf"; }

  Tensor weight, bias, running_mean;
};

// Registration interleaves own tensors and children on purpose: PyTorch lists a
// module's own tensors before any child's, whatever the order of registration.
class Net : public Module {
 public:
  Net() {
    scale = register_parameter("scale", Tensor::ones({3}));
    gemm = register_module("gemm", std::make_shared<Leaf>(4, 3));
    steps = register_buffer("steps", Tensor::zeros({1}, DType::I64));
    norm = register_module("norm", std::make_shared<Net2>());
  }
  std::vector<Tensor> forward(const std::vector<Tensor>& inputs) override { return inputs; }
  std::string name() const override { return "Net"; }

  class Net2 : public Module {
   public:
    Net2() {
      inner = register_module("inner", std::make_shared<Leaf>(3, 2));
      gamma = register_parameter("gamma", Tensor::ones({2}));
    }
    std::vector<Tensor> forward(const std::vector<Tensor>& inputs) override { return inputs; }
    std::string name() const override { return "Net2"; }
    std::shared_ptr<Leaf> inner;
    Tensor gamma;
  };

  Tensor scale, steps;
  std::shared_ptr<Leaf> gemm;
  std::shared_ptr<Net2> norm;
};

// Exposes the protected registration calls so that tests can misuse them.
class Open : public Module {
 public:
  using Module::register_buffer;
  using Module::register_module;
  using Module::register_parameter;
  std::vector<Tensor> forward(const std::vector<Tensor>& inputs) override { return inputs; }
  std::string name() const override { return "Open"; }
};

std::vector<std::string> names_of(const NamedTensors& named) {
  std::vector<std::string> names;
  for (const auto& [name, t] : named) names.push_back(name);
  return names;
}

// Fills every parameter and buffer with distinct values derived from `base`.
void fill_distinct(Module& m, float base) {
  float next = base;
  for (auto& [name, t] : m.state_dict()) {
    if (t.dtype() == DType::I64) {
      std::vector<int64_t> values(static_cast<size_t>(t.numel()));
      for (auto& v : values) v = static_cast<int64_t>(next++);
      t.copy_(Tensor::from_vector<int64_t>(values, t.sizes()));
    } else {
      std::vector<float> values(static_cast<size_t>(t.numel()));
      for (auto& v : values) v = next++;
      t.copy_(Tensor::from_vector<float>(values, t.sizes()));
    }
  }
}

using tt::test::error_of;

TEST(ModuleTest, NamesAreDottedInPyTorchOrder) {
  Net net;
  EXPECT_THAT(names_of(net.named_parameters()),
              ElementsAre("scale", "gemm.weight", "gemm.bias", "norm.gamma", "norm.inner.weight",
                          "norm.inner.bias"));
  EXPECT_THAT(names_of(net.named_buffers()),
              ElementsAre("steps", "gemm.running_mean", "norm.inner.running_mean"));
  const auto children = net.named_children();
  ASSERT_EQ(children.size(), 2u);
  EXPECT_EQ(children[0].first, "gemm");
  EXPECT_EQ(children[1].first, "norm");
  EXPECT_EQ(children[0].second.get(), net.gemm.get());
}

TEST(ModuleTest, NamedTensorsAreTheModulesOwnHandles) {
  Net net;
  const NamedTensors params = net.named_parameters();
  EXPECT_TRUE(params[1].second.is_same(net.gemm->weight));
  EXPECT_EQ(params[1].second.sizes(), (Shape{3, 4}));
  EXPECT_EQ(net.named_buffers()[0].second.dtype(), DType::I64);
}

TEST(ModuleTest, StateDictHoldsParametersAndBuffers) {
  Net net;
  const StateDict dict = net.state_dict();
  std::vector<std::string> keys;
  for (const auto& [key, t] : dict) keys.push_back(key);
  // PyTorch's order: own parameters, own buffers, then each child's (registration order).
  EXPECT_THAT(keys, ElementsAre("scale", "steps", "gemm.weight", "gemm.bias", "gemm.running_mean",
                                "norm.gamma", "norm.inner.weight", "norm.inner.bias",
                                "norm.inner.running_mean"));
  EXPECT_TRUE(dict.at("norm.inner.weight").is_same(net.norm->inner->weight));
}

TEST(ModuleTest, StateDictRoundTripCopiesValuesIntoExistingTensors) {
  Net source;
  fill_distinct(source, 1.0f);
  Net target;
  const Tensor held_weight = target.gemm->weight;  // a handle a model would hold
  target.load_state_dict(source.state_dict());

  for (const auto& [key, t] : source.state_dict()) {
    SCOPED_TRACE(key);
    const Tensor loaded = target.state_dict().at(key);
    EXPECT_FALSE(loaded.shares_storage_with(t));
    if (t.dtype() == DType::I64) {
      EXPECT_EQ(loaded.to_vector<int64_t>(), t.to_vector<int64_t>());
    } else {
      EXPECT_EQ(loaded.to_vector<float>(), t.to_vector<float>());
    }
  }
  EXPECT_TRUE(held_weight.is_same(target.gemm->weight));
  EXPECT_EQ(held_weight.to_vector<float>(), source.gemm->weight.to_vector<float>());
  EXPECT_THAT(target.steps.to_vector<int64_t>(),
              ElementsAre(4));  // the 4th value in state-dict order
}

TEST(ModuleTest, LoadingItsOwnStateDictChangesNothing) {
  Net net;
  fill_distinct(net, 10.0f);
  const std::vector<float> before = net.gemm->weight.to_vector<float>();
  net.load_state_dict(net.state_dict());
  EXPECT_EQ(net.gemm->weight.to_vector<float>(), before);
}

TEST(ModuleTest, StateDictRoundTripsThroughSafetensors) {
  Net source;
  fill_distinct(source, -5.0f);
  const test::ScratchDir scratch("tt_module_test");
  const std::string path = scratch.path("net.safetensors");
  safetensors::save(path, source.state_dict(), {{"model", "Net"}});
  safetensors::File file = safetensors::load(path);

  Net target;
  target.load_state_dict(file.tensors);
  EXPECT_EQ(target.norm->inner->bias.to_vector<float>(),
            source.norm->inner->bias.to_vector<float>());
  EXPECT_EQ(target.steps.to_vector<int64_t>(), source.steps.to_vector<int64_t>());
}

TEST(ModuleTest, StrictLoadNamesEveryMissingKey) {
  Net net;
  StateDict dict = net.state_dict();
  dict.erase("gemm.bias");
  dict.erase("steps");
  dict.erase("norm.inner.running_mean");
  EXPECT_EQ(error_of([&] { Net().load_state_dict(dict); }),
            "load_state_dict: missing keys 'gemm.bias', 'steps', 'norm.inner.running_mean'");
  dict = net.state_dict();
  dict.erase("scale");
  EXPECT_EQ(error_of([&] { Net().load_state_dict(dict); }), "load_state_dict: missing key 'scale'");
}

TEST(ModuleTest, StrictLoadNamesEveryUnexpectedKey) {
  Net net;
  StateDict dict = net.state_dict();
  dict["input.0"] = Tensor::zeros({16, 4});
  dict["expected.out"] = Tensor::zeros({16, 3}, DType::F64);
  EXPECT_EQ(error_of([&] { Net().load_state_dict(dict); }),
            "load_state_dict: unexpected keys 'input.0', 'expected.out'");  // dict order
}

TEST(ModuleTest, StrictLoadReportsAllProblemsInOneMessageAndChangesNothing) {
  Net source;
  fill_distinct(source, 1.0f);
  StateDict dict = source.state_dict();
  dict.erase("norm.gamma");
  dict["gemm.extra"] = Tensor::zeros({1});
  dict["gemm.weight"] = Tensor::zeros({3, 5});
  Net target;
  EXPECT_EQ(error_of([&] { target.load_state_dict(dict); }),
            "load_state_dict: missing key 'norm.gamma'; unexpected key 'gemm.extra'; shape "
            "mismatch for 'gemm.weight': expected [3, 4] but got [3, 5]");
  EXPECT_THAT(target.scale.to_vector<float>(), ElementsAre(1, 1, 1));
}

TEST(ModuleTest, ShapeMismatchIsAnErrorEvenWhenNotStrict) {
  Net net;
  StateDict dict = net.state_dict();
  dict["gemm.weight"] = Tensor::zeros({3, 5});
  dict["norm.inner.bias"] = Tensor::zeros({2, 1});
  EXPECT_EQ(error_of([&] { Net().load_state_dict(dict, /*strict=*/false); }),
            "load_state_dict: shape mismatch for 'gemm.weight': expected [3, 4] but got [3, 5]; "
            "shape mismatch for 'norm.inner.bias': expected [2] but got [2, 1]");
}

TEST(ModuleTest, NonStrictLoadSkipsMissingAndUnexpectedKeys) {
  Net target;
  StateDict dict;
  dict["gemm.bias"] = Tensor::from_vector<float>({7, 8, 9}, {3});
  dict["input.0"] = Tensor::zeros({16, 4});
  target.load_state_dict(dict, /*strict=*/false);
  EXPECT_THAT(target.gemm->bias.to_vector<float>(), ElementsAre(7, 8, 9));
  EXPECT_THAT(target.scale.to_vector<float>(), ElementsAre(1, 1, 1));
}

TEST(ModuleTest, LoadConvertsTheDtypeToTheParameters) {
  Net target;
  StateDict dict;
  dict["scale"] = Tensor::from_vector<double>({0.5, 0.25, -2}, {3});
  target.load_state_dict(dict, /*strict=*/false);
  EXPECT_EQ(target.scale.dtype(), DType::F32);
  EXPECT_THAT(target.scale.to_vector<float>(), ElementsAre(0.5f, 0.25f, -2.0f));
}

TEST(ModuleTest, LoadRejectsUndefinedTensors) {
  StateDict dict = Net().state_dict();
  dict["scale"] = Tensor();
  EXPECT_EQ(error_of([&] { Net().load_state_dict(dict); }),
            "load_state_dict: the tensor given for 'scale' is undefined");
}

TEST(ModuleTest, TrainAndEvalReachEveryDescendant) {
  Net net;
  EXPECT_TRUE(net.is_training());
  EXPECT_TRUE(net.norm->inner->is_training());
  net.eval();
  EXPECT_FALSE(net.is_training());
  EXPECT_FALSE(net.gemm->is_training());
  EXPECT_FALSE(net.norm->is_training());
  EXPECT_FALSE(net.norm->inner->is_training());
  net.norm->train();
  EXPECT_FALSE(net.is_training());
  EXPECT_TRUE(net.norm->inner->is_training());
  net.train(true);
  EXPECT_TRUE(net.gemm->is_training());
}

TEST(ModuleTest, DeviceIsCpuByDefaultAndForEmptyModules) {
  EXPECT_TRUE(Net().device().is_cpu());
  EXPECT_TRUE(Open().device().is_cpu());
  Net net;
  const Tensor before = net.gemm->weight;
  net.to(Device::cpu());
  EXPECT_TRUE(before.is_same(net.gemm->weight));
  EXPECT_TRUE(net.gemm->weight.device().is_cpu());
}

TEST(ModuleTest, ToMovesEveryTensorAndHeldHandlesFollow) {
#if TT_CUDA
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device";
  Net net;
  fill_distinct(net, 3.0f);
  const std::vector<float> weight = net.norm->inner->weight.to_vector<float>();
  const Tensor held = net.norm->inner->weight;
  net.to(Device::cuda(0));
  EXPECT_TRUE(net.device().is_cuda());
  for (const auto& [name, t] : net.state_dict()) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(t.device().is_cuda());
  }
  EXPECT_TRUE(held.device().is_cuda());
  EXPECT_EQ(held.cpu().to_vector<float>(), weight);

  // Loading a CPU state dict into a GPU module keeps the module on the GPU.
  Net source;
  fill_distinct(source, 100.0f);
  net.load_state_dict(source.state_dict());
  EXPECT_TRUE(net.gemm->bias.device().is_cuda());
  EXPECT_EQ(net.gemm->bias.cpu().to_vector<float>(), source.gemm->bias.to_vector<float>());

  net.to(Device::cpu());
  EXPECT_TRUE(held.device().is_cpu());
  EXPECT_EQ(net.steps.to_vector<int64_t>(), source.steps.to_vector<int64_t>());
#else
  GTEST_SKIP() << "no CUDA device";
#endif
}

TEST(ModuleTest, RegistrationRejectsBadAndDuplicateNames) {
  Open m;
  m.register_parameter("weight", Tensor::zeros({2}));
  m.register_buffer("running_mean", Tensor::zeros({2}));
  m.register_module("child", std::make_shared<Open>());

  EXPECT_EQ(error_of([&] { m.register_parameter("weight", Tensor::zeros({2})); }),
            "register_parameter: 'weight' is already a parameter");
  EXPECT_EQ(error_of([&] { m.register_parameter("running_mean", Tensor::zeros({2})); }),
            "register_parameter: 'running_mean' is already a buffer");
  EXPECT_EQ(error_of([&] { m.register_buffer("child", Tensor::zeros({2})); }),
            "register_buffer: 'child' is already a submodule");
  EXPECT_EQ(error_of([&] { m.register_buffer("weight", Tensor::zeros({2})); }),
            "register_buffer: 'weight' is already a parameter");
  EXPECT_EQ(error_of([&] { m.register_module("running_mean", std::make_shared<Open>()); }),
            "register_module: 'running_mean' is already a buffer");
  EXPECT_EQ(error_of([&] { m.register_module("child", std::make_shared<Open>()); }),
            "register_module: 'child' is already a submodule");

  EXPECT_EQ(error_of([&] { m.register_parameter("gemm.weight", Tensor::zeros({2})); }),
            "register_parameter: the name 'gemm.weight' contains '.', which is reserved for "
            "submodule paths");
  EXPECT_EQ(error_of([&] { m.register_module("a.b", std::make_shared<Open>()); }),
            "register_module: the name 'a.b' contains '.', which is reserved for submodule paths");
  EXPECT_EQ(error_of([&] { m.register_buffer("", Tensor::zeros({2})); }),
            "register_buffer: the name is empty; expected a non-empty name without '.'");
  EXPECT_EQ(error_of([&] { m.register_parameter("bias", Tensor()); }),
            "register_parameter: the tensor for 'bias' is undefined");
  EXPECT_EQ(error_of([&] { m.register_module("none", std::shared_ptr<Open>()); }),
            "register_module: the submodule 'none' is null");

  // Failed registrations leave nothing behind.
  EXPECT_THAT(names_of(m.named_parameters()), ElementsAre("weight"));
  EXPECT_THAT(names_of(m.named_buffers()), ElementsAre("running_mean"));
  EXPECT_EQ(m.named_children().size(), 1u);
}

TEST(ModuleTest, RegisterReturnsTheSameTensorHandle) {
  Open m;
  Tensor t = Tensor::zeros({2});
  EXPECT_TRUE(m.register_parameter("w", t).is_same(t));
  EXPECT_TRUE(m.named_parameters()[0].second.is_same(t));
}

}  // namespace
}  // namespace tt
