// Standalone device harness of the sm90 tensor-core GEMM family (tools/device/tc_check.sh
// builds it with nvcc alone): every variant against a float64 reference (cuBLAS DGEMM
// on upcast inputs, itself checked against a CPU double loop at small shapes) at
// awkward shapes and the three seed GEMM shapes, fresh random inputs per check, output
// poisoned with NaN before each run; then timings (CUDA events, L2 flushed before each
// rep, median) side by side with cuBLASLt SGEMM (CUBLAS_COMPUTE_32F) and cuBLASLt TF32
// (CUBLAS_COMPUTE_32F_FAST_TF32), each with its own error against float64.
// Prints PASS/FAIL lines, then a summary table last.
// Usage: tc_gemm_harness [probe|quick|awkward|sanitize] | profile M N K | soak M N K SECONDS
//        | duel M N K REPS | residual M N K REPS
// Environment: TC_FILTER (time or profile only configs whose text contains it, or one of
// its '|'-separated alternatives), TC_REPS (timed repetitions), TC_GROUPS (also time
// raster groups 1, 2, 4, 16).
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "core/cuda/check.h"
#include "core/error.h"
#include "ops/cuda/gemm/sm90/tc_gemm.h"
#include "tools/device/event_timing.h"
#include "tools/device/hash_fill.cuh"

using namespace tt::ops::cuda::gemm::sm90;
using tt::ops::cuda::gemm::Epilogue;
using tt::ops::cuda::gemm::EpilogueKind;
using tt::ops::cuda::gemm::EpilogueOp;
using tt::ops::cuda::gemm::EpilogueStep;

namespace {

#define CK(call) TT_CUDA_CHECK(call)
#define CB(call) TT_CUBLAS_CHECK(call)

// Whether `cfg` runs here: a valid config (a row without room for the TMA store epilogue
// takes vec 2 only) selected by TC_FILTER: unset, or its text contains one of the filter's
// '|'-separated alternatives.
bool selected(const TcConfig& cfg) {
  if (!tc_config_invalid_reason(cfg).empty()) return false;
  const char* filter = std::getenv("TC_FILTER");
  if (!filter) return true;
  const std::string text = to_string(cfg), alternatives = filter;
  for (size_t b = 0;;) {
    const size_t e = alternatives.find('|', b);
    if (text.find(alternatives.substr(b, e - b)) != std::string::npos) return true;
    if (e == std::string::npos) return false;
    b = e + 1;
  }
}

int g_failures = 0;
std::vector<std::string> g_summary;
unsigned g_seed = 1234;

template <typename T>
struct Dev {
  T* p = nullptr;
  explicit Dev(size_t n) { CK(cudaMalloc(&p, std::max<size_t>(n, 1) * sizeof(T))); }
  ~Dev() { cudaFree(p); }
  Dev(const Dev&) = delete;
  Dev& operator=(const Dev&) = delete;
};

__global__ void to_double(const float* a, double* b, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    b[i] = a[i];
}

// Rounds to nearest TF32 in place (soak with TC_SOAK_ROUND=1: what the operands' low
// mantissa bits cost in power).
__global__ void round_tf32(float* a, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(a[i]));
    a[i] = __uint_as_float(r);
  }
}

__global__ void nan_fill(float* a, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    a[i] = __int_as_float(0x7fc00000);
}

// The epilogue chain in double on the reference (the steps the checks use).
__global__ void ref_epilogue(double* r, size_t m, size_t n, Epilogue e) {
  using Op = EpilogueOp;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < m * n;
       i += size_t(gridDim.x) * blockDim.x) {
    const size_t row = i / n, col = i % n;
    double v = r[i];
    for (int s = 0; s < e.count; ++s) {
      const EpilogueStep& st = e.steps[s];
      switch (st.op) {
        case Op::kAddColumn:
          v += st.data[col];
          break;
        case Op::kMulColumn:
          v *= st.data[col];
          break;
        case Op::kAddRow:
          v += st.data[e.row0 + row];
          break;
        case Op::kMulRow:
          v *= st.data[e.row0 + row];
          break;
        case Op::kScale:
          v *= st.scalar;
          break;
        case Op::kRelu:
          v = v > 0 ? v : 0;
          break;
        case Op::kSilu:
          v = v / (1 + exp(-v));
          break;
        case Op::kGelu:
          v = 0.5 * v * (1 + erf(v * 0.70710678118654752));
          break;
        case Op::kGeluTanh:
          v = 0.5 * v * (1 + tanh(0.79788456080286535588 * (v + 0.044715 * v * v * v)));
          break;
        case Op::kAddResidual:
          v += st.data[(e.row0 + row) * st.ld + col];
          break;
        case Op::kMulResidual:
          v *= st.data[(e.row0 + row) * st.ld + col];
          break;
        case Op::kColumnAffine:
          v = (v * st.data[col] - st.data[st.ld + col]) * st.data[2 * st.ld + col] +
              st.data[3 * st.ld + col];
          break;
        default:
          v = nan("");
          break;  // a step the harness does not model
      }
    }
    r[i] = v;
  }
}

// Per band of `rows` rows: mean and M2 of each column of the double result.
__global__ void ref_column_stats(const double* r, size_t m, size_t n, size_t rows, double* mean,
                                 double* m2) {
  const size_t bands = (m + rows - 1) / rows;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < bands * n;
       i += size_t(gridDim.x) * blockDim.x) {
    const size_t b = i / n, col = i % n, r1 = min(m, (b + 1) * rows);
    double s = 0, d = 0;
    for (size_t q = b * rows; q < r1; ++q) s += r[q * n + col];
    const double mu = s / double(r1 - b * rows);
    for (size_t q = b * rows; q < r1; ++q) d += (r[q * n + col] - mu) * (r[q * n + col] - mu);
    mean[i] = mu;
    m2[i] = d;
  }
}

