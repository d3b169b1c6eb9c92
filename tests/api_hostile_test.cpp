// The public API with hostile arguments (issue 21): every factory, view, copy and op,
// the layers' constructors and the safetensors writer, called with undefined, 0-d,
// empty, expanded, wrong-dtype tensors and with extreme sizes, dims and numbers. Any
// of them may refuse with a tt::Error; nothing else may leave the library
// (std::bad_alloc, std::length_error, nlohmann's type_error, std::out_of_range ...),
// and nothing may crash (run under ASan/UBSan for the rest). Sizes are chosen so that
// nothing hostile is allocated for real: a refusal or a tiny tensor.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <typeinfo>
#include <vector>

#include "core/safetensors.h"
#include "core/tensor.h"
#include "models/layers.h"
#include "ops/ops.h"
#include "support/test_util.h"

namespace {

using tt::DType;
using tt::Shape;
using tt::Tensor;
namespace ops = tt::ops;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

int calls = 0;

// Runs fn; anything thrown must be a tt::Error.
void only_tt_error(const std::string& what, const std::function<void()>& fn) {
  ++calls;
  try {
    fn();
  } catch (const tt::Error&) {
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": " << typeid(e).name() << " escaped: " << e.what();
  } catch (...) {
    ADD_FAILURE() << what << ": a non-std exception escaped";
  }
}

const std::vector<int64_t> kInts = {kMin, kMin + 1, -9, -2, -1, 0, 1, 2, 9, kMax - 1, kMax};
const std::vector<double> kDoubles = {kNan, -kInf,  kInf, -1e308, -1.0, -0.0,
                                      0.0,  1e-300, 1.0,  1e18,   1e308};
const std::vector<Shape> kShapes = {{},
                                    {0},
                                    {-1},
                                    {kMin},
                                    {1, -1},
                                    {kMax},
                                    {kMax, 2},
                                    {1LL << 40},
                                    {2, 3},
                                    {0, kMax},
                                    {3, 1, 1, 1, 1, 1, 1, 1, 1}};

std::vector<std::pair<std::string, Tensor>> tensors() {
  const Tensor base = Tensor::rand({2, 3}, 1);
  return {{"undefined", Tensor()},
          {"0-d", Tensor::full({}, 2.0)},
          {"empty [0, 3]", Tensor::zeros({0, 3})},
          {"[2, 3]", base},
          {"transposed", base.transpose(0, 1)},
          {"expanded", Tensor::rand({1, 3}, 2).expand({4, 3})},
          {"float64", Tensor::zeros({2, 3}, DType::F64)},
          {"int64", Tensor::arange(6).view({2, 3})},
          {"uint8", Tensor::zeros({2, 3}, DType::U8)},
          {"[1, 2, 3, 1]", Tensor::rand({1, 2, 3, 1}, 3)}};
}

TEST(ApiHostile, FactoriesAndArange) {
  for (const Shape& s : kShapes) {
    const std::string name = tt::shape_str(s);
    only_tt_error("empty " + name, [&] { Tensor::empty(s); });
    only_tt_error("zeros " + name, [&] { Tensor::zeros(s, DType::F64); });
    only_tt_error("full " + name, [&] { Tensor::full(s, kNan, DType::I64); });
    only_tt_error("rand " + name, [&] { Tensor::rand(s, 1); });
    only_tt_error("randn " + name, [&] { Tensor::randn(s, 1); });
    only_tt_error("uniform " + name, [&] { Tensor::uniform(s, kInf, -kInf, 1); });
    only_tt_error("from_vector " + name,
                  [&] { Tensor::from_vector(std::vector<float>(6, 1.f), s); });
    only_tt_error("shape_numel " + name, [&] { tt::shape_numel(s); });
    only_tt_error("contiguous_strides " + name, [&] { tt::contiguous_strides(s); });
  }
  for (double a : kDoubles)
    for (double b : kDoubles)
      for (double step : {kNan, -1.0, 1e-300, 1.0, 1e308}) {
        // Only ranges short enough to build for real, or refused: |b - a| / step small.
        if (std::isfinite(a) && std::isfinite(b) && std::isfinite(step) &&
            std::abs((b - a) / step) < 1e6 && std::abs((b - a) / step) > 0)
          continue;
        for (DType dt : {DType::F32, DType::I64, DType::I32, DType::U8})
          only_tt_error(fmt::format("arange({}, {}, {})", a, b, step),
                        [&] { Tensor::arange(a, b, step, dt, tt::Device::cpu()); });
      }
}

TEST(ApiHostile, ViewsAndCopies) {
  for (const auto& [name, t] : tensors()) {
    for (int64_t d : kInts) {
      only_tt_error(name + " size", [&] { t.size(d); });
      only_tt_error(name + " stride", [&] { t.stride(d); });
      only_tt_error(name + " unsqueeze", [&] { t.unsqueeze(d); });
      only_tt_error(name + " squeeze", [&] { t.squeeze(d); });
      only_tt_error(name + " select", [&] { t.select(d, d); });
      only_tt_error(name + " select 0", [&] { t.select(0, d); });
      only_tt_error(name + " narrow", [&] { t.narrow(d, d, d); });
      only_tt_error(name + " narrow 0", [&] { t.narrow(0, d, 1); });
      only_tt_error(name + " narrow len", [&] { t.narrow(0, 0, d); });
      only_tt_error(name + " flatten", [&] { t.flatten(d, -1); });
      for (int64_t e : {kMin, int64_t{-1}, int64_t{0}, int64_t{1}, kMax}) {
        only_tt_error(name + " transpose", [&] { t.transpose(d, e); });
        only_tt_error(name + " flatten2", [&] { t.flatten(d, e); });
      }
      only_tt_error(name + " permute", [&] { t.permute({d, 0}); });
      only_tt_error(name + " ops::chunk", [&] { ops::chunk(t, d, 0); });
      only_tt_error(name + " ops::split", [&] { ops::split(t, d, 0); });
      only_tt_error(name + " ops::split sizes", [&] { ops::split(t, std::vector<int64_t>{d, 1}); });
    }
    for (const Shape& s : kShapes) {
      only_tt_error(name + " view", [&] { t.view(s); });
      only_tt_error(name + " reshape", [&] { t.reshape(s); });
      only_tt_error(name + " expand", [&] { t.expand(s); });
      only_tt_error(name + " permute", [&] { t.permute(s); });
    }
    only_tt_error(name + " squeeze()", [&] { t.squeeze(); });
    only_tt_error(name + " contiguous", [&] { t.contiguous(); });
    only_tt_error(name + " clone", [&] { t.clone(); });
    only_tt_error(name + " str", [&] { t.str(kMax); });
    only_tt_error(name + " str0", [&] { t.str(0); });
    only_tt_error(name + " item", [&] { t.item(); });
    only_tt_error(name + " to_vector", [&] { t.to_vector<double>(); });
    for (DType dt : {DType::F32, DType::F64, DType::I64, DType::I32, DType::U8})
      only_tt_error(name + " to dtype", [&] { t.to(dt); });
    only_tt_error(name + " to cuda", [&] { t.to(tt::Device::cuda(kMax > 0 ? 7 : 0)); });
    for (const auto& [other_name, other] : tensors()) {
      Tensor dst = t;
      only_tt_error(name + " copy_ " + other_name, [&] { dst.copy_(other); });
      only_tt_error(name + " add_ " + other_name, [&] { t.add_(other); });
      only_tt_error(name + " set_data " + other_name, [&] { Tensor(dst).set_data(other); });
    }
    for (double v : kDoubles) {
      only_tt_error(name + " fill_", [&] { t.clone().fill_(v); });
      only_tt_error(name + " div_", [&] { t.clone().div_(v); });
    }
  }
}

TEST(ApiHostile, Ops) {
  const auto all = tensors();
  for (const auto& [an, a] : all) {
    only_tt_error(an + " unary",
                  [&] { ops::neg(a), ops::exp(a), ops::relu(a), ops::gelu(a, "tanh"); });
    for (double v : kDoubles) {
      only_tt_error(an + " pow", [&] { ops::pow(a, v); });
      only_tt_error(an + " clamp", [&] { ops::clamp(a, v, -v); });
      only_tt_error(an + " leaky_relu", [&] { ops::leaky_relu(a, v); });
      only_tt_error(an + " add scalar", [&] { ops::add(a, v); });
      only_tt_error(an + " layer_norm eps",
                    [&] { ops::layer_norm(a, {3}, Tensor(), Tensor(), v); });
      only_tt_error(an + " rms_norm eps", [&] { ops::rms_norm(a, {3}, Tensor(), v); });
      only_tt_error(an + " instance_norm", [&] { ops::instance_norm(a, v); });
    }
    only_tt_error(an + " gelu bad", [&] { ops::gelu(a, "\xff"); });
    for (int64_t d : kInts) {
      const std::vector<int64_t> dims = {d};
      only_tt_error(an + " sum", [&] { ops::sum(a, dims, true); });
      only_tt_error(an + " mean", [&] { ops::mean(a, {d, d}); });
      only_tt_error(an + " var", [&] { ops::var(a, dims); });
      only_tt_error(an + " std", [&] { ops::std(a, dims, false); });
      only_tt_error(an + " amax", [&] { ops::amax(a, dims); });
      only_tt_error(an + " amin", [&] { ops::amin(a, dims); });
      only_tt_error(an + " argmax", [&] { ops::argmax(a, d); });
      only_tt_error(an + " argmin", [&] { ops::argmin(a, d, true); });
      only_tt_error(an + " softmax", [&] { ops::softmax(a, d); });
      only_tt_error(an + " log_softmax", [&] { ops::log_softmax(a, d); });
      only_tt_error(an + " cat", [&] { ops::cat({a, a}, d); });
      only_tt_error(an + " stack", [&] { ops::stack({a, a}, d); });
      only_tt_error(an + " select", [&] { ops::select(a, d, 0); });
      only_tt_error(an + " flatten", [&] { ops::flatten(a, d, d); });
      only_tt_error(an + " group_norm", [&] { ops::group_norm(a, d, Tensor(), Tensor()); });
      only_tt_error(an + " layer_norm", [&] { ops::layer_norm(a, {d}); });
      only_tt_error(an + " rms_norm", [&] { ops::rms_norm(a, {d, 3}); });
    }
    only_tt_error(an + " cat empty", [&] { ops::cat({}); });
    for (const auto& [bn, b] : all) {
      only_tt_error(an + " add " + bn, [&] { ops::add(a, b); });
      only_tt_error(an + " maximum " + bn, [&] { ops::maximum(a, b); });
      only_tt_error(an + " where " + bn, [&] { ops::where(b, a, a); });
      only_tt_error(an + " matmul " + bn, [&] { ops::matmul(a, b); });
      only_tt_error(an + " bmm " + bn, [&] { ops::bmm(a, b); });
      only_tt_error(an + " linear " + bn, [&] { ops::linear(a, b, b); });
      only_tt_error(an + " cat " + bn, [&] { ops::cat({a, b}, 1); });
      only_tt_error(an + " batch_norm " + bn,
                    [&] { ops::batch_norm(a, b, b, b, b, true, kNan, -1.0); });
    }
  }
}

TEST(ApiHostile, LayersAndFiles) {
  for (int64_t n : kInts) {
    if (n > 0 && n < 1000) continue;  // real layers; the point is the extremes
    only_tt_error("Linear", [&] { tt::nn::Linear l(n, 3); });
    only_tt_error("Linear out", [&] { tt::nn::Linear l(3, n); });
    only_tt_error("BatchNorm1d", [&] { tt::nn::BatchNorm1d bn(n); });
    only_tt_error("GroupNorm", [&] { tt::nn::GroupNorm g(n, 4); });
    only_tt_error("GroupNorm channels", [&] { tt::nn::GroupNorm g(2, n); });
    only_tt_error("LayerNorm", [&] { tt::nn::LayerNorm l(Shape{n}); });
  }
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("tt_api_hostile_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string file = (dir / "x.safetensors").string();
  const Tensor t = Tensor::rand({2}, 1);
  // nlohmann's type_error 316 escaped from the header's dump() before.
  only_tt_error("save non-UTF-8 name", [&] { tt::safetensors::save(file, {{"w\xff\xfe", t}}); });
  only_tt_error("save non-UTF-8 metadata", [&] {
    tt::safetensors::save(file, {{"w", t}}, {{"k", "\xc3\x28"}});
  });
  only_tt_error("save non-UTF-8 metadata key", [&] {
    tt::safetensors::save(file, {{"w", t}}, {{"\x80", "v"}});
  });
  only_tt_error("save empty name", [&] { tt::safetensors::save(file, {{"", t}}); });
  only_tt_error("save to a directory", [&] { tt::safetensors::save(dir.string(), {{"w", t}}); });
  only_tt_error("save to empty path", [&] { tt::safetensors::save("", {{"w", t}}); });
  only_tt_error("load a directory", [&] { tt::safetensors::load(dir.string()); });
  only_tt_error("load /dev/null", [&] { tt::safetensors::load("/dev/null"); });
  only_tt_error("load missing", [&] { tt::safetensors::load((dir / "missing").string()); });
  const std::string fifo = (dir / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Blocked forever in open() before (no writer ever comes).
  EXPECT_EQ(tt::test::error_of([&] { tt::safetensors::load(fifo); }),
            "safetensors: '" + fifo + "': is not a regular file");
  fs::remove_all(dir);
  EXPECT_GT(calls, 50);  // ctest runs each test in a process of its own
}

}  // namespace
