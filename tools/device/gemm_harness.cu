// Standalone device harness of the GEMM stage (tools/device/gemm_check.sh builds it
// with nvcc alone, without the CMake project): correctness of every own variant, of
// cuBLASLt and of each epilogue against a float64 CPU reference at awkward and full
// shapes, then timings (CUDA events, warm-up, median of reps) of cublasSgemm,
// cuBLASLt and our own kernels at the seed models' full shapes, and of the seed models'
// fused groups end to end (each a plan built from its pattern, tests/support/
// seed_patterns.h, as tt::compile builds it) when the norm passes are compiled in
// (GEMM_HARNESS_MODELS=1).
// Prints one line per result and a short summary table last.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/cuda/check.h"
#include "core/cuda/stream.h"
#include "ops/cuda/gemm/cublaslt_gemm.h"
#include "ops/cuda/gemm/gemm.h"
#include "ops/cuda/gemm/gemm_config.h"
#include "ops/cuda/gemm/tiled_gemm.h"
#include "tests/support/host_norms.h"
#include "tools/device/event_timing.h"
#include "tools/device/hash_fill.cuh"
#if GEMM_HARNESS_MODELS
#include "ops/cuda/fused/plan.h"
#include "ops/cuda/norm/norm_passes.h"
#include "tests/support/seed_patterns.h"
#endif

using namespace tt::ops::cuda::gemm;

