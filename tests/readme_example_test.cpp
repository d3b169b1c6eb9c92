// The README's "Writing a model" example, compiled and run, so that the README
// stays true: a user-written module on the CPU reference (and on the GPU where
// there is one) with PyTorch-style parameter names.
#include <gtest/gtest.h>

#include <cmath>

#include <tensortune/tensortune.h>

#include "support/test_util.h"

namespace {

// relu(fc(x)), then a group norm: submodules give PyTorch's dotted names
// ("fc.weight", "norm.bias", ...), so a PyTorch state_dict loads unchanged.
class MyBlock : public tt::Module {
 public:
  MyBlock(int64_t in, int64_t out, uint64_t seed) {
    fc_ = register_module("fc", std::make_shared<tt::nn::Linear>(in, out, /*bias=*/true, seed));
    norm_ = register_module("norm", std::make_shared<tt::nn::GroupNorm>(/*groups=*/4, out));
  }
  std::vector<tt::Tensor> forward(const std::vector<tt::Tensor>& in) override {
    return norm_->forward({tt::ops::relu(fc_->forward(in).at(0))});
  }
  std::string name() const override { return "MyBlock"; }

 private:
  std::shared_ptr<tt::nn::Linear> fc_;
  std::shared_ptr<tt::nn::GroupNorm> norm_;
};

TEST(ReadmeExample, RunsOnTheCpuAndNormalisesEachGroup) {
  MyBlock block(64, 128, /*seed=*/0);
  tt::Tensor x = tt::Tensor::rand({32, 64}, /*seed=*/1);
  tt::Tensor out = block.forward({x})[0];
  ASSERT_EQ(out.sizes(), (tt::Shape{32, 128}));
  const tt::StateDict dict = block.state_dict();
  EXPECT_EQ(dict.size(), 4u);
  EXPECT_EQ(dict.at("fc.weight").sizes(), (tt::Shape{128, 64}));
  EXPECT_EQ(dict.count("norm.bias"), 1u);
  // Each row's 4 groups of 32 channels have mean 0 and (biased) variance ~1.
  auto v = out.to_vector<float>();
  for (int64_t r = 0; r < 32; ++r) {
    for (int64_t g = 0; g < 4; ++g) {
      double s = 0, s2 = 0;
      for (int64_t c = 0; c < 32; ++c) {
        double e = v[r * 128 + g * 32 + c];
        s += e;
        s2 += e * e;
      }
      EXPECT_NEAR(s / 32, 0.0, 1e-5);
      EXPECT_NEAR(s2 / 32, 1.0, 1e-3);  // eps = 1e-5 shrinks it slightly
    }
  }
}

TEST(ReadmeExample, GpuAgreesWithTheCpu) {
  TT_REQUIRE_CUDA();
  MyBlock block(64, 128, 0);
  tt::Tensor x = tt::Tensor::rand({32, 64}, 1);
  tt::Tensor cpu_out = block.forward({x})[0];
  block.to(tt::Device::cuda(0));
  tt::Tensor gpu_out = block.forward({x.to(tt::Device::cuda(0))})[0];
  EXPECT_LE(tt::test::rel_l2(gpu_out, cpu_out), 1e-5);
}

}  // namespace
