// Writes whose destination overlaps itself or an input (issue 21): PyTorch's rules on
// the CPU and, where a GPU is present, on CUDA (the one check sits in the op front end,
// before the dispatch): full identity is fine for pointwise in-place ops, partial
// overlap and internal overlap are refused with PyTorch's sentence, disjoint views of
// one storage are fine, and copy_ is right where it accepts overlap. Also the rank and
// size arithmetic of the views and factories (checked, rank-0 cases).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/checked.h"
#include "core/overlap.h"
#include "core/tensor.h"
#include "ops/ops.h"
#include "support/test_util.h"

namespace {

using tt::Device;
using tt::Shape;
using tt::Tensor;
using tt::test::error_of;

const char* kPartial =
    "unsupported operation: some elements of the input tensor and the written-to tensor refer "
    "to a single memory location. Please clone() the tensor before performing the operation.";
const char* kInternal =
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation.";

std::string msg(const char* op, const char* sentence) { return std::string(op) + ": " + sentence; }

Tensor iota(const Shape& shape, Device device) {
  return Tensor::arange(0.0, static_cast<double>(tt::shape_numel(shape)), 1.0, tt::DType::F32,
                        device)
      .view(shape);
}

std::vector<Device> devices() {
  std::vector<Device> d = {Device::cpu()};
  if (tt::test::cuda_available()) d.push_back(Device::cuda(0));
  return d;
}

TEST(Overlap, StatusIsExact) {
  const Tensor x = iota({4, 4}, Device::cpu());
  EXPECT_EQ(tt::overlap_status(x, x), tt::MemOverlap::kFull);
  EXPECT_EQ(tt::overlap_status(x, x.view({16}).view({4, 4})), tt::MemOverlap::kFull);
  EXPECT_EQ(tt::overlap_status(x, x.transpose(0, 1)), tt::MemOverlap::kPartial);
  EXPECT_EQ(tt::overlap_status(x.select(1, 0), x.select(1, 1)), tt::MemOverlap::kNone);
  EXPECT_EQ(tt::overlap_status(x.narrow(0, 0, 2), x.narrow(0, 1, 2)), tt::MemOverlap::kPartial);
  EXPECT_EQ(tt::overlap_status(x.narrow(0, 0, 2), x.narrow(0, 2, 2)), tt::MemOverlap::kNone);
  EXPECT_EQ(tt::overlap_status(x, x.clone()), tt::MemOverlap::kNone);
  EXPECT_FALSE(tt::has_internal_overlap(x.transpose(0, 1)));
  EXPECT_FALSE(tt::has_internal_overlap(x.narrow(1, 1, 2).transpose(0, 1)));
  EXPECT_TRUE(tt::has_internal_overlap(x.select(0, 0).expand({3, 4})));
  EXPECT_FALSE(tt::has_internal_overlap(x.select(0, 0).unsqueeze(0).expand({1, 4})));
}

// x.add_(x.transpose(0, 1)) computed from already-updated values before the fix.
TEST(Overlap, InPlaceWithPartialOverlapIsRefused) {
  for (Device dev : devices()) {
    const Tensor x = iota({3, 3}, dev);
    EXPECT_EQ(error_of([&] { x.add_(x.transpose(0, 1)); }), msg("add_", kPartial)) << dev.str();
    EXPECT_EQ(error_of([&] { x.mul_(x.select(0, 0)); }), msg("mul_", kPartial)) << dev.str();
    EXPECT_EQ(error_of([&] { x.narrow(0, 1, 2).sub_(x.narrow(0, 0, 2)); }), msg("sub_", kPartial));
    // Nothing was written by the refused calls.
    EXPECT_EQ(x.cpu().to_vector<float>(), iota({3, 3}, Device::cpu()).to_vector<float>());
  }
}

TEST(Overlap, InPlaceFullOverlapAndDisjointViewsAreComputed) {
  for (Device dev : devices()) {
    const Tensor x = iota({2, 3}, dev);
    x.add_(x);  // the very view: each element read before it is written
    EXPECT_EQ(x.cpu().to_vector<float>(), (std::vector<float>{0, 2, 4, 6, 8, 10})) << dev.str();
    x.select(1, 0).add_(x.select(1, 2));  // columns of one storage, disjoint
    EXPECT_EQ(x.cpu().to_vector<float>(), (std::vector<float>{4, 2, 4, 16, 8, 10})) << dev.str();
    x.div_(x.view({3, 2}).view({2, 3}));
    EXPECT_EQ(x.cpu().to_vector<float>(), (std::vector<float>{1, 1, 1, 1, 1, 1})) << dev.str();
  }
}

TEST(Overlap, InternalOverlapIsRefusedForEveryWrite) {
  for (Device dev : devices()) {
    const Tensor row = iota({3}, dev);
    const Tensor e = row.unsqueeze(0).expand({2, 3});
    EXPECT_EQ(error_of([&] { e.add_(1.0); }), msg("add_", kInternal));
    EXPECT_EQ(error_of([&] { e.fill_(1.0); }), msg("fill_", kInternal));
    // copy_ into an expanded view was accepted (the last row won) while add_ refused it.
    Tensor ee = e;
    EXPECT_EQ(error_of([&] { ee.copy_(iota({2, 3}, dev)); }), msg("copy_", kInternal));
  }
}

TEST(Overlap, CopyBetweenOverlappingViews) {
  Tensor x = iota({6}, Device::cpu());
  // memcpy on overlapping memory before the fix.
  Tensor head = x.narrow(0, 0, 4);
  EXPECT_EQ(error_of([&] { head.copy_(x.narrow(0, 2, 4)); }), msg("copy_", kPartial));
  Tensor m = iota({3, 3}, Device::cpu());
  EXPECT_EQ(error_of([&] { m.copy_(m.transpose(0, 1)); }), msg("copy_", kPartial));
  // Its own view: nothing to do, and nothing changes.
  m.copy_(m);
  EXPECT_EQ(m.to_vector<float>(), iota({3, 3}, Device::cpu()).to_vector<float>());
  // Disjoint pieces of one storage: copied.
  Tensor tail = x.narrow(0, 3, 3);
  tail.copy_(x.narrow(0, 0, 3));
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{0, 1, 2, 0, 1, 2}));
  Tensor col0 = m.select(1, 0);
  col0.copy_(m.select(1, 2));
  EXPECT_EQ(m.to_vector<float>(), (std::vector<float>{2, 1, 2, 5, 4, 5, 8, 7, 8}));
}