namespace {

int g_failures = 0;
std::vector<std::string> g_summary;

#define CK(call) TT_CUDA_CHECK(call)

struct DevBuf {
  float* p = nullptr;
  size_t n = 0;
  explicit DevBuf(size_t count, size_t guard = 0) : n(count) {
    CK(cudaMalloc(&p, (count + guard + 64) * sizeof(float)));
  }
  ~DevBuf() { cudaFree(p); }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
};

std::vector<float> to_host(const float* d, size_t n) {
  std::vector<float> h(n);
  if (n) CK(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
  return h;
}
void to_dev(float* d, const std::vector<float>& h) {
  if (!h.empty()) CK(cudaMemcpy(d, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
}

std::vector<float> uniform(size_t n, float lo, float hi, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

void fill(float* p, size_t n, unsigned seed, float lo, float hi) {
  tt::device_tools::hash_fill(p, n, seed, lo, hi);
}

// ---- CPU float64 references ----
double dot(const float* x, const float* w, int64_t k) {
  double s = 0;
  for (int64_t i = 0; i < k; ++i) s += double(x[i]) * double(w[i]);
  return s;
}

struct Err {
  double rel_l2 = 0, max_abs = 0;
  bool finite = true;
};
Err compare(const std::vector<double>& ref, const std::vector<float>& got) {
  double num = 0, den = 0;
  Err e;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (!std::isfinite(got[i])) e.finite = false;
    const double d = double(got[i]) - ref[i];
    num += d * d;
    den += ref[i] * ref[i];
    e.max_abs = std::max(e.max_abs, std::fabs(d));
  }
  e.rel_l2 = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  return e;
}

void report(const std::string& what, const Err& e, double tol = 1e-5) {
  const bool ok = e.finite && e.rel_l2 <= tol;
  if (!ok) ++g_failures;
  std::printf("%s %-70s rel_l2=%.3e max_abs=%.3e%s\n", ok ? "PASS" : "FAIL", what.c_str(), e.rel_l2,
              e.max_abs, e.finite ? "" : " NON-FINITE");
}

double sigmoid_swish(double v) { return v / (1.0 + std::exp(-v)); }

using tt::test::group_norm_row;  // tests/support/host_norms.h

// Reference epilogue for the pointwise part (see epilogue.h).
struct HostEpi {
  std::vector<float> bias, post, affine, gamma, beta;
  int act = 0;  // 0 none, 1 relu, 2 swish
};
double host_pointwise(double v, const HostEpi& h, int64_t col, int64_t n) {
  if (!h.bias.empty()) v += h.bias[col];
  if (h.act == 1) v = std::max(v, 0.0);
  if (h.act == 2) v = sigmoid_swish(v);
  if (!h.post.empty()) v += h.post[col];
  if (!h.affine.empty()) {
    v = (v * h.affine[col] - h.affine[n + col]) * h.affine[2 * n + col] + h.affine[3 * n + col];
  }
  return v;
}

// ---- correctness at small, awkward shapes ----
struct Shape3 {
  int64_t m, n, k;
};

void check_small(const Shape3& s, cudaStream_t stream) {
  const int64_t m = s.m, n = s.n, k = s.k;
  const auto hx = uniform(m * k, 0.f, 1.f, 1 + m);
  const float bound = 1.f / std::sqrt(float(std::max<int64_t>(k, 1)));
  const auto hw = uniform(n * k, -bound, bound, 2 + n);
  HostEpi h;
  h.bias = uniform(n, -1.f, 1.f, 3);
  h.post = uniform(n, -1.f, 1.f, 4);
  h.affine = uniform(4 * n, 0.5f, 1.5f, 5);
  h.gamma = uniform(n, 0.5f, 1.5f, 6);
  h.beta = uniform(n, -0.5f, 0.5f, 7);
  // Offset by one float: an unaligned X and W exercise the width-1 fallback.
  DevBuf dx(m * k), dxu(m * k + 1), dw(n * k), dc(m * n, 1024), db(n), dp(n), da(4 * n), dg(n),
      dbe(n);
  to_dev(dx.p, hx);
  to_dev(dw.p, hw);
  if (!hx.empty()) CK(cudaMemcpy(dxu.p + 1, hx.data(), hx.size() * 4, cudaMemcpyHostToDevice));
  to_dev(db.p, h.bias);
  to_dev(dp.p, h.post);
  to_dev(da.p, h.affine);
  to_dev(dg.p, h.gamma);
  to_dev(dbe.p, h.beta);

  std::vector<double> acc(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) acc[i * n + j] = dot(&hx[i * k], &hw[j * k], k);

  auto run_and_check = [&](const std::string& what, const std::function<void(float*)>& launch,
                           const std::vector<double>& ref) {
    // Poison (NaN) the output and a guard region after it.
    CK(cudaMemsetAsync(dc.p, 0xff, (m * n + 1024) * sizeof(float), stream));
    launch(dc.p);
    CK(cudaStreamSynchronize(stream));
    auto got = to_host(dc.p, m * n + 1024);
    bool guard_ok = true;
    for (int64_t i = m * n; i < m * n + 1024; ++i) {
      uint32_t bits;
      std::memcpy(&bits, &got[i], 4);
      if (bits != 0xffffffffu) guard_ok = false;
    }
    got.resize(m * n);
    Err e = compare(ref, got);
    if (!guard_ok) {
      e.finite = false;
      std::printf("  (wrote past the end of C)\n");
    }
    report(what, e);
  };

  const std::string shape =
      "m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k);
  // Pointwise: every own variant, plain and with the full epilogue.
  HostEpi full = h;
  full.act = 2;
  std::vector<double> ref_plain = acc, ref_full(m * n), ref_relu(m * n), ref_bias(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      ref_full[i * n + j] = host_pointwise(acc[i * n + j], full, j, n);
      ref_bias[i * n + j] = acc[i * n + j] + h.bias[j];
      ref_relu[i * n + j] = std::max(ref_bias[i * n + j], 0.0);
    }
  const Epilogue e_full =
      Epilogue().add_column(db.p).silu().add_column(dp.p).column_affine(da.p, n);
  // A config whose width K does not allow runs its width-1 fallback (inside the launcher).
  const float* x = dx.p;
  for (const GemmConfig& cfg : own_variants()) {
    run_and_check(
        cfg.str() + " plain " + shape,
        [&](float* c) {
          launch_tiled_gemm(cfg, {x, dw.p, c, m, n, k}, Epilogue{}, stream);
        },
        ref_plain);
    run_and_check(
        cfg.str() + " swish+affine " + shape,
        [&](float* c) {
          launch_tiled_gemm(cfg, {x, dw.p, c, m, n, k}, e_full, stream);
        },
        ref_full);
  }
  // Unaligned X (offset by one float): the launcher must fall back to width 1.
  run_and_check(
      "own 128x128 vec4 with unaligned X " + shape,
      [&](float* c) {
        launch_tiled_gemm(own_variants()[0], {dxu.p + 1, dw.p, c, m, n, k}, Epilogue{}, stream);
      },
      ref_plain);
  // cuBLASLt: default, bias, relu+bias (K >= 1 only; gemm.h routes K = 0 to our kernel).
  const Epilogue e_bias = Epilogue().add_column(db.p);
  const Epilogue e_relu = Epilogue().add_column(db.p).relu();
  for (int algo = 0; algo < 2; ++algo) {
    const GemmConfig lt = GemmConfig::cublaslt(algo);
    try {
      run_and_check(
          lt.str() + " default " + shape,
          [&](float* c) {
            run_gemm(lt, {dx.p, dw.p, c, m, n, k}, {}, 0, stream);
          },
          ref_plain);
      run_and_check(
          lt.str() + " bias " + shape,
          [&](float* c) {
            run_gemm(lt, {dx.p, dw.p, c, m, n, k}, e_bias, 0, stream);
          },
          ref_bias);
      run_and_check(
          lt.str() + " relu_bias " + shape,
          [&](float* c) {
            run_gemm(lt, {dx.p, dw.p, c, m, n, k}, e_relu, 0, stream);
          },
          ref_relu);
    } catch (const std::exception& ex) {
      std::printf("INFO %s %s: %s\n", lt.str().c_str(), shape.c_str(), ex.what());
    }
  }
}

// Group norm epilogue (model 3) at a small shape, vs float64.
void check_group_norm(int64_t m, int64_t n, int64_t k, int64_t groups, cudaStream_t stream) {
  const auto hx = uniform(m * k, 0.f, 1.f, 11);
  const float bound = 1.f / std::sqrt(float(k));
  const auto hw = uniform(n * k, -bound, bound, 12);
  const auto hb = uniform(n, -bound, bound, 13), hbias = uniform(n, -1.f, 1.f, 14);
  const auto hg = uniform(n, 0.5f, 1.5f, 15), hbe = uniform(n, -0.5f, 0.5f, 16);
  DevBuf dx(m * k), dw(n * k), dc(m * n), db(n), dbias(n), dg(n), dbe(n);
  to_dev(dx.p, hx), to_dev(dw.p, hw), to_dev(db.p, hb), to_dev(dbias.p, hbias);
  to_dev(dg.p, hg), to_dev(dbe.p, hbe);
  const int64_t gs = n / groups;
  std::vector<double> ref(m * n);
  for (int64_t i = 0; i < m; ++i) {
    std::vector<double> z(n);
    for (int64_t j = 0; j < n; ++j)
      z[j] = sigmoid_swish(dot(&hx[i * k], &hw[j * k], k) + hb[j]) + hbias[j];
    group_norm_row(z, groups, hg.data(), hbe.data(), 1e-5, &ref[i * n]);
  }
  const Epilogue e =
      Epilogue().add_column(db.p).silu().add_column(dbias.p).group_norm(gs, dg.p, dbe.p, 1e-5f);
  for (const GemmConfig& cfg : own_variants()) {
    if (!own_epilogue_valid(cfg, {m, n, k, 4}, e)) continue;
    CK(cudaMemsetAsync(dc.p, 0xff, m * n * 4, stream));
    launch_tiled_gemm(cfg, {dx.p, dw.p, dc.p, m, n, k}, e, stream);
    CK(cudaStreamSynchronize(stream));
    report(cfg.str() + " groupnorm m=" + std::to_string(m) + " n=" + std::to_string(n) +
               " k=" + std::to_string(k) + " G=" + std::to_string(groups),
           compare(ref, to_host(dc.p, m * n)));
  }
}

// Column statistics epilogue (model 4) vs float64 per-tile stats.
void check_column_stats(int64_t m, int64_t n, int64_t k, cudaStream_t stream) {
  const auto hx = uniform(m * k, 0.f, 1.f, 21);
  const float bound = 1.f / std::sqrt(float(k));
  const auto hw = uniform(n * k, -bound, bound, 22);
  const auto hb = uniform(n, -bound, bound, 23);
  DevBuf dx(m * k), dw(n * k), dc(m * n), db(n);
  to_dev(dx.p, hx), to_dev(dw.p, hw), to_dev(db.p, hb);
  std::vector<double> y(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) y[i * n + j] = dot(&hx[i * k], &hw[j * k], k) + hb[j];
  for (const GemmConfig& cfg : own_variants()) {
    if (cfg.vec == 2) continue;
    const int64_t parts = own_column_stat_parts(cfg, m);
    DevBuf pm(parts * n), p2(parts * n);
    const Epilogue e = Epilogue().add_column(db.p).column_stats(pm.p, p2.p);
    CK(cudaMemsetAsync(dc.p, 0xff, m * n * 4, stream));
    launch_tiled_gemm(cfg, {dx.p, dw.p, dc.p, m, n, k}, e, stream);
    CK(cudaStreamSynchronize(stream));
    std::vector<double> rmean(parts * n), rm2(parts * n);
    for (int64_t p = 0; p < parts; ++p) {
      const int64_t r0 = p * cfg.bm, r1 = std::min(m, r0 + cfg.bm);
      for (int64_t j = 0; j < n; ++j) {
        double mu = 0, s2 = 0;
        for (int64_t i = r0; i < r1; ++i) mu += y[i * n + j];
        mu /= double(r1 - r0);
        for (int64_t i = r0; i < r1; ++i) s2 += (y[i * n + j] - mu) * (y[i * n + j] - mu);
        rmean[p * n + j] = mu;
        rm2[p * n + j] = s2;
      }
    }
    const std::string s = cfg.str() + " colstats m=" + std::to_string(m) +
                          " n=" + std::to_string(n) + " k=" + std::to_string(k);
    report(s + " out", compare(y, to_host(dc.p, m * n)));
    report(s + " mean", compare(rmean, to_host(pm.p, parts * n)));
    report(s + " m2", compare(rm2, to_host(p2.p, parts * n)), 1e-4);
  }
}

// ---- full shapes: sampled correctness and timings ----
float time_ms(const std::function<void()>& f, cudaStream_t stream, int warm = 3, int reps = 12) {
  return tt::device_tools::median_ms(f, stream, warm, reps);
}

struct Full {
  const char* name;
  int64_t m, n, k;
  double cublas_ref_ms;  // PyTorch's GEMM-only on H200 from SEED_MODELS.md
};

// Relative L2 error of C (bias `b` added if non-null) on sampled entries vs float64.
Err sample_check(const std::vector<float>& hx, const std::vector<float>& hw, const float* dc,
                 int64_t m, int64_t n, int64_t k, const std::vector<float>* bias, bool relu) {
  std::mt19937 rng(7);
  const int samples = 1024;
  std::vector<double> ref(samples);
  std::vector<float> got(samples);
  for (int s = 0; s < samples; ++s) {
    const int64_t i = rng() % m, j = rng() % n;
    double v = dot(&hx[i * k], &hw[j * k], k);
    if (bias) v += (*bias)[j];
    if (relu) v = std::max(v, 0.0);
    ref[s] = v;
    CK(cudaMemcpy(&got[s], dc + i * n + j, 4, cudaMemcpyDeviceToHost));
  }
  return compare(ref, got);
}

void full_shape(const Full& f, cudaStream_t stream, cublasHandle_t blas) {
  const int64_t m = f.m, n = f.n, k = f.k;
  const double gflop = 2.0 * m * n * k * 1e-9;
  DevBuf dx(m * k), dw(n * k), dc(m * n), db(n);
  const float bound = 1.f / std::sqrt(float(k));
  fill(dx.p, m * k, 1, 0.f, 1.f);
  fill(dw.p, n * k, 2, -bound, bound);
  fill(db.p, n, 3, -bound, bound);
  CK(cudaDeviceSynchronize());
  const auto hx = to_host(dx.p, m * k), hw = to_host(dw.p, n * k), hb = to_host(db.p, n);
  auto line = [&](const std::string& what, float ms, const Err* e) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "%-14s %-56s %8.3f ms %6.1f TFLOP/s  x%.3f of pytorch-gemm%s",
                  f.name, what.c_str(), ms, gflop / ms, ms / f.cublas_ref_ms,
                  e ? (" err=" + std::to_string(e->rel_l2)).c_str() : "");
    std::printf("TIME %s\n", buf);
    g_summary.push_back(buf);
  };
  const float one = 1.f, zero = 0.f;
  CK(cudaStreamSynchronize(stream));
  // cublasSgemm, strict float32 (default math mode: no TF32), same row-major mapping.
  auto sgemm = [&] {
    TT_CUBLAS_CHECK(cublasSgemm(blas, CUBLAS_OP_T, CUBLAS_OP_N, int(n), int(m), int(k), &one, dw.p,
                                int(k), dx.p, int(k), &zero, dc.p, int(n)));
  };
  const float t_sgemm = time_ms(sgemm, stream);
  Err e = sample_check(hx, hw, dc.p, m, n, k, nullptr, false);
  report(std::string(f.name) + " cublasSgemm sampled", e);
  line("cublasSgemm", t_sgemm, &e);
  // cuBLASLt: heuristic list, each of the first few algorithms, default and bias epilogue.
  LtProblem lp{m, n, k, LtEpilogue::kDefault, 0};
  const auto algos = heuristic_algorithms(lp, 8);
  std::printf("INFO %s cuBLASLt offers %zu algorithms\n", f.name, algos.size());
  for (const auto& a : algos) {
    if (a.index >= 4) break;
    const float t =
        time_ms([&] { cublaslt_gemm_on(lp, dx.p, dw.p, nullptr, dc.p, a.index, stream); }, stream);
    Err ea = sample_check(hx, hw, dc.p, m, n, k, nullptr, false);
    report(std::string(f.name) + " cublaslt algo " + std::to_string(a.index), ea);
    line("cublaslt default algo=" + std::to_string(a.index), t, &ea);
  }
  for (LtEpilogue epi : {LtEpilogue::kBias, LtEpilogue::kReluBias}) {
    LtProblem pb = lp;
    pb.epilogue = epi;
    const float t =
        time_ms([&] { cublaslt_gemm_on(pb, dx.p, dw.p, db.p, dc.p, 0, stream); }, stream);
    Err eb = sample_check(hx, hw, dc.p, m, n, k, &hb, epi == LtEpilogue::kReluBias);
    report(
        std::string(f.name) + (epi == LtEpilogue::kBias ? " cublaslt bias" : " cublaslt relu_bias"),
        eb);
    line(epi == LtEpilogue::kBias ? "cublaslt bias algo=0" : "cublaslt relu_bias algo=0", t, &eb);
  }
  // Own variants (plain), then the bias + relu epilogue on the best.
  float best = 1e30f;
  GemmConfig best_cfg;
  for (const GemmConfig& cfg : own_variants()) {
    if (!valid(cfg, {m, n, k, 4}) || cfg.vec != 4) continue;
    const float t = time_ms(
        [&] {
          launch_tiled_gemm(cfg, {dx.p, dw.p, dc.p, m, n, k}, {}, stream);
        },
        stream);
    Err eo = sample_check(hx, hw, dc.p, m, n, k, nullptr, false);
    report(std::string(f.name) + " " + cfg.str(), eo);
    line("own " + cfg.str().substr(9), t, &eo);
    if (t < best) best = t, best_cfg = cfg;
  }
  const Epilogue er = Epilogue().add_column(db.p).relu();
  const float t = time_ms(
      [&] {
        launch_tiled_gemm(best_cfg, {dx.p, dw.p, dc.p, m, n, k}, er, stream);
      },
      stream);
  Err eo = sample_check(hx, hw, dc.p, m, n, k, &hb, true);
  report(std::string(f.name) + " own best +bias+relu", eo);
  line("own best bias+relu " + best_cfg.str().substr(9), t, &eo);

  if (std::string(f.name) == "model3") {
    // The fused GEMM + swish + bias + group norm kernel (no reference check here: the
    // small-shape check covers the epilogue; this is its cost at full shape).
    DevBuf dg(n), dbe(n), dbias(n);
    fill(dg.p, n, 5, 0.5f, 1.5f), fill(dbe.p, n, 6, -.5f, .5f), fill(dbias.p, n, 7, -1.f, 1.f);
    const Epilogue e3 = Epilogue().add_column(db.p).silu().add_column(dbias.p).group_norm(
        n / 64, dg.p, dbe.p, 1e-5f);
    for (const GemmConfig& cfg : own_variants()) {
      if (cfg.vec != 4 || !own_epilogue_valid(cfg, {m, n, k, 4}, e3)) continue;
      const float tg = time_ms(
          [&] {
            launch_tiled_gemm(cfg, {dx.p, dw.p, dc.p, m, n, k}, e3, stream);
          },
          stream);
      line("own fused groupnorm " + cfg.str().substr(9), tg, nullptr);
    }
  }
  if (std::string(f.name) == "model4") {
    for (const GemmConfig& cfg : own_variants()) {
      if (cfg.vec != 4) continue;
      const int64_t parts = own_column_stat_parts(cfg, m);
      DevBuf pm(parts * n), p2(parts * n);
      const Epilogue e4 = Epilogue().add_column(db.p).column_stats(pm.p, p2.p);
      const float tc = time_ms(
          [&] {
            launch_tiled_gemm(cfg, {dx.p, dw.p, dc.p, m, n, k}, e4, stream);
          },
          stream);
      line("own colstats " + cfg.str().substr(9), tc, nullptr);
    }
  }
#if GEMM_HARNESS_MODELS
  // End-to-end fused models: correctness of one call against float64 computed from
  // cublasSgemm's float32 Y = X W^T (its own error is ~1e-7 relative), then timings,
  // for the cuBLASLt stage (plain and chunked/overlapped) and the fastest own variant.
  TT_CUBLAS_CHECK(cublasSgemm(blas, CUBLAS_OP_T, CUBLAS_OP_N, int(n), int(m), int(k), &one, dw.p,
                              int(k), dx.p, int(k), &zero, dc.p, int(n)));
  CK(cudaStreamSynchronize(stream));
  const std::vector<float> hy_lin = to_host(dc.p, m * n);  // X W^T, no bias
  DevBuf dy(m * n), dout(m * n), dscratch(2 * m * n + 16 * n);
  fill(dy.p, m * n, 8, 0.f, 1.f);
  DevBuf v1(n), v2(n), v3(n), v4(n), rm(n), rv(n);
  fill(v1.p, n, 9, -1.f, 1.f), fill(v2.p, n, 10, 0.5f, 1.5f), fill(v3.p, n, 11, -.5f, .5f);
  fill(v4.p, n, 12, 0.5f, 1.5f);
  CK(cudaDeviceSynchronize());
  const auto hyy = to_host(dy.p, m * n), h1 = to_host(v1.p, n), h2 = to_host(v2.p, n),
             h3 = to_host(v3.p, n), h4 = to_host(v4.p, n);
  const auto hrm0 = uniform(n, -.1f, .1f, 13), hrv0 = uniform(n, 0.9f, 1.1f, 14);
  const double eps = 1e-5;
  std::mt19937 rng(99);
  std::vector<int64_t> rows_s(8), ent_s(4096);
  for (auto& r : rows_s) r = rng() % m;
  for (auto& e : ent_s) e = (int64_t(rng()) * 7919 + rng()) % (m * n);
  auto z_lin = [&](int64_t i, int64_t j) { return double(hy_lin[i * n + j]) + hb[j]; };
  namespace seed = tt::test::seed;
  // The group's plan under cfg (built once, run per call, in dscratch), and whether it is
  // one kernel.
  const auto plan_of = [&](const tt::ops::cuda::fused::FusedPattern& p, const GemmConfig& cfg) {
    const tt::ops::cuda::fused::Plan plan = seed::plan_of(p, cfg, dx.p, dw.p, dout.p, m, n, k);
    if (static_cast<size_t>(plan.scratch_floats()) > dscratch.n)
      throw std::runtime_error("the scratch is too small for " + plan.str());
    return plan;
  };
  const auto runner = [&](const tt::ops::cuda::fused::Plan& plan) {
    return [&, plan] { tt::ops::cuda::fused::run_plan(plan, dscratch.p, 0, stream); };
  };
  // Per-column batch statistics of (Y + b) * scale for model 4, in float64.
  std::vector<double> cmean(n, 0), cvar(n, 0);
  if (std::string(f.name) == "model4") {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) cmean[j] += z_lin(i, j) * h4[j];
    for (int64_t j = 0; j < n; ++j) cmean[j] /= m;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const double d = z_lin(i, j) * h4[j] - cmean[j];
        cvar[j] += d * d;
      }
    for (int64_t j = 0; j < n; ++j) cvar[j] /= m;
  }
  auto check_rows = [&](const std::string& what,
                        const std::function<void(int64_t, std::vector<double>&)>& ref_row) {
    CK(cudaStreamSynchronize(stream));
    const auto got_all = to_host(dout.p, m * n);
    std::vector<double> ref;
    std::vector<float> got;
    std::vector<double> row(n);
    for (int64_t i : rows_s) {
      ref_row(i, row);
      for (int64_t j = 0; j < n; ++j) ref.push_back(row[j]), got.push_back(got_all[i * n + j]);
    }
    report(what, compare(ref, got));
  };
  std::vector<GemmConfig> cfgs = {GemmConfig::cublaslt(0), best_cfg};
  const std::string fname = f.name;
  if (fname == "model3") {
    for (int64_t c : {2048, 4096, 8192}) cfgs.push_back(GemmConfig::cublaslt(0, c));
    for (const GemmConfig& c : own_variants())
      if (c.vec == 4 && c != best_cfg &&
          plan_of(seed::swish_bias_group_norm_pattern(64), c).stages.size() == 1)
        cfgs.push_back(c);
  }
  if (fname == "model4") {
    for (int64_t c : {2048, 4096}) cfgs.push_back(GemmConfig::cublaslt(0, c));
    cfgs.push_back(GemmConfig::cublaslt(1));
  }
  for (const GemmConfig& cfg : cfgs) {
    const std::string tag = " [" + cfg.str() + "]";
    try {
      if (fname == "model1/5") {
        auto run5 = runner(plan_of(seed::bias_relu_pattern(db.p), cfg));
        run5();
        check_rows("MODEL5" + tag, [&](int64_t i, std::vector<double>& r) {
          for (int64_t j = 0; j < n; ++j) r[j] = std::max(z_lin(i, j), 0.0);
        });
        line("MODEL5 bias_relu" + tag, time_ms(run5, stream), nullptr);
        auto run1 = runner(plan_of(seed::instance_norm_add_mul_pattern(db.p, dy.p, 1e-5f, n), cfg));
        run1();
        check_rows("MODEL1" + tag, [&](int64_t i, std::vector<double>& r) {
          double mu = 0, var = 0;
          for (int64_t j = 0; j < n; ++j) mu += z_lin(i, j);
          mu /= n;
          for (int64_t j = 0; j < n; ++j) var += (z_lin(i, j) - mu) * (z_lin(i, j) - mu);
          var /= n;
          for (int64_t j = 0; j < n; ++j) {
            const double yv = hyy[i * n + j];
            r[j] = ((z_lin(i, j) - mu) / std::sqrt(var + eps) + yv) * yv;
          }
        });
        line("MODEL1 instance_norm_add_mul" + tag, time_ms(run1, stream), nullptr);
      }
      if (fname == "model3") {
        auto run3 = runner(
            plan_of(seed::swish_bias_group_norm_pattern(64, db.p, v1.p, v2.p, v3.p, 1e-5f), cfg));
        CK(cudaMemsetAsync(dout.p, 0xff, m * n * 4, stream));
        run3();
        check_rows("MODEL3" + tag, [&](int64_t i, std::vector<double>& r) {
          std::vector<double> z(n);
          for (int64_t j = 0; j < n; ++j) z[j] = sigmoid_swish(z_lin(i, j)) + h1[j];
          group_norm_row(z, 64, h2.data(), h3.data(), eps, r.data());
        });
        line("MODEL3 swish_bias_group_norm" + tag, time_ms(run3, stream), nullptr);
      }
      if (fname == "model4") {
        for (bool training : {true, false}) {
          to_dev(rm.p, hrm0), to_dev(rv.p, hrv0);
          const tt::ops::cuda::fused::BatchNormParams bn{v4.p, v2.p, v3.p, rm.p, rv.p};
          auto run4 = runner(plan_of(seed::scale_batch_norm_pattern(training, db.p, bn), cfg));
          CK(cudaMemsetAsync(dout.p, 0xff, m * n * 4, stream));
          run4();
          CK(cudaStreamSynchronize(stream));
          const auto got_all = to_host(dout.p, m * n);
          std::vector<double> ref;
          std::vector<float> got;
          for (int64_t e : ent_s) {
            const int64_t i = e / n, j = e % n;
            const double z = z_lin(i, j) * h4[j];
            const double mu = training ? cmean[j] : hrm0[j];
            const double var = training ? cvar[j] : hrv0[j];
            ref.push_back((z - mu) / std::sqrt(var + eps) * h2[j] + h3[j]);
            got.push_back(got_all[e]);
          }
          const std::string mode = training ? " train" : " eval";
          report("MODEL4" + mode + tag, compare(ref, got));
          std::vector<double> rref_m(n), rref_v(n);
          for (int64_t j = 0; j < n; ++j) {
            rref_m[j] = training ? 0.9 * hrm0[j] + 0.1 * cmean[j] : hrm0[j];
            rref_v[j] = training ? 0.9 * hrv0[j] + 0.1 * cvar[j] * m / (m - 1.0) : hrv0[j];
          }
          report("MODEL4" + mode + " running_mean" + tag, compare(rref_m, to_host(rm.p, n)));
          report("MODEL4" + mode + " running_var" + tag, compare(rref_v, to_host(rv.p, n)));
          line("MODEL4 scale_batch_norm" + mode + tag, time_ms(run4, stream), nullptr);
        }
      }
    } catch (const std::exception& ex) {
      std::printf("FAIL model forward %s%s: %s\n", f.name, tag.c_str(), ex.what());
      ++g_failures;
    }
  }
#endif
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::string(argv[1]) == "quick";
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  if (argc > 1 && std::string(argv[1]) == "probe") return 0;  // the binary runs here
  std::printf("device: %s, %d SMs, cc %d.%d\n", prop.name, prop.multiProcessorCount, prop.major,
              prop.minor);
  cudaStream_t stream = tt::cuda::stream(0);
  try {
    for (const Shape3& s : std::vector<Shape3>{{1, 1, 1},
                                               {1, 127, 129},
                                               {127, 129, 1},
                                               {3, 5, 0},
                                               {129, 127, 1003},
                                               {131, 260, 7},
                                               {257, 129, 16},
                                               {1003, 515, 257}}) {
      check_small(s, stream);
    }
    check_group_norm(130, 256, 67, 4, stream);   // group 64
    check_group_norm(67, 384, 100, 12, stream);  // group 32, N not a tile multiple
    check_group_norm(33, 512, 64, 4, stream);    // group 128
    check_column_stats(300, 260, 129, stream);
    check_column_stats(1, 64, 8, stream);
    if (!quick) {
      cublasHandle_t blas;
      TT_CUBLAS_CHECK(cublasCreate(&blas));
      TT_CUBLAS_CHECK(cublasSetStream(blas, stream));
      TT_CUBLAS_CHECK(cublasSetMathMode(blas, CUBLAS_DEFAULT_MATH));
      for (const Full& f :
           {Full{"model1/5", 1024, 8192, 8192, 2.693}, Full{"model3", 32768, 4096, 1024, 5.474},
            Full{"model4", 16384, 4096, 4096, 10.780}}) {
        full_shape(f, stream, blas);
      }
    }
  } catch (const std::exception& ex) {
    std::printf("FAIL exception: %s\n", ex.what());
    ++g_failures;
  }
  std::printf("\n==== summary (%s) ====\n", prop.name);
  for (const auto& s : g_summary) std::printf("%s\n", s.c_str());
  std::printf("correctness failures: %d\n", g_failures);
  return g_failures == 0 ? 0 : 1;
}
