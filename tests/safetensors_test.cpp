// safetensors I/O: round trips, the PyTorch fixtures, and one test per kind of
// malformed file, each asserting the exact message.
#include "core/safetensors.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <numeric>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/tensor.h"
#include "support/test_util.h"
#if TT_CUDA
#include "core/cuda/runtime.h"
#endif

namespace tt {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;

using tt::test::read_file;

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string le64(uint64_t v) {
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((v >> (8 * i)) & 0xff);
  return bytes;
}

// A whole file: length prefix, header text exactly as given, then `data_bytes` zeros.
std::string file_bytes(const std::string& header, size_t data_bytes) {
  return le64(header.size()) + header + std::string(data_bytes, '\0');
}

// Raw bytes of a contiguous CPU tensor, for dtypes without typed accessors.
std::string tensor_bytes(const Tensor& t) {
  const auto* p = static_cast<const char*>(t.data_ptr());
  return std::string(p, p + t.numel() * static_cast<int64_t>(dtype_size(t.dtype())));
}

Tensor tensor_with_bytes(const Shape& shape, DType dtype) {
  Tensor t = Tensor::empty(shape, dtype);
  auto* p = static_cast<unsigned char*>(t.data_ptr());
  for (int64_t i = 0; i < t.numel() * static_cast<int64_t>(dtype_size(dtype)); ++i) {
    p[i] = static_cast<unsigned char>(i * 37 + 11);
  }
  return t;
}

class SafetensorsTest : public ::testing::Test {
 protected:
  std::string path(const std::string& name) const { return scratch_.path(name); }

  // Writes `bytes` to a new file and returns the exact message load() throws for it.
  std::string load_error(const std::string& bytes) {
    const std::string p = path("bad.safetensors");
    write_bytes(p, bytes);
    return load_error_at(p);
  }
  static std::string load_error_at(const std::string& p) {
    try {
      safetensors::load(p);
    } catch (const Error& e) {
      return e.what();
    }
    ADD_FAILURE() << "loading '" << p << "' did not throw";
    return "";
  }
  std::string prefix() const { return "safetensors: '" + path("bad.safetensors") + "': "; }

