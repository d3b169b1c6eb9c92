// Device benchmark of the CUDA reductions, softmax, norms and bmm
// (ops/cuda/cuda_ops_reduce.h) at memory-bound sizes, against the copy bandwidth
// measured in the same run.
//
// For each case: one call discovers the (kernel, problem) its launch looks up; the
// default config is timed, then every config of that launch's space (the space `tt
// tune` sweeps) is checked against the default's output and timed, and the fastest is
// reported with the speedup over the default. Times: CUDA events on the op's stream,
// L2 flushed before each rep, median of --reps (core/cuda/timing.h). GB/s counts the
// bytes an op must move at least (read the input once, write the output once, plus
// weights); "% copy" is that against a device-to-device copy of a 1 GiB buffer (read
// + write) timed the same way, and "floor ms" is the time the copy bandwidth needs for
// those bytes. bmm reports TFLOP/s instead (it is compute bound).
//
// Usage: ops_bench [--reps N] [--quick] [--no-sweep] [--only NAME[,NAME...]]
//   --quick: one small case per op (smoke test); --no-sweep: defaults only;
//   --only: the cases whose name starts with one of the NAMEs ("sum,mean,var").
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "autotune/lookup.h"
#include "autotune/space_cache.h"
#include "core/cuda/check.h"
#include "core/cuda/runtime.h"
#include "core/cuda/stream.h"
#include "core/cuda/timing.h"
#include "core/error.h"
#include "core/tensor.h"
#include "ops/cuda/cuda_ops.h"
#include "ops/ops.h"

namespace {

using tt::Device;
using tt::DType;
using tt::Shape;
using tt::Tensor;
namespace tcu = tt::ops::cuda;

const Device kGpu = Device::cuda(0);
int g_reps = 20;

double median_ms(const std::function<void()>& fn, int reps) {
  tt::cuda::TimingOptions o;
  o.warmup = 2;
  o.reps = reps;
  o.max_total_ms = 1e9;
  return tt::cuda::time_gpu(fn, 0, o).median_ms;
}

// Read + write bandwidth of a device-to-device copy of `bytes`, GB/s.
double copy_gbs(size_t bytes) {
  Tensor src = Tensor::rand({static_cast<int64_t>(bytes / 4)}, 1, kGpu);
  Tensor dst = Tensor::empty(src.sizes(), DType::F32, kGpu);
  const cudaStream_t s = tt::cuda::stream(0);
  const double ms = median_ms(
      [&] {
        TT_CUDA_CHECK(
            cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), bytes, cudaMemcpyDeviceToDevice, s));
      },
      g_reps);
  return 2.0 * static_cast<double>(bytes) / (ms * 1e6);
}

// Relative L2 distance of `a` from `b`. Large float outputs (softmax's 134 MB) are
// compared on the device: copying two of them to doubles took ~1.5 s per config.
double rel_l2(const Tensor& a, const Tensor& b) {
  if (a.dtype() == DType::F32 && a.numel() > (int64_t{1} << 20)) {
    const Tensor d = tt::ops::sub(a, b);
    const double num = tt::ops::sum(tt::ops::mul(d, d)).item();
    const double den = tt::ops::sum(tt::ops::mul(b, b)).item();
    return std::sqrt(num / std::max(den, 1e-300));
  }
  const auto va = a.to_vector<double>(), vb = b.to_vector<double>();
  double num = 0, den = 0;
  for (size_t i = 0; i < va.size(); ++i)
    num += (va[i] - vb[i]) * (va[i] - vb[i]), den += vb[i] * vb[i];
  return std::sqrt(num / std::max(den, 1e-300));
}

struct Case {
  std::string name;
  std::function<Tensor()> run;
  double bytes = 0;  // minimum bytes moved (0: compute bound, flops set)
  double flops = 0;
};

struct Result {
  double default_ms = 0, best_ms = 0;
  std::string kernel, problem, best;
  size_t configs = 0, rejected = 0;
};

