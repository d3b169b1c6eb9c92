// Shared by the suites that read PyTorch goldens from tests/data/examples
// (examples_golden_test, model_goldens_test): the devices to run on, the file or a
// skip that names the script making it, and a file's parameters as a state dict.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/module.h"
#include "core/safetensors.h"
#include "support/test_util.h"

namespace tt::test {

inline const std::string& golden_dir() {
  static const std::string dir = std::string(TT_TEST_DATA_DIR) + "/examples/";
  return dir;
}

// The CPU, and the first GPU when there is one.
inline std::vector<Device> golden_devices() {
  std::vector<Device> out{Device::cpu()};
  if (cuda_available()) out.push_back(Device::cuda(0));
  return out;
}

// Everything of a golden file but its inputs and expected outputs.
inline StateDict golden_parameters(const safetensors::File& file) {
  StateDict params;
  for (const auto& [name, t] : file.tensors) {
    if (name.rfind("input.", 0) == 0 || name.rfind("expected.", 0) == 0) continue;
    params[name] = t;
  }
  return params;
}

// A single-op case's inputs "<case>.in.0", "<case>.in.1", ... on `device`.
inline std::vector<Tensor> golden_case_inputs(const safetensors::File& file,
                                              const std::string& name, Device device) {
  std::vector<Tensor> in;
  for (int k = 0; file.tensors.count(name + ".in." + std::to_string(k)); ++k)
    in.push_back(file.tensors.at(name + ".in." + std::to_string(k)).to(device));
  return in;
}

// Runs each row's op on its case's inputs on every golden device and hands the result
// and the case's expected output to check(out, expected); a case missing from the
// file fails. Rows: (name, fn) pairs, fn taking the inputs and returning the output.
// Returns the number of checks made.
template <class Rows, class Check>
int check_golden_cases(const safetensors::File& file, const Rows& rows, Check check) {
  int checks = 0;
  for (const auto& [name, fn] : rows) {
    const auto expected = file.tensors.find(name + ".expected");
    EXPECT_NE(expected, file.tensors.end()) << "the golden file has no case " << name;
    if (expected == file.tensors.end()) continue;
    for (Device device : golden_devices()) {
      SCOPED_TRACE(name + " on " + device.str());
      check(fn(golden_case_inputs(file, name, device)), expected->second);
      ++checks;
    }
  }
  return checks;
}

}  // namespace tt::test

// `var`: the golden file `name` of tests/data/examples, or a skip that says which
// script (under tools/device/) makes it.
#define TT_LOAD_GOLDEN_OF(var, name, script)                                          \
  const std::string var##_path = ::tt::test::golden_dir() + (name);                   \
  if (!std::filesystem::exists(var##_path))                                           \
    GTEST_SKIP() << var##_path << " is absent; generate it with tools/device/" script \
                 << " on a machine with PyTorch";                                     \
  const ::tt::safetensors::File var = ::tt::safetensors::load(var##_path)