// sums[0] += (out - ref)^2, sums[1] += ref^2, sums[2] += count of non-finite outputs.
__global__ void err_sums(const float* out, const double* ref, size_t n, double* sums) {
  double d2 = 0, r2 = 0, bad = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    const float o = out[i];
    if (!isfinite(o)) {
      bad += 1;
      continue;
    }
    const double d = double(o) - ref[i];
    d2 += d * d;
    r2 += ref[i] * ref[i];
  }
  for (int off = 16; off; off >>= 1) {
    d2 += __shfl_down_sync(0xffffffffu, d2, off);
    r2 += __shfl_down_sync(0xffffffffu, r2, off);
    bad += __shfl_down_sync(0xffffffffu, bad, off);
  }
  if (threadIdx.x % 32 == 0) {
    atomicAdd(&sums[0], d2);
    atomicAdd(&sums[1], r2);
    atomicAdd(&sums[2], bad);
  }
}

struct Err {
  double rel = 0;
  double nonfinite = 0;
};

Err rel_error(const float* out, const double* ref, size_t n) {
  Dev<double> s(3);
  CK(cudaMemset(s.p, 0, 3 * sizeof(double)));
  err_sums<<<1024, 256>>>(out, ref, n, s.p);
  CK(cudaGetLastError());
  double h[3];
  CK(cudaMemcpy(h, s.p, sizeof h, cudaMemcpyDeviceToHost));
  return {std::sqrt(h[0] / std::max(h[1], 1e-300)), h[2]};
}

struct Problem {
  int64_t m, n, k;
  Dev<float> x, w, c, bias, scale;
  Dev<double> xd, wd, ref;
  Problem(int64_t m_, int64_t n_, int64_t k_)
      : m(m_),
        n(n_),
        k(k_),
        x(m * k),
        w(n * k),
        c(m * n),
        bias(n),
        scale(n),
        xd(m * k),
        wd(n * k),
        ref(m * n) {}
};

cublasHandle_t blas() {
  static cublasHandle_t h = [] {
    cublasHandle_t b;
    CB(cublasCreate(&b));
    return b;
  }();
  return h;
}
cublasLtHandle_t lt() {
  static cublasLtHandle_t h = [] {
    cublasLtHandle_t b;
    CB(cublasLtCreate(&b));
    return b;
  }();
  return h;
}

// Fresh inputs (uniform [-1, 1), a new seed each call) and the float64 product C = X W^T
// (column-major view: C^T[N,M] = W[N,K] X^T, i.e. op(A) = T on W stored [K,N]).
void fill_and_reference(Problem& pr) {
  using tt::device_tools::hash_fill;
  hash_fill(pr.x.p, pr.m * pr.k, ++g_seed, -1.f, 1.f);
  hash_fill(pr.w.p, pr.n * pr.k, ++g_seed, -1.f, 1.f);
  hash_fill(pr.bias.p, pr.n, ++g_seed, -0.5f, 0.5f);
  hash_fill(pr.scale.p, pr.n, ++g_seed, 0.5f, 1.5f);
  to_double<<<1024, 256>>>(pr.x.p, pr.xd.p, pr.m * pr.k);
  to_double<<<1024, 256>>>(pr.w.p, pr.wd.p, pr.n * pr.k);
  CK(cudaGetLastError());
  const double one = 1, zero = 0;
  CB(cublasDgemm(blas(), CUBLAS_OP_T, CUBLAS_OP_N, int(pr.n), int(pr.m), int(pr.k), &one, pr.wd.p,
                 int(pr.k), pr.xd.p, int(pr.k), &zero, pr.ref.p, int(pr.n)));
  CK(cudaDeviceSynchronize());
}

