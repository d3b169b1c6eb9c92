// Device harness of the normalisation launchers (ops/cuda/norm/norm_passes.h), built
// standalone with nvcc by tools/device/norm_check.sh (no CMake, no Tensor): checks
// every candidate config of every launcher against a float64 CPU reference (relative
// L2 error, outputs poisoned with NaN first, awkward small shapes and the full
// seed-model shapes), then times every candidate at the full shapes (CUDA events, L2
// flushed before each rep, median of 20 after warm-up) against the memory floor
// measured by a device-to-device copy.
//
// Usage: norm_harness [--quick]   (--quick: small shapes only)
#include <cuda_runtime.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/cuda/check.h"
#include "core/error.h"
#include "ops/cuda/norm/norm_passes.h"
#include "ops/cuda/norm/norm_space.h"
#include "tools/device/event_timing.h"

using namespace tt::ops::cuda::norm;

namespace {

// The fused plans' two passes as chains of the segment-norm launcher (norm_passes.h).
void launch_row_norm_add_mul(const SegmentConfig& cfg, const float* Y, const float* y, float* out,
                             int64_t rows, int64_t cols, float eps, cudaStream_t stream) {
  SegmentChainArgs a;
  a.x = Y, a.out = out, a.rows = rows, a.n = cols, a.eps = eps;
  a.epilogue.add_residual(y, cols).mul_residual(y, cols);
  launch_segment_chain(cfg, a, stream);
}

void launch_swish_bias_group_norm(const SegmentConfig& cfg, const float* Y, const float* bias,
                                  const float* gamma, const float* beta, float* out, int64_t rows,
                                  int64_t channels, int64_t groups, float eps,
                                  cudaStream_t stream) {
  SegmentChainArgs a;
  a.x = Y, a.out = out, a.rows = rows, a.n = channels, a.groups = groups, a.eps = eps;
  a.prologue.silu().add_column(bias);
  a.epilogue.mul_column(gamma).add_column(beta);
  launch_segment_chain(cfg, a, stream);
}

constexpr double kTol = 1e-5;
int g_failures = 0;
double g_copy_gbs = 0;  // measured device copy bandwidth, GB/s (read + write)
cudaStream_t g_stream = nullptr;
std::vector<std::string> g_table;  // the summary printed last

// ---------------------------------------------------------------------------
// Deterministic data: element i of a buffer drawn with `seed` is the same on host
// and device, so references never need the input copied back.
__host__ __device__ inline float gen(uint64_t seed, int64_t i, float lo, float hi) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(i) + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return lo + (hi - lo) * static_cast<float>(z >> 40) * (1.0f / 16777216.0f);
}

__global__ void fill_kernel(float* p, int64_t n, uint64_t seed, float lo, float hi) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    p[i] = gen(seed, i, lo, hi);
}