TEST(Overlap, BatchNormRunningStatisticsMustNotAliasItsInputs) {
  const Tensor x = Tensor::rand({4, 3}, 1);
  const Tensor stats = Tensor::zeros({2, 3});
  const Tensor rm = stats.select(0, 0), rv = stats.select(0, 1);
  EXPECT_EQ(error_of([&] { tt::ops::batch_norm(x, rm, rm, Tensor(), Tensor(), true); }),
            msg("batch_norm", kPartial));
  EXPECT_EQ(error_of([&] { tt::ops::batch_norm(x, x.select(0, 0), rv, Tensor(), Tensor(), true); }),
            msg("batch_norm", kPartial));
  EXPECT_EQ(error_of([&] { tt::ops::batch_norm(x, rm, rv, rm, Tensor(), true); }),
            msg("batch_norm", kPartial));
  // Two rows of one tensor are fine, and eval mode writes nothing.
  tt::ops::batch_norm(x, rm, rv, Tensor(), Tensor(), true);
  tt::ops::batch_norm(x, rm, rm, rm, rm, false);
}

// ---------------------------------------------------------------- sizes and ranks

TEST(CheckedSizes, ZeroDimViews) {
  const Tensor s = Tensor::full({}, 3.0);
  EXPECT_EQ(s.transpose(0, 0).dim(), 0);  // a null dereference before
  EXPECT_EQ(s.transpose(-1, 0).item(), 3.0);
  EXPECT_EQ(error_of([&] { s.size(0); }),
            "size: dimension 0 was asked of a 0-d tensor, which has no dimensions");
  EXPECT_EQ(error_of([&] { s.stride(-1); }),
            "stride: dimension -1 was asked of a 0-d tensor, which has no dimensions");
  EXPECT_EQ(error_of([&] { s.narrow(0, 0, 1); }), "narrow: cannot narrow a 0-d tensor");
  EXPECT_EQ(error_of([&] { tt::ops::chunk(s, 2); }), "chunk: cannot chunk a 0-D tensor");
  EXPECT_EQ(s.flatten().sizes(), Shape{1});
  EXPECT_EQ(s.expand({2, 2}).sizes(), (Shape{2, 2}));
}