  test::ScratchDir scratch_{"tt_safetensors_test"};
};

// ---- round trips ----

TEST_F(SafetensorsTest, RoundTripsFloatAndIntegerTensorsWithMetadata) {
  const std::string p = path("round.safetensors");
  std::map<std::string, Tensor> tensors = {
      {"w.f32", Tensor::from_vector<float>({1.5f, -2.25f, 3.0f, 1e-30f, -0.0f, 7.0f}, {2, 3})},
      {"w.f64", Tensor::from_vector<double>({0.1, -1e300, 2.5}, {3})},
      {"steps", Tensor::from_vector<int64_t>({int64_t{1} << 40, -7}, {2, 1})},
  };
  safetensors::save(p, tensors, {{"model", "Net"}, {"init", "[64, 80, [80]]"}});

  const safetensors::File file = safetensors::load(p);
  ASSERT_EQ(file.tensors.size(), 3u);
  const Tensor& f32 = file.tensors.at("w.f32");
  EXPECT_EQ(f32.dtype(), DType::F32);
  EXPECT_EQ(f32.sizes(), (Shape{2, 3}));
  EXPECT_TRUE(f32.device().is_cpu());
  EXPECT_THAT(f32.to_vector<float>(), ElementsAre(1.5f, -2.25f, 3.0f, 1e-30f, -0.0f, 7.0f));
  const Tensor& f64 = file.tensors.at("w.f64");
  EXPECT_EQ(f64.dtype(), DType::F64);
  EXPECT_EQ(f64.sizes(), (Shape{3}));
  EXPECT_THAT(f64.to_vector<double>(), ElementsAre(0.1, -1e300, 2.5));
  const Tensor& i64 = file.tensors.at("steps");
  EXPECT_EQ(i64.dtype(), DType::I64);
  EXPECT_EQ(i64.sizes(), (Shape{2, 1}));
  EXPECT_THAT(i64.to_vector<int64_t>(), ElementsAre(int64_t{1} << 40, -7));
  EXPECT_EQ(file.metadata,
            (std::map<std::string, std::string>{{"init", "[64, 80, [80]]"}, {"model", "Net"}}));
}

TEST_F(SafetensorsTest, SavedHeaderIsPaddedToEightBytesAndDataFollows) {
  const std::string p = path("layout.safetensors");
  safetensors::save(p, {{"a", Tensor::from_vector<float>({1, 2, 3}, {3})},
                        {"b", Tensor::from_vector<double>({4}, {1})}});
  const std::string bytes = read_file(p);
  ASSERT_GE(bytes.size(), 8u);
  uint64_t header_size = 0;
  for (int i = 7; i >= 0; --i) header_size = (header_size << 8) | static_cast<uint8_t>(bytes[i]);
  EXPECT_EQ(header_size % 8, 0u);
  // The widest dtype comes first so that every tensor is aligned to its element size.
  const std::string header = bytes.substr(8, header_size);
  EXPECT_EQ(header.find_last_not_of(' ') + 1,
            header.find("}}") + 2);  // only spaces after the JSON object
  EXPECT_THAT(header, HasSubstr(R"("b":{"dtype":"F64","shape":[1],"data_offsets":[0,8]})"));
  EXPECT_THAT(header, HasSubstr(R"("a":{"dtype":"F32","shape":[3],"data_offsets":[8,20]})"));
  EXPECT_EQ(bytes.size(), 8 + header_size + 20);
}

TEST_F(SafetensorsTest, SavesNonContiguousViewsInLogicalOrder) {
  const std::string p = path("view.safetensors");
  Tensor base = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  safetensors::save(p, {{"t", base.transpose(0, 1)}, {"row", base.narrow(0, 1, 1)}});
  const safetensors::File file = safetensors::load(p);
  EXPECT_EQ(file.tensors.at("t").sizes(), (Shape{3, 2}));
  EXPECT_THAT(file.tensors.at("t").to_vector<float>(), ElementsAre(1, 4, 2, 5, 3, 6));
  EXPECT_THAT(file.tensors.at("row").to_vector<float>(), ElementsAre(4, 5, 6));
}

TEST_F(SafetensorsTest, RoundTripsRawByteDtypes) {
  const std::string p = path("raw.safetensors");
  std::map<std::string, Tensor> tensors = {
      {"i32", tensor_with_bytes({3, 2}, DType::I32)},
      {"u8", tensor_with_bytes({5}, DType::U8)},
      {"bf16", tensor_with_bytes({2, 2}, DType::BF16)},
      {"f16", tensor_with_bytes({3}, DType::F16)},
  };
  safetensors::save(p, tensors);
  const safetensors::File file = safetensors::load(p);
  ASSERT_EQ(file.tensors.size(), tensors.size());
  for (const auto& [name, original] : tensors) {
    SCOPED_TRACE(name);
    const Tensor& loaded = file.tensors.at(name);
    EXPECT_EQ(loaded.dtype(), original.dtype());
    EXPECT_EQ(loaded.sizes(), original.sizes());
    EXPECT_EQ(tensor_bytes(loaded), tensor_bytes(original));
  }
  EXPECT_TRUE(file.metadata.empty());
}

TEST_F(SafetensorsTest, RoundTripsScalarsEmptyTensorsAndEmptyFiles) {
  const std::string p = path("edge.safetensors");
  safetensors::save(p, {{"scalar", Tensor::from_vector<float>({42}, {})},
                        {"empty", Tensor::empty({0, 3}, DType::F64)}});
  safetensors::File file = safetensors::load(p);
  EXPECT_EQ(file.tensors.at("scalar").sizes(), Shape{});
  EXPECT_EQ(file.tensors.at("scalar").item(), 42.0);
  EXPECT_EQ(file.tensors.at("empty").sizes(), (Shape{0, 3}));
  EXPECT_EQ(file.tensors.at("empty").dtype(), DType::F64);

  safetensors::save(p, {});
  file = safetensors::load(p);
  EXPECT_TRUE(file.tensors.empty());
  EXPECT_TRUE(file.metadata.empty());
}

TEST_F(SafetensorsTest, SaveReplacesTheFileAndLeavesNoTemporaryFiles) {
  const std::string p = path("model.safetensors");
  safetensors::save(p, {{"a", Tensor::from_vector<float>({1}, {1})}});
  safetensors::save(p, {{"b", Tensor::from_vector<float>({2, 3}, {2})}}, {{"v", "2"}});
  const safetensors::File file = safetensors::load(p);
  ASSERT_EQ(file.tensors.size(), 1u);
  EXPECT_THAT(file.tensors.at("b").to_vector<float>(), ElementsAre(2, 3));
  EXPECT_EQ(file.metadata.at("v"), "2");
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(scratch_.str())) {
    names.push_back(entry.path().filename().string());
  }
  EXPECT_THAT(names, ElementsAre("model.safetensors"));
}

