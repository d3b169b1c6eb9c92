// Reliability regressions from fuzzing and API misuse (issue 11): shape arithmetic
// that overflowed, safetensors headers that crashed or echoed megabytes, and a
// load_state_dict that changed some parameters before it failed. Each input here once
// crashed, hung or was silently accepted.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <string>

#include "core/error.h"
#include "core/module.h"
#include "core/safetensors.h"
#include "core/tensor.h"
#include "core/text.h"
#include "support/test_util.h"

namespace tt {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using tt::test::error_of;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// ---------------------------------------------------------------- shapes

TEST(ShapeOverflow, FactoriesRefuseShapesWhoseElementCountOverflows) {
  // 4 * (2^62 + 1) wrapped to 4 elements: 16 bytes of storage for a huge tensor.
  EXPECT_EQ(error_of([] {
              Tensor::zeros({4, (int64_t{1} << 62) + 1});
            }),
            "tensor shape [4, 4611686018427387905] is too large: its element count does not fit "
            "in a 64-bit signed integer");
  // 2^80 elements wrapped to 0: a tensor of 0 bytes.
  EXPECT_THAT(error_of([] {
                Tensor::empty({int64_t{1} << 40, int64_t{1} << 40});
              }),
              HasSubstr("is too large"));
  // No elements, but contiguous strides that overflow.
  EXPECT_THAT(error_of([] { Tensor::empty({0, kMax, kMax}); }), HasSubstr("is too large"));
  EXPECT_THAT(error_of([] { shape_numel({kMax, 2}); }), HasSubstr("is too large"));
  EXPECT_THAT(error_of([] { contiguous_strides({3, kMax}); }), HasSubstr("is too large"));
}

TEST(ShapeOverflow, FactoriesRefuseByteCountsThatOverflow) {
  // 2^62 float32 elements count fine but need 2^64 bytes.
  EXPECT_THAT(error_of([] { Tensor::empty({int64_t{1} << 62}); }),
              HasSubstr("4 bytes per element times 4611686018427387904 elements does not fit"));
}

// AddressSanitizer aborts on a request this large instead of returning null (unless
// ASAN_OPTIONS=allocator_may_return_null=1), so the TT_FUZZ build checks the rest only.
#if defined(__SANITIZE_ADDRESS__)
#define TT_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TT_UNDER_ASAN 1
#endif
#endif

TEST(ShapeOverflow, HugeButRepresentableAllocationsAreOutOfMemoryErrors) {
  // Sizes that wrap when rounded up are refused before any allocator sees them.
  EXPECT_THROW(Storage::allocate(std::numeric_limits<size_t>::max() - 3, Device::cpu()),
               OutOfMemoryError);
  // 2^61 bytes fits every count but no machine: a tt::OutOfMemoryError, not a crash.
  EXPECT_THROW(Tensor::empty({int64_t{1} << 59}, DType::F32), OutOfMemoryError);
  // 8 TiB of zeros is refused before any page is touched: where the kernel overcommits
  // memory, the allocation itself would succeed and the first write kill the process.
  try {
    Tensor::zeros({int64_t{1} << 40}, DType::F64);
    FAIL() << "expected tt::OutOfMemoryError";
  } catch (const OutOfMemoryError& e) {
    EXPECT_THAT(e.what(), StartsWith("out of CPU memory: tried to allocate "
                                     "8796093022208 bytes, more than this machine's "));
  }
}

TEST(ShapeOverflow, NarrowRefusesRangesWhoseEndOverflows) {
  Tensor t = Tensor::zeros({2, 3});
  EXPECT_EQ(error_of([&] { t.narrow(1, kMax, 1); }),
            "narrow: range [9223372036854775807, 9223372036854775807 + 1) is out of bounds for "
            "dimension 1 of size 3");
  EXPECT_THAT(error_of([&] { t.narrow(1, 2, kMax); }), HasSubstr("is out of bounds"));
  EXPECT_THAT(error_of([&] { t.narrow(1, std::numeric_limits<int64_t>::min(), 1); }),
              HasSubstr("is out of bounds"));
  EXPECT_EQ(t.narrow(1, 3, 0).numel(), 0);  // an empty range at the end is fine
  EXPECT_EQ(t.narrow(1, -1, 1).sizes(), (Shape{2, 1}));
}

TEST(ShapeOverflow, ReshapeRefusesShapesWhoseProductWraps) {
  Tensor t = Tensor::zeros({4});
  // (2^62 + 1) * 4 wraps to exactly 4 elements: it used to be accepted as a view.
  const int64_t wraps = (int64_t{1} << 62) + 1;
  EXPECT_EQ(error_of([&] {
              t.reshape({wraps, 4});
            }),
            "view/reshape: shape [4611686018427387905, 4] is invalid for a tensor of shape [4] "
            "(4 elements)");
  EXPECT_THAT(error_of([&] { t.view({wraps, 4}); }), StartsWith("view/reshape: shape"));
  EXPECT_THAT(error_of([&] { t.reshape({-1, wraps, 4}); }), StartsWith("view/reshape: shape"));
  EXPECT_EQ(t.reshape({2, -1}).sizes(), (Shape{2, 2}));
}

// ---------------------------------------------------------------- safetensors

class SafetensorsCrashTest : public ::testing::Test {
 protected:
  // A file with the given header text and `data_bytes` zero bytes of data.
  std::string file_with_header(const std::string& header, size_t data_bytes = 0) {
    const std::string path = scratch_.path("f.safetensors");
    std::string bytes(8, '\0');
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
    bytes += header + std::string(data_bytes, '\0');
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<long>(bytes.size()));
    return path;
  }

  test::ScratchDir scratch_{"tt_reliability_test"};
};