// The DGEMM reference itself, against a plain CPU double loop (small shapes only).
void check_reference_on_cpu(Problem& pr) {
  std::vector<float> x(pr.m * pr.k), w(pr.n * pr.k);
  std::vector<double> ref(pr.m * pr.n);
  CK(cudaMemcpy(x.data(), pr.x.p, x.size() * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(w.data(), pr.w.p, w.size() * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(ref.data(), pr.ref.p, ref.size() * 8, cudaMemcpyDeviceToHost));
  double d2 = 0, r2 = 0;
  for (int64_t i = 0; i < pr.m; ++i)
    for (int64_t j = 0; j < pr.n; ++j) {
      double s = 0;
      for (int64_t q = 0; q < pr.k; ++q) s += double(x[i * pr.k + q]) * double(w[j * pr.k + q]);
      d2 += (s - ref[i * pr.n + j]) * (s - ref[i * pr.n + j]);
      r2 += s * s;
    }
  const double rel = std::sqrt(d2 / r2);
  const bool ok = rel < 1e-13;
  if (!ok) ++g_failures;
  std::printf("%s reference DGEMM vs CPU double loop at %lldx%lldx%lld: rel %.2e\n",
              ok ? "PASS" : "FAIL", (long long)pr.m, (long long)pr.n, (long long)pr.k, rel);
}

// cuBLASLt C = X W^T with the given compute type; the heuristic's first algorithm.
struct LtGemm {
  cublasLtMatmulDesc_t op{};
  cublasLtMatrixLayout_t a{}, b{}, c{};
  cublasLtMatmulAlgo_t algo{};
  void* ws = nullptr;
  size_t ws_bytes = 64 << 20;
  LtGemm(int64_t m, int64_t n, int64_t k, cublasComputeType_t ct) {
    CB(cublasLtMatmulDescCreate(&op, ct, CUDA_R_32F));
    const cublasOperation_t t = CUBLAS_OP_T, nn = CUBLAS_OP_N;
    CB(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t));
    CB(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &nn, sizeof nn));
    CB(cublasLtMatrixLayoutCreate(&a, CUDA_R_32F, k, n, k));
    CB(cublasLtMatrixLayoutCreate(&b, CUDA_R_32F, k, m, k));
    CB(cublasLtMatrixLayoutCreate(&c, CUDA_R_32F, n, m, n));
    CK(cudaMalloc(&ws, ws_bytes));
    cublasLtMatmulPreference_t pref;
    CB(cublasLtMatmulPreferenceCreate(&pref));
    CB(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                            &ws_bytes, sizeof ws_bytes));
    cublasLtMatmulHeuristicResult_t res{};
    int got = 0;
    CB(cublasLtMatmulAlgoGetHeuristic(lt(), op, a, b, c, c, pref, 1, &res, &got));
    TT_CHECK(got > 0, "cuBLASLt found no algorithm.");
    algo = res.algo;
    cublasLtMatmulPreferenceDestroy(pref);
  }
  ~LtGemm() {
    cudaFree(ws);
    cublasLtMatrixLayoutDestroy(a);
    cublasLtMatrixLayoutDestroy(b);
    cublasLtMatrixLayoutDestroy(c);
    cublasLtMatmulDescDestroy(op);
  }
  void run(const float* x, const float* w, float* out) {
    const float one = 1, zero = 0;
    CB(cublasLtMatmul(lt(), op, &one, w, a, x, b, &zero, out, c, out, c, &algo, ws, ws_bytes, 0));
  }
  // out = X W^T + r (r as cuBLASLt's C, beta = 1: how the block's tf32 GEMMs add a
  // residual; the heuristic's pick for beta = 0 serves, as in the family's dispatch).
  void run_with_c(const float* x, const float* w, const float* r, float* out) {
    const float one = 1;
    CB(cublasLtMatmul(lt(), op, &one, w, a, x, b, &one, r, c, out, c, &algo, ws, ws_bytes, 0));
  }
};

// One timed launch: `fn` after a 256 MB L2 flush (bytes `salt`), CUDA events around it and
// the host waiting for it, in ms. One flush buffer and one event pair serve every timing.
template <typename F>
float time_once(F&& fn, int salt) {
  static Dev<char> flush(256 << 20);
  static tt::device_tools::EventTimer timer;
  return timer.time(fn, nullptr, {flush.p, size_t{256} << 20}, salt);
}