TEST_F(SafetensorsTest, SaveRejectsReservedNamesUndefinedTensorsAndMissingFolders) {
  const std::string p = path("x.safetensors");
  const std::string pre = "safetensors: '" + p + "': ";
  try {
    safetensors::save(p, {{"__metadata__", Tensor::zeros({1})}});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), pre + "'__metadata__' is reserved and cannot name a tensor");
  }
  try {
    safetensors::save(p, {{"w", Tensor()}});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), pre + "tensor 'w' is undefined and cannot be saved");
  }
  const std::string nowhere = path("no/such/folder/x.safetensors");
  try {
    safetensors::save(nowhere, {{"w", Tensor::zeros({1})}});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    // The temporary name ends in a per-process counter, so only its start is fixed.
    EXPECT_THAT(e.what(),
                StartsWith("safetensors: '" + nowhere + "': cannot create the temporary file '" +
                           nowhere + ".tmp." + std::to_string(::getpid()) + "."));
    EXPECT_THAT(e.what(), EndsWith("' (No such file or directory)"));
  }
  EXPECT_FALSE(fs::exists(p));
}

#if TT_CUDA
TEST_F(SafetensorsTest, SavesCudaTensors) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const std::string p = path("gpu.safetensors");
  Tensor cpu = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor gpu = cpu.to(Device::cuda(0));
  safetensors::save(p, {{"g", gpu}, {"gt", gpu.transpose(0, 1)}});
  const safetensors::File file = safetensors::load(p);
  EXPECT_TRUE(file.tensors.at("g").device().is_cpu());
  EXPECT_THAT(file.tensors.at("g").to_vector<float>(), ElementsAre(1, 2, 3, 4, 5, 6));
  EXPECT_THAT(file.tensors.at("gt").to_vector<float>(), ElementsAre(1, 4, 2, 5, 3, 6));
}
#endif

// ---- the PyTorch fixtures ----

std::string fixture(const std::string& name) {
  return std::string(TT_TEST_DATA_DIR) + "/" + name + ".safetensors";
}

double sum_as_double(const Tensor& t) {
  if (t.dtype() == DType::F64) {
    const std::vector<double> v = t.to_vector<double>();
    return std::accumulate(v.begin(), v.end(), 0.0);
  }
  const std::vector<float> v = t.to_vector<float>();
  double sum = 0;
  for (float x : v) sum += x;
  return sum;
}

TEST(SafetensorsFixtureTest, GemmBiasReluSmallHasPyTorchValues) {
  const safetensors::File file = safetensors::load(fixture("gemm_bias_relu_small"));
  EXPECT_EQ(file.metadata, (std::map<std::string, std::string>{{"inputs", "1"},
                                                               {"init", "[64, 80, [80]]"},
                                                               {"mode", "train"},
                                                               {"model", "GemmBiasReLU"},
                                                               {"torch", "2.11.0+cu130"}}));
  std::vector<std::string> names;
  for (const auto& [name, t] : file.tensors) names.push_back(name);
  EXPECT_THAT(names,
              ElementsAre("bias", "expected.out", "expected.out_fp32", "gemm.weight", "input.0"));

  const Tensor& weight = file.tensors.at("gemm.weight");
  EXPECT_EQ(weight.dtype(), DType::F32);
  EXPECT_EQ(weight.sizes(), (Shape{80, 64}));
  const std::vector<float> w = weight.to_vector<float>();
  EXPECT_EQ(w.front(), -0.0009358525276184082f);
  EXPECT_EQ(w[1], 0.06705544888973236f);
  EXPECT_EQ(w.back(), 0.013070374727249146f);
  EXPECT_NEAR(sum_as_double(weight), -7.075971707701683, 1e-9);

  const Tensor& out = file.tensors.at("expected.out");
  EXPECT_EQ(out.dtype(), DType::F64);
  EXPECT_EQ(out.sizes(), (Shape{16, 80}));
  EXPECT_EQ(out.to_vector<double>().front(), 0.06661055150406625);
  EXPECT_NEAR(sum_as_double(out), 371.204829483478, 1e-9);

  const Tensor& bias = file.tensors.at("bias");
  EXPECT_EQ(bias.sizes(), (Shape{80}));
  EXPECT_EQ(bias.to_vector<float>().back(), -2.464033842086792f);
  EXPECT_NEAR(sum_as_double(bias), -27.772083066403866, 1e-9);
  EXPECT_EQ(file.tensors.at("input.0").sizes(), (Shape{16, 64}));
  EXPECT_NEAR(sum_as_double(file.tensors.at("input.0")), 517.297991335392, 1e-9);
  EXPECT_EQ(file.tensors.at("expected.out_fp32").dtype(), DType::F32);
}