TEST(CheckedSizes, OverflowsAreSentences) {
  const int64_t big = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(error_of([] {
              tt::shape_numel({2, -3});
            }),
            "tensor shape [2, -3] has a negative size; sizes must be non-negative");
  EXPECT_EQ(
      error_of([&] {
        Tensor::zeros({1}).expand({big, big});
      }),
      "tensor shape [9223372036854775807, 9223372036854775807] is too large: its element count "
      "does not fit in a 64-bit signed integer");
  // 1e36 elements gave an empty tensor before.
  EXPECT_EQ(error_of([] { Tensor::arange(0.0, 1e36, 1.0, tt::DType::F32, Device::cpu()); }),
            "arange: [0, 1e+36) in steps of 1 has 1e+36 elements, more than a tensor can hold");
  EXPECT_EQ(error_of([] { Tensor::arange(-1e308, 1e308, 1e-300, tt::DType::F32, Device::cpu()); }),
            "arange: [-1e+308, 1e+308) in steps of 1e-300 has inf elements, more than a tensor can "
            "hold");
  const Tensor a = Tensor::zeros({1}).expand({big / 2 + 1});
  EXPECT_EQ(error_of([&] {
              tt::ops::cat({a, a});
            }),
            "cat: 4611686018427387904 + 4611686018427387904 does not fit in a 64-bit signed "
            "integer");
  EXPECT_EQ(error_of([&] {
              tt::ops::split(Tensor::zeros({2}), std::vector<int64_t>{big, 2});
            }),
            "split: 9223372036854775807 + 2 does not fit in a 64-bit signed integer");
  EXPECT_EQ(tt::ops::chunk(Tensor::zeros({5}), big).size(), 5u);  // n + chunks - 1 wrapped
  // float -> integer casts of NaN or out-of-range values were undefined behaviour.
  EXPECT_EQ(error_of([] { Tensor::full({2}, std::nan(""), tt::DType::I64); }),
            "full: nan is not representable as a 64-bit signed integer");
  EXPECT_EQ(error_of([] { Tensor::full({2}, 1e10, tt::DType::I32); }),
            "full: 10000000000 is not representable as a 32-bit signed integer");
  EXPECT_EQ(error_of([] { Tensor::full({2}, -1.0, tt::DType::U8); }),
            "full: -1 is not representable as a 8-bit unsigned integer");
  EXPECT_EQ(Tensor::full({1}, -2.5, tt::DType::I64).item(), -2.0);  // truncated, as a cast
  EXPECT_TRUE(tt::checked::fits<int64_t>(-9223372036854775808.0));
  EXPECT_FALSE(tt::checked::fits<int64_t>(9223372036854775808.0));
  EXPECT_EQ(error_of([&] { tt::ops::chunk(Tensor::zeros({0}), big); }),
            "chunk: 9223372036854775807 empty chunks of a dimension of size 0 is more than a list "
            "can hold");
}

}  // namespace
