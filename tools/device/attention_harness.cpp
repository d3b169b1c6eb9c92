// Device timing of tt::ops::scaled_dot_product_attention (issue 19), per precision
// mode, at the shapes: each launch after a 256 MB L2 flush, CUDA events around
// it on the op's stream, the median of `reps`; TFLOP/s counts 4 B H L S E (halved for
// causal); the error is the relative L2 against the float64 CPU reference of the
// first and last (batch, head) slices. Every config of the shape's space is timed too
// (the sweep `tt tune` would run), so the best config per shape and mode shows.
// Rows: "RESULT,<shape>,ours-<mode>[-best],<ms>,<tflops>,<rel_err>,<config>" (the
// default config, then the best of the sweep) and "CONFIG,<mode>,<shape>,<config>,<ms>". Usage:
// attention_harness [--quick]; ATTN_SHAPES="2,3" times only those shapes of the full list
// (0-based), ATTN_MODES="accurate" only those modes.
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "autotune/lookup.h"
#include "autotune/space_cache.h"
#include "core/cuda/stream.h"
#include "core/precision.h"
#include "core/tensor.h"
#include "ops/ops.h"
#include "tools/device/event_timing.h"

namespace {

using tt::Tensor;

#define CK(x)                                                                                     \
  do {                                                                                            \
    cudaError_t e_ = (x);                                                                         \
    if (e_ != cudaSuccess) {                                                                      \
      fmt::print(stderr, "CUDA error {} at {}:{}\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

struct Shape {
  int64_t B, H, T, E;
  bool causal;
  std::string str() const {
    return fmt::format("B{} H{} T{} E{}{}", B, H, T, E, causal ? " causal" : "");
  }
  double flops() const { return 4.0 * B * H * T * T * E * (causal ? 0.5 : 1.0); }
};

// The median of `reps` runs after one warm-up, each after a 256 MB L2 flush.
float median_ms(const std::function<void()>& fn, int reps) {
  static char* flush = nullptr;
  if (!flush) CK(cudaMalloc(&flush, 256 << 20));
  return tt::device_tools::median_ms(fn, tt::cuda::stream(0), 1, reps, {flush, 256 << 20});
}

// A config's text with spaces for commas: one CSV field.
std::string field(std::string s) {
  std::replace(s.begin(), s.end(), ',', ' ');
  return s;
}

double rel_l2(const std::vector<double>& a, const std::vector<double>& b) {
  double num = 0, den = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    num += (a[i] - b[i]) * (a[i] - b[i]);
    den += b[i] * b[i];
  }
  return std::sqrt(num / den);
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const tt::Device gpu = tt::Device::cuda(0);
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  fmt::print("GPU {}\n", prop.name);
  std::vector<Shape> shapes = {{8, 16, 1024, 64, false},  {8, 16, 1024, 64, true},
                               {2, 16, 4096, 64, false},  {2, 16, 4096, 64, true},
                               {8, 16, 1024, 128, false}, {8, 16, 1024, 128, true}};
  if (quick) shapes.resize(2);
  // ATTN_SHAPES / ATTN_MODES: comma-separated picks (the whole list where unset).
  const auto picked = [](const char* var, const std::string& item) {
    const char* v = std::getenv(var);
    if (v == nullptr || *v == 0) return true;
    return ("," + std::string(v) + ",").find("," + item + ",") != std::string::npos;
  };
  {
    std::vector<Shape> kept;
    for (size_t i = 0; i < shapes.size(); ++i) {
      if (picked("ATTN_SHAPES", std::to_string(i))) kept.push_back(shapes[i]);
    }
    shapes = kept;
  }
  const int reps = quick ? 5 : 20;
  uint64_t seed = 1;
  for (const Shape& sh : shapes) {
    const Tensor q = Tensor::randn({sh.B, sh.H, sh.T, sh.E}, seed++, gpu);
    const Tensor k = Tensor::randn({sh.B, sh.H, sh.T, sh.E}, seed++, gpu);
    const Tensor v = Tensor::randn({sh.B, sh.H, sh.T, sh.E}, seed++, gpu);
    // The float64 reference of two (batch, head) slices.
    std::vector<double> want;
    const auto slices = [&](const Tensor& t) {
      std::vector<Tensor> s = {t.select(0, 0).select(0, 0),
                               t.select(0, sh.B - 1).select(0, sh.H - 1)};
      return s;
    };
    {
      tt::ops::Float64Scope f64;
      for (int i = 0; i < 2; ++i) {
        const auto part = [&](const Tensor& t) { return slices(t)[i].cpu().to(tt::DType::F64); };
        const auto w = tt::ops::scaled_dot_product_attention(part(q), part(k), part(v), Tensor(),
                                                             0.0, sh.causal)
                           .to_vector<double>();
        want.insert(want.end(), w.begin(), w.end());
      }
    }
    for (tt::Precision prec :
         {tt::Precision::strict, tt::Precision::tf32, tt::Precision::accurate}) {
      const char* mode = tt::precision_name(prec);
      if (!picked("ATTN_MODES", mode)) continue;
      tt::PrecisionGuard guard(prec);
      Tensor out;
      const auto run = [&] {
        out = tt::ops::scaled_dot_product_attention(q, k, v, Tensor(), 0.0, sh.causal);
      };
      tt::autotune::clear_configs_used();
      float default_ms = 0;
      std::string default_cfg;
      {
        tt::autotune::ScopedForceDefaults defaults;
        default_ms = median_ms(run, reps);
      }
      float best_ms = default_ms;
      std::vector<double> got;
      for (const Tensor& s : slices(out)) {
        const auto g = s.cpu().to_vector<double>();
        got.insert(got.end(), g.begin(), g.end());
      }
      const double err = rel_l2(got, want);
      std::string best_cfg = "default";
      for (const tt::autotune::UsedConfig& used : tt::autotune::configs_used()) {
        if (used.kernel != "attention") continue;
        default_cfg = field(used.result.config.str());
        const auto ts = tt::autotune::space_for(used.kernel, used.problem, 0);
        for (const tt::autotune::Config& c : ts.space->enumerate()) {
          tt::autotune::ScopedConfigOverride force(used.kernel, c, used.problem);
          const float ms = median_ms(run, std::max(3, reps / 4));
          fmt::print("CONFIG,{},{},{},{:.4f}\n", mode, sh.str(), field(c.str()), ms);
          if (ms < best_ms) {
            best_ms = ms;
            best_cfg = field(c.str());
          }
        }
      }
      fmt::print("RESULT,{},ours-{},{:.4f},{:.1f},{:.2e},{}\n", sh.str(), mode, default_ms,
                 sh.flops() / default_ms / 1e9, err, default_cfg);
      fmt::print("RESULT,{},ours-{}-best,{:.4f},{:.1f},,{}\n", sh.str(), mode, best_ms,
                 sh.flops() / best_ms / 1e9, best_cfg);
      std::fflush(stdout);
    }
  }
  return 0;
}