struct FixtureCase {
  std::string name;
  std::string model;
  std::string init;
  std::string mode;
  int inputs;
  Shape output;
  std::vector<std::string> params;  // the model's state-dict keys, with shapes below
  std::vector<Shape> param_shapes;
};

class SafetensorsFixtureSuite : public ::testing::TestWithParam<FixtureCase> {};

TEST_P(SafetensorsFixtureSuite, LoadsWithExpectedShapesDtypesAndMetadata) {
  const FixtureCase& c = GetParam();
  const safetensors::File file = safetensors::load(fixture(c.name));
  EXPECT_EQ(file.metadata.at("model"), c.model);
  EXPECT_EQ(file.metadata.at("init"), c.init);
  EXPECT_EQ(file.metadata.at("mode"), c.mode);
  EXPECT_EQ(file.metadata.at("inputs"), std::to_string(c.inputs));
  EXPECT_EQ(file.metadata.at("torch"), "2.11.0+cu130");

  EXPECT_EQ(file.tensors.at("expected.out").dtype(), DType::F64);
  EXPECT_EQ(file.tensors.at("expected.out").sizes(), c.output);
  EXPECT_EQ(file.tensors.at("expected.out_fp32").dtype(), DType::F32);
  EXPECT_EQ(file.tensors.at("expected.out_fp32").sizes(), c.output);
  for (int i = 0; i < c.inputs; ++i) {
    EXPECT_EQ(file.tensors.at("input." + std::to_string(i)).dtype(), DType::F32);
  }
  EXPECT_EQ(file.tensors.count("input." + std::to_string(c.inputs)), 0u);
  for (size_t i = 0; i < c.params.size(); ++i) {
    SCOPED_TRACE(c.params[i]);
    ASSERT_EQ(file.tensors.count(c.params[i]), 1u);
    EXPECT_EQ(file.tensors.at(c.params[i]).dtype(), DType::F32);
    EXPECT_EQ(file.tensors.at(c.params[i]).sizes(), c.param_shapes[i]);
  }
  // The float64 reference and PyTorch's float32 output agree closely, which they
  // would not if any bytes were misplaced.
  const std::vector<double> ref = file.tensors.at("expected.out").to_vector<double>();
  const std::vector<float> f32 = file.tensors.at("expected.out_fp32").to_vector<float>();
  double diff = 0, norm = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    diff += (ref[i] - f32[i]) * (ref[i] - f32[i]);
    norm += ref[i] * ref[i];
  }
  EXPECT_LT(std::sqrt(diff / norm), 1e-5);
}