// Median time in ms of `fn` over `reps` runs, each after an L2 flush (time_once).
template <typename F>
double time_ms(F&& fn, int reps) {
  for (int i = 0; i < 3; ++i) fn();
  std::vector<float> t;
  for (int i = 0; i < reps; ++i) t.push_back(time_once(fn, i));
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// tf32: 2^-10 per operand; a handful of outputs of a K=4 product can cancel to a few
// times that, so the tiniest problems get a looser bound.
double bound_for(TcMode mode, int64_t outputs = 1 << 20) {
  if (mode == TcMode::accurate) return 4e-6;
  return outputs < 64 ? 2e-2 : 5e-3;
}

// One run of our kernel on a poisoned output; error against the reference (with the
// epilogue applied to a copy of the reference when one is given). With column
// statistics, the error is the larger of the output's and the partials' (mean, M2).
Err run_ours(Problem& pr, const TcConfig& cfg, const Epilogue& e) {
  nan_fill<<<1024, 256>>>(pr.c.p, pr.m * pr.n);
  CK(cudaGetLastError());
  tc_gemm(cfg, pr.x.p, pr.w.p, pr.c.p, pr.m, pr.n, pr.k, e, 0);
  CK(cudaDeviceSynchronize());
  if (e.count == 0 && e.kind == EpilogueKind::kPointwise)
    return rel_error(pr.c.p, pr.ref.p, pr.m * pr.n);
  Dev<double> r(pr.m * pr.n);
  CK(cudaMemcpy(r.p, pr.ref.p, pr.m * pr.n * 8, cudaMemcpyDeviceToDevice));
  ref_epilogue<<<1024, 256>>>(r.p, pr.m, pr.n, e);
  CK(cudaGetLastError());
  Err out = rel_error(pr.c.p, r.p, pr.m * pr.n);
  if (e.kind == EpilogueKind::kColumnStats) {
    const int64_t rows = tc_column_stat_rows(cfg);
    const int64_t parts = (pr.m + rows - 1) / rows * pr.n;
    Dev<double> mean(parts), m2(parts);
    ref_column_stats<<<256, 256>>>(r.p, pr.m, pr.n, rows, mean.p, m2.p);
    CK(cudaGetLastError());
    for (auto [got, want] : {std::pair{e.part_mean, mean.p}, std::pair{e.part_m2, m2.p}}) {
      const Err s = rel_error(got, want, parts);
      out.rel = std::max(out.rel, s.rel);
      out.nonfinite += s.nonfinite;
    }
  }
  return out;
}

Err run_lt(Problem& pr, cublasComputeType_t ct) {
  LtGemm g(pr.m, pr.n, pr.k, ct);
  nan_fill<<<1024, 256>>>(pr.c.p, pr.m * pr.n);
  g.run(pr.x.p, pr.w.p, pr.c.p);
  CK(cudaDeviceSynchronize());
  return rel_error(pr.c.p, pr.ref.p, pr.m * pr.n);
}

void awkward_checks(bool quick) {
  struct S {
    int64_t m, n, k;
  };
  std::vector<S> shapes = {{1, 1, 4},        {77, 93, 52},     {200, 300, 1004},
                           {129, 257, 8192}, {333, 130, 4100}, {64, 256, 32}};
  if (quick) shapes.resize(3);
  for (const S& s : shapes) {
    Problem pr(s.m, s.n, s.k);
    fill_and_reference(pr);
    if (s.m * s.n * s.k <= 64LL * 1024 * 1024) check_reference_on_cpu(pr);
    const double sg = run_lt(pr, CUBLAS_COMPUTE_32F).rel;
    int turn = 0;
    for (TcConfig cfg : tc_gemm_variants()) {
      for (int pers = 0; pers < 2; ++pers) {
        // Each run also moves the run-time axes, so that every value is exercised.
        ++turn;
        cfg.persistent = pers;
        cfg.group_m = pers ? 8 : 1 + turn % 3;
        cfg.raster_n = turn % 2;
        cfg.vec = (turn / 2) % 3 == 2 ? 4 : 1 + (turn / 2) % 3;   // 1, 2, 4 (TMA stores)
        if (!tc_config_invalid_reason(cfg).empty()) cfg.vec = 2;  // a row with no room for 4
        if (cfg.mode == TcMode::accurate) cfg.promote = 32 << (turn % 3);
        fill_and_reference(pr);  // fresh inputs for every run
        const Err e = run_ours(pr, cfg, Epilogue{});
        const double bound = bound_for(cfg.mode, s.m * s.n);
        const bool ok = e.nonfinite == 0 && e.rel <= bound;
        if (!ok) ++g_failures;
        std::printf("%s %lldx%lldx%lld %s: rel %.3e (bound %.0e, SGEMM %.3e) nonfinite %.0f\n",
                    ok ? "PASS" : "FAIL", (long long)s.m, (long long)s.n, (long long)s.k,
                    to_string(cfg).c_str(), e.rel, bound, sg, e.nonfinite);
      }
    }
    // Epilogue chains and the column statistics on each mode's default, with register
    // and with TMA stores.
    Dev<float> part_mean((pr.m + 127) / 128 * pr.n), part_m2((pr.m + 127) / 128 * pr.n);
    for (int mv = 0; mv < 4; ++mv) {
      const TcMode mode = mv % 2 ? TcMode::accurate : TcMode::tf32;
      TcConfig cfg = tc_gemm_default(mode);
      cfg.vec = mv < 2 ? 2 : 4;  // registers, TMA stores
      std::vector<Epilogue> chains(6);
      chains[0].add_column(pr.bias.p);
      chains[1].mul_column(pr.scale.p).add_column(pr.bias.p).relu();
      chains[2].add_column(pr.bias.p).silu();
      chains[3].mul_column(pr.scale.p).add_column(pr.bias.p).gelu();
      chains[4].add_column(pr.bias.p).gelu_tanh().scale(0.5f);
      chains[5].add_column(pr.bias.p).column_stats(part_mean.p, part_m2.p);
      for (const Epilogue& ep : chains) {
        fill_and_reference(pr);
        const Err e = run_ours(pr, cfg, ep);
        const double bound = bound_for(mode, s.m * s.n);
        const bool ok = e.nonfinite == 0 && e.rel <= bound;
        if (!ok) ++g_failures;
        std::printf("%s %lldx%lldx%lld %s vec=%d epilogue %s: rel %.3e nonfinite %.0f\n",
                    ok ? "PASS" : "FAIL", (long long)s.m, (long long)s.n, (long long)s.k,
                    to_string(mode), cfg.vec, ep.str().c_str(), e.rel, e.nonfinite);
      }
    }
  }
}

// Refusals: a problem the TMA cannot address must throw a tt::Error sentence.
void refusal_checks() {
  Dev<float> x(64), w(64), c(64);
  bool threw = false;
  try {
    tc_gemm(tc_gemm_default(TcMode::tf32), x.p, w.p, c.p, 2, 2, 6, Epilogue{}, 0);
  } catch (const tt::Error& e) {
    threw = std::strstr(e.what(), "K must be a multiple of 4") != nullptr;
    std::printf("INFO refusal: %s\n", e.what());
  }
  if (!threw) ++g_failures;
  std::printf("%s K=6 refused with a sentence\n", threw ? "PASS" : "FAIL");
}

// Interleaved timing: each of `reps` rounds runs cuBLASLt TF32 and every config in `cfgs`
// once each, the L2 flushed before and a host sync after each launch, the order rotating
// by one every round, so that all of them meet the same clocks, power and heat (timing
// them one after another favours whichever runs on the coolest GPU: cuBLASLt TF32 timed
// right after the SGEMM ran 13-19% faster than in the same rounds as ours, H100). Returns
// cuBLASLt TF32 first, then `cfgs` in order: median, 10th and 90th percentiles, and the
// median of the per-round ratio to cuBLASLt TF32.
struct Interleaved {
  std::string name;
  double median, p10, p90, ratio;
};
std::vector<Interleaved> interleaved(Problem& pr, const std::vector<TcConfig>& cfgs, int reps) {
  std::vector<std::string> names = {"cuBLASLt TF32 (COMPUTE_32F_FAST_TF32)"};
  std::vector<std::function<void()>> runs;
  LtGemm g(pr.m, pr.n, pr.k, CUBLAS_COMPUTE_32F_FAST_TF32);
  runs.push_back([&] { g.run(pr.x.p, pr.w.p, pr.c.p); });
  for (const TcConfig& cfg : cfgs) {
    names.push_back("ours " + to_string(cfg));
    runs.push_back([&pr, cfg] { tc_gemm(cfg, pr.x.p, pr.w.p, pr.c.p, pr.m, pr.n, pr.k, {}, 0); });
  }
  const size_t n = runs.size();
  std::vector<std::vector<float>> ms(n);
  for (auto& run : runs)
    for (int i = 0; i < 3; ++i) run();  // warm-up
  for (int r = 0; r < reps; ++r)
    for (size_t i = 0; i < n; ++i) {
      const size_t c = (r + i) % n;
      ms[c].push_back(time_once(runs[c], r + int(i)));
    }
  CK(cudaGetLastError());
  auto pct = [](std::vector<float> v, double q) {
    std::sort(v.begin(), v.end());
    return double(v[size_t(q * (v.size() - 1) + 0.5)]);
  };
  std::vector<Interleaved> out;
  for (size_t c = 0; c < n; ++c) {
    std::vector<float> ratio(reps);
    for (int r = 0; r < reps; ++r) ratio[r] = ms[c][r] / ms[0][r];
    out.push_back({names[c], pct(ms[c], 0.5), pct(ms[c], 0.1), pct(ms[c], 0.9), pct(ratio, 0.5)});
  }
  return out;
}

void seed_shapes(bool quick) {
  struct S {
    int64_t m, n, k;
  };
  const std::vector<S> shapes = {{1024, 8192, 8192}, {32768, 4096, 1024}, {16384, 4096, 4096}};
  const char* reps_env = std::getenv("TC_REPS");  // repetitions per timing (default 25)
  const int reps = reps_env ? std::atoi(reps_env) : quick ? 5 : 25;
  for (const S& s : shapes) {
    Problem pr(s.m, s.n, s.k);
    fill_and_reference(pr);
    const double flop = 2.0 * s.m * s.n * s.k;
    char shape[64];
    std::snprintf(shape, sizeof shape, "%lldx%lldx%lld", (long long)s.m, (long long)s.n,
                  (long long)s.k);
    auto row = [&](const std::string& name, double ms, double rel, double tf32_ms, double sg_ms,
                   const char* extra) {
      char line[320];
      std::snprintf(line, sizeof line,
                    "%-19s %-58s %8.3f ms %6.1f TFLOP/s  rel %.2e  x%.2f of LtTF32  x%.2f of "
                    "SGEMM %s",
                    shape, name.c_str(), ms, flop / ms / 1e9, rel, tf32_ms / ms, sg_ms / ms, extra);
      std::printf("%s\n", line);
      g_summary.push_back(line);
    };
    double sg_ms, sg_err, t_ms, t_err;
    {
      const Err e = run_lt(pr, CUBLAS_COMPUTE_32F);
      LtGemm g(s.m, s.n, s.k, CUBLAS_COMPUTE_32F);
      sg_ms = time_ms([&] { g.run(pr.x.p, pr.w.p, pr.c.p); }, reps);
      sg_err = e.rel;
    }
    {
      const Err e = run_lt(pr, CUBLAS_COMPUTE_32F_FAST_TF32);
      LtGemm g(s.m, s.n, s.k, CUBLAS_COMPUTE_32F_FAST_TF32);
      t_ms = time_ms([&] { g.run(pr.x.p, pr.w.p, pr.c.p); }, reps);
      t_err = e.rel;
    }
    row("cuBLASLt SGEMM (COMPUTE_32F)", sg_ms, sg_err, t_ms, sg_ms, "");
    row("cuBLASLt TF32 (COMPUTE_32F_FAST_TF32)", t_ms, t_err, t_ms, sg_ms, "");
    double best[2] = {1e30, 1e30};
    std::string best_name[2];
    TcConfig best_cfg[2];
    double best_err[2] = {0, 0};
    std::vector<TcConfig> runs;
    for (TcConfig cfg : tc_gemm_variants()) {
      runs.push_back(cfg);  // persistent, raster m, group 8, TMA stores (the default vec)
      TcConfig regs = cfg;  // the same with stores from registers
      regs.vec = 2;
      runs.push_back(regs);
      cfg.raster_n = true;
      runs.push_back(cfg);
      cfg.raster_n = false;
      cfg.persistent = false;
      runs.push_back(cfg);
      cfg.persistent = true;
      if (cfg.mode == TcMode::accurate) {
        cfg.promote = 32;
        runs.push_back(cfg);
        cfg.promote = 128;
        runs.push_back(cfg);
        cfg.promote = 64;
      }
      if (std::getenv("TC_GROUPS")) {  // the other raster groups, persistent
        for (int group : {1, 2, 4, 16}) {
          cfg.group_m = group;
          runs.push_back(cfg);
        }
      }
    }
    for (const TcConfig& cfg : runs) {
      if (!selected(cfg)) continue;
      {
        const Err e = run_ours(pr, cfg, Epilogue{});
        const bool ok = e.nonfinite == 0 && e.rel <= bound_for(cfg.mode);
        if (!ok) ++g_failures;
        const double ms = time_ms(
            [&] { tc_gemm(cfg, pr.x.p, pr.w.p, pr.c.p, pr.m, pr.n, pr.k, Epilogue{}, 0); }, reps);
        char extra[64];
        std::snprintf(
            extra, sizeof extra, "%s%s", ok ? "" : "FAIL ",
            cfg.mode == TcMode::accurate ? (e.rel <= sg_err ? "err<=SGEMM" : "err>SGEMM") : "");
        std::printf("%s %s %s: %.3f ms rel %.3e (SGEMM %.3e, LtTF32 %.3e)\n", ok ? "PASS" : "FAIL",
                    shape, to_string(cfg).c_str(), ms, e.rel, sg_err, t_err);
        const int mi = static_cast<int>(cfg.mode);
        if (ok && ms < best[mi]) {
          best[mi] = ms;
          best_name[mi] = "ours " + to_string(cfg);
          best_cfg[mi] = cfg;
          best_err[mi] = e.rel;
        }
      }
    }
    // The defaults with the epilogues the seed models fuse (bias + relu; bias + the
    // batch-norm column statistics).
    {
      Dev<float> pm((s.m + 127) / 128 * s.n), pm2((s.m + 127) / 128 * s.n);
      for (int mv = 0; mv < 4; ++mv) {
        const TcMode mode = mv % 2 ? TcMode::accurate : TcMode::tf32;
        TcConfig cfg = tc_gemm_default(mode);
        cfg.vec = mv < 2 ? 2 : 4;  // registers, TMA stores
        Epilogue chains[2];
        chains[0].add_column(pr.bias.p).relu();
        chains[1].add_column(pr.bias.p).column_stats(pm.p, pm2.p);
        for (const Epilogue& ep : chains) {
          const Err e = run_ours(pr, cfg, ep);
          const bool ok = e.nonfinite == 0 && e.rel <= bound_for(cfg.mode);
          if (!ok) ++g_failures;
          const double ms =
              time_ms([&] { tc_gemm(cfg, pr.x.p, pr.w.p, pr.c.p, pr.m, pr.n, pr.k, ep, 0); }, reps);
          row("ours " + to_string(cfg) + " +" + ep.str(), ms, e.rel, t_ms, sg_ms, ok ? "" : "FAIL");
        }
      }
    }
    for (int mi = 0; mi < 2; ++mi)
      if (best[mi] < 1e29)
        row(best_name[mi], best[mi], best_err[mi], t_ms, sg_ms,
            mi == 1 ? (best_err[mi] <= sg_err ? "err<=SGEMM" : "err>SGEMM") : "");
    // The best tf32 row and cuBLASLt TF32 again, interleaved (the fair comparison): its
    // "of LtTF32" is the median of the per-round ratios.
    if (best[0] < 1e29) {
      const std::vector<Interleaved> il = interleaved(pr, {best_cfg[0]}, std::max(2 * reps, 20));
      row("interleaved: " + il[1].name, il[1].median, best_err[0], il[1].median / il[1].ratio,
          sg_ms, "");
      row("interleaved: " + il[0].name, il[0].median, t_err, il[0].median, sg_ms, "");
    }
  }
}

// One launch each of cuBLASLt TF32 and, at M x N x K, of each mode's default (TC_FILTER
// unset) or of every compiled row TC_FILTER selects, for a profiler (ncu -k regex:...):
// no checks, no timing. Prints the configs in launch order.
void profile_once(int64_t m, int64_t n, int64_t k) {
  Problem pr(m, n, k);
  fill_and_reference(pr);
  LtGemm g(m, n, k, CUBLAS_COMPUTE_32F_FAST_TF32);
  g.run(pr.x.p, pr.w.p, pr.c.p);
  std::vector<TcConfig> cfgs;
  if (std::getenv("TC_FILTER")) {
    for (const TcConfig& cfg : tc_gemm_variants())
      if (selected(cfg)) cfgs.push_back(cfg);
  } else {
    cfgs = {tc_gemm_default(TcMode::tf32), tc_gemm_default(TcMode::accurate)};
  }
  for (const TcConfig& cfg : cfgs) {
    std::printf("PROFILE %s\n", to_string(cfg).c_str());
    tc_gemm(cfg, pr.x.p, pr.w.p, pr.c.p, m, n, k, Epilogue{}, 0);
  }
  CK(cudaDeviceSynchronize());
}

// `interleaved` at M x N x K for every config TC_FILTER selects, each checked against
// float64 first.
void duel(int64_t m, int64_t n, int64_t k, int reps) {
  Problem pr(m, n, k);
  fill_and_reference(pr);
  std::vector<TcConfig> cfgs;
  for (const TcConfig& cfg : tc_gemm_variants()) {
    if (!selected(cfg)) continue;
    const Err e = run_ours(pr, cfg, Epilogue{});
    const bool ok = e.nonfinite == 0 && e.rel <= bound_for(cfg.mode);
    if (!ok) ++g_failures;
    std::printf("%s %lldx%lldx%lld %s: rel %.3e\n", ok ? "PASS" : "FAIL", (long long)m,
                (long long)n, (long long)k, to_string(cfg).c_str(), e.rel);
    cfgs.push_back(cfg);
  }
  for (const Interleaved& r : interleaved(pr, cfgs, reps))
    std::printf(
        "DUEL %lldx%lldx%lld %-92s median %.4f ms  p10 %.4f  p90 %.4f  x%.3f of cuBLASLt TF32 "
        "(median of %d rounds)\n",
        (long long)m, (long long)n, (long long)k, r.name.c_str(), r.median, r.p10, r.p90, r.ratio,
        reps);
}

// Back-to-back launches for `seconds` each, of cuBLASLt TF32 and of every variant
// (persistent, raster m; vec 2 and 4; with TC_GROUPS also other raster groups and raster n)
// whose text contains TC_FILTER, at M x N x K: the
// mean time per launch once the GPU has settled at its power limit, with wall-clock
// stamps (ms since the epoch) for matching clock and power samples taken beside it
// (nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw -lms ...). No L2 flush.
void soak(int64_t m, int64_t n, int64_t k, double seconds) {
  Problem pr(m, n, k);
  fill_and_reference(pr);
  const bool rounded = std::getenv("TC_SOAK_ROUND") != nullptr;
  if (rounded) {
    round_tf32<<<1024, 256>>>(pr.x.p, pr.m * pr.k);
    round_tf32<<<1024, 256>>>(pr.w.p, pr.n * pr.k);
    CK(cudaDeviceSynchronize());
  }
  auto now_ms = [] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  auto run = [&](const std::string& name, auto&& fn) {
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int i = 0; i < 20; ++i) fn();
    CK(cudaDeviceSynchronize());
    const long long t0 = now_ms();
    int launches = 0;
    CK(cudaEventRecord(e0));
    while (now_ms() - t0 < seconds * 1000) {
      for (int i = 0; i < 20; ++i, ++launches) fn();
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
    }
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    std::printf("SOAK %lldx%lldx%lld%s %s: %.4f ms per launch, %d launches, wall %lld..%lld\n",
                (long long)m, (long long)n, (long long)k, rounded ? "(rounded)" : "", name.c_str(),
                ms / launches, launches, t0, static_cast<long long>(now_ms()));
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
  };
  {
    LtGemm g(m, n, k, CUBLAS_COMPUTE_32F_FAST_TF32);
    run("cuBLASLt TF32", [&] { g.run(pr.x.p, pr.w.p, pr.c.p); });
  }
  for (const TcConfig& row : tc_gemm_variants()) {
    std::vector<TcConfig> cfgs;
    for (int vec : {2, 4}) {
      TcConfig cfg = row;
      cfg.vec = vec;
      cfgs.push_back(cfg);
    }
    if (std::getenv("TC_GROUPS")) {  // the raster's other groups and order, vec 4
      for (int group : {2, 4, 16}) {
        TcConfig cfg = cfgs.back();
        cfg.group_m = group;
        cfgs.push_back(cfg);
      }
      TcConfig cfg = cfgs[1];
      cfg.raster_n = true;
      cfgs.push_back(cfg);
    }
    for (const TcConfig& cfg : cfgs) {
      if (!selected(cfg)) continue;
      run(to_string(cfg),
          [&] { tc_gemm(cfg, pr.x.p, pr.w.p, pr.c.p, pr.m, pr.n, pr.k, Epilogue{}, 0); });
    }
  }
}

