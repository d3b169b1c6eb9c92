// Every user mistake the op front end can catch, each with its exact message: the
// op name, what was expected and what was got.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "core/tensor.h"
#include "ops/ops.h"
#include "support/test_util.h"
#if TT_CUDA
#include "core/cuda/runtime.h"
#endif

namespace tt {
namespace {

// The message of the tt::Error that `fn` throws, or a marker when it throws none.
using tt::test::error_of;

Tensor f32(const Shape& s) { return Tensor::zeros(s); }

TEST(OpsErrors, LinearFeatureMismatch) {
  EXPECT_EQ(error_of([] {
              ops::linear(f32({2, 63}), f32({64, 64}));
            }),
            "linear: input has 63 features but weight expects 64");
}

TEST(OpsErrors, LinearBiasLength) {
  EXPECT_EQ(error_of([] {
              ops::linear(f32({2, 3}), f32({4, 3}), f32({5}));
            }),
            "linear: bias has shape [5] but weight has 4 output features; expected [4]");
  EXPECT_EQ(error_of([] {
              ops::linear(f32({2, 3}), f32({4, 3}), f32({1, 4}));
            }),
            "linear: bias has shape [1, 4] but weight has 4 output features; expected [4]");
}

TEST(OpsErrors, LinearWeightRank) {
  EXPECT_EQ(error_of([] {
              ops::linear(f32({2, 3}), f32({3}));
            }),
            "linear: weight must be 2-D [out_features, in_features] but has shape [3]");
}

TEST(OpsErrors, AddBroadcastFailure) {
  EXPECT_EQ(error_of([] {
              ops::add(f32({2, 3}), f32({4}));
            }),
            "add: shapes [2, 3] and [4] cannot be broadcast: dimension -1 has size 3 in the "
            "first and 4 in the second, and neither is 1");
  EXPECT_EQ(error_of([] {
              ops::mul(f32({3, 2, 5}), f32({4, 5}));
            }),
            "mul: shapes [3, 2, 5] and [4, 5] cannot be broadcast: dimension -2 has size 2 in "
            "the first and 4 in the second, and neither is 1");
  EXPECT_EQ(error_of([] { ops::sub(f32({7}), f32({0})); }),
            "sub: shapes [7] and [0] cannot be broadcast: dimension -1 has size 7 in the first "
            "and 0 in the second, and neither is 1");
}

TEST(OpsErrors, NormAffineLengths) {
  EXPECT_EQ(error_of([] {
              ops::group_norm(f32({2, 6}), 3, f32({5}), f32({6}));
            }),
            "group_norm: weight has shape [5] but the input has 6 channels; expected [6]");
  EXPECT_EQ(error_of([] {
              ops::instance_norm(f32({2, 3, 4}), 1e-5, f32({3}), f32({2, 3}));
            }),
            "instance_norm: bias has shape [2, 3] but the input has 3 channels; expected [3]");
  EXPECT_EQ(error_of([] {
              ops::batch_norm(f32({4, 3}), f32({3}), f32({3}), f32({4}), f32({3}), true);
            }),
            "batch_norm: weight has shape [4] but the input has 3 channels; expected [3]");
  EXPECT_EQ(error_of([] {
              ops::batch_norm(f32({4, 3, 2}), f32({2}), f32({3}), f32({3}), f32({3}), true);
            }),
            "batch_norm: running_mean has shape [2] but the input has 3 channels; expected [3]");
}

TEST(OpsErrors, InstanceNormNeedsRankThree) {
  EXPECT_EQ(error_of([] {
              ops::instance_norm(f32({4, 5}));
            }),
            "instance_norm: input must have rank >= 3 [N, C, *spatial] but has shape [4, 5]");
}

TEST(OpsErrors, BatchNormRank) {
  EXPECT_EQ(error_of([] {
              ops::batch_norm(f32({2, 3, 4, 5}), f32({3}), f32({3}), f32({3}), f32({3}), true);
            }),
            "batch_norm: input must be [N, C] or [N, C, L] but has shape [2, 3, 4, 5]");
  EXPECT_EQ(error_of([] { ops::group_norm(f32({6}), 2, Tensor(), Tensor()); }),
            "group_norm: input must have rank >= 2 [N, C, *] but has shape [6]");
}

TEST(OpsErrors, GroupsMustDivideChannels) {
  EXPECT_EQ(error_of([] {
              ops::group_norm(f32({2, 6, 3}), 4, f32({6}), f32({6}));
            }),
            "group_norm: 6 channels are not divisible by 4 groups");
}

TEST(OpsErrors, GroupsMustBePositive) {
  EXPECT_EQ(error_of([] {
              ops::group_norm(f32({2, 6}), 0, f32({6}), f32({6}));
            }),
            "group_norm: groups must be positive but is 0");
  EXPECT_EQ(error_of([] {
              ops::group_norm(f32({2, 6}), -3, f32({6}), f32({6}));
            }),
            "group_norm: groups must be positive but is -3");
}

TEST(OpsErrors, UndefinedTensors) {
  EXPECT_EQ(error_of([] { ops::relu(Tensor()); }), "relu: input is undefined; expected a tensor");
  EXPECT_EQ(error_of([] {
              ops::linear(f32({2, 3}), Tensor());
            }),
            "linear: weight is undefined; expected a float32 tensor");
  EXPECT_EQ(error_of([] { ops::add(f32({2}), Tensor()); }),
            "add: b is undefined; expected a tensor");
}

TEST(OpsErrors, WrongDtype) {
  const Tensor f64 = Tensor::zeros({2, 2}, DType::F64);
  EXPECT_EQ(error_of([&] {
              ops::add(f64, f32({2, 2}));
            }),
            "add: a has dtype float64 but only float32 is supported");
  EXPECT_EQ(error_of([&] {
              ops::linear(f32({2, 2}), f32({3, 2}), Tensor::zeros({3}, DType::I64));
            }),
            "linear: bias has dtype int64 but only float32 is supported");
  EXPECT_EQ(error_of([&] { ops::sigmoid(f64); }),
            "sigmoid: input has dtype float64 but only float32 is supported");
}

TEST(OpsErrors, BatchNormStatisticsContract) {
  EXPECT_EQ(error_of([] {
              ops::batch_norm(f32({4, 3}), Tensor(), Tensor(), f32({3}), f32({3}), false);
            }),
            "batch_norm: eval mode normalises with the running statistics, but running_mean "
            "and running_var are undefined");
  EXPECT_EQ(error_of([] {
              ops::batch_norm(f32({4, 3}), f32({3}), Tensor(), f32({3}), f32({3}), true);
            }),
            "batch_norm: running_mean is given but running_var is undefined; give both or "
            "neither");
  EXPECT_EQ(error_of([] {
              ops::batch_norm(f32({1, 3}), f32({3}), f32({3}), f32({3}), f32({3}), true);
            }),
            "batch_norm: training needs more than 1 value per channel to compute a batch "
            "variance but got 1");
  EXPECT_EQ(error_of([] {
              ops::batch_norm(f32({4, 3}), f32({3}), f32({3}), f32({3}), f32({3}), true, 1.5);
            }),
            "batch_norm: momentum must be in [0, 1] but is 1.5");
}

TEST(OpsErrors, FailedChecksLeaveRunningStatsUntouched) {
  const Tensor running_mean = Tensor::full({3}, 7.0), running_var = Tensor::full({3}, 2.0);
  EXPECT_THAT(error_of([&] {
                ops::batch_norm(f32({4, 3}), running_mean, running_var, f32({2}), f32({3}), true);
              }),
              ::testing::HasSubstr("batch_norm: weight has shape [2]"));
  EXPECT_THAT(running_mean.to_vector<float>(), ::testing::Each(7.0f));
  EXPECT_THAT(running_var.to_vector<float>(), ::testing::Each(2.0f));
}

TEST(OpsErrors, NegativeEps) {
  EXPECT_EQ(error_of([] {
              ops::instance_norm(f32({1, 2, 3}), -1.0);
            }),
            "instance_norm: eps must be finite and >= 0 but is -1");
}

TEST(OpsErrors, MixedDevices) {
#if TT_CUDA
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const Tensor on_gpu = Tensor::zeros({4, 3}, DType::F32, Device::cuda(0));
  EXPECT_EQ(error_of([&] {
              ops::linear(f32({2, 3}), on_gpu);
            }),
            "linear: weight is on cuda:0 but input is on cpu; all tensors must be on the same "
            "device");
  EXPECT_EQ(error_of([&] {
              ops::add(on_gpu, f32({4, 3}));
            }),
            "add: b is on cpu but a is on cuda:0; all tensors must be on the same device");
  EXPECT_EQ(
      error_of([&] { ops::batch_norm(on_gpu, f32({3}), f32({3}), Tensor(), Tensor(), true); }),
      "batch_norm: running_mean is on cpu but input is on cuda:0; all tensors must be on "
      "the same device");
#else
  GTEST_SKIP() << "no CUDA device (built without TT_CUDA): tensors on two devices cannot be made";
#endif
}

}  // namespace
}  // namespace tt