TEST_F(SafetensorsCrashTest, NumbersBeyondDoubleAreAnError) {
  // nlohmann throws out_of_range (not parse_error) on 1e400: it used to escape.
  const std::string path =
      file_with_header(R"({"w":{"dtype":"F32","shape":[1e400],"data_offsets":[0,0]}})");
  EXPECT_EQ(error_of([&] { safetensors::load(path); }),
            "safetensors: '" + path + "': header holds a number too large to represent");
}

TEST_F(SafetensorsCrashTest, DeepNestingIsRefusedWithoutRecursion) {
  // 80k nested arrays: dump() in the error message overflowed the stack (SIGSEGV).
  const int depth = 80000;
  const std::string header = R"({"w":{"dtype":"F32","shape":)" + std::string(depth, '[') +
                             std::string(depth, ']') + R"(,"data_offsets":[0,0]}})";
  const std::string path = file_with_header(header);
  EXPECT_EQ(error_of([&] { safetensors::load(path); }),
            "safetensors: '" + path + "': header nests arrays or objects more than 16 levels deep");
}

TEST_F(SafetensorsCrashTest, MessagesQuoteOnlyAnExcerptOfBadInput) {
  const std::string shape = "[1" + std::string(100000, ' ') + ",\"x\"]";
  const std::string path =
      file_with_header(R"({"w":{"dtype":"F32","shape":)" + shape + R"(,"data_offsets":[0,4]}})", 4);
  const std::string message = error_of([&] { safetensors::load(path); });
  EXPECT_THAT(message, HasSubstr("whose sizes must all be integers"));
  EXPECT_LT(message.size(), 300u) << message;

  const std::string long_name(5000, 'n');
  const std::string path2 = file_with_header(
      "{\"" + long_name + R"(":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", 4);
  const std::string message2 = error_of([&] { safetensors::load(path2); });
  EXPECT_THAT(message2, HasSubstr("... (5000 bytes)' has 4 bytes of data"));
  EXPECT_LT(message2.size(), 400u);
}

TEST_F(SafetensorsCrashTest, ShapesThatOverflowAreRefused) {
  // Zero bytes of data, but strides that overflow int64.
  const std::string path =
      file_with_header(R"({"w":{"dtype":"F32","shape":[0,9223372036854775807,9223372036854775807],)"
                       R"("data_offsets":[0,0]}})");
  EXPECT_EQ(error_of([&] { safetensors::load(path); }),
            "safetensors: '" + path +
                "': tensor 'w' has shape [0, 9223372036854775807, 9223372036854775807], whose "
                "byte size does not fit in 64 bits");
}

TEST_F(SafetensorsCrashTest, HeaderLengthAboveTheFormatLimitIsRefused) {
  // A sparse file long enough for the forged length, which is never allocated.
  std::string bytes(8, '\0');
  bytes[4] = 1;  // 2^32
  const std::string path = scratch_.path("long.safetensors");
  std::ofstream(path, std::ios::binary).write(bytes.data(), 8);
  fs::resize_file(path, (uint64_t{1} << 32) + 16);
  EXPECT_EQ(error_of([&] { safetensors::load(path); }),
            "safetensors: '" + path +
                "': header length 4294967296 is above the format's limit of 100000000 bytes");
}

TEST_F(SafetensorsCrashTest, SaveReplacesOnlyRegularFilesAndFollowsSymlinks) {
  const std::map<std::string, Tensor> tensors = {{"w", Tensor::ones({2})}};
  const std::string fifo = scratch_.path("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  EXPECT_EQ(error_of([&] { safetensors::save(fifo, tensors); }),
            "refusing to replace the safetensors file " + fifo + ": " + fifo +
                " is a named pipe, not a regular file");
  EXPECT_TRUE(fs::is_fifo(fifo));
  const std::string real = scratch_.path("real.safetensors");
  const std::string link = scratch_.path("link.safetensors");
  safetensors::save(real, {});
  fs::create_symlink("real.safetensors", link);
  safetensors::save(link, tensors);
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(safetensors::load(real).tensors.size(), 1u);
}

TEST(Excerpt, CutsLongTextAndEscapesControlBytes) {
  EXPECT_EQ(excerpt("short"), "short");
  EXPECT_EQ(excerpt(std::string("a\0b\n\xff", 5)), "a\\x00b\\x0a\\xff");
  EXPECT_EQ(excerpt(std::string(100, 'x'), 10), std::string(10, 'x') + "... (100 bytes)");
}

// ---------------------------------------------------------------- load_state_dict

class TwoParams : public Module {
 public:
  TwoParams() {
    a = register_parameter("a", Tensor::zeros({2}));
    b = register_parameter("b", Tensor::zeros({2}));
  }
  std::vector<Tensor> forward(const std::vector<Tensor>& inputs) override { return inputs; }
  std::string name() const override { return "TwoParams"; }
  Tensor a, b;
};

TEST(LoadStateDict, AFailedConversionLeavesEveryParameterAsItWas) {
  TwoParams m;
  StateDict dict;
  dict["a"] = Tensor::full({2}, 7.0);          // converts fine, comes first
  dict["b"] = Tensor::zeros({2}, DType::F16);  // float16 -> float32 is not supported
  EXPECT_EQ(error_of([&] { m.load_state_dict(dict); }),
            "load_state_dict: the tensor given for 'b' cannot be loaded into a float32 parameter "
            "(to: cannot convert float16 to float32; conversions exist between float32, float64, "
            "int64, int32, uint8 and bool); no parameter was changed");
  EXPECT_EQ(m.a.to_vector<float>(), (std::vector<float>{0, 0}));
  EXPECT_EQ(m.b.to_vector<float>(), (std::vector<float>{0, 0}));
}

}  // namespace
}  // namespace tt