struct Buf {
  float* d = nullptr;
  int64_t n = 0;
  std::vector<float> h;  // host copy of the input (when requested)
  Buf() = default;
  explicit Buf(int64_t count) : n(count) {
    TT_CUDA_CHECK(cudaMalloc(&d, std::max<int64_t>(n, 1) * sizeof(float)));
  }
  Buf(const Buf&) = delete;
  Buf& operator=(const Buf&) = delete;
  ~Buf() {
    if (d) cudaFree(d);
  }
  void fill(uint64_t seed, float lo, float hi, bool keep_host = true) {
    if (n > 0) {
      fill_kernel<<<2048, 256, 0, g_stream>>>(d, n, seed, lo, hi);
      TT_CUDA_CHECK_LAUNCH();
    }
    if (keep_host) {
      h.resize(n);
#pragma omp parallel for schedule(static)
      for (int64_t i = 0; i < n; ++i) h[i] = gen(seed, i, lo, hi);
    }
  }
  void poison() { TT_CUDA_CHECK(cudaMemsetAsync(d, 0xFF, n * sizeof(float), g_stream)); }
  std::vector<float> get() const {
    std::vector<float> out(n);
    TT_CUDA_CHECK(cudaStreamSynchronize(g_stream));
    TT_CUDA_CHECK(cudaMemcpy(out.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
    return out;
  }
};

// ---------------------------------------------------------------------------
// Timing.
Buf* g_flush = nullptr;  // written before each rep so that no input stays in L2

double median_ms(const std::function<void()>& f, int reps = 20) {
  return tt::device_tools::median_ms(f, g_stream, 3, reps,
                                     {g_flush->d, g_flush->n * sizeof(float)});
}

void measure_copy() {
  const int64_t n = int64_t(1) << 29;  // 2 GiB each way
  Buf a(n), b(n);
  TT_CUDA_CHECK(cudaMemsetAsync(a.d, 0, n * sizeof(float), g_stream));
  const double ms = median_ms([&] {
    TT_CUDA_CHECK(cudaMemcpyAsync(b.d, a.d, n * sizeof(float), cudaMemcpyDeviceToDevice, g_stream));
  });
  g_copy_gbs = 2.0 * n * sizeof(float) / ms / 1e6;
  std::printf("device copy: %.3f ms for 2 x %.2f GB: %.0f GB/s\n", ms, n * 4 / 1e9, g_copy_gbs);
}

// ---------------------------------------------------------------------------
// Checking.
struct Err {
  double num = 0, den = 0;
  int64_t bad = 0;  // non-finite outputs (a poisoned value left behind)
  void add(double got, double want) {
    if (!std::isfinite(got)) ++bad;
    num += (got - want) * (got - want);
    den += want * want;
  }
  void merge(const Err& o) { num += o.num, den += o.den, bad += o.bad; }
  double rel() const { return bad ? INFINITY : std::sqrt(num / std::max(den, 1e-300)); }
};

bool report(const std::string& what, const std::string& cfg, const Err& e, double tol = kTol) {
  const bool ok = e.rel() <= tol;
  if (!ok) ++g_failures;
  std::printf("%s %-34s %-58s rel_l2=%.3e%s\n", ok ? "PASS" : "FAIL", what.c_str(), cfg.c_str(),
              e.rel(), e.bad ? " (non-finite outputs)" : "");
  return ok;
}

// Reference of one segment family: z = pro(seg, i, x) in double, two-pass mean and
// biased variance in double, want = epi(seg, i, (z - mean) / sqrt(var + eps)).
template <class Pro, class Epi>
Err check_segments(const std::vector<float>& x, const std::vector<float>& got, int64_t segments,
                   int64_t L, double eps, Pro pro, Epi epi,
                   const std::vector<int64_t>* only = nullptr) {
  const int64_t count = only ? static_cast<int64_t>(only->size()) : segments;
  std::vector<Err> per(omp_get_max_threads());
#pragma omp parallel
  {
    Err& e = per[omp_get_thread_num()];
    std::vector<double> z(L);
#pragma omp for schedule(dynamic, 1)
    for (int64_t q = 0; q < count; ++q) {
      const int64_t s = only ? (*only)[q] : q;
      const int64_t gs = only ? q : s;  // row of `got`
      double sum = 0;
      for (int64_t i = 0; i < L; ++i) sum += z[i] = pro(s, i, double(x[s * L + i]));
      const double mean = sum / L;
      double m2 = 0;
      for (int64_t i = 0; i < L; ++i) m2 += (z[i] - mean) * (z[i] - mean);
      const double rstd = 1.0 / std::sqrt(m2 / L + eps);
      for (int64_t i = 0; i < L; ++i) e.add(got[gs * L + i], epi(s, i, (z[i] - mean) * rstd));
    }
  }
  Err total;
  for (const auto& e : per) total.merge(e);
  return total;
}

std::map<std::string, std::pair<double, std::string>> g_best;  // per problem: fastest config

std::string fmt_row(const char* what, const std::string& cfg, double ms, double bytes, double err) {
  auto it = g_best.find(what);
  if (it == g_best.end() || ms < it->second.first) g_best[what] = {ms, cfg};
  const double gbs = bytes / ms / 1e6;
  char buf[400];
  std::snprintf(buf, sizeof buf, "%-26s %-56s %8.4f ms %7.0f GB/s  %5.1f%% of copy  err %.1e", what,
                cfg.c_str(), ms, gbs, 100.0 * gbs / g_copy_gbs, err);
  return buf;
}

// ---------------------------------------------------------------------------
// Segment norm (instance / group norm building blocks).
struct SegCase {
  const char* name;
  int64_t n, c, spatial, groups;  // groups == 0: instance norm
  bool affine;
  float lo, hi;
};

void test_segment_norm(const SegCase& k, bool time_it) {
  const bool inst = k.groups == 0;
  const int64_t G = inst ? k.c : k.groups;
  const int64_t cpg = inst ? 1 : k.c / k.groups;
  const int64_t segments = k.n * G, L = cpg * k.spatial;
  Buf x(segments * L), out(segments * L), gamma(k.c), beta(k.c);
  x.fill(11, k.lo, k.hi, /*keep_host=*/!time_it || segments * L < (int64_t(1) << 28));
  gamma.fill(12, 0.5f, 1.5f);
  beta.fill(13, -1.f, 1.f);
  SegmentNormArgs a;
  a.x = x.d, a.out = out.d, a.segments = segments, a.length = L, a.groups = G;
  a.channels_per_group = cpg, a.inner = k.spatial, a.eps = 1e-5f;
  a.gamma = k.affine ? gamma.d : nullptr, a.beta = k.affine ? beta.d : nullptr;
  const SegmentProblem p{segments, L, 4};
  const auto& gh = gamma.h;
  const auto& bh = beta.h;
  auto pro = [](int64_t, int64_t, double z) { return z; };
  auto epi = [&](int64_t s, int64_t i, double v) {
    if (!k.affine) return v;
    const int64_t ch = (s % G) * cpg + i / k.spatial;
    return v * gh[ch] + bh[ch];
  };
  // At the full shape, check a sample of segments for every config (the whole
  // output is checked for the default config).
  std::vector<int64_t> sample;
  const bool big = segments * L >= (int64_t(1) << 28);
  if (big) {
    for (int64_t s = 0; s < segments; s += std::max<int64_t>(1, segments / 97)) sample.push_back(s);
    sample.push_back(segments - 1);
  }
  const auto default_cfg = SegmentConfig::default_for(p);
  std::vector<std::string> rows;
  for (const auto& cfg : SegmentConfig::candidates(p)) {
    out.poison();
    try {
      launch_segment_norm(cfg, a, g_stream);
    } catch (const tt::Error& e) {
      std::printf("SKIP %-34s %-58s %s\n", k.name, cfg.str().c_str(), e.what());
      continue;
    }
    Err e;
    if (big) {
      std::vector<float> got(sample.size() * L);
      TT_CUDA_CHECK(cudaStreamSynchronize(g_stream));
      for (size_t q = 0; q < sample.size(); ++q)
        TT_CUDA_CHECK(cudaMemcpy(got.data() + q * L, out.d + sample[q] * L, L * sizeof(float),
                                 cudaMemcpyDeviceToHost));
      std::vector<float> xs(sample.size() * L);
      for (size_t q = 0; q < sample.size(); ++q)
        for (int64_t i = 0; i < L; ++i) xs[q * L + i] = gen(11, sample[q] * L + i, k.lo, k.hi);
      // Re-index: check_segments reads x[s * L], so pass the gathered copy with s = q.
      std::vector<int64_t> idx(sample.size());
      for (size_t q = 0; q < sample.size(); ++q) idx[q] = q;
      auto epi_s = [&](int64_t q, int64_t i, double v) { return epi(sample[q], i, v); };
      e = check_segments(xs, got, idx.size(), L, 1e-5, pro, epi_s, &idx);
      if (cfg == default_cfg) {
        // The whole output, against the reference regenerated slice by slice.
        const auto all = out.get();
        Err full;
        std::vector<Err> per(omp_get_max_threads());
#pragma omp parallel
        {
          Err& pe = per[omp_get_thread_num()];
          std::vector<double> z(L);
#pragma omp for schedule(dynamic, 1)
          for (int64_t s = 0; s < segments; ++s) {
            double sum = 0;
            for (int64_t i = 0; i < L; ++i) sum += z[i] = gen(11, s * L + i, k.lo, k.hi);
            const double mean = sum / L;
            double m2 = 0;
            for (int64_t i = 0; i < L; ++i) m2 += (z[i] - mean) * (z[i] - mean);
            const double rstd = 1.0 / std::sqrt(m2 / L + 1e-5);
            for (int64_t i = 0; i < L; ++i) pe.add(all[s * L + i], epi(s, i, (z[i] - mean) * rstd));
          }
        }
        for (const auto& pe : per) full.merge(pe);
        report(std::string(k.name) + " FULL", cfg.str(), full);
      }
    } else {
      e = check_segments(x.h, out.get(), segments, L, 1e-5, pro, epi);
    }
    report(k.name, cfg.str(), e);
    if (time_it) {
      const double ms = median_ms([&] { launch_segment_norm(cfg, a, g_stream); });
      rows.push_back(fmt_row(k.name, cfg.str() + (cfg == default_cfg ? " *" : ""), ms,
                             2.0 * segments * L * 4, e.rel()));
    }
  }
  for (auto& r : rows) std::printf("TIME %s\n", r.c_str()), g_table.push_back(r);
}

// ---------------------------------------------------------------------------
// Model 1's pass: out = ((Y - mean) * rstd + y) * y per row.
void test_row_add_mul(const char* name, int64_t rows, int64_t cols, bool time_it) {
  Buf Y(rows * cols), y(rows * cols), out(rows * cols);
  Y.fill(21, -1.f, 1.f);
  y.fill(22, 0.f, 1.f);
  const SegmentProblem p{rows, cols, 4};
  const auto& yh = y.h;
  auto pro = [](int64_t, int64_t, double z) { return z; };
  auto epi = [&](int64_t s, int64_t i, double v) {
    const double yy = yh[s * cols + i];
    return (v + yy) * yy;
  };
  const auto def = SegmentConfig::default_for(p);
  std::vector<std::string> rows_out;
  for (const auto& cfg : SegmentConfig::candidates(p)) {
    out.poison();
    launch_row_norm_add_mul(cfg, Y.d, y.d, out.d, rows, cols, 1e-5f, g_stream);
    const Err e = check_segments(Y.h, out.get(), rows, cols, 1e-5, pro, epi);
    report(name, cfg.str(), e);
    if (time_it) {
      const double ms = median_ms(
          [&] { launch_row_norm_add_mul(cfg, Y.d, y.d, out.d, rows, cols, 1e-5f, g_stream); });
      rows_out.push_back(
          fmt_row(name, cfg.str() + (cfg == def ? " *" : ""), ms, 3.0 * rows * cols * 4, e.rel()));
    }
  }
  for (auto& r : rows_out) std::printf("TIME %s\n", r.c_str()), g_table.push_back(r);
}

// ---------------------------------------------------------------------------
// Model 3's pass: GroupNorm(swish(Y) + bias).
void test_swish_group(const char* name, int64_t rows, int64_t channels, int64_t groups,
                      bool time_it) {
  Buf Y(rows * channels), out(rows * channels), bias(channels), gamma(channels), beta(channels);
  Y.fill(31, -3.f, 3.f);
  bias.fill(32, -1.f, 1.f);
  gamma.fill(33, 0.5f, 1.5f);
  beta.fill(34, -1.f, 1.f);
  const int64_t cpg = channels / groups;
  const SegmentProblem p{rows * groups, cpg, 4};
  const auto &bh = bias.h, &gh = gamma.h, &beh = beta.h;
  auto pro = [&](int64_t s, int64_t i, double v) {
    return v / (1.0 + std::exp(-v)) + bh[(s % groups) * cpg + i];
  };
  auto epi = [&](int64_t s, int64_t i, double v) {
    const int64_t c = (s % groups) * cpg + i;
    return v * gh[c] + beh[c];
  };
  const auto def = SegmentConfig::default_for(p);
  std::vector<std::string> rows_out;
  for (const auto& cfg : SegmentConfig::candidates(p)) {
    out.poison();
    launch_swish_bias_group_norm(cfg, Y.d, bias.d, gamma.d, beta.d, out.d, rows, channels, groups,
                                 1e-5f, g_stream);
    const Err e = check_segments(Y.h, out.get(), rows * groups, cpg, 1e-5, pro, epi);
    report(name, cfg.str(), e);
    if (time_it) {
      const double ms = median_ms([&] {
        launch_swish_bias_group_norm(cfg, Y.d, bias.d, gamma.d, beta.d, out.d, rows, channels,
                                     groups, 1e-5f, g_stream);
      });
      rows_out.push_back(fmt_row(name, cfg.str() + (cfg == def ? " *" : ""), ms,
                                 2.0 * rows * channels * 4, e.rel()));
    }
  }
  for (auto& r : rows_out) std::printf("TIME %s\n", r.c_str()), g_table.push_back(r);
}

// ---------------------------------------------------------------------------
// Batch norm over columns ([N, C], model 4 with scale) and over [N, C, L].
void test_batch_norm(const char* name, int64_t n, int64_t c, int64_t inner, bool training,
                     bool with_scale, bool time_it) {
  const int64_t total = n * c * inner;
  Buf Y(total), out(total), scale(c), gamma(c), beta(c), rm(c), rv(c), affine(4 * c);
  Y.fill(41, -1.f, 1.f);
  scale.fill(42, -2.f, 2.f);
  gamma.fill(43, 0.5f, 1.5f);
  beta.fill(44, -1.f, 1.f);
  rm.fill(45, -0.5f, 0.5f);
  rv.fill(46, 0.5f, 2.f);
  const float* sc = with_scale ? scale.d : nullptr;
  const double momentum = 0.1, eps = 1e-5;

  // Reference: per channel, z = Y * scale; batch (or running) statistics in double.
  std::vector<double> mean(c), var(c), want_rm(c), want_rv(c);
#pragma omp parallel for
  for (int64_t ch = 0; ch < c; ++ch) {
    const double s = with_scale ? scale.h[ch] : 1.0;
    auto at = [&](int64_t r, int64_t l) { return s * double(Y.h[(r * c + ch) * inner + l]); };
    double sum = 0;
    for (int64_t r = 0; r < n; ++r)
      for (int64_t l = 0; l < inner; ++l) sum += at(r, l);
    const double m = sum / (n * inner);
    double m2 = 0;
    for (int64_t r = 0; r < n; ++r)
      for (int64_t l = 0; l < inner; ++l) m2 += (at(r, l) - m) * (at(r, l) - m);
    const double cnt = double(n * inner);
    mean[ch] = training ? m : rm.h[ch];
    var[ch] = training ? m2 / cnt : rv.h[ch];
    want_rm[ch] = training ? (1 - momentum) * rm.h[ch] + momentum * m : rm.h[ch];
    want_rv[ch] = training ? (1 - momentum) * rv.h[ch] + momentum * m2 / (cnt - 1) : rv.h[ch];
  }
  auto check_out = [&](const std::vector<float>& got) {
    std::vector<Err> per(omp_get_max_threads());
#pragma omp parallel for
    for (int64_t i = 0; i < total; ++i) {
      const int64_t ch = (i / inner) % c;
      const double s = with_scale ? scale.h[ch] : 1.0;
      const double want =
          (s * Y.h[i] - mean[ch]) / std::sqrt(var[ch] + eps) * gamma.h[ch] + beta.h[ch];
      per[omp_get_thread_num()].add(got[i], want);
    }
    Err e;
    for (const auto& p : per) e.merge(p);
    return e;
  };
  auto reset_running = [&] {
    rm.fill(45, -0.5f, 0.5f, false);
    rv.fill(46, 0.5f, 2.f, false);
  };
  auto check_running = [&] {
    Err e;
    const auto grm = rm.get(), grv = rv.get();
    for (int64_t ch = 0; ch < c; ++ch) e.add(grm[ch], want_rm[ch]), e.add(grv[ch], want_rv[ch]);
    return e;
  };

  const ColumnProblem cp{n, c, 4};
  const AffineProblem ap{total, c, inner, 4};
  const auto def_stats = ColumnStatsConfig::default_for(cp);
  const auto def_aff = AffineConfig::default_for(ap);
  const SegmentProblem sp{n * c, inner, 4};
  const auto def_seg = SegmentConfig::default_for(sp);
  Buf parts(2 * n * c);  // enough for the per-(n, c) partials and any chunking

  // One full forward with the given configs.
  auto forward = [&](const ColumnStatsConfig& stats, const SegmentConfig& seg,
                     const AffineConfig& aff) {
    if (training) {
      int64_t np = 0, part_count = 0;
      if (inner == 1) {
        np = column_stats_parts(stats, n);
        part_count = stats.chunk_rows;
        launch_column_stats(stats, Y.d, n, c, parts.d, parts.d + np * c, g_stream);
      } else {
        np = n;
        part_count = inner;
        SegmentNormArgs a;
        a.x = Y.d, a.out = nullptr, a.segments = n * c, a.length = inner, a.groups = c;
        a.channels_per_group = 1, a.inner = inner, a.seg_mean = parts.d;
        a.seg_m2 = parts.d + np * c;
        launch_segment_norm(seg, a, g_stream);
      }
      launch_batch_norm_finalize(parts.d, parts.d + np * c, np, part_count, n * inner, c, sc,
                                 gamma.d, beta.d, rm.d, rv.d, float(momentum), float(eps), affine.d,
                                 g_stream);
    } else {
      launch_batch_norm_eval_affine(c, sc, gamma.d, beta.d, rm.d, rv.d, float(eps), affine.d,
                                    g_stream);
    }
    launch_channel_affine(aff, Y.d, out.d, affine.d, total, c, inner, g_stream);
  };
  auto run_one = [&](const std::string& label, const ColumnStatsConfig& stats,
                     const SegmentConfig& seg, const AffineConfig& aff) {
    reset_running();
    out.poison();
    forward(stats, seg, aff);
    report(name, label, check_out(out.get()));
    report(std::string(name) + " running", label, check_running(), 1e-6);
  };
  std::vector<std::string> rows_out;
  const double bytes = (training ? 3.0 : 2.0) * total * 4;
  if (training && inner == 1) {
    for (const auto& cfg : ColumnStatsConfig::candidates(cp)) {
      run_one("stats " + cfg.str(), cfg, def_seg, def_aff);
      if (time_it) {
        const double ms = median_ms([&] {
          launch_column_stats(cfg, Y.d, n, c, parts.d, parts.d + column_stats_parts(cfg, n) * c,
                              g_stream);
        });
        rows_out.push_back(fmt_row("bn column stats", cfg.str() + (cfg == def_stats ? " *" : ""),
                                   ms, 1.0 * total * 4, 0));
      }
    }
  }
  if (training && inner > 1) {
    for (const auto& cfg : SegmentConfig::candidates(sp))
      run_one("segstats " + cfg.str(), def_stats, cfg, def_aff);
  }
  for (const auto& cfg : AffineConfig::candidates(ap)) {
    run_one("affine " + cfg.str(), def_stats, def_seg, cfg);
    if (time_it) {
      const double ms = median_ms(
          [&] { launch_channel_affine(cfg, Y.d, out.d, affine.d, total, c, inner, g_stream); });
      rows_out.push_back(fmt_row("bn channel affine", cfg.str() + (cfg == def_aff ? " *" : ""), ms,
                                 2.0 * total * 4, 0));
    }
  }
  if (time_it) {
    const double ms = median_ms([&] { forward(def_stats, def_seg, def_aff); });
    rows_out.push_back(fmt_row(name, "whole pass, defaults", ms, bytes, 0));
  }
  for (auto& r : rows_out) std::printf("TIME %s\n", r.c_str()), g_table.push_back(r);
}

// ---------------------------------------------------------------------------
void test_config_text() {
  // The text form is the family descriptors' (ops/cuda/norm/norm_space.h).
  int bad = 0;
  for (const auto& c : SegmentConfig::all())
    if (!(tt::ops::cuda::norm::segment_descriptor().parse(c.str()) == c)) ++bad;
  for (const auto& c : ColumnStatsConfig::all())
    if (!(tt::ops::cuda::norm::column_stats_descriptor().parse(c.str()) == c)) ++bad;
  for (const auto& c : AffineConfig::all())
    if (!(tt::ops::cuda::norm::affine_descriptor().parse(c.str()) == c)) ++bad;
  bool threw = false;
  try {
    tt::ops::cuda::norm::segment_descriptor().parse("impl=block,threads=256");
  } catch (const tt::Error&) {
    threw = true;
  }
  if (bad || !threw) ++g_failures;
  std::printf("%s config text round trip (%d bad, malformed text %s)\n",
              bad || !threw ? "FAIL" : "PASS", bad, threw ? "rejected" : "accepted");
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  if (argc > 1 && std::strcmp(argv[1], "--noop") == 0) return 0;  // "does it start?"
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // a killed run still leaves its log
  try {
    cudaDeviceProp prop;
    TT_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device: %s, %d SMs, L2 %d MB, cc %d.%d\n", prop.name, prop.multiProcessorCount,
                prop.l2CacheSize >> 20, prop.major, prop.minor);
    TT_CUDA_CHECK(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking));
    Buf flush(int64_t(1) << 26);  // 256 MB, 5x the L2
    g_flush = &flush;
    measure_copy();
    test_config_text();

    // Small, awkward shapes: every candidate config of every launcher.
    const SegCase small[] = {
        {"inst 3x5x(7x13) affine", 3, 5, 91, 0, true, 0.f, 1.f},
        {"inst 4x6x(1x1)", 4, 6, 1, 0, false, 0.f, 1.f},
        {"inst 1x1x(2x2)", 1, 1, 4, 0, true, 0.f, 1.f},
        {"inst 2x3x64 affine", 2, 3, 64, 0, true, 0.f, 1.f},
        {"inst 2x3x1028", 2, 3, 1028, 0, true, 0.f, 1.f},
        {"inst 2x3x1026", 2, 3, 1026, 0, true, 0.f, 1.f},
        {"inst 1x2x32772", 1, 2, 32772, 0, true, 0.f, 1.f},
        {"inst 1x3x262144", 1, 3, 262144, 0, true, 0.f, 1.f},
        {"inst 1x1x262148", 1, 1, 262148, 0, false, 0.f, 1.f},
        {"inst 5x8x(512x512) affine", 5, 8, 262144, 0, true, 0.f, 1.f},
        {"inst 4x50x(256x256)", 4, 50, 65536, 0, false, 0.f, 1.f},
        {"inst 3x7x131072 affine", 3, 7, 131072, 0, true, 0.f, 1.f},
        {"inst 2x2x4096 mean 1000", 2, 2, 4096, 0, false, 999.f, 1001.f},
        {"group 5x12 g3 affine", 5, 12, 1, 3, true, 0.f, 1.f},
        {"group 5x12 g1 affine", 5, 12, 1, 1, true, 0.f, 1.f},
        {"group 5x12 g12 affine", 5, 12, 1, 12, true, 0.f, 1.f},
        {"group 2x6x(7x13) g2 affine", 2, 6, 91, 2, true, 0.f, 1.f},
        {"group 3x8x(4x4) g4 affine", 3, 8, 16, 4, true, 0.f, 1.f},
    };
    for (const auto& k : small) test_segment_norm(k, false);
    test_row_add_mul("model1 7x13", 7, 13, false);
    test_row_add_mul("model1 3x8200", 3, 8200, false);
    test_row_add_mul("model1 1x64", 1, 64, false);
    test_swish_group("model3 5x12 g3", 5, 12, 3, false);
    test_swish_group("model3 4x12 g1", 4, 12, 1, false);
    test_swish_group("model3 4x12 g12", 4, 12, 12, false);
    test_swish_group("model3 3x260 g2", 3, 260, 2, false);
    test_batch_norm("bn 7x13 train", 7, 13, 1, true, true, false);
    test_batch_norm("bn 300x12 train", 300, 12, 1, true, true, false);
    test_batch_norm("bn 5x6 eval", 5, 6, 1, false, true, false);
    test_batch_norm("bn 3x5x91 train", 3, 5, 91, true, false, false);
    test_batch_norm("bn 3x5x91 eval", 3, 5, 91, false, false, false);

    if (!quick) {
      // The full seed-model shapes: check and time every candidate.
      test_row_add_mul("model1 1024x8192", 1024, 8192, true);
      test_swish_group("model3 32768x4096 g64", 32768, 4096, 64, true);
      test_batch_norm("model4 bn 16384x4096 train", 16384, 4096, 1, true, true, true);
      test_batch_norm("model4 bn 16384x4096 eval", 16384, 4096, 1, false, true, true);
      test_segment_norm({"model2 inst 112x64x512x512", 112, 64, 512 * 512, 0, false, 0.f, 1.f},
                        true);
    }
  } catch (const std::exception& e) {
    std::printf("ERROR %s\n", e.what());
    return 2;
  }
  std::printf("\n==== timings (median of 20, L2 flushed; * = default config) ====\n");
  for (const auto& r : g_table) std::printf("%s\n", r.c_str());
  std::printf("\n==== fastest config per problem ====\n");
  for (const auto& [what, best] : g_best)
    std::printf("BEST %-28s %8.4f ms  %s\n", what.c_str(), best.first, best.second.c_str());
  std::printf("\n%s: %d failure(s)\n", g_failures ? "FAILED" : "ALL PASSED", g_failures);
  return g_failures ? 1 : 0;
}
