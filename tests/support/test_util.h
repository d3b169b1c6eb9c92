// Helpers shared by the test suites: GPU detection for clean skips, error metrics,
// and running the `tt` executable.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "core/error.h"
#include "core/precision.h"
#include "core/tensor.h"
#include "ops/graph/compile.h"

namespace tt::test {

// True when tensortune was built with CUDA and a CUDA device is usable.
bool cuda_available();

// ||a - b|| / ||b|| in double, over all elements (both tensors any device/dtype).
double rel_l2(const Tensor& a, const Tensor& b);
double max_abs_diff(const Tensor& a, const Tensor& b);

// The bytes of the file at `path` as they are ("" when it cannot be read).
std::string read_file(const std::string& path);

// The message of the tt::Error that fn() throws; "(no tt::Error thrown)" (which no
// expected message equals) when it throws none.
template <typename Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const tt::Error& e) {
    return e.what();
  }
  return "(no tt::Error thrown)";
}

// Raw-pointer kernel tests: the float data of a tensor (nullptr when undefined),
// and an output poisoned with NaN so that an element a kernel forgets to write fails
// the comparison.
float* float_ptr(const Tensor& t);
Tensor nan_filled(const Shape& shape, Device device);

// A fresh directory under the system temp dir (mkdtemp: unique per call, `prefix`
// then six random characters), removed with everything in it when the object goes;
// owner permissions are restored first, so a test may make it read-only.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& prefix);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& str() const { return dir_; }
  // The path of `name` inside it.
  std::string path(const std::string& name) const;

 private:
  std::string dir_;
};

// Runs a shell command, returns its exit code and captured stdout+stderr.
struct CommandResult {
  int exit_code;
  std::string output;
};
CommandResult run_command(const std::string& command);

// Runs body(i) for i in [0, n) in n forked processes at once (for races between
// processes) and waits for all; returns how many did not exit cleanly. A child whose
// body throws prints the message and counts as failed.
int run_in_processes(int n, const std::function<void(int)>& body);

// A compiled module on CUDA against the CPU result `want` in strict, tf32 and accurate:
// two calls per mode (the recording and a replay), each within the mode's bound (2e-3 in
// tf32, 1e-5 otherwise); `check` then gets the mode and the explain() report.
void expect_every_mode_matches(
    CompiledModule& compiled, const Tensor& cuda_input, const Tensor& want,
    const std::function<void(Precision, const std::string& report)>& check);

}  // namespace tt::test

#define TT_REQUIRE_CUDA()                                                \
  do {                                                                   \
    if (!::tt::test::cuda_available()) GTEST_SKIP() << "no CUDA device"; \
  } while (0)