Result measure(const Case& c, bool sweep) {
  Result r;
  tt::autotune::clear_configs_used();
  Tensor reference;
  {
    tt::autotune::ScopedForceDefaults defaults;
    reference = c.run();
    r.default_ms = median_ms([&] { c.run(); }, g_reps);
  }
  const auto used = tt::autotune::configs_used();
  r.best_ms = r.default_ms;
  r.best = "default";
  if (used.empty()) return r;
  r.kernel = used.front().kernel;
  r.problem = used.front().problem;
  r.best = used.front().result.config.str() + " (default)";
  if (!sweep) return r;
  const auto ts = tt::autotune::space_for(r.kernel, r.problem, 0);
  for (const auto& cfg : ts.space->enumerate()) {
    ++r.configs;
    tt::autotune::ScopedForceDefaults defaults;
    tt::autotune::ScopedConfigOverride force(r.kernel, cfg, r.problem);
    double ms = 0;
    try {
      const Tensor out = c.run();
      // Same result as the default up to float rounding (bit-equal for the arg ops).
      const double err = rel_l2(out, reference);
      if (!(err <= 1e-5)) {
        std::printf("  %s: config %s disagrees with the default (rel L2 %.2e): rejected\n",
                    c.name.c_str(), cfg.str().c_str(), err);
        ++r.rejected;
        continue;
      }
      ms = median_ms([&] { c.run(); }, std::max(5, g_reps / 2));
    } catch (const tt::Error& e) {
      std::printf("  %s: config %s failed: %s\n", c.name.c_str(), cfg.str().c_str(), e.what());
      ++r.rejected;
      continue;
    }
    if (ms < r.best_ms) r.best_ms = ms, r.best = cfg.str();
  }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false, sweep = true;
  std::vector<std::string> only;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick"))
      quick = true;
    else if (!std::strcmp(argv[i], "--no-sweep"))
      sweep = false;
    else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc)
      g_reps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) {
      const std::string list = argv[++i];
      for (size_t b = 0, e; b <= list.size(); b = e + 1) {
        e = std::min(list.find(',', b), list.size());
        if (e > b) only.push_back(list.substr(b, e - b));
      }
    } else {
      std::fprintf(stderr,
                   "usage: ops_bench [--reps N] [--quick] [--no-sweep] [--only NAME[,NAME...]]\n");
      return 1;
    }
  }
  if (!tt::cuda::is_available()) {
    std::fprintf(stderr, "ops_bench: no CUDA device\n");
    return 3;
  }
  try {
    const auto info = tt::cuda::device_info(0);
    const double copy = copy_gbs(size_t{1} << 30);
    std::printf("device: %s (%d SMs); device-to-device copy of 1 GiB: %.0f GB/s (read + write)\n",
                info.name.c_str(), info.sm_count, copy);

    // Big: 8192 x 4096 (128 MiB); attention: the [64 * 512, 512] score rows.
    const int64_t R = quick ? 256 : 8192, C = quick ? 1024 : 4096;
    const int64_t AR = quick ? 1024 : 64 * 512, AC = 512;
    const Tensor big = Tensor::randn({R, C}, 1, kGpu);
    const Tensor att = Tensor::randn({AR, AC}, 2, kGpu);
    const Tensor w = Tensor::uniform({C}, 0.5, 1.5, 3, kGpu), b = Tensor::randn({C}, 4, kGpu);
    const Tensor aw = Tensor::uniform({AC}, 0.5, 1.5, 5, kGpu), ab = Tensor::randn({AC}, 6, kGpu);
    const double fb = 4.0 * static_cast<double>(R * C), fa = 4.0 * static_cast<double>(AR * AC);
    const int64_t B = quick ? 4 : 64, S = quick ? 128 : 512, D = quick ? 64 : 512;
    const Tensor q = Tensor::randn({B, S, D}, 7, kGpu), k = Tensor::randn({B, S, D}, 8, kGpu);

    const std::vector<Case> cases = {
        {"softmax [8192,4096] dim -1", [&] { return tcu::softmax(big, 1); }, 2 * fb},
        {"softmax [32768,512] dim -1", [&] { return tcu::softmax(att, 1); }, 2 * fa},
        {"log_softmax [8192,4096]", [&] { return tcu::log_softmax(big, 1); }, 2 * fb},
        {"layer_norm [8192,4096] affine", [&] { return tcu::layer_norm(big, C, w, b, 1e-5); },
         2 * fb},
        {"layer_norm [32768,512] affine", [&] { return tcu::layer_norm(att, AC, aw, ab, 1e-5); },
         2 * fa},
        {"rms_norm [8192,4096]", [&] { return tcu::rms_norm(big, C, w, 1e-6); }, 2 * fb},
        {"sum [8192,4096] dim 1", [&] { return tcu::sum(big, {1}, false); }, fb + 4.0 * R},
        {"mean [8192,4096] dim 1", [&] { return tcu::mean(big, {1}, false); }, fb + 4.0 * R},
        {"mean [32768,512] dim 1", [&] { return tcu::mean(att, {1}, false); }, fa + 4.0 * AR},
        {"sum [8192,4096] dim 0", [&] { return tcu::sum(big, {0}, false); }, fb + 4.0 * C},
        {"sum [8192,4096] all",
         [&] {
           return tcu::sum(big, {0, 1}, false);
         },
         fb},
        {"var [8192,4096] dim 1", [&] { return tcu::var(big, {1}, 1, false); }, fb + 4.0 * R},
        {"amax [8192,4096] dim 1", [&] { return tcu::amax(big, {1}, false); }, fb + 4.0 * R},
        {"argmax [8192,4096] dim 1", [&] { return tcu::argmax(big, 1, false); }, fb + 8.0 * R},
        {"bmm q k^T [64,512,512]", [&] { return tcu::bmm(q, k.transpose(1, 2)); }, 0,
         2.0 * B * S * S * D},
    };

    std::printf("\n%-32s %9s %9s %8s %7s %9s %8s %7s %8s  %s\n", "op", "floor ms", "default",
                "GB/s", "% copy", "tuned", "GB/s", "% copy", "speedup", "tuned config");
    for (const Case& c : cases) {
      if (!only.empty() && std::none_of(only.begin(), only.end(), [&](const std::string& n) {
            return c.name.compare(0, n.size(), n) == 0;
          }))
        continue;
      const Result r = measure(c, sweep);
      if (c.bytes > 0) {
        const double floor_ms = c.bytes / (copy * 1e6);
        const double g0 = c.bytes / (r.default_ms * 1e6), g1 = c.bytes / (r.best_ms * 1e6);
        std::printf(
            "%-32s %9.4f %9.4f %8.0f %6.1f%% %9.4f %8.0f %6.1f%% %7.2fx  %s %s [%zu configs]\n",
            c.name.c_str(), floor_ms, r.default_ms, g0, 100 * g0 / copy, r.best_ms, g1,
            100 * g1 / copy, r.default_ms / r.best_ms, r.kernel.c_str(), r.best.c_str(), r.configs);
      } else {
        const double t0 = c.flops / (r.default_ms * 1e9), t1 = c.flops / (r.best_ms * 1e9);
        std::printf("%-32s %9s %9.4f %6.1f TF %7s %9.4f %6.1f TF %7s %7.2fx  %s %s [%zu configs]\n",
                    c.name.c_str(), "-", r.default_ms, t0, "", r.best_ms, t1, "",
                    r.default_ms / r.best_ms, r.kernel.c_str(), r.best.c_str(), r.configs);
      }
      std::fflush(stdout);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ops_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