TEST_P(SafetensorsFixtureSuite, ResavedFixtureLoadsIdentically) {
  const FixtureCase& c = GetParam();
  const safetensors::File original = safetensors::load(fixture(c.name));
  const test::ScratchDir scratch("tt_safetensors_resave");
  const std::string p = scratch.path("copy.safetensors");
  safetensors::save(p, original.tensors, original.metadata);
  const safetensors::File copy = safetensors::load(p);
  EXPECT_EQ(copy.metadata, original.metadata);
  ASSERT_EQ(copy.tensors.size(), original.tensors.size());
  for (const auto& [name, t] : original.tensors) {
    SCOPED_TRACE(name);
    EXPECT_EQ(copy.tensors.at(name).dtype(), t.dtype());
    EXPECT_EQ(copy.tensors.at(name).sizes(), t.sizes());
    EXPECT_EQ(tensor_bytes(copy.tensors.at(name)), tensor_bytes(t));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, SafetensorsFixtureSuite,
    ::testing::Values(
        FixtureCase{"gemm_bias_relu_small",
                    "GemmBiasReLU",
                    "[64, 80, [80]]",
                    "train",
                    1,
                    {16, 80},
                    {"gemm.weight", "bias"},
                    {{80, 64}, {80}}},
        FixtureCase{"gemm_instnorm_add_mul_small",
                    "GemmInstanceNormAddMul",
                    "[64, 96]",
                    "train",
                    2,
                    {16, 96},
                    {"bmm.weight", "bmm.bias"},
                    {{96, 64}, {96}}},
        FixtureCase{"gemm_scale_batchnorm_eval_small",
                    "GemmScaleBatchNorm",
                    "[40, 72, [72]]",
                    "eval",
                    1,
                    {64, 72},
                    {"gemm.weight", "gemm.bias", "scale", "bn.weight", "bn.bias", "bn.running_mean",
                     "bn.running_var"},
                    {{72, 40}, {72}, {72}, {72}, {72}, {72}, {72}}},
        FixtureCase{"gemm_scale_batchnorm_train_small",
                    "GemmScaleBatchNorm",
                    "[40, 72, [72]]",
                    "train",
                    1,
                    {64, 72},
                    {"gemm.weight", "gemm.bias", "scale", "bn.weight", "bn.bias", "bn.running_mean",
                     "bn.running_var", "expected.bn.running_mean", "expected.bn.running_var"},
                    {{72, 40}, {72}, {72}, {72}, {72}, {72}, {72}, {72}, {72}}},
        FixtureCase{
            "gemm_swish_bias_groupnorm_small",
            "GemmSwishBiasGroupNorm",
            "[48, 128, 8, [128]]",
            "train",
            1,
            {32, 128},
            {"matmul.weight", "matmul.bias", "bias", "group_norm.weight", "group_norm.bias"},
            {{128, 48}, {128}, {128}, {128}, {128}}},
        FixtureCase{
            "instnorm2d_small", "InstanceNorm2dModel", "[3]", "train", 1, {2, 3, 5, 7}, {}, {}},
        FixtureCase{
            "instnorm2d_medium", "InstanceNorm2dModel", "[8]", "train", 1, {4, 8, 32, 32}, {}, {}}),
    [](const ::testing::TestParamInfo<FixtureCase>& info) { return info.param.name; });

// ---- malformed files: every one is an error naming the path and the problem ----

// A valid entry for tensor `a`: F32 [2], 8 bytes at [0, 8].
const char* const kGoodEntry = R"("a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]})";

TEST_F(SafetensorsTest, MissingFile) {
  const std::string p = path("missing.safetensors");
  EXPECT_EQ(load_error_at(p),
            "safetensors: '" + p + "': cannot be opened for reading (No such file or directory)");
}

TEST_F(SafetensorsTest, FolderInsteadOfFile) {
  EXPECT_EQ(load_error_at(scratch_.str()),
            "safetensors: '" + scratch_.str() + "': is not a regular file");
}

TEST_F(SafetensorsTest, FileShorterThanTheLengthPrefix) {
  EXPECT_EQ(load_error(std::string(5, '\0')),
            prefix() +
                "the file is 5 bytes long, shorter than the 8-byte header length "
                "(truncated?)");
  EXPECT_EQ(load_error(""), prefix() +
                                "the file is 0 bytes long, shorter than the 8-byte header length "
                                "(truncated?)");
}

TEST_F(SafetensorsTest, HeaderLengthPastTheEndOfTheFile) {
  const std::string bytes = le64(999999) + std::string(115, ' ');
  EXPECT_EQ(load_error(bytes),
            prefix() + "header length 999999 runs past the end of the file (123 bytes)");
  // A length near 2^64 must not wrap around in the bounds check.
  EXPECT_EQ(load_error(le64(~uint64_t{0}) + "{}"),
            prefix() +
                "header length 18446744073709551615 runs past the end of the file (10 "
                "bytes)");
}