__global__ void add_in_place(float* c, const float* r, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n / 4;
       i += size_t(gridDim.x) * blockDim.x) {
    float4 v = reinterpret_cast<float4*>(c)[i];
    const float4 q = reinterpret_cast<const float4*>(r)[i];
    v.x += q.x, v.y += q.y, v.z += q.z, v.w += q.w;
    reinterpret_cast<float4*>(c)[i] = v;
  }
}

// The residual steps in the epilogue (issue 18's proj and fc2) at M x N x K (N % 4 == 0):
// every compiled row TC_FILTER selects, with TMA stores, checked against float64 with
// [add_column, add_residual] (row-major and strided residual, and mul_column, add_column,
// add_residual, mul_residual on the default), then timed (L2 flushed, median of REPS): [add_column]
// alone, with the residual in the epilogue, and followed by a separate residual add (one float4
// pass, the generated chain kernel's work); tf32 also cuBLASLt TF32 alone and with the residual as
// its C (beta = 1). The floor of the residual's cost: M * N * 4 bytes more read, at the
// copy bandwidth measured here.
void residual(int64_t m, int64_t n, int64_t k, int reps) {
  Problem pr(m, n, k);
  fill_and_reference(pr);
  const int64_t ld = n + 4;  // the strided check
  Dev<float> res(m * ld), copy(m * n);
  using tt::device_tools::hash_fill;
  hash_fill(res.p, m * ld, ++g_seed, -1.f, 1.f);
  const double bytes = double(m) * double(n) * 4;
  const double copy_ms = time_ms(
      [&] { CK(cudaMemcpyAsync(copy.p, res.p, size_t(bytes), cudaMemcpyDeviceToDevice, 0)); },
      reps);
  const double bw = 2 * bytes / (copy_ms * 1e-3);  // read + write, bytes/s
  const double floor_ms = bytes / bw * 1e3;
  std::printf("INFO %lldx%lldx%lld: copy %.4f ms = %.0f GB/s; the residual's read alone %.4f ms\n",
              (long long)m, (long long)n, (long long)k, copy_ms, bw * 1e-9, floor_ms);
  auto line = [&](const std::string& what, double ms, double base, double rel) {
    char buf[320];
    std::snprintf(
        buf, sizeof buf, "%lldx%lldx%lld %-96s %.4f ms  +%.4f vs plain (floor +%.4f)  rel %.2e",
        (long long)m, (long long)n, (long long)k, what.c_str(), ms, ms - base, floor_ms, rel);
    g_summary.push_back(buf);
    std::printf("TIME %s\n", buf);
  };
  for (TcMode mode : {TcMode::tf32, TcMode::accurate}) {
    double lt_plain = 0;
    if (mode == TcMode::tf32) {
      LtGemm g(m, n, k, CUBLAS_COMPUTE_32F_FAST_TF32);
      lt_plain = time_ms([&] { g.run(pr.x.p, pr.w.p, pr.c.p); }, reps);
      line("cuBLASLt TF32", lt_plain, lt_plain, 0);
      const double with_c = time_ms([&] { g.run_with_c(pr.x.p, pr.w.p, copy.p, pr.c.p); }, reps);
      line("cuBLASLt TF32 + residual as C (beta=1)", with_c, lt_plain, 0);
    }
    for (TcConfig cfg : tc_gemm_variants()) {
      if (cfg.mode != mode) continue;
      cfg.vec = 4;
      if (!selected(cfg)) continue;
      // Checks: strided residual after a bias; row-major; per-row scale, add and mul of one
      // residual (the default only).
      std::vector<Epilogue> checks(2);
      checks[0].add_column(pr.bias.p).add_residual(res.p, ld);
      checks[1].add_column(pr.bias.p).add_residual(copy.p, n);
      if (cfg.bm == tc_gemm_default(mode).bm && cfg.bn == tc_gemm_default(mode).bn &&
          cfg.stages == tc_gemm_default(mode).stages) {
        checks.emplace_back();
        checks.back()
            .mul_column(pr.scale.p)
            .add_column(pr.bias.p)
            .add_residual(res.p, ld)
            .mul_residual(res.p, ld);
      }
      double rel = 0;
      for (const Epilogue& ep : checks) {
        const Err e = run_ours(pr, cfg, ep);
        const bool ok = e.nonfinite == 0 && e.rel <= bound_for(mode);
        if (!ok) ++g_failures;
        rel = std::max(rel, e.rel);
        std::printf("%s %lldx%lldx%lld %s epilogue %s: rel %.3e nonfinite %.0f\n",
                    ok ? "PASS" : "FAIL", (long long)m, (long long)n, (long long)k,
                    to_string(cfg).c_str(), ep.str().c_str(), e.rel, e.nonfinite);
      }
      Epilogue plain, fused;
      plain.add_column(pr.bias.p);
      fused.add_column(pr.bias.p).add_residual(copy.p, n);
      const double t_plain =
          time_ms([&] { tc_gemm(cfg, pr.x.p, pr.w.p, pr.c.p, m, n, k, plain, 0); }, reps);
      const double t_fused =
          time_ms([&] { tc_gemm(cfg, pr.x.p, pr.w.p, pr.c.p, m, n, k, fused, 0); }, reps);
      const double t_pass = time_ms(
          [&] {
            tc_gemm(cfg, pr.x.p, pr.w.p, pr.c.p, m, n, k, plain, 0);
            add_in_place<<<1024, 256>>>(pr.c.p, copy.p, size_t(m * n));
          },
          reps);
      line(to_string(cfg) + " [add_column]", t_plain, t_plain, rel);
      line(to_string(cfg) + " [add_column,add_residual]", t_fused, t_plain, rel);
      line(to_string(cfg) + " [add_column] + add pass", t_pass, t_plain, rel);
      if (mode == TcMode::tf32) line("  (same, vs cuBLASLt TF32 alone)", t_fused, lt_plain, rel);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  try {
    if (mode == "probe") {
      std::printf("device supported: %d\n", tc_gemm_device_supported() ? 1 : 0);
      return 0;
    }
    if (mode == "soak" && argc == 6) {
      soak(std::atoll(argv[2]), std::atoll(argv[3]), std::atoll(argv[4]), std::atof(argv[5]));
      return 0;
    }
    if (mode == "duel" && argc == 6) {
      duel(std::atoll(argv[2]), std::atoll(argv[3]), std::atoll(argv[4]), std::atoi(argv[5]));
      return g_failures ? 1 : 0;
    }
    if (mode == "residual" && argc == 6) {
      residual(std::atoll(argv[2]), std::atoll(argv[3]), std::atoll(argv[4]), std::atoi(argv[5]));
      std::printf("\n==== summary (median ms, L2 flushed; rel = relative L2 error vs float64)\n");
      for (const std::string& s : g_summary) std::printf("%s\n", s.c_str());
      std::printf("failures: %d\n", g_failures);
      return g_failures ? 1 : 0;
    }
    if (mode == "profile" && argc == 5) {
      profile_once(std::atoll(argv[2]), std::atoll(argv[3]), std::atoll(argv[4]));
      return 0;
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    std::printf("INFO device %s, %d SMs, cc %d.%d\n", prop.name, prop.multiProcessorCount,
                prop.major, prop.minor);
    if (!tc_gemm_device_supported()) {
      std::printf("FAIL the device is not sm_90\n");
      return 1;
    }
    // sanitize: the small checks only, for compute-sanitizer's tools.
    const bool quick = mode == "quick" || mode == "sanitize";
    refusal_checks();
    awkward_checks(quick);
    if (mode != "awkward" && mode != "sanitize") seed_shapes(quick);
  } catch (const std::exception& e) {
    std::printf("FAIL exception: %s\n", e.what());
    ++g_failures;
  }
  std::printf("\n==== summary (median ms, L2 flushed; rel = relative L2 error vs float64)\n");
  for (const std::string& s : g_summary) std::printf("%s\n", s.c_str());
  std::printf("failures: %d\n", g_failures);
  return g_failures ? 1 : 0;
}
