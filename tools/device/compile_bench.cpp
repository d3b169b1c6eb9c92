// Device benchmark of tt::compile's pointwise groups (chains, trees and DAGs): each case's
// forward compiled with the generated chain kernel (NVRTC) and with the interpreter, the
// generated kernels of the chain-split form (TT_POINTWISE_GROUPS=chains: the groups as
// straight chains, a tree as several kernels with intermediates in memory), against the
// same forward eager (one kernel per op), and against the copy bandwidth measured in the
// same run (a device-to-device copy, read + write). The floor of a case is the bytes it must move
// (each input read once, the output written once) at that bandwidth; "% copy" is floor /
// time. Then each case's chain kernel alone (the chain as lowering builds it, through
// run_chain) over the chain config's axes (threads x items, vec 4), against its own
// bytes, so the default config rests on numbers.
//
// Usage: compile_bench [--reps N] [--case K] [--no-sweep] [--load-only]
//   --case K: only the K-th case (0-based), for a profiler;
//   --load-only: each case's first compiled call (record, lower, the kernel compiled or
//   read from the disk cache), timed on the host and nothing else: run it in a second
//   process to time the cached load.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "core/cuda/runtime.h"
#include "core/cuda/stream.h"
#include "core/cuda/timing.h"
#include "core/tensor.h"
#include "ops/cuda/pointwise/chain.h"
#include "ops/graph/compile.h"
#include "ops/graph/fusion.h"
#include "ops/ops.h"
#include "tests/support/fn_module.h"