TEST_F(SafetensorsTest, HeaderIsNotJson) {
  EXPECT_EQ(load_error(file_bytes(R"({"a": tru})", 0)),
            prefix() + "header is not valid JSON (parse error at byte 10 of the 10-byte header)");
  EXPECT_EQ(load_error(file_bytes("", 0)), prefix() + "header is empty, expected a JSON object");
  EXPECT_EQ(load_error(file_bytes("{} {}", 0)),
            prefix() + "header is not valid JSON (parse error at byte 4 of the 5-byte header)");
}

TEST_F(SafetensorsTest, HeaderIsNotAnObject) {
  EXPECT_EQ(load_error(file_bytes("[1, 2]", 0)),
            prefix() + "header is an array, expected a JSON object");
  EXPECT_EQ(load_error(file_bytes("\"F32\"", 0)),
            prefix() + "header is a string, expected a JSON object");
}

TEST_F(SafetensorsTest, EntryIsNotAnObject) {
  EXPECT_EQ(load_error(file_bytes(R"({"a": 3})", 0)),
            prefix() +
                "tensor 'a' is described by a number, expected an object with dtype, shape and "
                "data_offsets");
}

TEST_F(SafetensorsTest, EntryLacksAField) {
  EXPECT_EQ(load_error(file_bytes(R"({"a": {"shape": [2], "data_offsets": [0, 8]}})", 8)),
            prefix() + "tensor 'a' has no 'dtype'");
  EXPECT_EQ(load_error(file_bytes(R"({"a": {"dtype": "F32", "data_offsets": [0, 8]}})", 8)),
            prefix() + "tensor 'a' has no 'shape'");
  EXPECT_EQ(load_error(file_bytes(R"({"a": {"dtype": "F32", "shape": [2]}})", 8)),
            prefix() + "tensor 'a' has no 'data_offsets'");
}

TEST_F(SafetensorsTest, DtypeIsNotAString) {
  EXPECT_EQ(
      load_error(file_bytes(R"({"a": {"dtype": 32, "shape": [2], "data_offsets": [0, 8]}})", 8)),
      prefix() + "tensor 'a' has a number as 'dtype', expected a string such as \"F32\"");
}

TEST_F(SafetensorsTest, UnknownDtype) {
  EXPECT_EQ(load_error(file_bytes(
                R"({"a": {"dtype": "F8_E4M3", "shape": [8], "data_offsets": [0, 8]}})", 8)),
            prefix() +
                "tensor 'a' has dtype 'F8_E4M3', which is not one of the supported F64, F32, F16, "
                "BF16, I64, I32, U8, BOOL");
}

TEST_F(SafetensorsTest, ShapeIsNotAnArrayOfIntegers) {
  EXPECT_EQ(
      load_error(file_bytes(R"({"a": {"dtype": "F32", "shape": "2", "data_offsets": [0, 8]}})", 8)),
      prefix() + "tensor 'a' has a string as 'shape', expected an array of sizes");
  EXPECT_EQ(load_error(file_bytes(
                R"({"a": {"dtype": "F32", "shape": [2, 1.5], "data_offsets": [0, 8]}})", 8)),
            prefix() + "tensor 'a' has shape [2,1.5], whose sizes must all be integers");
}

TEST_F(SafetensorsTest, NegativeShape) {
  EXPECT_EQ(load_error(file_bytes(
                R"({"a": {"dtype": "F32", "shape": [2, -3], "data_offsets": [0, 8]}})", 8)),
            prefix() + "tensor 'a' has negative size -3 in shape [2,-3]");
}

TEST_F(SafetensorsTest, TooManyDimensions) {
  EXPECT_EQ(
      load_error(file_bytes(
          R"({"a": {"dtype": "U8", "shape": [1,1,1,1,1,1,1,1,1], "data_offsets": [0, 1]}})", 1)),
      prefix() + "tensor 'a' has 9 dimensions but at most 8 are supported");
}

TEST_F(SafetensorsTest, ShapeWhoseByteSizeOverflows) {
  EXPECT_EQ(
      load_error(file_bytes(
          R"({"a": {"dtype": "I64", "shape": [4294967296, 4294967296], "data_offsets": [0, 0]}})",
          0)),
      prefix() +
          "tensor 'a' has shape [4294967296, 4294967296], whose byte size does not "
          "fit in 64 bits");
}

