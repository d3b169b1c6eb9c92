// Device benchmark of tt::compile's pointwise chains: each case's forward compiled (one
// chain kernel) against the same forward eager (one kernel per op), and against the
// copy bandwidth measured in the same run (a device-to-device copy, read + write). The
// floor of a case is the bytes it must move (each input read once, the output written
// once) at that bandwidth; "% copy" is floor / compiled time.
//
// Usage: compile_bench [--reps N]
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "core/cuda/runtime.h"
#include "core/cuda/stream.h"
#include "core/cuda/timing.h"
#include "core/tensor.h"
#include "ops/graph/compile.h"
#include "ops/ops.h"
#include "tests/support/fn_module.h"

namespace {

using tt::Tensor;
using Forward = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

using tt::test::FnModule;

struct Case {
  const char* name;
  std::vector<Tensor> inputs;
  Forward forward;
  double bytes;
};

}  // namespace

int main(int argc, char** argv) {
  int reps = 20;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--reps") == 0) reps = std::atoi(argv[i + 1]);
  const tt::Device gpu = tt::Device::cuda(0);
  tt::cuda::TimingOptions timing;
  timing.reps = reps;

  const int64_t rows = 8192, cols = 8192;  // 256 MiB per float32 tensor
  const double full = 4.0 * rows * cols;
  const Tensor src = Tensor::rand({rows, cols}, 1, gpu);
  Tensor dst = Tensor::empty({rows, cols}, tt::DType::F32, gpu);
  const tt::cuda::TimingStats copy = tt::cuda::time_gpu([&] { dst.copy_(src); }, gpu.index, timing);
  const double copy_gbs = 2 * full / (copy.median_ms * 1e6);

  const Tensor x = Tensor::randn({rows, cols}, 2, gpu), y = Tensor::randn({rows, cols}, 3, gpu);
  const Tensor z = Tensor::randn({rows, cols}, 4, gpu), b = Tensor::randn({cols}, 5, gpu);
  std::vector<Case> cases = {
      {"gelu(x * 0.5 + b)",
       {x, b},
       [](const std::vector<Tensor>& in) {
         return std::vector<Tensor>{tt::ops::gelu(in[0] * 0.5 + in[1])};
       },
       2 * full + 4.0 * cols},
      {"(x + y) * sigmoid(z) - 1",
       {x, y, z},
       [](const std::vector<Tensor>& in) {
         return std::vector<Tensor>{(in[0] + in[1]) * tt::ops::sigmoid(in[2]) - 1.0};
       },
       4 * full},
      {"relu(x^T + b) * 2",
       {x, b},
       [](const std::vector<Tensor>& in) {
         return std::vector<Tensor>{tt::ops::relu(in[0].transpose(0, 1) + in[1]) * 2.0};
       },
       2 * full + 4.0 * cols},
      {"tanh(gelu_tanh(x) * y) + z",
       {x, y, z},
       [](const std::vector<Tensor>& in) {
         return std::vector<Tensor>{tt::ops::tanh(tt::ops::gelu(in[0], "tanh") * in[1]) + in[2]};
       },
       4 * full},
  };

  std::printf("Device: %s; copy %.0f GB/s (read + write of 256 MiB)\n",
              tt::cuda::device_info(gpu.index).name.c_str(), copy_gbs);
  std::printf("%-30s %10s %10s %10s %8s  %s\n", "case", "eager ms", "compiled", "floor ms",
              "% copy", "kernel");
  for (const Case& c : cases) {
    auto module = std::make_shared<FnModule>(c.forward);
    auto compiled = tt::compile(module);
    const Tensor want = c.forward(c.inputs)[0];
    const Tensor got = (*compiled)(c.inputs)[0];  // records
    const Tensor replay = (*compiled)(c.inputs)[0];
    const double diff = tt::ops::amax(tt::ops::abs(replay - want)).item();
    (void)got;
    const auto eager = tt::cuda::time_gpu([&] { c.forward(c.inputs); }, gpu.index, timing);
    const auto fused = tt::cuda::time_gpu([&] { (*compiled)(c.inputs); }, gpu.index, timing);
    const double floor_ms = c.bytes / (copy_gbs * 1e6);
    const std::string report = compiled->explain();
    const size_t k = report.find("kernel: ");
    const std::string kernel =
        k == std::string::npos ? "(none)" : report.substr(k + 8, report.find('\n', k) - k - 8);
    std::printf("%-30s %10.3f %10.3f %10.3f %7.1f%%  %s (max |diff| %.2g)\n", c.name,
                eager.median_ms, fused.median_ms, floor_ms, 100 * floor_ms / fused.median_ms,
                kernel.c_str(), diff);
  }
  return 0;
}