namespace {

using tt::Tensor;
using Forward = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;
namespace chain = tt::ops::cuda::chain;
namespace pw = tt::ops::pointwise;

using tt::test::FnModule;

struct Case {
  const char* name;
  std::vector<Tensor> inputs;
  Forward forward;
  double bytes;
};

// The rest of the first line of an explain() report that holds `tag`.
std::string report_line(const std::string& report, const std::string& tag) {
  const size_t k = report.find(tag);
  if (k == std::string::npos) return "(none)";
  const size_t from = k + tag.size();
  return report.substr(from, report.find('\n', from) - from);
}

// The first "kernel: " line of an explain() report.
std::string first_kernel(const std::string& report) { return report_line(report, "kernel: "); }

double wall_ms(const std::function<void()>& fn) {
  const auto t0 = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 20, only = -1;
  bool sweep = true, load_only = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) reps = std::atoi(argv[++i]);
    if (std::strcmp(argv[i], "--case") == 0 && i + 1 < argc) only = std::atoi(argv[++i]);
    if (std::strcmp(argv[i], "--no-sweep") == 0) sweep = false;
    if (std::strcmp(argv[i], "--load-only") == 0) load_only = true;
  }
  const tt::Device gpu = tt::Device::cuda(0);
  tt::cuda::TimingOptions timing;
  timing.reps = reps;

  const int64_t rows = 8192, cols = 8192;  // 256 MiB per float32 tensor
  const double full = 4.0 * rows * cols;
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
      // DAGs (issue 18): GPT-2's GELU written out (x read four times), swish, a value
      // returned and read inside the group (two outputs).
      {"gelu_tanh as plain ops",
       {x},
       [](const std::vector<Tensor>& in) {
         const Tensor& v = in[0];
         return std::vector<Tensor>{
             0.5 * v * (1.0 + tt::ops::tanh(0.7978845608 * (v + 0.044715 * v.pow(3.0))))};
       },
       2 * full},
      {"x * sigmoid(x)",
       {x},
       [](const std::vector<Tensor>& in) {
         return std::vector<Tensor>{in[0] * tt::ops::sigmoid(in[0])};
       },
       2 * full},
      {"h = x + y; relu(h) * z, h",
       {x, y, z},
       [](const std::vector<Tensor>& in) {
         const Tensor h = in[0] + in[1];
         return std::vector<Tensor>{tt::ops::relu(h) * in[2], h};
       },
       5 * full},
  };
  const auto wanted = [&](size_t ci) { return only < 0 || static_cast<size_t>(only) == ci; };

  if (load_only) {
    // The cache is whatever an earlier process left: "from the disk cache" when warm.
    for (size_t ci = 0; ci < cases.size(); ++ci) {
      if (!wanted(ci)) continue;
      const Case& c = cases[ci];
      auto compiled = tt::compile(std::make_shared<FnModule>(c.forward));
      const double ms = wall_ms([&] {
        (*compiled)(c.inputs);
        tt::cuda::synchronize(gpu.index);
      });
      std::printf("%-30s first call %8.1f ms  %s\n", c.name, ms,
                  first_kernel(compiled->explain()).c_str());
    }
    return 0;
  }

  Tensor dst = Tensor::empty({rows, cols}, tt::DType::F32, gpu);
  const tt::cuda::TimingStats copy = tt::cuda::time_gpu([&] { dst.copy_(x); }, gpu.index, timing);
  const double copy_gbs = 2 * full / (copy.median_ms * 1e6);
  std::printf("Device: %s; copy %.0f GB/s (read + write of 256 MiB)\n",
              tt::cuda::device_info(gpu.index).name.c_str(), copy_gbs);
  std::printf("%-28s %8s %8s %8s %8s %8s %7s %7s %7s %9s  %s\n", "case", "eager", "interp", "nvrtc",
              "chains", "floor", "%interp", "%nvrtc", "%chains", "1st call", "kernel (nvrtc)");
  for (size_t ci = 0; ci < cases.size(); ++ci) {
    if (!wanted(ci)) continue;
    const Case& c = cases[ci];
    const std::vector<Tensor> want = c.forward(c.inputs);
    // Paths: the interpreter, the generated kernel, the chain-split form's generated kernels.
    double ms[3] = {0, 0, 0}, diff[3] = {0, 0, 0}, first_ms = 0;
    std::string kernel, expression;
    for (int path = 0; path < 3; ++path) {
      chain::set_chain_kernel(path == 0 ? chain::ChainKernel::kInterpreter
                                        : chain::ChainKernel::kGenerated);
      tt::graph::set_pointwise_dags(path != 2);
      auto compiled = tt::compile(std::make_shared<FnModule>(c.forward));
      const double first = wall_ms([&] {
        (*compiled)(c.inputs);  // records, lowers (the NVRTC compile), runs
        tt::cuda::synchronize(gpu.index);
      });
      const std::vector<Tensor> replay = (*compiled)(c.inputs);
      for (size_t k = 0; k < want.size(); ++k)
        diff[path] = std::max(diff[path], tt::ops::amax(tt::ops::abs(replay[k] - want[k])).item());
      ms[path] = tt::cuda::time_gpu([&] { (*compiled)(c.inputs); }, gpu.index, timing).median_ms;
      if (path == 1) {
        first_ms = first;
        kernel = first_kernel(compiled->explain());
        expression = report_line(compiled->explain(), "expression: ");
      }
    }
    chain::set_chain_kernel(chain::ChainKernel::kGenerated);
    tt::graph::set_pointwise_dags(true);
    const double eager =
        tt::cuda::time_gpu([&] { c.forward(c.inputs); }, gpu.index, timing).median_ms;
    const double floor_ms = c.bytes / (copy_gbs * 1e6);
    std::printf(
        "%-28s %8.3f %8.3f %8.3f %8.3f %8.3f %6.1f%% %6.1f%% %6.1f%% %7.0fms  %s (max |diff| "
        "%.2g, %.2g, %.2g)\n",
        c.name, eager, ms[0], ms[1], ms[2], floor_ms, 100 * floor_ms / ms[0],
        100 * floor_ms / ms[1], 100 * floor_ms / ms[2], first_ms, kernel.c_str(), diff[0], diff[1],
        diff[2]);
    std::printf("%-28s expression: %s\n", "", expression.c_str());
  }
  if (!sweep) return 0;

  // Each case's chain kernel alone, as lowering builds it (operand order, layouts).
  const Tensor half = Tensor::full({1}, 0.5, tt::DType::F32, gpu);
  const Tensor one = Tensor::full({1}, 1.0, tt::DType::F32, gpu);
  const Tensor two = Tensor::full({1}, 2.0, tt::DType::F32, gpu);
  const Tensor xy = x + y;
  struct Kernel {
    const char* name;
    chain::Chain c;
    double bytes;
  };
  std::vector<Kernel> kernels(4);
  for (Kernel& k : kernels) {
    k.c.rank = 2;
    k.c.sizes[0] = rows;
    k.c.sizes[1] = cols;
  }
  const auto operand = [](chain::Chain& c, const Tensor& t, chain::Layout l) {
    chain::Operand& o = c.operands[c.operand_count++];
    o.data = t.data<float>();
    o.layout = l;
    return c.operand_count - 1;
  };
  {
    chain::Chain& c = kernels[0].c;  // gelu(x * 0.5 + b)
    kernels[0].name = "[mul,add,gelu]";
    kernels[0].bytes = 2 * full + 4.0 * cols;
    operand(c, x, chain::Layout::kFlat);
    c.steps[c.step_count++] =
        chain::Step::of(pw::BinaryOp::Mul, operand(c, half, chain::Layout::kScalar));
    c.steps[c.step_count++] =
        chain::Step::of(pw::BinaryOp::Add, operand(c, b, chain::Layout::kRow));
    c.steps[c.step_count++] = chain::Step::of(pw::UnaryOp::GeluErf);
  }
  {
    chain::Chain& c = kernels[1].c;  // sigmoid(z) * (x + y) - 1, x + y given
    kernels[1].name = "[sigmoid,mul,sub]";
    kernels[1].bytes = 3 * full;
    operand(c, z, chain::Layout::kFlat);
    c.steps[c.step_count++] = chain::Step::of(pw::UnaryOp::Sigmoid);
    c.steps[c.step_count++] =
        chain::Step::of(pw::BinaryOp::Mul, operand(c, xy, chain::Layout::kFlat), true);
    c.steps[c.step_count++] =
        chain::Step::of(pw::BinaryOp::Sub, operand(c, one, chain::Layout::kScalar));
  }
  {
    chain::Chain& c = kernels[2].c;  // relu(x^T + b) * 2
    kernels[2].name = "[add,relu,mul] x^T";
    kernels[2].bytes = 2 * full + 4.0 * cols;
    const int t = operand(c, x, chain::Layout::kStrided);
    c.operands[t].strides[0] = 1;
    c.operands[t].strides[1] = rows;
    c.steps[c.step_count++] =
        chain::Step::of(pw::BinaryOp::Add, operand(c, b, chain::Layout::kRow));
    c.steps[c.step_count++] = chain::Step::of(pw::UnaryOp::Relu);
    c.steps[c.step_count++] =
        chain::Step::of(pw::BinaryOp::Mul, operand(c, two, chain::Layout::kScalar));
  }
  {
    chain::Chain& c = kernels[3].c;  // tanh(gelu_tanh(x) * y) + z
    kernels[3].name = "[gelu_tanh,mul,tanh,add]";
    kernels[3].bytes = 4 * full;
    operand(c, x, chain::Layout::kFlat);
    c.steps[c.step_count++] = chain::Step::of(pw::UnaryOp::GeluTanh);
    c.steps[c.step_count++] =
        chain::Step::of(pw::BinaryOp::Mul, operand(c, y, chain::Layout::kFlat));
    c.steps[c.step_count++] = chain::Step::of(pw::UnaryOp::Tanh);
    c.steps[c.step_count++] =
        chain::Step::of(pw::BinaryOp::Add, operand(c, z, chain::Layout::kFlat));
  }
  std::printf("\nchain kernels alone (vec 4), %% of copy for the kernel's own bytes:\n");
  std::printf("%-26s %9s", "kernel", "interp");
  const int threads_axis[] = {128, 256, 512}, items_axis[] = {1, 2, 4};
  for (int t : threads_axis)
    for (int it : items_axis) std::printf(" %4dx%-4d", t, it);
  std::printf("\n");
  for (size_t ki = 0; ki < kernels.size(); ++ki) {
    if (!wanted(ki)) continue;
    const Kernel& k = kernels[ki];
    const double floor_ms = k.bytes / (copy_gbs * 1e6);
    const auto pct = [&](const chain::ChainConfig& cfg, const chain::PreparedChain* p) {
      const double ms = tt::cuda::time_gpu(
                            [&] {
                              chain::run_chain(k.c, dst.data<float>(), dst.numel(), cfg, gpu.index,
                                               tt::cuda::stream(gpu.index), p);
                            },
                            gpu.index, timing)
                            .median_ms;
      return 100 * floor_ms / ms;
    };
    std::printf("%-26s %8.1f%%", k.name, pct(chain::ChainConfig{}, nullptr));
    std::string how;
    for (int t : threads_axis) {
      for (int it : items_axis) {
        chain::ChainConfig cfg;
        cfg.threads = t;
        cfg.items = it;
        const chain::PreparedChain p = chain::prepare_chain(k.c, cfg, gpu.index);
        how = p.how;
        std::printf(" %8.1f%%", p.generated ? pct(cfg, &p) : 0.0);
      }
    }
    std::printf("  %s\n", how.c_str());
  }
  return 0;
}