TEST_F(SafetensorsTest, OffsetsAreNotTwoNonNegativeIntegers) {
  EXPECT_EQ(
      load_error(file_bytes(R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0]}})", 8)),
      prefix() +
          "tensor 'a' has 'data_offsets' [0], expected an array [begin, end] of two byte offsets");
  EXPECT_EQ(load_error(file_bytes(
                R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": {"begin": 0}}})", 8)),
            prefix() +
                "tensor 'a' has 'data_offsets' {\"begin\":0}, expected an array [begin, end] of "
                "two byte offsets");
  EXPECT_EQ(
      load_error(
          file_bytes(R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [-8, 0]}})", 8)),
      prefix() + "tensor 'a' has data_offsets [-8,0], but offsets must be non-negative integers");
}

TEST_F(SafetensorsTest, OffsetsEndBeforeBegin) {
  EXPECT_EQ(
      load_error(file_bytes(R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [8, 0]}})", 8)),
      prefix() + "tensor 'a' has data_offsets [8, 0], whose end is before its begin");
}

TEST_F(SafetensorsTest, OffsetsPastTheDataSection) {
  EXPECT_EQ(load_error(file_bytes(
                R"({"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}})", 12)),
            prefix() +
                "tensor 'a' has data_offsets [0, 16], past the end of the data section (12 bytes)");
}

TEST_F(SafetensorsTest, ByteCountDoesNotMatchDtypeAndShape) {
  EXPECT_EQ(load_error(file_bytes(
                R"({"a": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 12]}})", 16)),
            prefix() +
                "tensor 'a' has 12 bytes of data (data_offsets [0, 12]) but dtype F32 and shape "
                "[2, 2] need 16 bytes");
}

TEST_F(SafetensorsTest, OverlappingTensors) {
  EXPECT_EQ(load_error(file_bytes(
                R"({"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]},
              "b": {"dtype": "F32", "shape": [1], "data_offsets": [20, 24]},
              "c": {"dtype": "F64", "shape": [1], "data_offsets": [8, 16]}})",
                24)),
            prefix() + "tensors 'a' (bytes [0, 16]) and 'c' (bytes [8, 16]) overlap");
}

TEST_F(SafetensorsTest, MetadataIsNotAnObjectOfStrings) {
  EXPECT_EQ(load_error(file_bytes(R"({"__metadata__": ["model"]})", 0)),
            prefix() + "'__metadata__' is an array, expected an object of strings");
  EXPECT_EQ(load_error(file_bytes(R"({"__metadata__": {"model": "Net", "inputs": 1}})", 0)),
            prefix() + "metadata value for 'inputs' is a number, expected a string");
}

TEST_F(SafetensorsTest, DuplicateKeys) {
  EXPECT_EQ(load_error(file_bytes(std::string("{") + kGoodEntry + ", " + kGoodEntry + "}", 8)),
            prefix() + "header lists 'a' twice");
  EXPECT_EQ(
      load_error(file_bytes(
          R"({"a": {"dtype": "F32", "dtype": "F64", "shape": [2], "data_offsets": [0, 8]}})", 8)),
      prefix() + "header entry 'a' has the key 'dtype' twice");
}

TEST_F(SafetensorsTest, AcceptsPaddingUnusedBytesAndEmptyTensorsAtAnyOffset) {
  // Writers pad the header with spaces; readers must not care where padding or
  // unused bytes are, only that the tensors stay inside the data section.
  const std::string header =
      std::string("{") + kGoodEntry +
      R"(, "e": {"dtype": "F32", "shape": [0], "data_offsets": [4, 4]}, "__metadata__": {}}   )";
  std::string bytes = file_bytes(header, 12);
  bytes[8 + header.size()] = 1;  // the low byte of a[0] = 1.4e-45
  const std::string p = path("ok.safetensors");
  write_bytes(p, bytes);
  const safetensors::File file = safetensors::load(p);
  ASSERT_EQ(file.tensors.size(), 2u);
  EXPECT_EQ(file.tensors.at("a").sizes(), (Shape{2}));
  EXPECT_EQ(file.tensors.at("e").numel(), 0);
  const std::vector<float> a = file.tensors.at("a").to_vector<float>();
  uint32_t bits = 0;
  std::memcpy(&bits, &a[0], 4);
  EXPECT_EQ(bits, 1u);
}

TEST_F(SafetensorsTest, ErrorsAreTtErrors) {
  EXPECT_THROW(safetensors::load(path("missing.safetensors")), Error);
}

}  // namespace
}  // namespace tt
