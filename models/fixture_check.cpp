#include "models/fixture_check.h"

#include <cmath>
#include <map>
#include <string>
#include <string_view>

#include "core/safetensors.h"
#include "models/compare.h"
#include "models/registry.h"
#include "ops/graph/compile.h"

namespace tt::models {
namespace {

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

const std::string& metadata(const safetensors::File& file, std::string_view key) {
  auto it = file.metadata.find(std::string(key));
  TT_CHECK(it != file.metadata.end(), "the metadata has no '{}' entry", key);
  return it->second;
}

const Tensor& tensor(const safetensors::File& file, std::string_view key) {
  auto it = file.tensors.find(std::string(key));
  TT_CHECK(it != file.tensors.end(), "the file has no tensor '{}'", key);
  return it->second;
}

int input_count(const safetensors::File& file) {
  const std::string& text = metadata(file, "inputs");
  size_t used = 0;
  int count = -1;
  try {
    count = std::stoi(text, &used);
  } catch (const std::exception&) {
  }
  TT_CHECK(used == text.size() && count >= 1,
           "the metadata 'inputs' must be a positive integer but is '{}'", text);
  return count;
}

FixtureResult run_fixture(const std::string& path, Device device, double tolerance, bool float64,
                          bool compiled = false) {
  safetensors::File file = safetensors::load(path);
  FixtureResult result;
  result.path = path;
  result.tolerance = tolerance;
  result.model = metadata(file, "model");
  result.init = metadata(file, "init");
  result.mode = metadata(file, "mode");
  TT_CHECK(result.mode == "train" || result.mode == "eval",
           "the metadata 'mode' must be 'train' or 'eval' but is '{}'", result.mode);

  std::vector<Tensor> inputs;
  for (int i = 0, n = input_count(file); i < n; ++i) {
    const Tensor& x = tensor(file, fmt::format("input.{}", i));
    result.shape += (i ? " " : "") + shape_str(x.sizes());
    inputs.push_back(x.to(device));
  }

  StateDict params;
  for (const auto& [name, t] : file.tensors) {
    // PyTorch's int64 batch counter has no counterpart here (models/layers.h).
    if (starts_with(name, "input.") || starts_with(name, "expected.") ||
        ends_with(name, "num_batches_tracked"))
      continue;
    params[name] = t;
  }

  // The seed does not matter: every parameter is overwritten from the file.
  std::shared_ptr<Module> model = build_model(result.model, result.init, /*seed=*/0);
  model->load_state_dict(params, /*strict=*/true);
  model->train(result.mode == "train");
  model->to(device);
  std::vector<Tensor> outputs;
  NamedTensors float64_buffers;
  if (float64) {
    Float64Forward wide = forward_float64(*model, inputs);
    outputs = std::move(wide.outputs);
    float64_buffers = std::move(wide.buffers);
  } else if (compiled && device.is_cuda()) {
    outputs = tt::compile_recorded(model, inputs)->forward(inputs);
  } else {
    outputs = model->forward(inputs);
  }
  TT_CHECK(!outputs.empty(), "{} returned no output", result.model);

  // An empty output compares nothing, and an error of 0 over nothing would PASS.
  const Tensor& expected_out = tensor(file, "expected.out");
  TT_CHECK(expected_out.numel() > 0,
           "expected.out has shape {}, which holds no elements: there is nothing to compare",
           shape_str(expected_out.sizes()));
  result.out_error = relative_l2_error(outputs[0], expected_out);
  bool pass = result.out_error <= tolerance;

  // After a float64 forward the model holds its float32 tensors again: compare the
  // float64 buffers that forward returned.
  StateDict state = model->state_dict();
  for (const auto& [name, t] : float64_buffers) state[name] = t;
  for (const auto& [name, expected] : file.tensors) {
    if (!starts_with(name, "expected.") || name == "expected.out" || name == "expected.out_fp32")
      continue;
    const std::string buffer = name.substr(std::string("expected.").size());
    auto it = state.find(buffer);
    TT_CHECK(it != state.end(), "the file expects '{}' after the forward but {} has no such buffer",
             buffer, result.model);
    const double err = relative_l2_error(it->second, expected);
    result.buffer_errors.emplace_back(buffer, err);
    pass = pass && err <= tolerance;
  }
  result.pass = pass && std::isfinite(result.out_error);
  return result;
}

}  // namespace

double relative_l2_error(const Tensor& out, const Tensor& ref) {
  TT_CHECK(out.sizes() == ref.sizes(),
           "relative_l2_error: output has shape {} but reference has {}", shape_str(out.sizes()),
           shape_str(ref.sizes()));
  return error_against(out, ref).rel_l2;
}

namespace {

// Names the file in an error that does not already.
template <typename Fn>
FixtureResult naming_the_file(const std::string& path, Fn run) {
  try {
    return run();
  } catch (const Error& e) {
    const std::string message = e.what();
    // safetensors::load already names the file; the checks above do not.
    if (message.find(path) != std::string::npos) throw;
    throw Error(fmt::format("fixture {}: {}", path, message));
  }
}

}  // namespace

FixtureResult check_fixture(const std::string& path, Device device, double tolerance,
                            bool compiled) {
  return naming_the_file(path,
                         [&] { return run_fixture(path, device, tolerance, false, compiled); });
}

FixtureResult check_fixture_float64(const std::string& path, double tolerance) {
  return naming_the_file(path, [&] { return run_fixture(path, Device::cpu(), tolerance, true); });
}

}  // namespace tt::models
