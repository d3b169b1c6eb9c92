// Runs a golden fixture (tests/data/*.safetensors, written by PyTorch; the format is
// described in tests/data/README.md) and measures how far the model's output is from
// PyTorch's float64 result. Shared by the `tt check` command and the test suites so
// that both judge a fixture the same way.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/device.h"
#include "core/tensor.h"

namespace tt::models {

// The bound SEED_MODELS.md sets for the strict float32 path.
constexpr double kFixtureTolerance = 1e-5;

struct FixtureResult {
  std::string path;
  std::string model;     // metadata "model"
  std::string init;      // metadata "init"
  std::string mode;      // "train" or "eval"
  std::string shape;     // the input shapes, e.g. "[16, 64] [16, 96]"
  double out_error = 0;  // relative L2 error of the output against expected.out
  // Relative L2 errors of buffers the fixture states after the forward (the
  // expected.<buffer> entries, e.g. "bn.running_mean"), in name order.
  std::vector<std::pair<std::string, double>> buffer_errors;
  double tolerance = kFixtureTolerance;
  bool pass = false;  // every error <= tolerance
};

// Loads `path`, builds the model its metadata names with the parameters it stores,
// sets train/eval mode, runs forward on `device` and compares. `compiled` (a GPU only):
// the model under tt::compile, its recording forward made with the buffers put back
// after it, so that the compared forward is the fused replay and has updated the buffers
// once. A missing or malformed fixture throws tt::Error naming the file.
FixtureResult check_fixture(const std::string& path, Device device = Device::cpu(),
                            double tolerance = kFixtureTolerance, bool compiled = false);

// The same fixture computed in float64 on the CPU (models/compare.h forward_float64:
// the model's forward on float64 copies of the stored float32 parameters and inputs),
// which is what PyTorch computed for expected.out, so out_error is the float64 path's
// own error (about 1e-15); the stored running statistics are float32, so buffer errors
// stay near float32's rounding.
FixtureResult check_fixture_float64(const std::string& path, double tolerance);

// ||out - ref|| / ||ref||, accumulated in double; both tensors may be on any device and
// of float32 or float64. Throws tt::Error when the shapes differ. A zero reference
// gives the absolute error ||out||.
double relative_l2_error(const Tensor& out, const Tensor& ref);

}  // namespace tt::models
